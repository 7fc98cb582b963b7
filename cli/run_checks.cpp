// cli/run_checks.cpp - the checks of a plan before any I/O: --readonly, --aux-path,
// no output over an input and no side file over a target (run_checks.hpp).
#include "cli/run_checks.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>
#include <set>
#include <sys/stat.h>

#include "cli/mpi/agg_bw_log.hpp"
#include "engine/engine.h"
#include "results/store.hpp"
#include "engine/safety/preflight.h"
#include "engine/safety/safety.h"

namespace cli {

namespace {

// Does job j write or trim its targets (verify_only reads what an earlier run wrote)?
bool job_writes_targets(const plan_job &j)
{
    return (plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE) || plan_rw_has_ddir(j.rw, PLAN_DDIR_TRIM)) && !j.verify_only;
}

bool readonly_ok(const plan &p)
{
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++)
        if (job_writes_targets(*job)) {
            std::fprintf(stderr, "ioplan: error: --readonly: job '%s' writes or trims (rw=%s); nothing was run\n",
                         job->name, plan_rw_name(job->rw));
            return false;
        }
    char why[SAFETY_WHY_MAX];
    int ret = eng_layout_writes(&p, why, sizeof why);
    if (ret == -ENOMEM)
        throw std::bad_alloc();
    if (ret)
        std::fprintf(stderr, "ioplan: error: --readonly: %s; nothing was run\n", why);
    return ret == 0;
}

// --aux-path must name a directory now: a state file lost at the run's end cannot be had again.
bool aux_path_ok(const std::string &dir)
{
    struct stat sb;
    int r = dir.empty() ? 0 : stat(dir.c_str(), &sb);
    if (dir.empty() || (r == 0 && S_ISDIR(sb.st_mode)))
        return true;
    std::fprintf(stderr, "ioplan: error: --aux-path=%s: %s; nothing was run\n", dir.c_str(),
                 r ? std::strerror(errno) : "not a directory");
    return false;
}

std::string base_name(const std::string &path)
{
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A file written beside the jobs' targets that is one of them: a job's side
// file (write_bw_log=a over filename=a_bw.1.log), the results store or a
// --bandwidth-log file (inputs the cli writes): one would be written over the
// other.  Targets are resolved only when their name is one of those, so a
// 100 000-file layout costs no realpath per file.
bool side_files_apart(const plan &p, const std::vector<input_file> &inputs)
{
    std::map<std::string, std::string> side; // resolved_name -> what writes it
    std::map<std::string, std::string> kind; // resolved_name -> the option that names it
    std::set<std::string> names;
    std::string clash;
    struct acc {
        std::map<std::string, std::string> &side, &kind;
        std::set<std::string> &names;
        std::string &clash;
    } a{ side, kind, names, clash };
    // One name from two options (write_iolog=a_bw.1.log beside write_bw_log=a) is two writers
    // of one file; one option's name shared (per_job_logs=0, clones' JOB.stdout) is one writer's.
    eng_each_side_file(&p, [](void *arg, const plan_job *j, const char *option, const char *path) {
        acc *x = static_cast<acc *>(arg);
        std::string at = resolved_name(path), what = std::string("job '") + j->name + "''s " + option + " file " + path;
        auto [it, fresh] = x->kind.emplace(at, option);
        if (!fresh && it->second != option && x->clash.empty())
            x->clash = what + " is " + x->side[at];
        x->side.emplace(at, what);
        x->names.insert(base_name(path));
    }, &a);
    if (!clash.empty()) {
        std::fprintf(stderr, "ioplan: error: %s: the run would write one over the other; nothing was run\n",
                     clash.c_str());
        return false;
    }
    for (const input_file &in : inputs)
        if (in.written) {
            side.emplace(resolved_name(in.path), in.what);
            names.insert(base_name(in.path));
        }
    for (uint32_t j = 0; !side.empty() && j < p.nr_jobs; j++) {
        const plan_job *job = plan_job_at(&p, j);
        for (uint32_t c = 0; c < job->nr_clones; c++)
            for (uint32_t f = 0; f < job->clones[c].nr_files; f++) {
                const char *path = job->clones[c].files[f].path;
                auto hit = names.count(base_name(path)) ? side.find(resolved_name(path)) : side.end();
                if (hit == side.end())
                    continue;
                std::fprintf(stderr, "ioplan: error: job '%s': its file %s is %s: the run would write one "
                             "over the other; nothing was run\n", job->name, path, hit->second.c_str());
                return false;
            }
    }
    return true;
}

} // namespace

bool targets_apart(const plan &p, const pf_report &pf, const std::vector<input_file> &inputs)
{
    // The jobs' side files that exist too: a write_iolog= or a log by a link's name (a symbolic
    // link or hard link to a target) passed side_files_apart's look at names, and the iolog
    // was appended to the job's data file.
    std::vector<input_file> all(inputs);
    eng_each_side_file(&p, [](void *arg, const plan_job *j, const char *option, const char *path) {
        static_cast<std::vector<input_file> *>(arg)->push_back(
            {path, std::string("job '") + j->name + "''s " + option + " file " + path, true});
    }, &all);
    std::map<std::pair<dev_t, ino_t>, const input_file *> held;
    struct stat st;
    for (const input_file &in : all)
        if (stat(in.path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
            held.emplace(std::make_pair(st.st_dev, st.st_ino), &in);
    for (uint32_t j = 0; const plan_job *job = held.empty() ? nullptr : plan_job_at(&p, j); j++)
        for (uint32_t c = 0; c < job->nr_clones; c++)
            for (uint32_t f = 0; f < job->clones[c].nr_files; f++) {
                const char *path = job->clones[c].files[f].path;
                const tgt_seen *s = pf_seen_of(&pf, path);
                auto hit = s && s->ino && s->regular ? held.find({s->dev, s->ino}) : held.end();
                // What the run writes beside it is replaced by any job; what it reads, by a writer.
                if (hit == held.end() || !(hit->second->written || job_writes_targets(*job)))
                    continue;
                std::fprintf(stderr, "ioplan: error: job '%s': its file %s is %s (another name of the same "
                             "file): the run would write one over the other; nothing was run\n", job->name, path,
                             hit->second->what.c_str());
                return false;
            }
    return true;
}

// --trigger-file is removed when it is found, as fio removes it: one that holds data
// before the run (a user's file named by mistake) would be lost in the first second,
// the run stopped with it.  Refused instead; an empty one is a trigger already pulled.
bool trigger_file_ok(const std::string &path)
{
    struct stat st;
    if (path.empty() || lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return true; // a link or a node is removed, not what it names; a directory is not removed
    std::fprintf(stderr, "ioplan: error: --trigger-file=%s exists and holds data (%lld bytes): the run would "
                 "stop at once and remove it (fio 3.33 does); name a file that does not exist yet; nothing was "
                 "run\n", path.c_str(), static_cast<long long>(st.st_size));
    return false;
}

bool check_run_flags(const args &a, const plan &p)
{
    return aux_path_ok(a.aux_path) && trigger_file_ok(a.trigger_file) && (!a.readonly || readonly_ok(p));
}

std::vector<input_file> run_inputs(const args &a, const plan &p, const plan_source *src)
{
    std::vector<input_file> in;
    for (const std::string &f : src ? src->job_names : std::vector<std::string>{})
        in.push_back({f, "the job file " + f + " being read"});
    for (const std::string &f : src ? src->included : std::vector<std::string>{})
        in.push_back({f, "the job file " + f + ", included"});
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++) {
        // read_iolog= may list blktrace files to merge, ':'-separated.
        std::string list = job->read_iolog_path ? job->read_iolog_path : "";
        for (size_t at = 0; !list.empty() && at <= list.size();) {
            size_t end = std::min(list.find(':', at), list.size());
            in.push_back({list.substr(at, end - at), std::string("the trace job '") + job->name + "' replays"});
            at = end + 1;
        }
    }
    try {
        std::string db = !a.save ? "" : a.results_db.empty() ? resdb::default_path() : a.results_db;
        for (input_file &f : db.empty() ? std::vector<input_file>{} : store_inputs(db))
            in.push_back(f);
    } catch (const resdb::store_error &) {
        // No default store to name (no home): save_store_ok() refuses the run and says why.
    }
    // Not read, but written by the cli beside the report: no output may be one of them.
    for (int d = 0; a.bandwidth_log && d < PLAN_DDIR_NR; d++) {
        std::string f = agg_bw_log_path(".", d);
        in.push_back({f, "the --bandwidth-log file " + f.substr(2), true});
    }
    return in;
}

bool job_directories_ok(const plan &p)
{
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++) {
        struct stat st;
        if (!job->missing_directory)
            continue;
        bool there = stat(job->missing_directory, &st) == 0;
        std::fprintf(stderr, "ioplan: error: job '%s': directory=%s %s (fio refuses it too; a mount point not "
                     "mounted would be measured on the filesystem beneath); nothing was run\n", job->name,
                     job->missing_directory, !there ? "does not exist" : S_ISREG(st.st_mode) ?
                     "is a regular file, not a directory" : "is not a directory");
        return false;
    }
    return true;
}

bool job_outputs_ok(const plan &p, const std::vector<input_file> &inputs)
{
    if (!side_files_apart(p, inputs))
        return false;
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++) {
        const input_file *in = job->write_iolog_path ? input_named(job->write_iolog_path, inputs) : nullptr;
        if (in) {
            std::fprintf(stderr, "ioplan: error: job '%s': write_iolog=%s is %s: the run would write over it; "
                         "nothing was run\n", job->name, job->write_iolog_path, in->what.c_str());
            return false;
        }
    }
    return true;
}

namespace {

// The job whose file the --output file is (the report would replace the
// data the run used), or null.
const plan_job *job_writing_to(const plan &p, const output_file &out)
{
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++)
        for (uint32_t c = 0; c < job->nr_clones; c++)
            for (uint32_t f = 0; f < job->clones[c].nr_files; f++)
                if (out.is(job->clones[c].files[f].path))
                    return job;
    return nullptr;
}

// The file a job writes besides its targets (a log, its write_iolog, ...) that
// the --output file is, as "job 'a': write_bw_log file a_bw.1.log", or "".
std::string side_file_at(const plan &p, const output_file &out)
{
    struct visit {
        const output_file &out;
        std::string hit;
    } seen{ out, "" };
    eng_each_side_file(&p, [](void *arg, const plan_job *j, const char *option, const char *path) {
        visit *v = static_cast<visit *>(arg);
        if (v->hit.empty() && v->out.is(path))
            v->hit = std::string("job '") + j->name + "''s " + option + " file " + path;
    }, &seen);
    return seen.hit;
}

} // namespace

bool open_output(const plan &p, const std::string &path, const std::vector<input_file> &inputs,
                 output_file *out)
{
    std::string err;
    if (names_input(path, inputs, "the results"))
        return false;
    if (!out->open(path, &err)) {
        std::fprintf(stderr, "ioplan: error: --output=%s: %s\n", path.c_str(), err.c_str());
        return false;
    }
    if (const plan_job *job = job_writing_to(p, *out)) {
        std::fprintf(stderr, "ioplan: error: --output=%s is a file of job '%s': the results would replace it\n",
                     path.c_str(), job->name);
        return false;
    }
    std::string side = side_file_at(p, *out);
    if (!side.empty()) {
        std::fprintf(stderr, "ioplan: error: --output=%s is %s: the results and it would be one file\n",
                     path.c_str(), side.c_str());
        return false;
    }
    return !out->replaces(inputs, "the results");
}


} // namespace cli

// cli/mpi/run_ranks.cpp - the steps of a run that concern ranks (run_ranks.hpp).
#include "cli/mpi/run_ranks.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "cli/output.hpp"
#include "engine/safety/safety.h"

namespace cli {

namespace {

// A rank's file is named by ioplan: a user's file by that name is kept.
const unsigned rank_file_how = SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES;

std::string rank_file_path(const std::string &dir, int rank)
{
    return dir + "/rank-" + std::to_string(rank) + ".json";
}

// The temporary names a rank file passes through: ".rank-R.json." and 6 characters.
std::string temporary_prefix(int rank)
{
    return ".rank-" + std::to_string(rank) + ".json.";
}

// What a run stopped mid-write left of rank's file: its temporary, named
// only where the filesystem has no unnamed files (O_TMPFILE), or for the
// moment between naming a whole file and renaming it.  One that bears
// ioplan's mark is a whole rank file of ours, set aside: removed.  Any other
// may be a torn one or someone else's: named, and left for the user.
void stale_temporaries(const std::string &dir, int rank)
{
    DIR *d = opendir(dir.c_str());
    if (!d)
        return;
    std::string prefix = temporary_prefix(rank);
    std::vector<std::string> names; // all read first: a temporary judged is renamed and back
    while (struct dirent *e = readdir(d))
        if (std::strlen(e->d_name) == prefix.size() + 6 && std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0)
            names.push_back(e->d_name);
    closedir(d);
    for (const std::string &name : names) {
        std::string path = dir + "/" + name;
        struct stat st;
        if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (safety_remove_own_output(path.c_str()) == 0)
            continue;
        std::fprintf(stderr, "ioplan: warning: --rank-output: %s: the temporary of a rank file that a stopped run "
                     "did not finish; not ioplan's whole file, so it is left for you to remove\n", path.c_str());
    }
}

// An unnamed file in dir (O_TMPFILE), or a named temporary where the
// filesystem has none (NFS): fd, with *tmp "" for the unnamed one.
int open_temporary(const std::string &dir, int rank, std::string *tmp)
{
    tmp->clear();
    int fd = open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    *tmp = dir + "/" + temporary_prefix(rank) + "XXXXXX";
    return mkostemp(tmp->data(), O_CLOEXEC);
}

// Puts the file named tmp at path.  One there already is replaced only when
// ioplan's own (the preflight judged it, but a user's may have been renamed
// there since): the two are exchanged atomically and the old one, now under
// the temporary name, judged there and removed, or exchanged back (-EEXIST).
int replace_rank_file(const std::string &tmp, const std::string &path)
{
    const char *t = tmp.c_str(), *p = path.c_str();
    if (renameat2(AT_FDCWD, t, AT_FDCWD, p, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno == EEXIST && renameat2(AT_FDCWD, t, AT_FDCWD, p, RENAME_EXCHANGE) == 0) {
        // The old file is under the temporary name now; one not removed there
        // for another reason is a stopped run's temporary, for the next run.
        if (safety_remove_own_output(t) != -ESTALE)
            return 0;
        renameat2(AT_FDCWD, t, AT_FDCWD, p, RENAME_EXCHANGE); // a user's: back under its name
        return -EEXIST;
    }
    if (errno == EINVAL) // neither flag on this file system: the preflight's judgement stands
        return rename(t, p) == 0 ? 0 : -errno;
    return -errno;
}

// Names the whole, marked file fd: an unnamed one is linked under a fresh
// temporary name first (a link cannot replace a file), then put at path.
int name_rank_file(int fd, const std::string &dir, int rank, std::string *tmp, const std::string &path)
{
    char proc[64];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    for (int tries = 0; tmp->empty(); tries++) {
        std::string name = dir + "/" + temporary_prefix(rank) + new_run_id().substr(0, 6);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
            *tmp = name;
        else if (errno != EEXIST || tries == 100)
            return -errno;
    }
    int ret = replace_rank_file(*tmp, path);
    if (ret == 0)
        tmp->clear(); // named: nothing of it left to remove
    return ret;
}

} // namespace

bool rank_output_ok(const std::string &dir, int rank)
{
    struct stat st;
    int there = stat(dir.c_str(), &st) == 0 ? 0 : errno;
    if (there || !S_ISDIR(st.st_mode)) {
        std::fprintf(stderr, "ioplan: error: --rank-output=%s: %s\n", dir.c_str(),
                     there == ENOENT ? "no such directory" : there ? strerror(there)
                                                            : "not a directory (the rank files go in a directory)");
        return false;
    }
    char why[SAFETY_WHY_MAX];
    std::string path = rank_file_path(dir, rank);
    // A read-only directory is found now, not when the rank file is written after the run.
    if (!safety_check_output(&safety_system, path.c_str(), rank_file_how, why, sizeof(why)) &&
        !safety_check_writable(path.c_str(), why, sizeof(why))) {
        stale_temporaries(dir, rank);
        return true;
    }
    std::fprintf(stderr, "ioplan: error: --rank-output=%s: %s\n", dir.c_str(), why);
    return false;
}

std::string default_rank_dir(const std::string &run_id)
{
    const char *xdg = std::getenv("XDG_STATE_HOME");
    std::string base;
    if (xdg && *xdg == '/') {
        base = xdg;
    } else {
        const char *home = std::getenv("HOME");
        struct passwd pw, *found = nullptr;
        char buf[4096];
        if (home && *home == '/')
            base = std::string(home) + "/.local/state";
        else if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &found) == 0 && found && found->pw_dir &&
                 found->pw_dir[0] == '/')
            base = std::string(found->pw_dir) + "/.local/state";
    }
    if (base.empty() || run_id.empty())
        return "";
    return base + "/ioplan/ranks/" + run_id;
}

std::string make_default_rank_dir(const std::string &dir, uint32_t rank)
{
    if (dir.empty())
        return "no home directory to keep it in (HOME and XDG_STATE_HOME are not set)";
    // Each part made in turn (a rank of the same host or home may make it first).
    for (size_t at = dir.find('/', 1);; at = dir.find('/', at + 1)) {
        std::string part = dir.substr(0, at);
        if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
            return part + ": " + strerror(errno);
        if (at == std::string::npos)
            break;
    }
    char why[SAFETY_WHY_MAX];
    std::string path = rank_file_path(dir, static_cast<int>(rank));
    if (safety_check_output(&safety_system, path.c_str(), rank_file_how, why, sizeof(why)) ||
        safety_check_writable(path.c_str(), why, sizeof(why)))
        return why;
    return "";
}

void drop_default_rank_file(const std::string &dir, uint32_t rank)
{
    std::string path = rank_file_path(dir, static_cast<int>(rank));
    (void)safety_remove_own_output(path.c_str()); // only ioplan's own file, never a user's
    (void)rmdir(dir.c_str());                     // the last rank's removal empties it
}

void say_kept(const world &w, const std::string &dir)
{
    static bool said = false;
    if (w.rank() == 0 || said)
        return; // rank 0 reports the world itself
    said = true;
    std::fprintf(stderr, "ioplan: rank %u (%s): what it measured is kept in %s/rank-%u.json (each group as it "
                 "ends) until rank 0 reports the world; if the world ends first, `ioplan merge --partial "
                 "%s/rank-*.json` reports it\n",
                 w.rank(), w.host().c_str(), dir.c_str(), w.rank(), dir.c_str());
}

std::string stale_rank_files(const std::string &dir, uint32_t nranks)
{
    DIR *d = opendir(dir.c_str());
    if (!d)
        return "";
    std::vector<unsigned long> beyond;
    while (struct dirent *e = readdir(d)) {
        unsigned long r = 0;
        int end = 0;
        if (std::sscanf(e->d_name, "rank-%lu.json%n", &r, &end) == 1 && !e->d_name[end] &&
            std::isdigit((unsigned char)e->d_name[5]) && r >= nranks)
            beyond.push_back(r);
    }
    closedir(d);
    if (beyond.empty())
        return "";
    std::sort(beyond.begin(), beyond.end());
    std::string which = "rank-" + std::to_string(beyond.front()) + ".json";
    if (beyond.size() > 1)
        which += (beyond.size() > 2 ? " to rank-" : " and rank-") + std::to_string(beyond.back()) + ".json";
    return "--rank-output=" + dir + " also holds " + which + ", left by a run of more ranks than this one's " +
           std::to_string(nranks) + ": `ioplan merge` refuses them with this run's files; merge rank-0.json to rank-" +
           std::to_string(nranks - 1) + ".json, or move them away";
}

std::string first_finding(const pf_report &pf)
{
    for (uint32_t i = 0; i < pf.nr; i++)
        if (pf.findings[i].level == RES_MSG_ERROR && !pf.findings[i].job_fails)
            return std::string("preflight: ") + pf.findings[i].text;
    return "preflight: warnings are fatal (--warnings-fatal)";
}

// Says msg unless it is what this rank said last: a rank file the disk has no
// room for is tried again after every group, and one line says so.
static void say_once(const std::string &msg)
{
    static std::string last;
    if (msg == last)
        return;
    last = msg;
    std::fprintf(stderr, "%s\n", msg.c_str());
}

// Written as an unnamed file in the directory and named only when whole
// (then renamed over the last): a rank stopped (or a disk filled) mid-write
// leaves the previous group's file or none, never a torn, empty or
// temporary one, and a reader of the directory never sees half a document.
bool write_rank_file(const std::string &dir, const results &r, const rank_info &who, const plan_source *src,
                     bool by_default)
{
    // The default directory is kept for the user's sake, not asked for: its faults are warnings.
    const std::string said = by_default ? "ioplan: warning: keeping the rank's result: " : "ioplan: error: --rank-output: ";
    std::string path = rank_file_path(dir, who.rank);
    char why[SAFETY_WHY_MAX];
    if (safety_check_output(&safety_system, path.c_str(), rank_file_how, why, sizeof(why))) {
        say_once(said + path + ": " + why);
        return false;
    }
    rank_info named = who;
    if (named.host.empty()) // a run without mpirun: rank 0 of 1 on this host
        named.host = std::string(r.hostname, strnlen(r.hostname, sizeof(r.hostname)));
    if (named.run_id.empty())
        named.run_id = new_run_id();
    std::string text = rank_file_text(r, named, src ? *src : plan_source{});
    std::string tmp;
    int fd = open_temporary(dir, static_cast<int>(who.rank), &tmp);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) != 0) {
        close(fd); // not known, so never removed: an empty temporary may be left
        fd = -1;
    }
    if (fd < 0) {
        say_once(said + path + ": " + strerror(errno));
        return false;
    }
    // Named by the file it becomes: the temporary name means nothing to a user.
    int werr = write_whole(fd, text);
    if (!werr && fsync(fd) != 0)
        werr = errno;
    if (werr)
        say_once((by_default ? said + "writing " : std::string("ioplan: error: writing the rank's result to ")) + path +
                 ": " + strerror(werr));
    bool ok = !werr;
    if (ok)
        safety_mark_output(fd); // ioplan's own: the next run may replace it
    int err = ok ? name_rank_file(fd, dir, static_cast<int>(who.rank), &tmp, path) : 0;
    close(fd);
    if (err == -EEXIST)
        std::fprintf(stderr, "%s%s: a file ioplan did not write was put at that name during the run; it is kept, "
                     "and this rank's file is not written\n", said.c_str(), path.c_str());
    else if (err)
        say_once(said + path + ": " + strerror(-err));
    ok = ok && !err;
    if (!ok && !tmp.empty())
        (void)safety_remove_made(tmp.c_str(), st.st_dev, st.st_ino);
    return ok;
}

namespace {

void identity_lines(std::string &out, const std::string &where, const std::vector<parser::entry> &entries)
{
    for (const parser::entry &e : entries)
        out += where + "\t" + e.key + (e.substituted ? "=(per rank)" : e.has_value ? "=" + e.value : "") + "\n";
}

} // namespace

std::string plan_identity(const parser::request &req, const std::vector<parser::document> &docs)
{
    std::string out;
    for (const std::string &s : req.only_sections)
        out += "--section\t" + s + "\n";
    identity_lines(out, "the command line", req.cli_globals);
    for (size_t d = 0; d < docs.size(); d++) {
        out += "job file " + std::to_string(d + 1) + "\n";
        for (const parser::section &s : docs[d].sections)
            identity_lines(out, s.is_global ? "[" + s.name + "]" : "job '" + s.name + "'", s.entries);
    }
    for (const parser::section &s : req.cli_jobs)
        identity_lines(out, "job '" + s.name + "' (command line)", s.entries);
    return out;
}

std::string plan_shape(const plan &p)
{
    std::string out;
    for (uint32_t g = 0; g < p.nr_groups; g++)
        for (uint32_t j = 0; j < p.groups[g].nr_jobs; j++) {
            const plan_job &job = p.groups[g].jobs[j];
            out += std::string("job '") + (job.name ? job.name : "") + "' as planned\tnumjobs=" +
                   std::to_string(job.nr_clones) + ", group " + std::to_string(p.groups[g].id) + ", repeat=" +
                   std::to_string(job.repeat) + "+" + std::to_string(job.repeat_discard) + "\n";
        }
    return out;
}

void name_logs_per_rank(plan *p, const world &w)
{
    std::string tail = "." + w.host() + "." + std::to_string(w.rank());
    for (uint32_t g = 0; g < p->nr_groups; g++)
        for (uint32_t j = 0; j < p->groups[g].nr_jobs; j++) {
            plan_job &job = p->groups[g].jobs[j];
            std::free(job.log_suffix);
            job.log_suffix = plan_strdup(tail.c_str());
            // Every rank appending its trace to one write_iolog= file left one no replay reads.
            if (job.write_iolog_path) {
                char *one = job.write_iolog_path;
                job.write_iolog_path = plan_strdup((one + tail).c_str());
                std::free(one);
            }
        }
}

int merge_ranks(world *w, results *r, const plan_source *src, double straggler_pct, bool threads)
{
    std::string problems = w->merge(r, src ? *src : plan_source{}, straggler_pct, threads);
    if (problems.empty())
        return 0;
    std::fprintf(stderr, "ioplan: error: results not merged: %s", problems.c_str());
    return 1;
}

} // namespace cli

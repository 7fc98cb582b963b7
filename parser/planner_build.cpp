// parser/planner_build.cpp - jobs -> plan memory, one at a time: group ids as fio
// assigns them, clones with seeds, and each clone's files (a job is finalized
// first: job_finalize.cpp).
#include "parser/planner.hpp"
#include "parser/options.hpp"
#include "parser/values.hpp"
#include "engine/gen/taus258.h"

#include <algorithm>
#include <new>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <dirent.h>

namespace parser {

std::string job_name(const job_def &d)
{
    return d.spec.name.empty() ? d.section : d.spec.name;
}

// Where a job set an option in its own section (or on the command line, which
// comes after it); its header when it inherited it.
const loc &option_loc(const job_def &d, const char *key)
{
    // The last one set is the one in effect, under any of its names (blocksize= is bs=).
    const option *o = find_option(key);
    for (auto e = d.spec.echo.rbegin(); e != d.spec.echo.rend(); ++e)
        if (e->key == key || (o && find_option(e->key) == o))
            return e->has_value && e->value_loc.known() ? e->value_loc : e->key_loc;
    return d.header;
}

namespace {

// io_trace records stay in memory until the report: the plan's total is
// bounded (plan.h) so neither memory nor the report's time grows with a run.
void replace_keyword(std::string &s, const char *kw, const std::string &with)
{
    size_t n = strlen(kw);
    for (size_t p = 0; (p = s.find('$', p)) != std::string::npos;) {
        if (strncasecmp(s.c_str() + p, kw, n) == 0) {
            s.replace(p, n, with);
            p += with.size();
        } else {
            p++;
        }
    }
}

// This process's MPI rank (cli/ sets IOPLAN_RANK before parsing), else 0.
uint64_t rank_index()
{
    const char *rank = getenv("IOPLAN_RANK");
    return rank ? strtoull(rank, nullptr, 10) : 0;
}

// fio's filename_format, keyword after keyword as fio's make_filename replaces
// them (a name holding `$filenum` gets it replaced too).  What does not depend on
// the file is replaced once per clone, in the same order, into `pre`.
struct name_format {
    std::string pre, rank, host;
    name_format(const job_spec &s, const std::string &name, uint32_t clone) : pre(s.filename_format)
    {
        // Scale-out (mpirun): the rank and host cli/ set before parsing, else rank 0 of this host.
        const char *r = getenv("IOPLAN_RANK"), *h = getenv("IOPLAN_HOST");
        rank = r ? r : "0";
        host = h ? h : "localhost";
        replace_keyword(pre, "$jobname", name);
        replace_keyword(pre, "$jobnum", std::to_string(clone));
    }
    std::string of(uint32_t filenum) const
    {
        std::string f = pre;
        if (f.find('$') == std::string::npos)
            return f;
        replace_keyword(f, "$filenum", std::to_string(filenum));
        replace_keyword(f, "$rank", rank);
        replace_keyword(f, "$host", host);
        replace_keyword(f, "$clientuid", ""); // fio: the client's address, empty outside client/server mode
        return f;
    }
};

// fio puts directory= before every name, an absolute one too (directory=/d
// filename=/x opens /d//x): a job moved under another directory never reaches
// back to the path it named.
std::string join_dir(const std::string &dir, const std::string &name)
{
    if (dir.empty())
        return name;
    return dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool is_special_file(const std::string &path)
{
    struct stat sb;
    return stat(path.c_str(), &sb) == 0 && (S_ISBLK(sb.st_mode) || S_ISCHR(sb.st_mode));
}

// Which of many files of one directory are devices.  A stat each (a path walk,
// and a lookup of a name that is mostly not there yet) was 4% of the CPU time
// of a layout of 100 000 small files; the directory read once tells the same
// for every name but the few whose entry type does not say (a link, a device,
// a file system without types), which are looked at.  A directory far larger
// than the files asked for is not read: a stat each costs less there.
class device_names {
public:
    device_names(const std::vector<std::string> &paths, const std::string &dir)
    {
        if (dir.empty() || paths.size() < 64)
            return;
        for (const std::string &p : paths)
            if (p.size() <= dir.size() || p.compare(0, dir.size(), dir) || p.find('/', dir.size()) != p.npos)
                return;
        listed_ = list(dir, 4 * paths.size() + 1024);
    }

    bool is_device(const std::string &path, size_t base) const
    {
        if (listed_ && (unsure_.empty() || !unsure_.count(path.substr(base))))
            return false;
        return is_special_file(path);
    }

private:
    bool list(const std::string &dir, size_t most)
    {
        DIR *d = opendir(dir.c_str());
        if (!d)
            return false;
        size_t n = 0;
        bool whole = true;
        while (const dirent *e = readdir(d)) {
            if (++n > most) {
                whole = false;
                break;
            }
            if (e->d_type != DT_REG && e->d_type != DT_DIR)
                unsure_.emplace(e->d_name);
        }
        closedir(d);
        return whole;
    }

    bool listed_ = false;
    std::unordered_set<std::string> unsure_;  // names whose entry type leaves it open
};

} // namespace

// fio's spelling of dir joined with name where it is not join_dir's: fio always
// puts a '/' between them (directory=d/ gives d//x); empty where they agree.
static std::string fio_spelling(const std::string &dir, const std::string &name)
{
    return !dir.empty() && dir.back() == '/' ? dir + "/" + name : std::string();
}

// File paths of one clone, as fio lays them out (reference/fio.md §1.3); with
// fio_names, each one's fio_spelling too.
std::vector<std::string> clone_paths(const job_def &d, const std::string &name, uint32_t clone,
                                     std::vector<std::string> *fio_names)
{
    const job_spec &s = d.spec;
    std::vector<std::string> out;
    if (!s.filenames.empty()) {
        for (const named_file &f : s.filenames) {
            out.push_back(join_dir(f.dir, f.name));
            if (fio_names)
                fio_names->push_back(fio_spelling(f.dir, f.name));
        }
        return out;
    }
    if (s.pj.nrfiles == 1 && is_special_file(name)) {
        if (fio_names)
            fio_names->emplace_back();
        return {name};
    }
    std::string dir = s.directories.empty() ? "" : s.directories[clone % s.directories.size()];
    const name_format format(s, name, clone);
    out.reserve(s.pj.nrfiles);
    for (uint32_t f = 0; f < s.pj.nrfiles; f++) {
        out.push_back(join_dir(dir, format.of(f)));
        if (fio_names)
            fio_names->push_back(fio_spelling(dir, format.of(f)));
    }
    return out;
}

namespace {

static uint64_t fio_seed(const job_spec &s, const plan_clone &pc, uint64_t off);

// fio's get_rand_file_size: each file of a filesize= range takes the next draw
// of the job's file_size_state (seed FIO_RAND_FILE_SIZE_OFF), cut to the
// smallest block size, so the files and the job's amount are fio's
// (nrfiles=3 filesize=256k-1m: 1340 KiB in all).
// A file whose size already lies in the range keeps it and takes no draw, as
// fio's setup_files: the size found (found_size), or under the null engine, which
// has no file, size= over nrfiles (filesize=128k-256k size=256k: 256 KiB).
static uint64_t file_size(const plan_job &j, uint32_t nfiles, bool extra, frand &draws, uint64_t found)
{
    if (!j.filesize_min_bytes)
        return j.size_bytes / nfiles + (extra ? plan_min_bs(&j) : 0);
    uint64_t span = j.filesize_max_bytes - j.filesize_min_bytes;
    if (!span)
        return j.filesize_min_bytes;
    if (j.ioengine == PLAN_IOENGINE_NULL)
        found = j.size_bytes / nfiles;
    if (found >= j.filesize_min_bytes && found <= j.filesize_max_bytes)
        return found;
    uint64_t size = j.filesize_min_bytes + frand_below(&draws, span);
    return size - size % plan_min_bs(&j);
}

// The size fio's setup of a job finds a file at: what the setups of the jobs
// planned before it left (fio sets every job's files up, in job and clone
// order, before any job runs), else the regular file on disk (0: none).
static uint64_t found_size(const std::string &path, const std::unordered_map<std::string, uint64_t> &set_up)
{
    auto it = set_up.find(path);
    if (it != set_up.end())
        return it->second;
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

// What fio's setup of clone c leaves file pf at, found at found (its extend_file,
// as engine/layout/layout_found.c has it): a file shorter than the region is laid
// out to the region's end by a job that reads it or overwrites it, else sized by
// fallocate=, else left empty when fio removed it first (fallocate=none or keep).
// A share of a size not known yet, a device or a file no setup sizes is left out:
// later jobs find it as it is on disk.
static void note_set_up(const plan_job &j, const plan_clone &c, const plan_file &pf, uint64_t found,
                        std::unordered_map<std::string, uint64_t> &set_up)
{
    if (pf.is_device || pf.offset_ppm || pf.size_ppm || j.ioengine == PLAN_IOENGINE_NULL || j.create_on_open ||
        plan_fills_device(&j))
        return;
    uint64_t end = c.offset_bytes + pf.size_bytes;
    bool sizes = plan_rw_has_ddir(j.rw, PLAN_DDIR_READ) || (j.overwrite && !j.file_append) ||
                 (j.fallocate != PLAN_FALLOCATE_NONE && j.fallocate != PLAN_FALLOCATE_KEEP);
    bool unlinks = plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE) && !j.overwrite && !j.file_append;
    set_up[pf.path] = end <= found ? found : sizes ? end : unlinks ? 0 : found;
}

// fio's file_append (get_start_offset): a regular file's I/O starts at its end,
// whatever offset= says.  That end is the file's size when the job's files are
// set up, after the earlier jobs' (engine/layout: layout_size_found), so the
// plan holds no offset for it; a device keeps offset=.
void append_at_end(plan_file &pf, const plan_job &j)
{
    if (!j.file_append || pf.is_device)
        return;
    pf.offset_bytes = 0;
    pf.offset_ppm = 0;
}

// fio's add_file (filesetup.c) for the files it names itself (no filename=,
// no read_iolog): the first clone of a job with numjobs>1 claims each path it
// adds, for the whole run; a later clone (of this job or of a later one) whose
// generated path is claimed gets no such file, unless the name, as generated
// and before directory=, exists and is not a regular file (a device, a FIFO,
// a symlink: lstat).  So filename_format=shared.dat numjobs=2 gives the second
// clone no file: it runs, does no I/O and reports no error.
bool claimed_by_first_clone(const job_def &d, const std::string &name, uint32_t clone, uint32_t f,
                            const std::string &path, std::unordered_set<std::string> &claimed)
{
    const job_spec &s = d.spec;
    if (!s.filenames.empty() || !s.read_iolog.empty())
        return false;
    if (!clone) {
        if (s.numjobs > 1)
            claimed.insert(path);
        return false;
    }
    if (claimed.empty() || !claimed.count(path))
        return false;
    // The name as generated, before directory=, is what fio looks at.
    std::string generated = s.pj.nrfiles == 1 && is_special_file(name) ? name : name_format(s, name, clone).of(f);
    struct stat sb;
    return lstat(generated.c_str(), &sb) != 0 || S_ISREG(sb.st_mode);
}

void fill_files(plan_clone &c, const job_def &d, const plan_job &j, const std::string &name,
                std::unordered_set<std::string> &claimed, std::unordered_map<std::string, uint64_t> &set_up,
                file_spellings &spellings)
{
    std::vector<std::string> spelled;
    std::vector<std::string> paths = clone_paths(d, name, c.clone_index, &spelled);
    for (std::string &path : paths)
        path = spellings.of(path);  // a file an earlier job named otherwise keeps that name
    const uint32_t nfiles = (uint32_t)paths.size(); // fio sizes each file from nrfiles, kept or not
    std::vector<std::string> kept, kept_spelled;
    kept.reserve(paths.size());
    for (uint32_t f = 0; f < nfiles; f++)
        if (!claimed_by_first_clone(d, name, c.clone_index, f, paths[f], claimed)) {
            kept.push_back(std::move(paths[f]));
            kept_spelled.push_back(std::move(spelled[f]));
        }
    paths.swap(kept);
    c.nr_files = (uint32_t)paths.size();
    c.files = (plan_file *)plan_calloc(paths.size() ? paths.size() : 1, sizeof(plan_file));
    frand draws{};
    const uint64_t file_size_off = 7;  // fio's FIO_RAND_FILE_SIZE_OFF
    frand_seed(&draws, fio_seed(d.spec, c, file_size_off), j.random_tausworthe64);
    const std::string dir = d.spec.filenames.empty() && !d.spec.directories.empty()
                                ? join_dir(d.spec.directories[c.clone_index % d.spec.directories.size()], "")
                                : std::string();
    const device_names devices(paths, d.dropped ? std::string() : dir);
    const uint32_t extra = plan_files_with_extra_block(&j, nfiles);
    for (uint32_t f = 0; f < c.nr_files; f++) {
        plan_file &pf = c.files[f];
        pf.path = plan_strdup(paths[f].c_str());
        if (!kept_spelled[f].empty())
            pf.fio_name = plan_strdup(kept_spelled[f].c_str());
        // A job only checked (--parse-only drops it) leaves no size for later ones: nothing runs.
        const uint64_t found = j.filesize_min_bytes || !d.dropped ? found_size(paths[f], set_up) : 0;
        pf.size_bytes = file_size(j, nfiles, f < extra, draws, found);
        pf.size_ppm = j.size_ppm;
        pf.offset_bytes = j.offset_bytes;
        pf.offset_ppm = j.offset_ppm;
        pf.is_device = !d.dropped && devices.is_device(paths[f], dir.size());
        append_at_end(pf, j);
        if (!d.dropped)
            note_set_up(j, c, pf, found, set_up);
    }
}

uint64_t os_seed()
{
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, 0) != sizeof s)
        s = (uint64_t)time(nullptr);
    return s;
}

plan_kv *echo_kvs(const std::vector<entry> &entries, const std::vector<uint32_t> &at, uint32_t *n)
{
    // Later values replace earlier ones in place, so keys stay unique (fio repeats them,
    // and a reader keeps the last); a later bare flag has no value to echo and leaves the
    // earlier one (time_based=10 then time_based: fio shows "10").
    // fio records an option under its own name, not the alias typed (readwrite= is "rw").
    // The plan keeps them as typed (its hash covers them); each knows fio's place.
    struct kv_at {
        std::string key, value;
        uint32_t place;
    };
    std::vector<kv_at> kv;
    for (size_t i = 0; i < entries.size(); i++) {
        const option *o = find_option(entries[i].key);
        std::string key = o ? o->name : entries[i].key;
        auto it = std::find_if(kv.begin(), kv.end(), [&](const kv_at &p) { return p.key == key; });
        if (it != kv.end()) {
            if (entries[i].has_value)
                it->value = shown_value(entries[i].value);
        } else
            kv.push_back({key, shown_value(entries[i].value), i < at.size() ? at[i] : (uint32_t)i});
    }
    *n = (uint32_t)kv.size();
    plan_kv *out = (plan_kv *)plan_calloc(kv.size() ? kv.size() : 1, sizeof(plan_kv));
    for (size_t i = 0; i < kv.size(); i++) {
        out[i].key = plan_strdup(kv[i].key.c_str());
        out[i].value = plan_strdup(kv[i].value.c_str());
        out[i].fio_at = kv[i].place;
    }
    return out;
}

// fio's setup_random_seeds: a repeatable job's seed k is randseed * 0x9e370001^(4+k) *
// thread_number + k, of which its 32-bit generators take the low half; the rw mix
// draws from seed 4 (FIO_RAND_MIX_OFF), the block sizes from seeds 0-2, so a job
// makes fio's decisions draw for draw.  allrandrepeat replaces them all with
// 0xb1899bed * thread_number + k (td_fill_rand_seeds).  Otherwise fio's seeds are
// random, and so are these (each from the clone's own seed).
static uint64_t fio_seed(const job_spec &s, const plan_clone &pc, uint64_t off)
{
    const uint64_t mul = 0x9e370001ull;
    if (s.allrandrepeat)
        return 0xb1899bedull * pc.thread_number + off;
    if (!s.pj.randrepeat && !s.randseed_set) {
        uint64_t x = pc.seed + off * mul;
        return x ^ (x >> 32);
    }
    uint64_t seed = s.pj.randseed;
    for (uint64_t i = 0; i < 4 + off; i++)
        seed *= mul;
    return seed * pc.thread_number + off;
}

// fio's td_fill_rand_seeds_internal: verify reads draw the sizes the writes drew,
// trimwrite's writes the trims' sizes; a repeatable job's offsets come from
// 0xb1899bed * thread_number whatever randseed is.  fio's clones are seeded after
// the job's fixup_options, where randseed= has turned rand_repeatable off: a
// clone's offsets come from randseed's own seed (numjobs=2 randseed=N: clone 2).
static void fio_seeds(const job_spec &s, plan_clone &pc)
{
    const bool repeatable = s.pj.randrepeat && !(s.randseed_set && pc.clone_index > 0);
    const uint64_t bs_off = 0, ver_off = 3, mix_off = 4, file_off = 5, block_off = 6, trim_off = 8,
                   seq_rand_off = 10, zone_off = 16;
    for (uint32_t d = 0; d < PLAN_DDIR_NR; d++)
        pc.bs_seed[d] = fio_seed(s, pc, bs_off + d);
    if (s.pj.verify != PLAN_VERIFY_NONE)
        pc.bs_seed[PLAN_DDIR_WRITE] = pc.bs_seed[PLAN_DDIR_READ];
    if (s.pj.rw == PLAN_RW_TRIMWRITE || s.pj.rw == PLAN_RW_RANDTRIMWRITE)
        pc.bs_seed[PLAN_DDIR_TRIM] = pc.bs_seed[PLAN_DDIR_WRITE];
    pc.mix_seed = (uint32_t)fio_seed(s, pc, mix_off);  // always fio's 32-bit generators
    pc.zone_seed = (uint32_t)fio_seed(s, pc, zone_off);
    pc.seq_rand_seed = (uint32_t)fio_seed(s, pc, seq_rand_off);	// every direction's state starts from it
    pc.file_seed = fio_seed(s, pc, file_off);
    pc.verify_seed = fio_seed(s, pc, ver_off);
    pc.trim_seed = fio_seed(s, pc, trim_off);
    pc.block_seed = repeatable ? 0xb1899bedull * pc.thread_number : fio_seed(s, pc, block_off);
}

// A copy of the first n entries of v in plan memory (NULL when there are none).
template <class T> T *plan_copy(const std::vector<T> &v, uint32_t n)
{
    n = std::min<uint32_t>(n, (uint32_t)v.size());
    if (!n)
        return nullptr;
    T *out = static_cast<T *>(plan_calloc(n, sizeof(T)));
    if (!out)
        throw std::bad_alloc();
    std::copy(v.begin(), v.begin() + n, out);
    return out;
}

// The spec's split tables into the plan job: each plan job owns its own.
void copy_splits(plan_job &j, const job_spec &s)
{
    for (int d = 0; d < PLAN_DDIR_NR; d++)
        j.bs[d].split = plan_copy(s.bssplit[d], j.bs[d].nr_split);
    for (int d = 0; d < 2; d++)
        j.cmdprio[d].split = plan_copy(s.cmdprio_split[d], j.cmdprio[d].nr_split);
}

// The job's engine's options struct (plan_engopts.h), from the values given or
// defaulted; nullptr for an engine that declares none.
static void *engine_opts_blob(const job_spec &s)
{
    const plan_engopts *t = plan_engopts_of(s.pj.ioengine);
    if (!t->nr)
        return nullptr;
    char *blob = (char *)plan_calloc(1, t->size);
    if (!blob)
        throw std::bad_alloc();
    for (uint32_t i = 0; i < t->nr; i++) {
        const plan_engopt &o = t->opts[i];
        const engine_value *v = engine_value_of(s, o.name);
        if (!v)
            continue;
        if (o.type == PLAN_ENGOPT_STRING)
            *(char **)(blob + o.off) = v->s.empty() ? nullptr : plan_strdup(v->s.c_str());
        else if (o.type == PLAN_ENGOPT_BOOL || o.type == PLAN_ENGOPT_FLAG)
            *(bool *)(blob + o.off) = v->i != 0;
        else
            *(long long *)(blob + o.off) = v->i;
    }
    return blob;
}

// fio's fixup_options: "strided zone mode only really works with 1 file", so it is
// turned off where open_files > 1 (plan_clone.zones_off says for whom).
static bool zones_turned_off(const job_def &d, const plan_job &j, uint32_t clone)
{
    uint32_t files = d.spec.filenames.empty() ? d.spec.pj.nrfiles : (uint32_t)d.spec.filenames.size();
    uint32_t open = clone == 0 || (j.openfiles && j.openfiles <= files) ? j.openfiles : files;
    return j.zone_size_bytes && open > 1;
}

void fill_job(plan_job &j, job_def &d, uint32_t job_id, uint32_t *thread_number, uint64_t random_base,
              std::unordered_set<std::string> &claimed, std::unordered_map<std::string, uint64_t> &set_up,
              file_spellings &spellings)
{
    const job_spec &s = d.spec;
    j = s.pj;
    copy_splits(j, s);
    // fio's fixup_options: a latency not recorded has no percentiles (its terse
    // fields then read "0%=0", as a job without percentiles).
    j.lat_percentiles = j.lat_percentiles && !j.disable_lat;
    j.clat_percentiles = j.clat_percentiles && !j.disable_clat;
    j.slat_percentiles = j.slat_percentiles && !j.disable_slat;
    std::string name = job_name(d);
    j.name = plan_strdup(name.c_str());
    j.section = plan_strdup(d.section.c_str());
    j.description = plan_strdup(s.description.c_str());
    j.engine_opts = engine_opts_blob(s);
    char **logs[4] = {&j.bw_log_prefix, &j.iops_log_prefix, &j.lat_log_prefix, &j.hist_log_prefix};
    for (int k = 0; k < 4; k++)
        if (s.log_on[k]) {
            *logs[k] = plan_strdup((s.log_prefix[k].empty() ? name : s.log_prefix[k]).c_str());
            if (s.log_prefix[k].empty())
                j.log_prefix_named |= (uint8_t)(1u << k);
        }
    // fio: an averaged bw/iops log sets the samples' interval unless bwavgtime/iopsavgtime is given.
    if (s.log_on[0] && j.log_avg_ns && !s.bw_avg_set)
        j.bw_avg_time_ns = j.log_avg_ns;
    if (s.log_on[1] && j.log_avg_ns && !s.iops_avg_set)
        j.iops_avg_time_ns = j.log_avg_ns;
    if (!s.write_iolog.empty())
        j.write_iolog_path = plan_strdup(s.write_iolog.c_str());
    if (!s.read_iolog.empty())
        j.read_iolog_path = plan_strdup(s.read_iolog.c_str());
    for (const std::string &dir : s.directories) {
        struct stat st;
        if (!j.missing_directory && (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
            j.missing_directory = plan_strdup(dir.c_str());
    }
    if (!s.replay_redirect.empty())
        j.replay_redirect = plan_strdup(s.replay_redirect.c_str());
    if (!s.merge_blktrace_file.empty())
        j.merge_blktrace_path = plan_strdup(s.merge_blktrace_file.c_str());
    if (!s.exec_prerun.empty())
        j.exec_prerun = plan_strdup(s.exec_prerun.c_str());
    if (!s.exec_postrun.empty())
        j.exec_postrun = plan_strdup(s.exec_postrun.c_str());
    if (!s.ioscheduler.empty())
        j.ioscheduler = plan_strdup(s.ioscheduler.c_str());
    j.job_id = job_id;
    j.source_file = d.file_index;
    if (s.atomic)
        j.direct = true;
    if (!s.pattern.empty()) {
        j.buffer_pattern = (uint8_t *)plan_calloc(s.pattern.size(), 1);
        std::copy(s.pattern.begin(), s.pattern.end(), j.buffer_pattern);
        j.buffer_pattern_len = (uint32_t)s.pattern.size();
    }
    if (!s.verify_pattern.empty()) {
        j.verify_pattern = (uint8_t *)plan_calloc(s.verify_pattern.size(), 1);
        std::copy(s.verify_pattern.begin(), s.verify_pattern.end(), j.verify_pattern);
        j.verify_pattern_len = (uint32_t)s.verify_pattern.size();
    }
    j.opts = echo_kvs(s.echo, s.echo_at, &j.nr_opts);
    uint64_t base = (s.pj.randrepeat || s.randseed_set || s.allrandrepeat) ? s.pj.randseed : random_base;
    // An explicit randseed= numbers the job's own clones from it (DISKSPD: seed +
    // thread); otherwise every thread of the plan gets its own stream.
    j.nr_clones = s.numjobs;
    j.clones = (plan_clone *)plan_calloc(j.nr_clones, sizeof(plan_clone));
    const uint32_t first = *thread_number + 1;
    *thread_number += j.nr_clones;
    for (uint32_t c = 0; c < j.nr_clones; c++) {
        plan_clone &pc = j.clones[c];
        pc.clone_index = c;
        // fio's add_job numbers each later thread by the clones still to make, so
        // its threads run subjobs ($jobnum) 0, n-1, ..., 1: clone c, which has
        // subjob c's files and region, is fio's thread first + n - c, and draws,
        // logs, keeps its verify state and is reported as that thread.
        pc.thread_number = c ? first + j.nr_clones - c : first;
        pc.seed = s.randseed_set ? base + c : base + pc.thread_number - 1;
        fio_seeds(s, pc);
        pc.offset_bytes = j.file_append ? 0 : j.offset_bytes + (uint64_t)c * j.offset_increment_bytes +
                                                  rank_index() * s.rank_offset_increment;
        fill_files(pc, d, j, d.section, claimed, set_up, spellings); // fio names files after the section, whatever name= says
        pc.zones_off = zones_turned_off(d, j, c);
    }
    // fio's fixup_options, which runs after its seeds are drawn: randseed= turns
    // rand_repeatable off, so each loop goes on with the draws instead of starting
    // them over (the engine re-seeds a loop only under randrepeat).
    if (s.randseed_set)
        j.randrepeat = false;
}

// A path used by more than one clone (a fixed filename=, or a name several jobs
// generate: a later clone of the same job gets none, claimed_by_first_clone) is
// shared: laid out once, opened by each.
void mark_shared(plan *p)
{
    std::unordered_map<std::string_view, int> uses; // the plan's own strings, not copies
    size_t n = 0;
    for (uint32_t g = 0; g < p->nr_groups; g++)
        for (uint32_t i = 0; i < p->groups[g].nr_jobs; i++)
            for (uint32_t c = 0; c < p->groups[g].jobs[i].nr_clones; c++)
                n += p->groups[g].jobs[i].clones[c].nr_files;
    uses.reserve(n); // one table for every path, not rehashed as it grows
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t g = 0; g < p->nr_groups; g++)
            for (uint32_t i = 0; i < p->groups[g].nr_jobs; i++) {
                const plan_job *j = &p->groups[g].jobs[i];
                for (uint32_t c = 0; c < j->nr_clones; c++)
                    for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
                        plan_file &pf = j->clones[c].files[f];
                        if (pass == 0)
                            uses[pf.path]++;
                        else
                            pf.shared = uses[pf.path] > 1;
                    }
            }
}

// Each clone's file is a plan entry: numjobs=65536 with nrfiles=1000000 asked
// for 6.5e10 of them (terabytes) before anything ran.  A million files took
// 6.5 s and 170 MB to plan; past PLAN_FILES_MAX the plan is refused.
constexpr uint64_t PLAN_FILES_MAX = 1ull << 22;

uint64_t files_of(const job_def &d)
{
    return (uint64_t)d.spec.numjobs * (d.spec.filenames.empty() ? d.spec.pj.nrfiles : d.spec.filenames.size());
}

// Steady state is judged per reporting group: fio 3.33 rejects a group whose
// jobs disagree on it (td_steadystate_init).  Without a duration it is off,
// whatever the criterion says.
bool ss_same(const plan_job &a, const plan_job &b)
{
    if (!a.ss_dur_s || !b.ss_dur_s)
        return !a.ss_dur_s && !b.ss_dur_s;
    return a.ss_flags == b.ss_flags && a.ss_limit == b.ss_limit && a.ss_dur_s == b.ss_dur_s &&
           a.ss_ramp_ns == b.ss_ramp_ns;
}

const loc &ss_loc(const job_def &d)
{
    for (const char *k : {"ss_dur", "steadystate_duration", "ss", "steadystate", "ss_ramp", "steadystate_ramp_time"})
        if (&option_loc(d, k) != &d.header)
            return option_loc(d, k);
    return d.header;
}

} // namespace

long long engine_int(const job_spec &s, const char *name)
{
    const engine_value *v = engine_value_of(s, name);
    return v ? v->i : 0;
}

std::string engine_text(const job_spec &s, const char *name)
{
    const engine_value *v = engine_value_of(s, name);
    return v ? v->s : "";
}

plan_builder::plan_builder(bool check_only, bool keep_names)
    : p_(plan_alloc()), random_base_(os_seed()), check_only_(check_only), keep_names_(keep_names)
{
    if (!p_)
        throw std::bad_alloc();
    p_->allow_device_write = plan_strdup("");
}

plan_builder::~plan_builder()
{
    plan_free(p_);
}

// More files than a plan holds is refused before they are built, at the job
// that brings the total past it, naming the job that makes the most.
void plan_builder::count_files(const job_def &d)
{
    uint64_t n = files_of(d);
    files_ += n;
    if (n > most_.files || most_.name.empty())
        most_ = most_files{n, d.spec.numjobs, job_name(d), d.header};
    if (files_ > PLAN_FILES_MAX)
        fail(most_.header, "job '" + most_.name + "': numjobs=" + std::to_string(most_.numjobs) + " makes " +
                               std::to_string(most_.files) + " files; the plan would hold " + std::to_string(files_) +
                               ", more than " + std::to_string(PLAN_FILES_MAX));
}

void plan_builder::count_trace(const job_def &d)
{
    const plan_job &j = d.spec.pj;
    if (!p_->nr_jobs || j.stonewall) // a segment runs as often as its first job says (engine.c)
        trace_runs_ = j.repeat_discard + (j.repeat ? j.repeat : 1);
    uint64_t n = j.io_trace_max * d.spec.numjobs * trace_runs_;
    trace_ += n;
    if (n && trace_ > PLAN_IO_TRACE_TOTAL_MAX)
        fail(option_loc(d, "io_trace"),
             "job '" + job_name(d) + "': io_trace=" + std::to_string(j.io_trace_max) + " brings the I/Os " +
                 "recorded in memory to " + std::to_string(trace_) + " (clones x runs); a plan keeps at most " +
                 std::to_string(PLAN_IO_TRACE_TOTAL_MAX) + " (8 MiB): lower io_trace, numjobs or repeat");
}

// The job's group, opened here when it starts one (stonewall or new_group after
// a job); a group's jobs are judged as one for steady state (see ss_same).
plan_group &plan_builder::group_for(const job_def &d)
{
    const plan_job &pj = d.spec.pj;
    if (pj.ss_dur_s == 1 && (pj.ss_flags & PLAN_SS_SLOPE))
        fail(ss_loc(d), "job '" + job_name(d) + "': a slope needs a window of 2 or more samples: "
                            "ss_dur=2 or more (one a second)");
    bool fresh = !p_->nr_groups || ((pj.stonewall || pj.new_group) && group_jobs_);
    if (!fresh) {
        if (!ss_same(first_, pj))
            fail(ss_loc(d), "job '" + job_name(d) + "': its steady-state options differ from job '" +
                                first_name_ + "' of the same group; a group is judged as one, so "
                                "give its jobs the same ss, ss_dur and ss_ramp (or start a new group)");
        return p_->groups[p_->nr_groups - 1];
    }
    fit_last_group();
    if (p_->nr_groups == group_capacity_) {
        group_capacity_ = group_capacity_ ? 2 * group_capacity_ : 4;
        grow(&p_->groups, group_capacity_);
    }
    plan_group &g = p_->groups[p_->nr_groups];
    g = plan_group{};
    g.id = p_->nr_groups++;
    capacity_ = 0;
    group_jobs_ = 0;
    return g;
}

// The job wait_for= names: the earlier job of that name (the first, dropped
// ones counted).  Two or more earlier jobs of the name are an error, as fio's
// check_waitees makes them ("multiple waitees"); fio runs none of the jobs.
int32_t plan_builder::wait_for(const job_def &d) const
{
    const std::string &want = d.spec.wait_for;
    if (want.empty())
        return -1;
    auto dropped = dropped_names_.find(want);
    int32_t id = dropped == dropped_names_.end() ? -1 : dropped->second.first;
    uint32_t named = dropped == dropped_names_.end() ? 0 : dropped->second.second;
    for (uint32_t g = 0; g < p_->nr_groups; g++)
        for (uint32_t i = 0; i < p_->groups[g].nr_jobs; i++)
            if (want == p_->groups[g].jobs[i].name) {
                int32_t kept = (int32_t)p_->groups[g].jobs[i].job_id;
                id = id < 0 || kept < id ? kept : id;
                named++;
            }
    if (named > 1)
        fail(option_loc(d, "wait_for"), "wait_for=" + want + ": " + std::to_string(named) +
                                            " earlier jobs have that name (fio 3.33 refuses it too: \"multiple "
                                            "waitees\"); give them names of their own");
    if (id >= 0)
        return id;
    fail(option_loc(d, "wait_for"), "wait_for=" + want + ": no earlier job has that name");
}

template <class T> void plan_builder::grow(T **array, size_t n)
{
    void *q = realloc(*array, n * sizeof(T));
    if (!q)
        throw std::bad_alloc();
    *array = (T *)q;
}

void plan_builder::add(job_def &d)
{
    finalize_spec(d);
    check_job(d);
    check_remote_job(d);
    count_files(d);
    count_trace(d);
    int32_t waits = wait_for(d);
    plan_group &g = group_for(d);
    // Doubling: a big job file's jobs are copied O(log n) times, not once each.
    if (g.nr_jobs == capacity_) {
        capacity_ = capacity_ ? 2 * capacity_ : 4;
        grow(&g.jobs, capacity_);
    }
    plan_job &j = g.jobs[g.nr_jobs];
    d.dropped = check_only_ && d.spec.read_iolog.empty() && d.spec.merge_blktrace_file.empty();
    fill_job(j, d, p_->nr_jobs, &threads_, random_base_, claimed_, set_up_, spellings_);
    try {
        check_drawn_regions(d, j);
    } catch (...) {
        plan_job_free(&j);	// not yet counted in its group: plan_free would not see it
        j = plan_job{};
        throw;
    }
    p_->nr_jobs++;
    j.groupid = g.id;
    j.wait_for_job_id = waits;
    if (!group_jobs_++) {
        first_ = j;
        first_name_ = j.name;
    }
    if (!d.spec.allow_device_write.empty()) {
        free(p_->allow_device_write);
        p_->allow_device_write = plan_strdup(d.spec.allow_device_write.c_str());
    }
    p_->allow_existing_file_write |= d.spec.allow_existing_file_write;
    exitall_ |= j.exitall;
    keep_or_drop(j, d);
}

// A checked job stays in its group unless only checking, where a job is
// dropped once planned: only an iolog to replay is read again (cli/replay.cpp).
void plan_builder::keep_or_drop(plan_job &j, const job_def &d)
{
    plan_group &g = p_->groups[p_->nr_groups - 1];
    if (!d.dropped) {
        g.nr_jobs++;
        return;
    }
    if (keep_names_)
        dropped_names_.emplace(j.name, std::make_pair((int32_t)j.job_id, 0u)).first->second.second++;
    plan_job_free(&j);
    j = plan_job{};
}

// A closed group's job array loses the room doubling left it.
void plan_builder::fit_last_group()
{
    const plan_group *g = p_->nr_groups ? &p_->groups[p_->nr_groups - 1] : nullptr;
    if (g && g->nr_jobs && capacity_ > g->nr_jobs)
        grow(&p_->groups[p_->nr_groups - 1].jobs, p_->groups[p_->nr_groups - 1].nr_jobs);
}

// fio 3.33's exitall sets one flag for the whole run (str_exitall_cb): once any
// job has it, every thread's end stops its group (by that job's exit_what), the
// jobs before that job and after it alike.
void plan_builder::exitall_everywhere()
{
    if (!exitall_)
        return;
    for (uint32_t g = 0; g < p_->nr_groups; g++)
        for (uint32_t i = 0; i < p_->groups[g].nr_jobs; i++)
            p_->groups[g].jobs[i].exitall = true;
}

plan *plan_builder::finish(const std::vector<entry> &global_echo, const std::vector<uint32_t> &global_echo_at)
{
    fit_last_group();
    exitall_everywhere();
    p_->nr_threads = threads_;
    p_->global_opts = echo_kvs(global_echo, global_echo_at, &p_->nr_global_opts);
    mark_shared(p_);
    plan *p = p_;
    p_ = nullptr;
    return p;
}

} // namespace parser

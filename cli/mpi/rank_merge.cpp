// cli/mpi/rank_merge.cpp - folds ranks' results into one (rank_merge.hpp).
#include "cli/mpi/rank_merge.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <new>
#include <set>

#include "cli/mpi/rank_groups.hpp"

namespace cli {

namespace {

uint64_t shifted(uint64_t t, int64_t by)
{
    int64_t v = static_cast<int64_t>(t) + by;
    return v < 0 ? 0 : static_cast<uint64_t>(v);
}

// A rank's clone with its times on rank 0's clock (pointers still the rank's).
res_clone aligned(const res_clone &c, int64_t by)
{
    res_clone t = c;
    t.start_ns = shifted(c.start_ns, by);
    t.end_ns = shifted(c.end_ns, by);
    t.thread_start_ns = shifted(c.thread_start_ns, by);
    t.thread_end_ns = shifted(c.thread_end_ns, by);
    return t;
}

// The merged per-interval series lies on one grid of the common clock:
// cells of the widest rank's interval from rank 0's window start (the
// origin), as many as a rank's series holds at most.  Each sample goes
// whole into the cell holding its end (what completed in it), after its
// rank's times are moved onto rank 0's clock: the sum is then the same in
// any order of arrival and keeps every I/O, whatever the ranks' widths.
// A sample ending before the origin counts in the first cell.
const uint32_t series_cells = 512;

void sample_add(res_sample &d, const res_sample &s)
{
    for (int k = 0; k < PLAN_DDIR_NR; k++) {
        d.bytes[k] += s.bytes[k];
        d.ios[k] += s.ios[k];
        d.lat_sum_ns[k] += s.lat_sum_ns[k];
        d.lat_max_ns[k] = std::max(d.lat_max_ns[k], s.lat_max_ns[k]);
    }
}

void cell_times(res_series &d, uint64_t origin)
{
    for (uint32_t i = 0; i < d.nr; i++) {
        d.samples[i].t_start_ns = origin + i * d.interval_ns;
        d.samples[i].t_end_ns = origin + (i + 1) * d.interval_ns;
    }
}

// Doubles the cells' width until it is at least width: cells 2i and 2i+1
// become cell i, as a grid twice as wide from the same origin would have it.
void widen(res_series &d, uint64_t origin, uint64_t width)
{
    while (d.interval_ns < width) {
        for (uint32_t i = 0; i < d.nr; i++) {
            res_sample s = d.samples[i];
            if (i % 2 == 0)
                d.samples[i / 2] = s;
            else
                sample_add(d.samples[i / 2], s);
        }
        d.nr = (d.nr + 1) / 2;
        d.interval_ns *= 2;
    }
    cell_times(d, origin);
}

void grow(res_series &d, uint32_t nr, uint64_t origin)
{
    if (nr <= d.nr)
        return;
    if (nr > d.cap) {
        auto *grown = static_cast<res_sample *>(realloc(d.samples, series_cells * sizeof(res_sample)));
        if (!grown)
            throw std::bad_alloc();
        d.samples = grown;
        d.cap = series_cells;
    }
    memset(d.samples + d.nr, 0, (nr - d.nr) * sizeof(res_sample));
    d.nr = nr;
    cell_times(d, origin);
}

void add_series(res_series &d, const res_series &s, int64_t by, uint64_t origin)
{
    if (!s.nr)
        return;
    if (!d.interval_ns)
        d.interval_ns = s.interval_ns;
    widen(d, origin, s.interval_ns);
    for (uint32_t i = 0; i < s.nr; i++) {
        uint64_t end = shifted(s.samples[i].t_end_ns, by);
        uint64_t cell = end > origin ? (end - 1 - origin) / d.interval_ns : 0;
        while (cell >= series_cells) {
            widen(d, origin, d.interval_ns * 2);
            cell = (end - 1 - origin) / d.interval_ns;
        }
        grow(d, static_cast<uint32_t>(cell) + 1, origin);
        sample_add(d.samples[cell], s.samples[i]);
    }
}

// The first rank's own series put on the grid, as every other rank's will be.
void to_grid(res_series &d, uint64_t origin)
{
    res_series own = d;
    d = res_series{own.interval_ns, 0, 0, nullptr};
    add_series(d, own, 0, origin);
    free(own.samples);
}

// Another rank's I/O error, named by its rank: its file index is into that
// rank's files, which the report would name from the first rank's plan (rank
// 1's verify failure in /tmp/t/r1/f was shown at /tmp/t/r0/f, a file with no
// fault).  The rank's own message names the file (add_msg).
res_error of_rank(const res_error &e, const rank_info &who)
{
    res_error named = e;
    snprintf(named.what, sizeof(named.what), "rank %u (%s): %s", who.rank, who.host.c_str(), e.what);
    named.file_index = UINT32_MAX;
    return named;
}

// A run's span on its own monotonic clock, as a signed count (0 if none).
int64_t elapsed_of(const results &r)
{
    uint64_t e = r.end_mono_ns > r.start_mono_ns ? r.end_mono_ns - r.start_mono_ns : 0;
    return static_cast<int64_t>(std::min<uint64_t>(e, INT64_MAX / 4));
}

// How far src's times move onto the first rank's clock (*by): both started
// their engines at a wall time, and the clock offsets say how the two clocks
// differ.  Ranks run in step (every engine starts before the first group and
// ends after the last), so the rank's run, moved, overlaps the first rank's
// (within a second); else "" is not returned but why: a clock offset edited
// to 2^63-1, with its checksum, wrapped the sum and put the rank's I/O out of
// the window (run=59-60msec for ranks of 13 ms, rank 1 left out of the groups).
std::string clock_shift(const results &first, int64_t first_offset, const results &src, int64_t offset,
                        uint32_t first_rank, int64_t *by)
{
    const int64_t slack = 1000000000;
    int64_t a = 0, b = 0, v = 0;
    bool wraps = src.start_wall_ns > INT64_MAX / 2 || first.start_wall_ns > INT64_MAX / 2 ||
                 __builtin_add_overflow(static_cast<int64_t>(src.start_wall_ns), offset, &a) ||
                 __builtin_add_overflow(static_cast<int64_t>(first.start_wall_ns), first_offset, &b) ||
                 __builtin_sub_overflow(a, b, &v);
    if (wraps || v > elapsed_of(first) + slack || v < -(elapsed_of(src) + slack))
        return "its clock offset (" + std::to_string(offset) + " ns) puts its run, started at wall time " +
               std::to_string(src.start_wall_ns) + " ns, outside rank " + std::to_string(first_rank) +
               "'s (" + std::to_string(first.start_wall_ns) + " ns, for " + std::to_string(elapsed_of(first)) +
               " ns): the ranks of one world run together";
    *by = v;
    return "";
}

// Clone src folded into dst.  Each direction's runtime grows by how much the
// union of the two windows exceeds the longer of them: bandwidth is then the
// bytes of every rank over the common window, not over one rank's.
// A clone's runtime, or its ranks' together once merged (res_clone.ranks_run_ns).
uint64_t ranks_run_ns(const res_clone &c)
{
    uint64_t span = c.end_ns > c.start_ns ? c.end_ns - c.start_ns : 0;
    return c.ranks_run_ns ? c.ranks_run_ns : span + c.after_ns;
}

void merge_clone(res_clone &dst, const res_clone &src, int64_t by, uint64_t origin, const rank_info &who)
{
    uint64_t dspan = dst.end_ns > dst.start_ns ? dst.end_ns - dst.start_ns : 0;
    uint64_t sspan = src.end_ns > src.start_ns ? src.end_ns - src.start_ns : 0;
    uint64_t runs = ranks_run_ns(dst) + ranks_run_ns(src);
    bool shared = dst.iops_series.samples == dst.bw_series.samples;
    if (res_clone_merge(&dst, &src))
        throw std::bad_alloc();
    dst.ranks_run_ns = runs;
    uint64_t uspan = dst.end_ns > dst.start_ns ? dst.end_ns - dst.start_ns : 0;
    uint64_t extra = uspan > std::max(dspan, sspan) ? uspan - std::max(dspan, sspan) : 0;
    for (auto &d : dst.ddir)
        if (d.bytes)  // a direction that moved no byte (failed I/Os only) has no runtime, as a rank's own
            d.runtime_ns += extra;
    add_series(dst.bw_series, src.bw_series, by, origin);
    if (shared)
        dst.iops_series = dst.bw_series;
    else
        add_series(dst.iops_series, src.iops_series, by, origin);
    for (uint32_t i = 0; i < src.nr_errors && dst.nr_errors < RES_ERRORS_MAX; i++)
        dst.errors[dst.nr_errors++] = of_rank(src.errors[i], who);
}

// A job's latency on one rank: every clone and direction merged (total
// latency where kept, else completion latency).  The caller frees hist.
res_lat job_latency(const res_job &j)
{
    res_lat all{};
    all.min_ns = UINT64_MAX;
    for (uint32_t c = 0; c < j.nr_clones; c++)
        for (const auto &d : j.clones[c].ddir)
            if (res_lat_merge(&all, d.lat.hist ? &d.lat : &d.clat)) {
                free(all.hist);
                throw std::bad_alloc();
            }
    return all;
}

void lat_summary(const res_lat &all, res_rank_job *out)
{
    out->lat_n = all.n;
    out->lat_min_ns = all.n ? all.min_ns : 0;
    out->lat_max_ns = all.max_ns;
    out->lat_mean_ns = res_lat_mean(&all);
    out->lat_p50_ns = res_lat_percentile(&all, 50.0);
    out->lat_p99_ns = res_lat_percentile(&all, 99.0);
}

// A copy of n items of src (NULL for none).  Throws std::bad_alloc.
template <class T> T *copy_of(const T *src, size_t n)
{
    if (!src || !n)
        return nullptr;
    auto *p = static_cast<T *>(malloc(n * sizeof(T)));
    if (!p)
        throw std::bad_alloc();
    memcpy(p, src, n * sizeof(T));
    return p;
}

// One rank's clone as that rank measured it (res_rank_clone), its files as
// its rank planned them (paths: may be empty).  Throws std::bad_alloc; what
// it allocated is in k, for res_rank_clones_free.
void thread_of(res_rank_clone &k, const res_clone &c, const std::vector<std::string> &paths)
{
    k.clone_index = c.clone_index;
    for (int d = 0; d < PLAN_DDIR_NR; d++) {
        const res_ddir &x = c.ddir[d];
        k.bytes[d] = x.bytes;
        k.ios[d] = x.ios;
        k.lat[d] = x.lat.n || !x.clat.n ? x.lat : x.clat;  // as the reports take it (total, else completion)
        k.lat[d].hist = nullptr;
    }
    k.file_bytes = c.file_bytes;
    k.error = c.error;
    k.nr_errors = c.nr_errors ? 1 : 0;
    if (c.nr_errors)
        k.first_error = c.errors[0];
    const res_series &se = c.iops_series.nr ? c.iops_series : c.bw_series;
    k.series = res_series{se.interval_ns, se.nr, se.nr, nullptr};
    k.series.samples = copy_of(se.samples, se.nr);
    k.zones = copy_of(c.zones, c.nr_zones);
    k.nr_zones = k.zones ? c.nr_zones : 0;
    if (paths.empty())
        return;
    k.paths = static_cast<char **>(calloc(paths.size(), sizeof(char *)));
    if (!k.paths)
        throw std::bad_alloc();
    k.nr_paths = static_cast<uint32_t>(paths.size());
    for (size_t f = 0; f < paths.size(); f++)
        if (!(k.paths[f] = strdup(paths[f].c_str())))
            throw std::bad_alloc();
}

// A rank's job's threads (res_rank_job.clones); paths: the job's clones' files, or empty.
void threads_of(res_rank_job &o, const res_job &j, const std::vector<std::vector<std::string>> *paths)
{
    o.clones = static_cast<res_rank_clone *>(calloc(j.nr_clones ? j.nr_clones : 1, sizeof(res_rank_clone)));
    if (!o.clones)
        throw std::bad_alloc();
    o.nr_clones = j.nr_clones;
    static const std::vector<std::string> none;
    for (uint32_t c = 0; c < j.nr_clones; c++)
        thread_of(o.clones[c], j.clones[c], paths && c < paths->size() ? (*paths)[c] : none);
}

// o's counters and window added to sum's (a host's, over its ranks).
void job_add(res_rank_job &sum, const res_rank_job &o)
{
    for (int d = 0; d < PLAN_DDIR_NR; d++) {
        sum.bytes[d] += o.bytes[d];
        sum.ios[d] += o.ios[d];
    }
    if (o.first_io_ns && (!sum.first_io_ns || o.first_io_ns < sum.first_io_ns))
        sum.first_io_ns = o.first_io_ns;
    sum.end_ns = std::max(sum.end_ns, o.end_ns);
}

// A warning as said on one host: its code and job, and its text with every
// run of 4 or more digits masked (a byte count, a memory figure read a moment
// later), so ranks of one host finding the same fact say it once.
std::string host_warning(const std::string &host, const res_msg &m)
{
    std::string key = host + "\n" + (m.code ? m.code : "") + "\n" + std::to_string(m.job_id) + "\n";
    for (const char *t = m.text; *t;) {
        size_t digits = strspn(t, "0123456789");
        key.append(digits >= 4 ? "#" : std::string(t, digits));
        t += digits;
        if (*t)
            key += *t++;
    }
    return key;
}

// A rank's warnings and errors, named; what rank 0 already says (the same
// preflight findings on every rank) is said once, and so is a
// warning a rank of the same host gave but for its figures (warned: those
// said so far): 3 ranks of one host printed the page cache warning 3 times,
// 'less than the 24638423040 bytes', '24637816832', '24638119936'.
// A rank's notes are rank 0's (the same fio notes and layout lines on every
// rank) but for the test files it left (run/left-files): its own, on its host,
// named with it as its warnings are; only rank 0's were said before.
void add_msg(results *acc, const res_msg &m, const rank_info &who, std::set<std::string> &warned)
{
    if (m.level == RES_MSG_NOTE && !(m.code && !strcmp(m.code, "run/left-files")))
        return;
    for (uint32_t i = 0; i < acc->nr_msgs; i++)
        if (!strcmp(acc->msgs[i].text, m.text))
            return;
    if (m.level == RES_MSG_WARNING && !warned.insert(host_warning(who.host, m)).second)
        return;
    res_msg_add(acc, m.level, m.code, m.job_id, "rank %u (%s): %s", who.rank, who.host.c_str(), m.text);
}

bool same_zones(const res_zones &a, const res_zones &b)
{
    static_assert(sizeof(res_zone) == 24, "res_zone has no padding");
    return a.nr == b.nr && a.io_span == b.io_span && !memcmp(a.zone, b.zone, a.nr * sizeof(res_zone));
}

// A clone's DISKSPD effective distributions (-rd): the report names rank 0's
// targets (its plan's paths and sizes), so it shows rank 0's ranges, as the
// live run's report, whose first results are rank 0's own (the first file's
// in a merge --partial without rank 0's).  A clone rank 0 has
// none for (it failed before it drew) takes the first rank's that has.  True
// when src's differ from those kept (its targets are of another size).  A
// DISKSPD report, which lists the world's threads, shows each rank's own from
// its threads (res_rank_clone.zones).
bool keep_zones(res_clone &dst, const res_clone &src)
{
    if (!src.zones)
        return false;
    if (!dst.zones) {
        dst.zones = static_cast<res_zones *>(malloc(src.nr_zones * sizeof(res_zones)));
        if (!dst.zones)
            throw std::bad_alloc();
        memcpy(dst.zones, src.zones, src.nr_zones * sizeof(res_zones));
        dst.nr_zones = src.nr_zones;
        return false;
    }
    bool differ = dst.nr_zones != src.nr_zones;
    for (uint32_t f = 0; !differ && f < src.nr_zones; f++)
        differ = !same_zones(dst.zones[f], src.zones[f]);
    return differ;
}

bool sum_fits(uint64_t a, uint64_t b)
{
    uint64_t s;
    return !__builtin_add_overflow(a, b, &s) && s <= uint64_t(INT64_MAX);
}

// Whether adding src's counters to dst's stays within what a report can
// print: each rank's numbers are in range (rank_file_parse), but a sum of
// many near the limit would wrap into a small, plausible, wrong number.
std::string sums_overflow(const results &dst, const results &src)
{
    for (uint32_t j = 0; j < src.nr_jobs; j++)
        for (uint32_t c = 0; c < src.jobs[j].nr_clones; c++)
            for (int d = 0; d < PLAN_DDIR_NR; d++) {
                const res_ddir &a = dst.jobs[j].clones[c].ddir[d], &b = src.jobs[j].clones[c].ddir[d];
                if (!sum_fits(a.bytes, b.bytes) || !sum_fits(a.ios, b.ios) || !sum_fits(a.clat.n, b.clat.n) ||
                    !sum_fits(a.clat.sum_ns, b.clat.sum_ns) || !sum_fits(a.lat.sum_ns, b.lat.sum_ns) ||
                    !sum_fits(a.slat.sum_ns, b.slat.sum_ns))
                    return "job " + std::to_string(j) + ": its counters added to the other ranks' go beyond any run "
                           "(2^63)";
            }
    return "";
}

} // namespace

rank_merger::rank_merger(results *acc, const rank_info &who0, uint32_t nranks, bool partial, bool threads)
    : acc_(acc), base_offset_ns_(who0.clock_offset_ns), first_rank_(who0.rank), partial_(partial), threads_(threads)
{
    world_ = static_cast<res_world *>(calloc(1, sizeof(res_world)));
    if (!world_)
        throw std::bad_alloc();
    acc_->world = world_;
    // nranks is set once the rows are there: results_free walks them (a rank
    // file saying 4000000000 ranks, whose rows calloc could not give, crashed
    // the merge as it freed them).
    world_->ranks = static_cast<res_rank *>(calloc(nranks ? nranks : 1, sizeof(res_rank)));
    if (!world_->ranks)
        throw std::bad_alloc();
    world_->nranks = nranks;
    seen_.assign(nranks, false);
    for (uint32_t i = 0; i < nranks; i++) {
        world_->ranks[i].rank = i;
        world_->ranks[i].error = ENODATA;
    }
    if (who0.rank < nranks)
        seen_[who0.rank] = true;
    for (uint32_t i = 0; i < acc_->nr_msgs; i++)
        if (acc_->msgs[i].level == RES_MSG_WARNING)
            warned_.insert(host_warning(who0.host, acc_->msgs[i]));
    summarise(*acc_, who0, 0);
    origins_.resize(acc_->nr_jobs);
    for (uint32_t j = 0; j < acc_->nr_jobs; j++)
        for (uint32_t c = 0; c < acc_->jobs[j].nr_clones; c++) {
            const res_clone &k = acc_->jobs[j].clones[c];
            origins_[j].push_back(k.bw_series.nr ? k.bw_series.samples[0].t_start_ns : k.start_ns);
        }
}

// The first rank's series on the grid the others are added to; done when a
// second rank comes, so a merge of one rank file reports its series as is.
void rank_merger::grid_first()
{
    if (gridded_)
        return;
    gridded_ = true;
    for (uint32_t j = 0; j < acc_->nr_jobs; j++)
        for (uint32_t c = 0; c < acc_->jobs[j].nr_clones; c++) {
            res_clone &k = acc_->jobs[j].clones[c];
            bool shared = k.iops_series.samples == k.bw_series.samples;
            to_grid(k.bw_series, origins_[j][c]);
            if (shared)
                k.iops_series = k.bw_series;
            else
                to_grid(k.iops_series, origins_[j][c]);
        }
}

// A rank's own error for its row: none when its ENODATA only marks the world
// failing at a step (its mpi/lost message, kept among the errors, says which):
// the row's ENODATA means no result came, and this rank's did.
static int own_error(const results &r)
{
    if (r.error != ENODATA)
        return r.error;
    for (uint32_t i = 0; i < r.nr_msgs; i++)
        if (r.msgs[i].code && !strcmp(r.msgs[i].code, "mpi/lost"))
            return 0;
    return r.error;
}

void rank_merger::summarise(const results &r, const rank_info &who, int64_t by)
{
    res_rank &k = world_->ranks[who.rank];
    snprintf(k.host, sizeof(k.host), "%s", who.host.c_str());
    k.error = own_error(r);
    k.clock_offset_ns = who.clock_offset_ns;
    k.jobs = static_cast<res_rank_job *>(calloc(r.nr_jobs ? r.nr_jobs : 1, sizeof(res_rank_job)));
    if (!k.jobs)
        throw std::bad_alloc();
    k.nr_jobs = r.nr_jobs;
    host_sum &host = host_of(who.host, acc_->nr_jobs);	/* a rank that ended early may come first */
    // Each thread's files as its rank named them: its rank file's, or (rank 0 live) its own plan's.
    const std::vector<std::vector<std::vector<std::string>>> paths =
        !threads_ ? decltype(who.clone_paths){} : !who.clone_paths.empty() ? who.clone_paths : clone_paths_of(r);
    host.nranks++;
    for (uint32_t j = 0; j < r.nr_jobs; j++) {
        res_rank_job &o = k.jobs[j];
        for (uint32_t c = 0; c < r.jobs[j].nr_clones; c++) {
            const res_clone &rc = r.jobs[j].clones[c];
            for (int d = 0; d < PLAN_DDIR_NR; d++) {
                o.bytes[d] += rc.ddir[d].bytes;
                o.ios[d] += rc.ddir[d].ios;
            }
            o.runtime_ns = std::max(o.runtime_ns, rc.end_ns > rc.start_ns ? rc.end_ns - rc.start_ns : 0);
            // On the common clock: when the rank's first I/O went out and its last came back.
            if (rc.start_ns && (!o.first_io_ns || shifted(rc.start_ns, by) < o.first_io_ns))
                o.first_io_ns = shifted(rc.start_ns, by);
            o.end_ns = std::max(o.end_ns, shifted(rc.end_ns, by));
        }
        if (threads_)
            threads_of(o, r.jobs[j], j < paths.size() ? &paths[j] : nullptr);
        res_lat all = job_latency(r.jobs[j]);
        lat_summary(all, &o);
        job_add(host.jobs[j], o);
        int err = res_lat_merge(&host.lat[j], &all);
        free(all.hist);
        if (err)
            throw std::bad_alloc();
    }
    if (late_min_.size() < who.start_late_ns.size()) {
        late_min_.resize(who.start_late_ns.size(), UINT64_MAX);
        late_max_.resize(who.start_late_ns.size(), 0);
    }
    for (size_t i = 0; i < who.start_late_ns.size(); i++) {
        late_min_[i] = std::min(late_min_[i], who.start_late_ns[i]);
        late_max_[i] = std::max(late_max_[i], who.start_late_ns[i]);
        k.start_late_max_ns = std::max(k.start_late_max_ns, who.start_late_ns[i]);
    }
}

std::string rank_merger::add(const results &src, const rank_info &who)
{
    if (who.rank >= seen_.size())
        return "rank " + std::to_string(who.rank) + " is outside a world of " + std::to_string(seen_.size());
    if (seen_[who.rank])
        return "rank " + std::to_string(who.rank) + " given twice";
    // A rank lost mid-run holds the groups it finished: its jobs are the first
    // of rank 0's.  Taken with partial, as a missing rank is, and said.  When
    // rank 0 was the one lost, the others' later jobs have no place in its
    // results: partial merges the groups it finished, and says so.
    bool fewer = src.nr_jobs < acc_->nr_jobs, more = src.nr_jobs > acc_->nr_jobs;
    if ((more || fewer) && !partial_)
        return "ran " + std::to_string(src.nr_jobs) + " jobs, rank 0 ran " + std::to_string(acc_->nr_jobs) +
               (fewer ? " (it ended early: --partial merges the groups it finished)"
                      : " (rank 0 ended early: --partial merges the groups it finished)");
    if (more)
        return add_first_jobs(src, who);
    for (uint32_t j = 0; j < src.nr_jobs; j++)
        if (src.jobs[j].nr_clones != acc_->jobs[j].nr_clones || src.jobs[j].job_id != acc_->jobs[j].job_id)
            return "job " + std::to_string(j) + " differs from rank 0's (another plan?)";
    std::string wraps = sums_overflow(*acc_, src);
    if (!wraps.empty())
        return wraps;
    int64_t by = 0;
    std::string apart = clock_shift(*acc_, base_offset_ns_, src, who.clock_offset_ns, first_rank_, &by);
    if (!apart.empty())
        return apart;
    seen_[who.rank] = true;
    bool new_host = std::none_of(hosts_.begin(), hosts_.end(), [&](const host_sum &h) { return h.name == who.host; });
    summarise(src, who, by);
    grid_first();
    bool zones_differ = false;
    for (uint32_t j = 0; j < src.nr_jobs; j++) {
        for (uint32_t c = 0; c < src.jobs[j].nr_clones; c++) {
            merge_clone(acc_->jobs[j].clones[c], aligned(src.jobs[j].clones[c], by), by, origins_[j][c], who);
            zones_differ |= keep_zones(acc_->jobs[j].clones[c], src.jobs[j].clones[c]);
        }
        res_job_span(&acc_->jobs[j]);
    }
    if (zones_differ && !threads_)  // with them, DISKSPD's report shows each rank's own
        res_msg_add(acc_, RES_MSG_WARNING, "merge/distribution", -1,
                    "rank %u's effective -rd distributions differ from rank %u's (targets of another size): "
                    "DISKSPD's Effective IO Distributions shows rank %u's, whose targets the report names",
                    who.rank, first_rank_, first_rank_);
    acc_->end_mono_ns = std::max(acc_->end_mono_ns, shifted(src.end_mono_ns - src.start_mono_ns, by) + acc_->start_mono_ns);
    acc_->interrupted = acc_->interrupted || src.interrupted || fewer;
    if (!acc_->error)
        acc_->error = src.error;
    if (fewer)
        res_msg_add(acc_, RES_MSG_WARNING, "merge/partial", -1,
                    "--partial: rank %u ran %u of the %u jobs (it ended early): the later ones are the other ranks' only",
                    who.rank, src.nr_jobs, acc_->nr_jobs);
    for (uint32_t i = 0; i < src.nr_msgs; i++)
        add_msg(acc_, src.msgs[i], who, warned_);
    if (new_host)
        append_disks(src, who);
    return "";
}

// src cut to rank 0's jobs (the groups it finished before it was lost): the
// view shares src's arrays and is only read.
std::string rank_merger::add_first_jobs(const results &src, const rank_info &who)
{
    results view = src;
    view.nr_jobs = acc_->nr_jobs;
    view.interrupted = true;
    std::string why = add(view, who);
    if (why.empty())
        res_msg_add(acc_, RES_MSG_WARNING, "merge/partial", -1,
                    "--partial: rank 0 ended early, after %u of the %u jobs rank %u ran: the merge holds the "
                    "groups rank 0 finished, and rank %u's later jobs are left out",
                    acc_->nr_jobs, src.nr_jobs, who.rank, who.rank);
    return why;
}

// Another host's disks are other disks: listed as theirs.  Ranks sharing a
// host share its disks, which are counted once (the first rank's deltas).
void rank_merger::append_disks(const results &src, const rank_info &who)
{
    if (!src.nr_disks)
        return;
    auto *d = static_cast<res_disk *>(realloc(acc_->disks, (acc_->nr_disks + src.nr_disks) * sizeof(res_disk)));
    if (!d)
        throw std::bad_alloc();
    acc_->disks = d;
    for (uint32_t i = 0; i < src.nr_disks; i++) {
        res_disk &n = acc_->disks[acc_->nr_disks++];
        n = src.disks[i];
        snprintf(n.name, sizeof(n.name), "%.16s:%.14s", who.host.c_str(), src.disks[i].name);
    }
}

rank_merger::~rank_merger()
{
    for (host_sum &h : hosts_)
        for (res_lat &l : h.lat)
            free(l.hist);
}

rank_merger::host_sum &rank_merger::host_of(const std::string &name, uint32_t nr_jobs)
{
    for (host_sum &h : hosts_)
        if (h.name == name)
            return h;
    hosts_.emplace_back();
    host_sum &h = hosts_.back();
    h.name = name;
    h.jobs.assign(nr_jobs, res_rank_job{});
    res_lat none{};
    none.min_ns = UINT64_MAX;
    h.lat.assign(nr_jobs, none);
    return h;
}

// The hosts' sums into acc->world->hosts, each job's latency summary read
// from the host's merged histogram (its memory is freed as it is read).
void rank_merger::finish_hosts()
{
    world_->nhosts = static_cast<uint32_t>(hosts_.size());
    world_->hosts = static_cast<res_host *>(calloc(hosts_.size() ? hosts_.size() : 1, sizeof(res_host)));
    if (!world_->hosts)
        throw std::bad_alloc();
    for (size_t i = 0; i < hosts_.size(); i++) {
        host_sum &h = hosts_[i];
        res_host &o = world_->hosts[i];
        snprintf(o.host, sizeof(o.host), "%s", h.name.c_str());
        o.nranks = h.nranks;
        o.jobs = static_cast<res_rank_job *>(calloc(h.jobs.size() ? h.jobs.size() : 1, sizeof(res_rank_job)));
        if (!o.jobs)
            throw std::bad_alloc();
        o.nr_jobs = static_cast<uint32_t>(h.jobs.size());
        for (size_t j = 0; j < h.jobs.size(); j++) {
            o.jobs[j] = h.jobs[j];
            o.jobs[j].runtime_ns = h.jobs[j].end_ns > h.jobs[j].first_io_ns ? h.jobs[j].end_ns - h.jobs[j].first_io_ns : 0;
            lat_summary(h.lat[j], &o.jobs[j]);
            free(h.lat[j].hist);
            h.lat[j].hist = nullptr;
        }
    }
}

// Each CPU's usage, --idle-prof's idleness and the machine's description are
// the first rank's host's alone (another host's first rank keeps its own
// idleness in its rank file): said, where the reports showed them as the
// world's machine.  The jobs' figures (cpu: usr=, disk stats) are every rank's.
void rank_merger::say_one_machine()
{
    if (world_->nhosts < 2)
        return;
    std::string host(acc_->hostname, strnlen(acc_->hostname, sizeof(acc_->hostname)));
    res_msg_add(acc_, RES_MSG_WARNING, "mpi/one-machine", -1,
                "the machine's own figures (each CPU's usage%s, the machine and its storage stack) are rank "
                "%u's host's (%s) alone, of %u hosts; the jobs' figures are every rank's",
                acc_->idle.mode ? ", the CPU idleness" : "", first_rank_, host.c_str(), world_->nhosts);
}

void rank_merger::finish(uint64_t merge_ns, double straggler_pct)
{
    finish_hosts();
    say_one_machine();
    world_->merge_ns = merge_ns;
    world_->start_skew_ns = 0;
    for (size_t i = 0; i < late_min_.size(); i++)
        world_->start_skew_ns = std::max(world_->start_skew_ns, late_max_[i] - late_min_[i]);
    world_->first_io_spread_ns = 0;
    for (uint32_t j = 0; j < acc_->nr_jobs; j++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint32_t i = 0; i < world_->nranks; i++) {
            const res_rank &k = world_->ranks[i];
            if (!k.jobs || j >= k.nr_jobs || !k.jobs[j].first_io_ns)
                continue;
            lo = std::min(lo, k.jobs[j].first_io_ns);
            hi = std::max(hi, k.jobs[j].first_io_ns);
        }
        if (hi >= lo)
            world_->first_io_spread_ns = std::max(world_->first_io_spread_ns, hi - lo);
    }
    world_groups(acc_, straggler_pct);
}

std::string rank_merger::missing() const
{
    std::string out;
    for (size_t r = 0; r < seen_.size(); r++)
        if (!seen_[r])
            out += (out.empty() ? "" : ", ") + std::to_string(r);
    return out;
}

} // namespace cli

// cli/mpi/rank_groups.cpp - first-done, last-done and stragglers per group
// over the ranks (rank_groups.hpp).
#include "cli/mpi/rank_groups.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <new>
#include <vector>

namespace cli {

namespace {

// One rank in one group: its first I/O, its last completion, its bytes.
struct rank_span {
    uint64_t first = 0, done = 0, bytes = 0;
};

bool in_group(const results &r, uint32_t j, uint32_t gid)
{
    return j < r.nr_jobs && r.jobs[j].groupid == gid && !r.jobs[j].discarded;
}

rank_span span_of(const res_rank &k, const results &r, uint32_t gid)
{
    rank_span s;
    for (uint32_t j = 0; j < k.nr_jobs; j++) {
        if (!in_group(r, j, gid))
            continue;
        const res_rank_job &x = k.jobs[j];
        for (int d = 0; d < PLAN_DDIR_NR; d++)
            s.bytes += x.bytes[d];
        if (x.first_io_ns && (!s.first || x.first_io_ns < s.first))
            s.first = x.first_io_ns;
        s.done = std::max(s.done, x.end_ns);
    }
    return s;
}

// What every rank moved by time t: the merged series' samples (on rank 0's
// clock) that ended by then, and of the one t falls in the share of its
// width before t.  Exact to one sample's width (bwavgtime).
uint64_t bytes_by(const results &r, uint32_t gid, uint64_t t)
{
    double sum = 0;
    for (uint32_t j = 0; j < r.nr_jobs; j++) {
        if (!in_group(r, j, gid))
            continue;
        for (uint32_t c = 0; c < r.jobs[j].nr_clones; c++) {
            const res_series &s = r.jobs[j].clones[c].bw_series;
            for (uint32_t i = 0; i < s.nr; i++) {
                const res_sample &x = s.samples[i];
                uint64_t b = 0;
                for (int d = 0; d < PLAN_DDIR_NR; d++)
                    b += x.bytes[d];
                if (x.t_end_ns <= t)
                    sum += static_cast<double>(b);
                else if (x.t_start_ns < t)
                    sum += static_cast<double>(b) * static_cast<double>(t - x.t_start_ns) /
                           static_cast<double>(x.t_end_ns - x.t_start_ns);
            }
        }
    }
    return static_cast<uint64_t>(std::llround(sum));
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The group's first and last done over the ranks that moved data in it;
// each such rank's time per byte in cost (NAN for the others).
void done_times(res_world_group &g, const results &r, std::vector<double> &cost)
{
    const res_world &w = *r.world;
    g.first_done_ns = UINT64_MAX;
    for (uint32_t i = 0; i < w.nranks; i++) {
        rank_span s = span_of(w.ranks[i], r, g.groupid); // a rank with no result has no jobs
        if (!s.first)
            continue;
        g.nranks++;
        g.bytes += s.bytes;
        g.start_ns = g.nranks == 1 ? s.first : std::min(g.start_ns, s.first);
        if (s.done < g.first_done_ns) {
            g.first_done_ns = s.done;
            g.first_done_rank = i;
        }
        if (s.done >= g.last_done_ns) {
            g.last_done_ns = s.done;
            g.last_done_rank = i;
        }
        uint64_t took = s.done > s.first ? s.done - s.first : 0;
        cost[i] = s.bytes ? static_cast<double>(took) / static_cast<double>(s.bytes) : INFINITY;
    }
    if (!g.nranks)
        g.first_done_ns = 0;
}

// What every rank moved by the first done: the series' reading, but never less
// than the ranks done by then moved in all (every byte of theirs), nor more
// than the group's.  A series' sample is as wide as bwavgtime (500 ms): a group
// shorter than one read as a share of its first, '19B by then' where the rank
// done first alone had moved 64 KiB.
uint64_t by_first_done(const res_world_group &g, const results &r)
{
    uint64_t done = 0;
    for (uint32_t i = 0; i < r.world->nranks; i++) {
        rank_span s = span_of(r.world->ranks[i], r, g.groupid);
        if (s.first && s.done <= g.first_done_ns)
            done += s.bytes;
    }
    return std::min(std::max(bytes_by(r, g.groupid, g.first_done_ns), done), g.bytes);
}

void group_of(res_world_group &g, const results &r, double straggler_pct)
{
    uint32_t n = r.world->nranks;
    std::vector<double> cost(n, NAN);
    done_times(g, r, cost);
    g.slower_pct = static_cast<double *>(malloc((n ? n : 1) * sizeof(double)));
    if (!g.slower_pct)
        throw std::bad_alloc();
    std::vector<double> known;
    for (double c : cost)
        if (!std::isnan(c))
            known.push_back(c);
    double med = known.empty() ? NAN : median(known);
    for (uint32_t i = 0; i < n; i++) {
        double c = cost[i];
        g.slower_pct[i] = std::isnan(c) ? NAN : med > 0 ? (c / med - 1) * 100 : c > 0 ? INFINITY : 0;
        if (straggler_pct > 0 && g.slower_pct[i] > straggler_pct)
            g.nr_stragglers++;
    }
    g.bytes_first_done = g.nranks ? by_first_done(g, r) : 0;
}

} // namespace

void world_groups(results *r, double straggler_pct)
{
    res_world &w = *r->world;
    w.straggler_pct = straggler_pct;
    std::vector<uint32_t> gids;
    for (uint32_t j = 0; j < r->nr_jobs; j++)
        if (!r->jobs[j].discarded && std::find(gids.begin(), gids.end(), r->jobs[j].groupid) == gids.end())
            gids.push_back(r->jobs[j].groupid);
    w.groups = static_cast<res_world_group *>(calloc(gids.empty() ? 1 : gids.size(), sizeof(res_world_group)));
    if (!w.groups)
        throw std::bad_alloc();
    for (uint32_t gid : gids) {
        res_world_group &g = w.groups[w.nr_groups++];
        g.groupid = gid;
        group_of(g, *r, straggler_pct);
    }
}

} // namespace cli

// cli/mpi/rank_merge.hpp - several ranks' results merged into one, exactly.
//
// Each rank ran the same plan; the merged result has the plan's shape (the
// same jobs and clones), each clone the sum of that clone on every rank:
// bytes and I/Os added, latency histograms added bucket by bucket (so a
// percentile of the merge is the percentile of the union of every sample,
// never an average of percentiles), exact sums added, bandwidth over the
// common window (each rank's times moved onto rank 0's clock first), the
// per-interval series on one grid of that clock.  Ranks
// are folded in one at a time, so the merger holds the running sum and the
// one rank being added, whatever the number of ranks; per host it keeps one
// latency histogram per job, the sum of that host's ranks'.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cli/mpi/rank_file.hpp"
#include "engine/results.h"

namespace cli {

class rank_merger {
public:
    // acc: the first rank's results, rank 0's in a live run (kept and
    // extended; the caller still owns it).
    // partial (`ioplan merge --partial`): a rank that ran fewer jobs than rank 0
    // (lost mid-run) adds the ones it ran, with a warning.
    // threads: keep each rank's threads (res_rank_job.clones) for a report
    // that lists the world's threads, DISKSPD's; off, the merge holds two
    // results at a time whatever the world's size.
    rank_merger(results *acc, const rank_info &who0, uint32_t nranks, bool partial = false, bool threads = false);
    ~rank_merger();
    rank_merger(const rank_merger &) = delete;
    rank_merger &operator=(const rank_merger &) = delete;
    // Folds in one more rank's results (src is left as it was).  Returns ""
    // or why it cannot be merged (another plan's shape, a rank seen twice).
    std::string add(const results &src, const rank_info &who);
    // Fills acc->world (the per-rank and per-host tables, skew, each group's
    // first and last done and its stragglers: ranks slower than the median
    // by more than straggler_pct, 0 for none); merge_ns is the caller's
    // measure of the whole merge.  Ranks never added stay with their rank
    // number and error ENODATA.
    void finish(uint64_t merge_ns, double straggler_pct);
    // The ranks of the world never added ("2, 3"), or "".
    std::string missing() const;

private:
    results *acc_;
    int64_t base_offset_ns_;   // the first rank's clock offset (0 for rank 0)
    uint32_t first_rank_;      // whose plan and targets the report shows
    bool partial_;
    bool threads_;
    res_world *world_;
    // One host's ranks so far: their per-job figures summed, and per job
    // their latency histograms merged (the host's percentiles are exact).
    struct host_sum {
        std::string name;
        uint32_t nranks = 0;
        std::vector<res_rank_job> jobs;
        std::vector<res_lat> lat;
    };
    std::vector<host_sum> hosts_;
    std::vector<uint64_t> late_min_, late_max_;   // per group start, over ranks
    std::vector<bool> seen_;
    std::set<std::string> warned_;   // the warnings said so far, as each host said them (add_msg)
    std::vector<std::vector<uint64_t>> origins_;   // per job and clone: the series grid's origin
    bool gridded_ = false;
    void summarise(const results &r, const rank_info &who, int64_t by);
    std::string add_first_jobs(const results &src, const rank_info &who);
    void grid_first();
    void append_disks(const results &src, const rank_info &who);
    host_sum &host_of(const std::string &name, uint32_t nr_jobs);
    void finish_hosts();
    void say_one_machine();
};

} // namespace cli

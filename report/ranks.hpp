// report/ranks.hpp - the world of an mpirun run in the reports: how many
// ranks and hosts, the measured start skew, the merge cost, each rank's and
// each host's own figures, and per group when the first and the last rank
// were done and which ranks straggled (results.world, filled by cli/ when it
// merges ranks).
//
// Internal to report/: normal output ends with a "Ranks:" block (then
// "Hosts" and "Groups over the ranks"), JSON has ioplan.world (with
// groups[]), ioplan.ranks[] and ioplan.hosts[]; a run of one process has none.
#pragma once

#include <ostream>

#include "engine/results.h"
#include "report/fio/json_util.hpp"

namespace report {

// How many processes ran r.jobs[index]: under mpirun the ranks whose results
// were merged into it (a rank lost before it holds fewer jobs, one never
// heard from none), else 1; at least 1.
uint32_t ranks_that_ran(const results &r, uint32_t index);

// The same for plan job job_id (its last measured run in r.jobs).
uint32_t ranks_that_ran_job(const results &r, uint32_t job_id);

// "Ranks: N on H hosts, start skew ..., merge ..." and a line per rank.
void write_normal_ranks(std::ostream &out, const results &r);

// {nranks, nhosts, start_skew_ns, merge_ns, straggler_threshold_pct,
// groups[]}, or null without a world.
ojson world_json(const results &r);

// One object per host: host, nranks, ranks[] and per job the sums over its
// ranks, bandwidth over the host's window, latency of its every I/O.
ojson hosts_json(const results &r);

// One object per rank: rank, host, error, clock offset, start lateness and
// per job bytes, I/Os, runtime and a latency summary.  [] without a world.
ojson ranks_json(const results &r);

} // namespace report

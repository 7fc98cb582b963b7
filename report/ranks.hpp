// report/ranks.hpp - the world of an mpirun run in the reports: how many
// ranks and hosts, the measured start skew, the merge cost, and each rank's
// own figures (results.world, filled by cli/ when it merges ranks).
//
// Internal to report/: normal output ends with a "Ranks:" block, JSON has
// ioplan.world and ioplan.ranks[]; a run of one process has neither.
#pragma once

#include <ostream>

#include "engine/results.h"
#include "report/fio/json_util.hpp"

namespace report {

// "Ranks: N on H hosts, start skew ..., merge ..." and a line per rank.
void write_normal_ranks(std::ostream &out, const results &r);

// {nranks, nhosts, start_skew_ns, merge_ns}, or null without a world.
ojson world_json(const results &r);

// One object per rank: rank, host, error, clock offset, start lateness and
// per job bytes, I/Os, runtime and a latency summary.  [] without a world.
ojson ranks_json(const results &r);

} // namespace report

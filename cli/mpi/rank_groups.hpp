// cli/mpi/rank_groups.hpp - each group (stonewall) of a merged run seen over
// its ranks: when the first rank was done and when the last, what every rank
// had moved by the first (IOR's stonewall wear-out, elbencho's first-done
// figures), and which ranks straggled.
//
// A rank's time per byte is what ranks are compared by: in a size-bound
// group every rank moves the same bytes, so it compares their times (as
// IOR's -j does); in a time-bound one every rank runs the same time, so it
// compares what they moved.  One rule for both, and a rank that moved little
// in a stonewalled group is as slow as one that took long.
#pragma once

#include "engine/results.h"

namespace cli {

// Fills r->world->groups from the per-rank rows (r->world->ranks, on rank
// 0's clock) and r's merged per-interval series.  A rank is a straggler in a
// group when its time per byte there is above the median rank's by more
// than straggler_pct percent (0: none is flagged).
void world_groups(results *r, double straggler_pct);

} // namespace cli

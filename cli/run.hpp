// cli/run.hpp - runs a plan with the engine and writes the reports.
#pragma once

#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/mpi/mpi.hpp"
#include "cli/mpi/rank_file.hpp"
#include "engine/plan.h"

namespace cli {

// Returns the process exit code: 0 success, 1 the run failed, 2 bad input.
// notes: the parser's notes (one line each), reported with the results.
// w: the world this process is a rank of (mpirun), or null; src: what the
// plan was built from, for --rank-output's files.
int run_plan(const plan &p, const args &a, const std::vector<std::string> &notes, world *w = nullptr,
             const plan_source *src = nullptr);

} // namespace cli

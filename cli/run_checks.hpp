// cli/run_checks.hpp - what fio's run flags ask of a plan before any I/O.
//
// --readonly refuses every job that would write or trim, and every file the
// layout would create, extend or fill; --aux-path must be a directory;
// --warnings-fatal makes a warning an error.
#pragma once

#include "cli/args.hpp"
#include <string>
#include <vector>

#include "engine/plan.h"

namespace cli {

// False after printing why on stderr (exit 2): nothing may run.
bool check_run_flags(const args &a, const plan &p);

} // namespace cli

// cli/merge_cmd.hpp - `ioplan merge RANKFILE...`: rank files written with
// --rank-output merged into the reports a live mpirun run prints.
#pragma once

#include "cli/args.hpp"

namespace cli {

// Exit code: 0, 1 a file cannot be merged or written, 2 bad usage or input.
int merge_action(const args &a);

} // namespace cli

// cli/plot_cmd.hpp - `ioplan plot`: the inputs named on the command line
// (a JSON result, or fio log files and directories of them) read and handed
// to report/plot, its diagnostics printed, its exit status returned.
#pragma once

#include "cli/args.hpp"

namespace cli {

// 0 when the chart was drawn; 2 for bad input (an unreadable or malformed
// input, a bad chart name), 1 when gnuplot failed.
int plot_action(const args &a);

} // namespace cli

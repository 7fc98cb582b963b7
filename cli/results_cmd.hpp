// cli/results_cmd.hpp - the results store on the command line: `ioplan results`, `ioplan compare` (--save: save.hpp).
#pragma once

#include <string>
#include <vector>

namespace cli {

// `ioplan results SUBCOMMAND ...` and `ioplan compare A B ...` (args after the
// command word).  Returns the exit code: 0, 1 (a regression found), 2 (bad
// input or an unusable store).
int results_main(const std::string &command, const std::vector<std::string> &args);

} // namespace cli

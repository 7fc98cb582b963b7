// cli/diskspd.hpp - the DISKSPD front end: `ioplan diskspd ARGS...`, or the
// binary invoked through a symlink named diskspd.
//
// The arguments are translated to fio-style job text (parser/diskspd/diskspd.hpp), read
// by the INI reader like any job file, run, and reported in DISKSPD's text or
// XML layout.  ioplan's own long options may be mixed in: --showplan prints the
// plan, --job prints the translated job file, --output=FILE, --eta=WHEN.
#pragma once

#include <string>
#include <vector>

namespace cli {

// Returns the exit code: 0, 1 (the run failed) or 2 (bad arguments).
int diskspd_main(const std::string &program, const std::vector<std::string> &args);

} // namespace cli

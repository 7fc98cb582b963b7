// cli/presets.hpp - presets: shipped job files run by name (--preset=NAME).
//
// A preset is jobs/NAME.fio, found next to the binary when run from the source
// tree (./jobs, or ../../jobs for build/<variant>/ioplan) and in the installed
// data directory (only in $IOPLAN_DATADIR/jobs when that variable is set).  Its
// first comment line is its description ("; jobs/NAME.fio - what it is") and a
// "; output-format: FMT" line names its default output.
#pragma once

#include <string>
#include <vector>

namespace cli {

struct preset_info {
    std::string name;
    std::string path;
    std::string description;
    std::string output_format;  // "" = normal
};

// Every preset, by name, first directory wins.
std::vector<preset_info> list_presets();

// The preset called name; false when there is none.
bool find_preset(const std::string &name, preset_info *out);

// Where presets are looked for, in order.
std::vector<std::string> preset_dirs();

} // namespace cli

// cli/presets.hpp - presets: shipped job files run by name (--preset=NAME).
//
// A preset is jobs/NAME.fio, found next to the binary when run from the source
// tree (./jobs, or ../../jobs for build/<variant>/ioplan) and in the installed
// data directory (only in $IOPLAN_DATADIR/jobs when that variable is set).  Its
// first comment line is its description ("; jobs/NAME.fio - what it is") and a
// "; output-format: FMT" line names its default output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parser/parser.hpp"

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

// What running a preset costs, computed from its plan (with the command line's
// job options applied, as --preset=NAME would): the time when every job runs
// to its runtime, the test files' bytes, and the options that shrink them.
struct preset_cost {
    uint64_t ns = 0;           // UINT64_MAX: a job ends when its I/O is done
    uint64_t bytes = 0;        // distinct test files, largest size each
    std::vector<std::string> files;
    std::vector<std::string> shrink;  // e.g. "--size=64m", "--runtime=1"
};

// Plans the preset (no I/O); throws parser::error when it does not plan.
preset_cost cost_of_preset(const preset_info &p, const parser::request &cli);

// "4 min 35 s, 1 GiB (ioplan-cdm.tmp); smaller: --size=64m ..."
std::string cost_text(const preset_cost &c);

} // namespace cli

// cli/args.hpp - ioplan's command line, parsed the way fio's getopt_long_only does.
//
// `--opt=val`, `--opt val` and `-opt=val` all work; ioplan's own options
// (--showplan, --output-format, ...) are recognised first, anything else must
// be a job option from the table.  Job options before any --name are defaults
// for the first job file; after --name=X they belong to that command-line job.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/progress.hpp"
#include "engine/results.h"
#include "parser/parser.hpp"

namespace cli {

enum class action { run, showplan, parse_only, help, version, cmdhelp, dump_man_options, dump_job_schema, dump_options,
                    presets, convert, plot };

struct args {
    action what = action::run;
    parser::request req;
    std::string output_format = "normal";
    bool output_format_set = false;
    std::string output_path;
    std::string cmdhelp;        // option name, or "all"
    std::string preset;
    std::string convert_to;     // `ioplan convert FILE --to=ini|toml|yaml`
    eta_mode eta = eta_mode::automatic;
    // --fake-clock=STEP_NS: deterministic time for golden tests (every timestamp
    // advances by STEP_NS; host, kernel and CPU use are fixed values).
    uint64_t fake_clock_step_ns = 0;
    // A writer replacing --output-format (the DISKSPD front end's layouts).
    std::function<void(const results &, const plan &, std::ostream &)> writer;
};

// Parses argv[1..]; throws parser::error (positioned at "<command line>") on bad usage.
args parse_args(int argc, char **argv);

void print_usage(FILE *out);

} // namespace cli

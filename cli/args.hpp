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
#include "report/personality.hpp"
#include "report/report.hpp"

namespace cli {

enum class action { run, showplan, parse_only, help, version, cmdhelp, dump_man_options, dump_man_flags,
                    dump_job_schema, dump_options, presets, convert, plot, showcmd, enghelp, debug_help, cpuclock_test,
                    crctest, idle_calibrate, inflate_log, merge, report };

struct args {
    action what = action::run;
    parser::request req;
    std::string output_format = "normal";
    bool output_format_set = false;
    std::string output_path;
    // The argv index of that --output: fio opens its file there, so what it
    // prints while reading a command-line job given before it goes to stdout.
    int output_at = 0;
    std::string cmdhelp;        // option name, or "all"
    std::string preset;
    std::string convert_to;     // `ioplan convert FILE --to=ini|toml|yaml`
    eta_mode eta = eta_mode::automatic;
    // --fake-clock=STEP_NS: deterministic time for golden tests (every timestamp
    // advances by STEP_NS; host, kernel and CPU use are fixed values).
    uint64_t fake_clock_step_ns = 0;
    // fio's command-line flags (cli/flags.cpp says what each does).
    bool readonly = false;          // refuse writes, trims and layouts before any I/O
    bool merge_blktrace_only = false;  // write each job's merge_blktrace_file, then exit
    bool warnings_fatal = false;    // a warning from the job files fails the run
    int terse_version = 3;
    bool append_terse = false;      // the terse output besides --output-format's
    bool bandwidth_log = false;     // fio's agg-{read,write,trim}_bw.log (cli/mpi/agg_bw_log.hpp)
    std::string inflate_log;        // --inflate-log's file
    std::vector<std::string> debug; // --debug classes
    std::string enghelp;            // --enghelp's engine[,option]
    std::string crctest;            // --crctest's checksum, "" = all
    std::string aux_path;           // where verify state and verify_dump files go ("" = cwd)
    std::string trigger_file, trigger_cmd;
    uint64_t trigger_timeout_ns = 0;
    uint64_t eta_newline_ns = 0;    // end the progress line with a newline this often
    uint64_t eta_interval_ns = 0;   // progress line interval; 0 = every 500 ms (run as fio: 1 s)
    uint64_t status_interval_ns = 0;
    std::string idle_prof;
    // Many ranks (cli/mpi/mpi.hpp): where each rank writes its whole result, the
    // read-back shift (IOPLAN_READ_RANK), the deadline of every collective wait.
    std::string rank_output;
    // Under mpirun without --rank-output: where each rank keeps its result
    // until the world has reported (run_ranks.hpp default_rank_dir), or "".
    std::string rank_keep;
    bool merge_partial = false;     // merge --partial: ranks without a file are a warning
    int rank_shift = 0;
    uint64_t rank_timeout_ns = 600ull * 1000000000ull;
    uint64_t join_timeout_ns = 0;   // 0: --rank-timeout, at least a minute
    double straggler_pct = 25;      // a rank this % slower than the median is flagged; 0 = none
    // Results that last: --save[=LABEL] keeps the run in the results store.
    bool save = false;
    std::string save_label;
    std::string results_db;         // --results-db; "" = results::default_path()
    std::vector<std::string> argv;  // as given (a rank file records it for `merge`)
    // A writer replacing --output-format (the DISKSPD front end's layouts).
    std::function<void(const results &, const plan &, std::ostream &)> writer;
    // What a front end adds to a preflight finding of the given code, in its own
    // words: the findings name fio's options, a DISKSPD command line has others.
    std::function<std::string(const char *code)> finding_hint;
    // fio when run as `fio` (main sets it from argv[0]): the version it presents.
    report::personality who = report::personality::ioplan;
    // Run as fio, the lines fio prints as it reads the jobs that go with the
    // report (report::options::said); run_action sets them once the plan is made.
    report::fio_said fio_said;
    // fio reads argv in order and adds a command-line job when the next --name
    // comes, printing its banner line in the output format of that moment:
    // the argv index of every --name (global and left-out ones too), and of
    // every --output-format or --minimal with whether it left normal output on.
    std::vector<int> name_at;
    std::vector<std::pair<int, bool>> format_at;
};

// Parses argv[1..]; throws parser::error (positioned at "<command line>") on bad usage.
args parse_args(int argc, char **argv);

void print_usage(FILE *out);

// The first job option (--bs=4k, --name=x) a command that runs no job was
// given, as "--bs: a job option, and ioplan CMD runs no job"; "" when none.
// report, plot and merge refuse one rather than take it and ignore it.
std::string job_option_given(const args &a, const char *cmd);

// The three most common ways to start, for --help and a bare `ioplan`.
void print_starts(FILE *out);

} // namespace cli

// cli/flags.cpp - the table of ioplan's command-line flags and the text made from it.
//
// Handlers are small functions of (context, value); the table is the only
// place that knows a flag's name, so --help and ioplan(1) list exactly what
// the parser accepts.
#include "cli/flags.hpp"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstdlib>

#include "cli/debug.hpp"
#include "parser/values.hpp"
#include "report/report.hpp"
#include "results/table_cell.hpp"

namespace cli {

void flag_ctx::fail(const std::string &msg) const
{
    // Column = argument number, so "<command line>:1:3" points at argv[3]; the caret at its start.
    parser::fail(parser::loc{"<command line>", 1, at, text, nullptr, 1}, msg);
}

namespace {

using ctx = flag_ctx;
using str = const std::string &;

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t at; (at = s.find(sep, start)) != std::string::npos; start = at + 1)
        out.push_back(s.substr(start, at - start));
    out.push_back(s.substr(start));
    return out;
}

void set_what(ctx &c, action w)
{
    c.a.what = w;
}

void name_job(ctx &c, str v)
{
    c.a.name_at.push_back(c.at);
    if (v == "global") {
        c.current_job = nullptr; // options now go to the command-line defaults
        return;
    }
    // A job --section= leaves out (one given before it, as fio checks) is not
    // made; fio puts its options into the defaults of the jobs after it.
    const auto &only = c.a.req.only_sections;
    if (!only.empty() && std::find(only.begin(), only.end(), v) == only.end()) {
        c.current_job = nullptr;
        return;
    }
    c.a.req.cli_jobs.push_back(parser::section{v, false, parser::loc{"<command line>", 1, c.at, c.text, nullptr, 1}, {}, {}});
    c.current_job = &c.a.req.cli_jobs.back();
}

void fake_clock(ctx &c, str v)
{
    // strtoull alone took "-5" as 2^64 - 5 and "5x" as 5.
    bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
    errno = 0;
    c.a.fake_clock_step_ns = digits ? (uint64_t)std::strtoull(v.c_str(), nullptr, 10) : 0;
    if (!c.a.fake_clock_step_ns || errno == ERANGE)
        c.fail("--fake-clock needs a whole number of ns above 0");
}

// An empty path (`--results-db=$DB`, DB unset) kept the run in the per-user
// default store, which `results list --results-db=` refuses to read.
void results_db(ctx &c, str v)
{
    if (v.empty())
        c.fail("--results-db needs a path (an empty one would keep the run in the per-user default store)");
    c.a.results_db = v;
}

// A label of digits alone would name the run of that id once there is one: never found again.
// One that is not UTF-8 (typed in a Latin-1 terminal) was stored as it was, and every JSON
// of the store (results list, show, export) then failed on it.  One of white space alone
// (--save=' ', a quoted variable holding a space) was stored as it was: `results list` showed
// it as the blank of a run saved without a label, and `summary --by=label` made it a group
// of its own beside that blank one.
void save(ctx &c, str v)
{
    if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos)
        c.fail("--save=" + v + ": a label of digits only is read as a run id; give one with a letter "
               "(e.g. run-" + v + ")");
    if (!v.empty() && v.find_first_not_of(" \t\n\v\f\r") == std::string::npos)
        c.fail("--save: the label is white space only, which results list shows as no label; give one "
               "with a visible character, or --save alone for a run without a label");
    for (size_t i = 0, n = 0; i < v.size(); i += n)
        if (resdb::utf8_at(v, i, &n) == 0xfffd && n == 1) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", (unsigned char)v[i]);
            c.fail(std::string("--save: the label is not UTF-8 text (byte ") + hex + " at " + std::to_string(i + 1) +
                   "): the store keeps it as JSON text; give it in UTF-8");
        }
    c.a.save = true;
    c.a.save_label = v;
}

// As fio's: a value that is none of the three leaves the mode as it was
// (fio 3.33 runs --eta=sometimes, or --eta=, with its progress line unchanged).
void eta(ctx &c, str v)
{
    std::string err;
    (void)parse_eta_mode(v, &c.a.eta, &err);
}

// As fio's parse_output_format, which starts from no format: an --append-terse
// given before it is undone (fio's --append-terse --output-format=json prints
// JSON alone; the other order, terse and JSON).
void output_format(ctx &c, str v)
{
    unsigned formats = 0;
    std::string err;
    c.a.output_format = v;
    c.a.output_format_set = true;
    c.a.append_terse = false;
    c.a.format_at.emplace_back(c.at, report::parse_formats(v, &formats, &err) && (formats & report::FORMAT_NORMAL));
}

// --straggler-threshold=PCT: a percentage, "%" optional; 0 flags no rank.
void straggler_threshold(ctx &c, str v)
{
    std::string t = !v.empty() && v.back() == '%' ? v.substr(0, v.size() - 1) : v;
    char *end = nullptr;
    errno = 0;
    double pct = t.empty() ? -1 : std::strtod(t.c_str(), &end);
    if (pct < 0 || errno == ERANGE || *end || !(pct <= 1e6) || t.find_first_not_of("0123456789.") != std::string::npos)
        c.fail("--straggler-threshold needs a percentage from 0 (flag none) to 1000000, e.g. 25");
    c.a.straggler_pct = pct;
}

// fio's time values (--eta-newline=2, --status-interval=500ms): a bare number is seconds.
uint64_t time_value(ctx &c, str v, uint64_t min_ns)
{
    uint64_t ns = 0;
    try {
        ns = parser::parse_time_ns(v, parser::time_unit::s);
    } catch (const parser::value_error &e) {
        c.fail(c.text + ": " + e.what());
    }
    if (ns < min_ns)
        c.fail(c.text + ": at least " + std::to_string(min_ns / 1000000) + " ms");
    return ns;
}

uint32_t count_value(ctx &c, str v)
{
    bool digits = !v.empty() && v.size() < 10 && v.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || !std::strtoul(v.c_str(), nullptr, 10))
        c.fail(c.text + ": a whole number above 0");
    return (uint32_t)std::strtoul(v.c_str(), nullptr, 10);
}

void terse_version(ctx &c, str v)
{
    if (v != "2" && v != "3" && v != "4" && v != "5")
        c.fail("--terse-version: bad terse version '" + v + "' (valid: 2, 3, 4, 5)");
    c.a.terse_version = v[0] - '0';
}

void debug(ctx &c, str v)
{
    for (const std::string &cls : split(v, ','))
        if (cls == "help" || cls == "?")
            set_what(c, action::debug_help);
        else if (debug_class_known(cls))
            c.a.debug.push_back(cls);
        else
            c.fail("--debug: unknown class '" + cls + "' (ioplan --debug=help lists them)");
}

void idle_prof(ctx &c, str v)
{
    if (v != "system" && v != "percpu" && v != "calibrate")
        c.fail("--idle-prof: unknown value '" + v + "' (valid: system, percpu, calibrate)");
    c.a.idle_prof = v;
    if (v == "calibrate")
        set_what(c, action::idle_calibrate);
}

// fio's client/server flags: ioplan runs where it is started.
void no_remote(ctx &c, str)
{
    c.fail(c.text.substr(0, c.text.find('=')) +
           ": ioplan has no client/server mode; to run on many hosts at once use MPI: "
           "mpirun -np N ioplan JOBFILE (see ioplan(1), MANY HOSTS)");
}

const char *const RUN = "running", *const OUT = "output", *const FILES = "job files",
                  *const INFO = "information", *const TEST = "testing", *const FIO = "fio compatibility";

const std::vector<flag> table = {
    {"name", flag_arg::required, "NAME", FILES, "start a command-line job; the job options after it belong to it",
     name_job, "The name\n.Cm global\nreturns to the command-line defaults, which apply to the later jobs."},
    {"section", flag_arg::required, "NAME", FILES, "run only job section NAME (repeatable)",
     [](ctx &c, str v) { c.a.req.only_sections.push_back(v); },
     "Sections run in file order; global sections are always read.\nA command-line job given after it "
     "and not named by it is left out too, and its options become defaults of the later jobs, as in fio.", "x"},
    {"format", flag_arg::required, "SYNTAX", FILES,
     "job file syntax: ini, toml, yaml (default: .toml and .yaml/.yml by extension, anything else INI)",
     [](ctx &c, str v) { c.a.req.format = v; }},
    {"preset", flag_arg::required, "NAME", FILES, "run a shipped job file; job options given override its values",
     [](ctx &c, str v) { c.a.preset = v; },
     "Its\n.Dq ; output-format: NAME\nline names its default output format."},
    {"to", flag_arg::required, "SYNTAX", FILES, "with convert: the syntax to write (ini, toml, yaml)",
     [](ctx &c, str v) { c.a.convert_to = v; }},
    {"showplan", flag_arg::none, nullptr, RUN, "print the resolved plan as JSON and exit (runs nothing)",
     [](ctx &c, str) { set_what(c, action::showplan); },
     "Every group, job, thread and file with every value in base units (bytes,\nnanoseconds); with\n"
     ".Fl \\-output ,\ninto that file."},
    {"parse-only", flag_arg::none, nullptr, RUN, "check the job files and the command line, print nothing, exit",
     [](ctx &c, str) { set_what(c, action::parse_only); }, "", "P"},
    {"eta", flag_arg::required, "WHEN", RUN, "progress line on stderr: auto (when a terminal), always, never",
     eta, "Run as fio, it is fio's: on standard output, and none while that carries\n"
     "only JSON or terse output.\nAny other value leaves it as it was, as fio's.", "e"},
    {"fake-clock", flag_arg::required, "NS", TEST,
     "for golden tests: every timestamp advances NS, host/kernel/pid/CPU use fixed", fake_clock},
    {"output-format", flag_arg::required, "LIST", OUT, "comma-separated output formats: @FORMATS@",
     output_format, "Of these, terse and minimal are one format, fio's; csv is the same lines\n"
     "under a header row naming each field (run as fio, fio's bare lines);\njson+ is json with latency bins;\n"
     "cdm is CrystalDiskMark's text export;\nwinsat, hdparm, dd and gnome\\-disks print those tools' own lines;\n"
     "diskspd and diskspd\\-xml are DISKSPD's text and XML;\nhtml is one self\\-contained page (see ioplan report).", "F"},
    {"save", flag_arg::optional, "LABEL", OUT, "keep the run, with its environment, in the results store",
     save,
     "See\n.Sx RESULTS\n(ioplan results, ioplan compare).  A store that cannot be written\n"
     "still leaves the report printed in full; the exit status is then 1 and\nthe reason is on stderr."},
    {"results-db", flag_arg::required, "PATH", OUT,
     "the results store (default $IOPLAN_RESULTS_DB, else $XDG_DATA_HOME/ioplan/results.db)",
     results_db,
     "Its directory must be there: only the per\\-user default's is made\n"
     "(a mistyped path, or a mount point not mounted yet, is refused\nbefore the run)."},
    {"output", flag_arg::required, "FILE", OUT, "write the results to FILE instead of standard output",
     [](ctx &c, str v) { c.a.output_path = v; c.a.output_at = c.at; },
     "The file is opened (created if need be) before any I/O, so a missing\n"
     "directory, a read-only file system or a directory in its place is an error\n"
     "with status 2 before anything runs; an existing file keeps its contents until\n"
     "the results replace them, and a file created for a run that never started is\n"
     "removed again.\n"
     "A FIFO is opened when the results are ready, whenever its reader comes.\n"
     "A regular file that is also one of the jobs' files, a file a job writes\n"
     "beside them (a log, write_iolog, a verify state), or a file the run reads\n"
     "(a job file, an included one, a trace, the results store), is refused\n"
     "(status 2): the results would replace it, or share it.\n"
     "When the file cannot take the results after the run (the disk filled), the\n"
     "error says so and the results are written to standard output instead.", "o"},
    {"readonly", flag_arg::none, nullptr, RUN, "refuse, before any I/O, every job that would write, trim or lay out a file, or whose engine creates, deletes or allocates",
     [](ctx &c, str) { c.a.readonly = true; }, "The run exits with status 2 naming the job; nothing is written.", "r"},
    {"max-jobs", flag_arg::required, "N", RUN, "accepted for fio's scripts and ignored, as fio 3.33 ignores it",
     [](ctx &, str) {}, "fio's test harness passes --max-jobs=16; fio 3.33 no longer limits anything with it.", "j"},
    {"warnings-fatal", flag_arg::none, nullptr, RUN, "a warning (job files or preflight) is an error: exit 2 before any I/O",
     [](ctx &c, str) { c.a.warnings_fatal = true; },
     "Each warning is printed before the error.\n"
     "Run as fio, only the job files' warnings are fatal, as in fio:\n"
     "preflight's, about the measurement (a buffered read the page cache\n"
     "may serve), stay in the report.", "w"},
    {"eta-newline", flag_arg::required, "TIME", RUN, "end the progress line with a newline every TIME (bare number: s)",
     [](ctx &c, str v) { c.a.eta_newline_ns = time_value(c, v, 1000000); }, "", "E"},
    {"eta-interval", flag_arg::required, "TIME", RUN, "redraw the progress line every TIME (default 500ms, run as fio 1s; at least 100ms)",
     [](ctx &c, str v) { c.a.eta_interval_ns = time_value(c, v, 100000000); }, "", "O"},
    {"status-interval", flag_arg::required, "TIME", RUN,
     "every TIME (bare number: s; at least 1ms), the full report of the results so far",
     [](ctx &c, str v) { c.a.status_interval_ns = time_value(c, v, 1000000); },
     "As fio: in every output format asked for, where the final report goes, one whole report after "
     "another (JSON documents back to back, a terse line per job, normal output's blocks), then the "
     "final report.\n"
     "Each holds the run so far: bytes, runtime, latencies and their percentiles and the disks' "
     "counters up to that moment.\n"
     "A JSON job's eta is the run's time left as the progress line estimates it, in whole seconds "
     "(2147483647 before 3 s, as fio).\n"
     "A thread held in a long I/O or think past the report's short wait shows its figures as of the "
     "report before.\n"
     "SIGUSR1 asks for one such report at any time.", "L"},
    {"debug", flag_arg::required, "CLASSES", RUN,
     "debug lines on stderr for the comma-separated classes (--debug=help lists them)", debug,
     "Each line is the class, the process id and the event, as fio prints them.", "d"},
    {"minimal", flag_arg::none, nullptr, OUT, "fio's terse output (--output-format=terse)",
     [](ctx &c, str v) { output_format(c, "terse"); }, "", "m"},
    {"append-terse", flag_arg::optional, "IGNORED", OUT, "the terse output as well as the formats asked for",
     [](ctx &c, str) { c.a.append_terse = true; }, "", "f"},
    {"terse-version", flag_arg::required, "N", OUT, "terse output version: 3 (default), 2, 4 or 5, as fio", terse_version, "", "V"},
    {"bandwidth-log", flag_arg::none, nullptr, OUT, "write fio's aggregate bandwidth logs agg-read_bw.log, agg-write_bw.log, agg-trim_bw.log (one that cannot be written: exit 1)",
     [](ctx &c, str) { c.a.bandwidth_log = true; },
     "In the current directory, a line \"time_ms, KiB/s, ddir, 0, 0\" per direction every bwavgtime of the "
     "first job: all jobs together.  fio fills them only while it draws its ETA line; ioplan always does.", "b"},
    {"showcmd", flag_arg::none, nullptr, INFO, "print each job file as a command line and exit",
     [](ctx &c, str) { set_what(c, action::showcmd); },
     "One line a file, as fio prints them: a later file starts from fresh defaults, and the command "
     "line's job options open the first line.\nJobs given with\n.Fl \\-name\nare not printed, as in fio.\n"
     "Run as fio, each word ends with a space and a file with no section to print is an empty line, as fio "
     "writes them.",
     "s"},
    {"enghelp", flag_arg::optional, "ENGINE[,OPTION]", INFO, "list the I/O engines, an engine's options, or explain one",
     [](ctx &c, str v) { set_what(c, action::enghelp); c.a.enghelp = v; }, "", "i"},
    {"cpuclock-test", flag_arg::none, nullptr, INFO, "test the clock ioplan times I/O with, on every CPU, and exit",
     [](ctx &c, str) { set_what(c, action::cpuclock_test); }, "", "T"},
    {"crctest", flag_arg::optional, "CHECKSUM", INFO, "measure the speed of the verify checksums (all, or the comma-separated ones named) as fio does, and exit",
     [](ctx &c, str v) { set_what(c, action::crctest); c.a.crctest = v; }, "", "G"},
    {"alloc-size", flag_arg::required, "KIB", FIO, "accepted for fio; no effect (ioplan has no shared memory pool)",
     [](ctx &c, str v) { count_value(c, v); }, "", "a"},
    {"idle-prof", flag_arg::required, "MODE", FIO,
     "system: report the CPU idleness over the run (CPUs' mean); percpu: and each CPU's; "
     "calibrate: print the unit of idle work and exit", idle_prof,
     "A CPU's figure is at most 100%, where fio's goes past it when the unit timed before the run ran slower "
     "than the CPU later did (a loaded machine).", "I"},
    {"aux-path", flag_arg::required, "DIR", FIO, "directory for verify state files (verify_state_save/load) and verify_dump files, as fio's",
     [](ctx &c, str v) { c.a.aux_path = v; }, "", "K"},
    // ---- many ranks (mpirun; cli/mpi/mpi.hpp) ----
    {"rank-output", flag_arg::required, "DIR", RUN,
     "write each rank's whole result to DIR/rank-R.json as each group ends (for ioplan merge)",
     [](ctx &c, str v) { c.a.rank_output = v; },
     "Rewritten by every rank at the end of each group and as soon as its run ends, before results are\n"
     "sent to rank 0, so a rank lost later keeps the groups it finished; each write goes to a temporary\n"
     "name renamed over the last.\nThe JSON holds every counter and latency histogram and the job text;\n"
     ".Ql ioplan merge DIR/rank-*.json\nprints the same reports as the live run.\n"
     "Without mpirun it writes rank-0.json.\n"
     "Without this option each rank of an\n.Nm mpirun\nrun keeps its file in\n"
     ".Pa $XDG_STATE_HOME/ioplan/ranks/RUN/\nuntil rank 0 has reported the world\n.Pq Sx MANY HOSTS ."},
    {"partial", flag_arg::none, nullptr, RUN,
     "with merge: merge the rank files given although ranks of the run have none (a warning names them)",
     [](ctx &c, str) { c.a.merge_partial = true; },
     "Without it a missing rank is an error: a merge of part of a world would report part of its I/O as "
     "the whole.\nOne rank's file alone shows that rank's own figures.\n"
     "A rank lost mid-run (its file holds fewer groups than rank 0's) is merged for\n"
     "the groups it finished, with a warning."},
    {"rank-shift", flag_arg::required, "N", RUN,
     "under mpirun: IOPLAN_READ_RANK is (rank + N x ranks per node) mod ranks: a read job reads what a rank N nodes on wrote",
     [](ctx &c, str v) { c.a.rank_shift = (int)count_value(c, v); },
     "IOR's\n.Fl C\nand\n.Fl Q :\nranks per node are those on rank 0's host, so with ranks placed by node (mpirun's default)\n"
     "and\n.Ql directory=/mnt/t/${IOPLAN_READ_RANK}\nin the read job, each rank reads files a rank on\n"
     "another node wrote, and its client cache holds none of them.\nOn one host the shift is a whole turn: each rank reads its own."},
    {"rank-timeout", flag_arg::required, "TIME", RUN,
     "under mpirun: the longest any rank waits for the others at one step (default 600s), then all stop",
     [](ctx &c, str v) { c.a.rank_timeout_ns = time_value(c, v, 1000000000); },
     "A rank missing at a group's start or end is named by rank 0, which reports the groups the others "
     "finished (status 1); elsewhere the rank that waited names the step and ends every rank (MPI_Abort): "
     "a rank that hangs never holds the others forever.\nLaying files out is work, not a step: while a rank "
     "lays out, it and rank 0 say every quarter of TIME that they are alive, and the others wait as long as "
     "they do.\nJoining and leaving the world (MPI_Init, "
     "MPI_Finalize) have the same deadline, but never under a minute (\n.Fl -join-timeout\nsets it).\nA size-bound group may end that much later on its slowest rank."},
    {"join-timeout", flag_arg::required, "TIME", RUN,
     "under mpirun: the longest a rank waits in MPI_Init and MPI_Finalize, then it gives up (default: --rank-timeout, at least 60s)",
     [](ctx &c, str v) { c.a.join_timeout_ns = time_value(c, v, 1000000000); },
     "MPI_Init waits for every rank to come and cannot say which one is missing, so each rank that came "
     "prints that it did and exits 1: the rank missing from those lines is the one lost.\n"
     "The default never goes under a minute, as starting many ranks oversubscribed takes seconds; "
     "on a few nodes that start at once, a shorter TIME finds a rank that never came sooner."},
    {"straggler-threshold", flag_arg::required, "PCT", RUN,
     "under mpirun and with merge: flag a rank whose time per byte in a group is PCT% above the median rank's (default 25; 0: none)",
     straggler_threshold,
     "IOR's\n.Fl j ,\nin percent of the median rather than seconds from the mean.\n"
     "Time per byte is the rank's first I/O to its last completion in the group over the bytes it moved: "
     "in a size-bound group every rank moves the same bytes, so it compares times; in a time-bound one "
     "every rank runs the same time, so it compares what they moved.\n"
     "A straggler's rank line in the Ranks block says how much slower it was; JSON has\n"
     ".Ql ioplan.world.groups[].ranks[].slower_pct .\n25% is above the spread of equal ranks sharing a busy host."},
    {"trigger-file", flag_arg::required, "FILE", RUN, "stop the run when FILE appears (it is removed), then run --trigger",
     [](ctx &c, str v) { c.a.trigger_file = v; }, "", "W"},
    {"trigger-timeout", flag_arg::required, "TIME", RUN, "stop the run after TIME (bare number: s), then run --trigger",
     [](ctx &c, str v) { c.a.trigger_timeout_ns = time_value(c, v, 0); }, "", "B"},
    {"trigger", flag_arg::required, "COMMAND", RUN, "the shell command a trigger runs once the run has stopped",
     [](ctx &c, str v) { c.a.trigger_cmd = v; }, "", "H"},
    {"merge-blktrace-only", flag_arg::none, nullptr, FIO, "write each job's merge_blktrace_file, then exit without running",
     [](ctx &c, str) { c.a.merge_blktrace_only = true; },
     "The read_iolog blktrace files of every job with merge_blktrace_file= are merged; no job runs.", "A"},
    {"inflate-log", flag_arg::required, "LOG", FIO, "print a compressed log (NAME.log.fz, log_store_compressed) as text and exit",
     [](ctx &c, str v) { set_what(c, action::inflate_log); c.a.inflate_log = v; },
     "Reads the files of fio and of ioplan alike.", "X"},
    {"latency-log", flag_arg::required, "FILE", FIO, "refused, as fio: use the job option write_lat_log",
     [](ctx &c, str) { c.fail("--latency-log is deprecated (as in fio): use the job option write_lat_log"); }, "", "l"},
    {"server", flag_arg::optional, "ARGS", FIO, "refused: no client/server mode (see ioplan(1))", no_remote, "", "S"},
    {"client", flag_arg::required, "HOST", FIO, "refused: no client/server mode", no_remote, "", "C"},
    {"daemonize", flag_arg::required, "PIDFILE", FIO, "refused: no client/server mode", no_remote, "", "D"},
    {"remote-config", flag_arg::required, "FILE", FIO, "refused: no client/server mode", no_remote, "", "R"},
    {"trigger-remote", flag_arg::required, "COMMAND", FIO, "refused: no client/server mode", no_remote,
     "Runs over many hosts use MPI instead:\n.Ql mpirun \\-np N ioplan JOBFILE\n(see\n.Sx MANY HOSTS ) .", "J"},
    {"presets", flag_arg::none, nullptr, INFO, "list the presets with a line about each",
     [](ctx &c, str) { set_what(c, action::presets); }},
    {"cmdhelp", flag_arg::optional, "OPTION", INFO, "list the job options by category, or explain one",
     [](ctx &c, str v) { set_what(c, action::cmdhelp); c.a.cmdhelp = c.has_value ? v : "all"; },
     "One option's aliases, type, unit, default, range and choices.", "c"},
    {"dump-job-schema", flag_arg::none, nullptr, INFO, "print the JSON Schema of TOML/YAML job files",
     [](ctx &c, str) { set_what(c, action::dump_job_schema); }},
    {"dump-options", flag_arg::required, "json", INFO, "print the job option table as JSON (for scripts)",
     [](ctx &c, str v) {
         if (v != "json")
             c.fail("--dump-options takes json (--dump-options=json)");
         set_what(c, action::dump_options);
     }},
    {"dump-man-options", flag_arg::none, nullptr, INFO, "print the job option list of ioplan-job(5), in roff",
     [](ctx &c, str) { set_what(c, action::dump_man_options); }},
    {"dump-man-flags", flag_arg::none, nullptr, INFO, "print this option list for ioplan(1), in mdoc",
     [](ctx &c, str) { set_what(c, action::dump_man_flags); }},
    {"version", flag_arg::none, nullptr, INFO, "print the version",
     [](ctx &c, str) { set_what(c, action::version); }, "", "v"},
    {"help", flag_arg::none, nullptr, INFO, "print this text", [](ctx &c, str) { set_what(c, action::help); },
     "", "h"},
};

std::string usage_name(const flag &f)
{
    std::string s = std::string("--") + f.name;
    if (f.arg == flag_arg::required)
        s += std::string("=") + f.value_name;
    else if (f.arg == flag_arg::optional)
        s += std::string("[=") + f.value_name + "]";
    return s;
}

// Text wrapped to fit after a column of `indent` blanks in 80 columns.
std::string wrap(const std::string &text, size_t indent)
{
    std::string out, line;
    size_t start = 0;
    while (start < text.size()) {
        size_t sp = text.find(' ', start);
        std::string word = text.substr(start, sp == std::string::npos ? std::string::npos : sp - start);
        if (!line.empty() && indent + line.size() + 1 + word.size() > 79) {
            out += line + "\n" + std::string(indent, ' ');
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        start = sp == std::string::npos ? text.size() : sp + 1;
    }
    return out + line;
}

std::string mdoc_escape(const std::string &s)
{
    std::string out;
    for (char c : s)
        out += c == '\\' ? std::string("\\e") : c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
}

// Source lines of at most 80 bytes; a line may not open with a control character.
std::string man_lines(const std::string &text)
{
    std::string out;
    for (const std::string &l : split(wrap(text, 0), '\n'))
        out += (out.empty() ? "" : "\n") + std::string(l[0] == '.' || l[0] == '\'' ? "\\&" : "") + l;
    return out;
}

} // namespace

const std::vector<flag> &flags()
{
    return table;
}

const flag *find_flag(const std::string &name)
{
    for (const flag &f : table)
        if (name == f.name || (f.alias && name == f.alias))
            return &f;
    return nullptr;
}

std::string flag_help(const flag &f)
{
    std::string h = f.help;
    size_t at = h.find("@FORMATS@");
    if (at != std::string::npos)
        h.replace(at, 9, report::format_names());
    return h;
}

void print_flag_help(FILE *out)
{
    const size_t col = 26;
    for (const char *cat : {FILES, RUN, OUT, INFO, FIO, TEST}) {
        std::fprintf(out, "\n%s:\n", cat);
        for (const flag &f : table) {
            if (std::string(f.category) != cat)
                continue;
            std::string left = "  " + usage_name(f) + (f.alias ? std::string(", -") + f.alias : "");
            if (left.size() + 1 > col)
                std::fprintf(out, "%s\n%*s", left.c_str(), (int)col, "");
            else
                std::fprintf(out, "%-*s", (int)col, left.c_str());
            std::fprintf(out, "%s\n", wrap(flag_help(f), col).c_str());
        }
    }
}

void print_man_flags(FILE *out)
{
    for (const flag &f : table) {
        std::fprintf(out, ".It Fl \\-%s", mdoc_escape(f.name).c_str());
        if (f.arg == flag_arg::required)
            std::fprintf(out, " Ns = Ns Ar %s", f.value_name);
        else if (f.arg == flag_arg::optional)
            std::fprintf(out, " Ns Op = Ns Ar %s", f.value_name);
        if (f.alias)
            std::fprintf(out, " , Fl %s", f.alias);
        std::string h = flag_help(f);
        h[0] = (char)std::toupper((unsigned char)h[0]);
        std::fprintf(out, "\n%s.\n", man_lines(mdoc_escape(h)).c_str());
        for (const std::string &l : *f.man ? split(f.man, '\n') : std::vector<std::string>())
            std::fprintf(out, "%s\n", l[0] == '.' ? l.c_str() : man_lines(l).c_str()); // macros stay whole
    }
}

} // namespace cli

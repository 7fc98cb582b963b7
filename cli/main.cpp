// cli/main.cpp - ioplan's entry point: arguments -> parser -> engine -> report.
//
// The only code that calls every stage.  Exit codes: 0 success, 1 the run
// failed, 2 bad input (job file or command line).
#include <algorithm>
#include <cstdio>
#include <csignal>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <new>
#include <unistd.h>
#include <string>
#include <vector>
#include <iostream>
#include <sstream>

#include "cli/replay.hpp"
#include "cli/args.hpp"
#include "cli/cmdhelp.hpp"
#include "cli/debug.hpp"
#include "cli/diskspd.hpp"
#include "cli/fio_actions.hpp"
#include "cli/fio_said.hpp"
#include "cli/flags.hpp"
#include "cli/log_inflate.hpp"
#include "cli/merge_cmd.hpp"
#include "cli/mpi/mpi.hpp"
#include "cli/output.hpp"
#include "cli/plot_cmd.hpp"
#include "cli/report_cmd.hpp"
#include "cli/presets.hpp"
#include "cli/results_cmd.hpp"
#include "cli/run.hpp"
#include "cli/run_checks.hpp"
#include "cli/mpi/run_ranks.hpp"
#include "parser/parser.hpp"
#include "parser/structured.hpp"
#include "parser/schema.hpp"
#include "parser/writers.hpp"
#include "report/showplan.hpp"

namespace {

bool has_warnings(const parser::diag_list &notes)
{
    for (const auto &d : notes)
        if (d.sev != parser::severity::note)
            return true;
    return false;
}

int print_notes(const parser::diag_list &notes)
{
    for (const auto &d : notes)
        fputs(parser::format_diag(d).c_str(), stderr);
    return 0;
}

// --presets: each preset, what it is, and (from its plan, with the command
// line's job options applied) the time and disk space it takes.
void print_presets(const cli::args &a, FILE *f)
{
    for (const auto &p : cli::list_presets()) {
        std::fprintf(f, "%-22s %s\n", p.name.c_str(), p.description.c_str());
        std::string cost;
        try {
            cost = cli::cost_text(cli::cost_of_preset(p, a.req));
        } catch (const parser::error &e) {
            std::string t = e.text();
            cost = "does not plan: " + t.substr(0, t.find('\n'));
        }
        std::fprintf(f, "%-22s %s\n", "", cost.c_str());
    }
}

// The text of an action that only prints, or "" with *known false.
std::string info_text(const cli::args &a, bool *known)
{
    *known = true;
    switch (a.what) {
    case cli::action::help:
        return (a.who == report::personality::fio ? report::fio_mode_banner() : "") +
               cli::capture([](FILE *f) { cli::print_usage(f); });
    case cli::action::version:
        return report::version_string(a.who) + "\n";
    case cli::action::cmdhelp:
        if (a.who == report::personality::fio) { // fio's layout, and its exit 0 for an unknown name
            std::vector<const parser::option *> all;
            for (const parser::option &o : parser::options())
                all.push_back(&o);
            return cli::capture([&a, &all](FILE *f) { cli::print_cmdhelp_fio(a.cmdhelp, all, f, stderr); });
        }
        return cli::capture([&a, known](FILE *f) { *known = cli::print_cmdhelp(a.cmdhelp, f); });
    case cli::action::dump_man_options:
        return cli::capture([](FILE *f) { cli::print_man_options(f); });
    case cli::action::dump_man_flags:
        return cli::capture([](FILE *f) { cli::print_man_flags(f); });
    case cli::action::presets:
        return cli::capture([&a](FILE *f) { print_presets(a, f); });
    case cli::action::dump_job_schema:
        return parser::job_schema();
    case cli::action::dump_options:
        return parser::options_json();
    default:
        *known = false;
        return "";
    }
}

// fio's informational flags: their exit code, or -1 for another action.
int fio_action(const cli::args &a)
{
    switch (a.what) {
    case cli::action::showcmd:
        return cli::print_showcmd(a, stdout);
    case cli::action::enghelp:
        return cli::print_enghelp(a.enghelp, a.who == report::personality::fio, stdout);
    case cli::action::debug_help:
        cli::print_debug_classes(stdout);
        return 0;
    case cli::action::cpuclock_test:
        return cli::cpuclock_test(stdout);
    case cli::action::crctest:
        return cli::crctest(a.crctest, stdout);
    case cli::action::idle_calibrate:
        return cli::idle_calibrate(stdout);
    case cli::action::inflate_log:
        return cli::inflate_log(a.inflate_log, stdout);
    default:
        return -1;
    }
}

// Returns the exit code of an action that only prints, or -1 for the others.
int info_action(const cli::args &a)
{
    int rc = fio_action(a);
    if (rc >= 0)
        return rc;
    bool known = false;
    std::string text = info_text(a, &known);
    if (a.what == cli::action::cmdhelp && !known) {
        std::fprintf(stderr, "ioplan: error: unknown option '%s' (ioplan --cmdhelp lists them)\n", a.cmdhelp.c_str());
        return 2;
    }
    if (!known)
        return -1;
    return cli::write_stdout(text, "stdout") ? 0 : 1;
}

// `ioplan convert FILE --to=SYNTAX`: the job in another syntax on stdout (or
// in --output).  The file is planned first, so only a job that runs is
// converted.  What is written keeps each ${VAR} as written: a template's
// variables are the run's to fill, and the value convert's environment had
// (or "" when unset) made a template a job file of one run.
int convert_action(const cli::args &a)
{
    if (a.req.job_files.size() != 1 || a.convert_to.empty()) {
        std::fprintf(stderr, "ioplan: error: usage: ioplan convert JOBFILE --to=ini|toml|yaml\n");
        return 2;
    }
    const std::string &path = a.req.job_files[0];
    parser::document doc = parser::read_job_file(path, a.req.ini, a.req.format);
    parser::diag_list notes;
    parser::plan_documents({doc}, a.req, &notes);
    parser::syntax to = parser::syntax_of("", a.convert_to);
    parser::ini_options as_written = a.req.ini;
    as_written.vars_as_written = true;
    doc = parser::read_job_file(path, as_written, a.req.format);
    if (to == parser::syntax::ini)
        parser::check_ini_writable(doc);
    std::vector<cli::input_file> inputs{{path, "the job file " + path + " being converted"}};
    for (const std::string &f : doc.included)
        inputs.push_back({f, "the job file " + f + ", included"});
    return cli::emit(parser::write_document(doc, to), "the converted job", a.output_path, inputs);
}

// --preset=NAME: the preset's file becomes the job file, command-line job
// options override it, and its "; output-format:" line is the default output.
int use_preset(cli::args &a)
{
    cli::preset_info p;
    if (!cli::find_preset(a.preset, &p)) {
        std::string names;
        for (const auto &q : cli::list_presets())
            names += (names.empty() ? "" : ", ") + q.name;
        std::fprintf(stderr, "ioplan: error: no preset named '%s' (presets: %s)\n", a.preset.c_str(),
                     names.empty() ? "none found" : names.c_str());
        return 2;
    }
    if (!a.req.job_files.empty()) {
        std::fprintf(stderr, "ioplan: error: --preset=%s runs alone; give job files without it\n", a.preset.c_str());
        return 2;
    }
    a.req.job_files.push_back(p.path);
    a.req.cli_overrides = true;
    if (!a.output_format_set && !p.output_format.empty())
        a.output_format = p.output_format;
    return 0;
}

// What the plan is built from, for rank files (`ioplan merge` rebuilds it).
cli::plan_source source_of(const cli::args &a, const std::vector<parser::document> &docs)
{
    cli::plan_source src;
    src.argv = a.argv;
    src.job_names = a.req.job_files;
    for (const auto &d : docs) {
        src.job_texts.push_back(parser::write_document(d, parser::syntax::ini));
        src.included.insert(src.included.end(), d.included.begin(), d.included.end());
    }
    src.identity = cli::plan_identity(a.req, docs);
    src.save = a.save;
    src.save_label = a.save ? a.save_label : "";
    src.preset = a.save ? a.preset : "";
    return src;
}

int run_action(cli::args &a, cli::world *w)
{
    // fio --parse-only checks options given without any job (fio's
    // t/steadystate_tests.py does): they are checked as one job's.
    if (a.what == cli::action::parse_only && a.req.job_files.empty() && a.req.cli_jobs.empty())
    {
        // After every argument: the options given are all its defaults.
        parser::loc after{"<command line>", 1, (int)a.argv.size() + 1, "", nullptr};
        a.req.cli_jobs.push_back(parser::section{"parse-only", false, after, {}, {}});
    }
    // --section= left out every job the command line named (fio: "No job(s) defined").
    if (a.req.job_files.empty() && a.req.cli_jobs.empty() && !a.name_at.empty() && !a.req.only_sections.empty()) {
        std::fprintf(stderr, "ioplan: error: no job of the command line matches --section\n");
        return 2;
    }
    if (a.req.job_files.empty() && a.req.cli_jobs.empty()) {
        std::fprintf(stderr, "ioplan: error: no job file given (ioplan --help)\n");
        // A bare `ioplan` is someone finding their way: show where to start.
        if (a.argv.empty() && a.who == report::personality::ioplan) {
            std::fputs("\n", stderr);
            cli::print_starts(stderr);
        }
        return 2;
    }
    parser::diag_list notes, unset_vars;
    std::vector<parser::fio_line> said;
    std::vector<parser::document> docs;
    a.req.ini.warnings = &unset_vars;
    a.req.fio_said = &said;
    // What reads the plan after a --parse-only: --readonly's check, --debug's
    // lines and a rank's log names read every job; otherwise none is kept.
    a.req.check_only = a.what == cli::action::parse_only && !a.readonly && a.debug.empty() && !w;
    parser::plan_ptr p = parser::build_plan(a.req, &notes, &docs);
    notes.insert(notes.begin(), unset_vars.begin(), unset_vars.end());
    // Run as fio, a regular file the job names is written as fio writes it:
    // clients fill their test file first (docker-diskmark's dd).  Devices,
    // mounts, swap and loop backing files stay refused (engine/safety/safety.h).
    if (a.who == report::personality::fio)
        p->allow_existing_file_write = true;
    if (a.warnings_fatal && has_warnings(notes)) {
        print_notes(notes);
        std::fprintf(stderr, "ioplan: error: --warnings-fatal: the job files have warnings\n");
        return 2;
    }
    if (a.merge_blktrace_only)
        return cli::load_replays(*p, true) ? print_notes(notes) : 2;
    if (!cli::load_replays(*p) || !cli::check_run_flags(a, *p))
        return 2;
    if (!a.aux_path.empty())
        p->aux_path = plan_strdup(a.aux_path.c_str());
    if (w)
        cli::name_logs_per_rank(p.get(), *w);
    if (a.what == cli::action::parse_only) {
        cli::debug_parse(a.debug, *p, getpid(), stdout);
        return print_notes(notes);
    }
    if (a.what == cli::action::showplan) {
        print_notes(notes);
        std::ostringstream text;
        report::write_showplan(*p, text);
        cli::plan_source src = source_of(a, docs);
        return cli::emit(text.str(), "the plan", a.output_path, cli::run_inputs(a, *p, &src));
    }
    // An unset ${VAR} is said on stderr too as ioplan (fio says nothing).
    if (a.who != report::personality::fio)
        print_notes(unset_vars);
    // What fio says as it reads the jobs (not with --parse-only, fio's dry
    // run): run as fio where fio says it; as ioplan, notes in the report,
    // so that a JSON stdout stays one document.
    if (a.who == report::personality::fio && (!w || w->rank() == 0) && !cli::say_as_fio(said, *p, a))
        return 1;
    if (a.who != report::personality::fio)
        for (const parser::fio_line &l : said)
            notes.push_back(parser::diag{parser::severity::note, l.where, l.text});
    // A run keeps stderr for errors (fio's clients treat any stderr as a
    // failure): its notes go into the report instead.
    std::vector<std::string> lines;
    for (const auto &d : notes) {
        // "path:line:col: message": the report names the level itself.
        std::string t = parser::format_diag(d);
        t = t.substr(0, t.find('\n'));
        size_t sev = t.find(": note: ");
        lines.push_back(sev == std::string::npos ? t : t.substr(0, sev) + ": " + t.substr(sev + 8));
    }
    cli::plan_source src = source_of(a, docs);
    return cli::run_plan(*p, a, lines, w, &src);
}

// The default rank files (args.rank_keep) after the end: every rank came to
// it, so rank 0 has merged and reported the world: each removes its own.  A
// world that lost a rank ends here without it: rank 0 says where they are.
void keep_or_drop(const cli::world &w, const std::string &dir)
{
    if (w.together()) {
        cli::drop_default_rank_file(dir, w.rank());
        return;
    }
    if (w.rank() == 0 && access(dir.c_str(), F_OK) == 0)
        std::fprintf(stderr, "ioplan: note: the ranks' results are kept in %s (rank-R.json, on each rank's host): "
                     "`ioplan merge --partial %s/rank-*.json` reports them\n", dir.c_str(), dir.c_str());
}

// One rank of many (cli/mpi/mpi.hpp).  Whatever stops this rank, it takes part
// in the same agreements as the others (planning or preflight, then the
// end), so they learn of it and every rank exits with the worst code.
int ranked_run(cli::args &a)
{
    std::string err;
    cli::world *w = cli::world::join(a.rank_shift, (double)a.rank_timeout_ns / 1e9,
                                         (double)a.join_timeout_ns / 1e9, &err);
    if (!w) {
        std::fprintf(stderr, "ioplan: error: %s\n", err.c_str());
        return 2;
    }
    int rc = 1;
    std::string msg;
    // Each rank keeps its result apart from rank 0's report, which alone
    // holds the world's: a world that loses rank 0 loses nothing the others
    // measured.  Removed again once the world has reported.
    if (a.rank_output.empty() && w->size() > 1)
        a.rank_keep = cli::default_rank_dir(w->who().run_id);
    try {
        rc = run_action(a, w);
    } catch (const parser::error &e) {
        fputs(e.text().c_str(), stderr);
        rc = 2;
        msg = e.text().substr(0, e.text().find('\n'));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ioplan: error: %s\n", e.what());
        msg = e.what();
    }
    if (!w->agreed())
        w->agree(rc ? rc : 1, msg.empty() ? "stopped before the run (see its messages)" : msg, "planning");
    rc = w->agree(rc, "", "the end");
    if (!a.rank_keep.empty())
        keep_or_drop(*w, a.rank_keep);
    w->leave();
    return rc;
}

int plan_action(cli::args &a)
{
    if (a.what == cli::action::plot)
        return cli::plot_action(a);
    if (a.what == cli::action::merge)
        return cli::merge_action(a);
    if (a.what == cli::action::report)
        return cli::report_action(a);
    if (!a.preset.empty() && use_preset(a))
        return 2;
    if (a.what == cli::action::convert)
        return convert_action(a);
    if (a.what == cli::action::run && cli::launched_by_mpi())
        return ranked_run(a);
    if (a.what == cli::action::run) {
        std::string why = cli::uncoordinated_tasks();
        if (!why.empty()) {
            std::fprintf(stderr, "ioplan: error: %s\n", why.c_str());
            return 2;
        }
    }
    cli::set_solo_rank_vars();
    return run_action(a, nullptr);
}

} // namespace

static bool called_as_diskspd(const char *argv0)
{
    const char *base = std::strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    return !std::strcmp(base, "diskspd") || !std::strcmp(base, "diskspd.exe");
}

// A standard descriptor the caller closed (`ioplan ... 2>&-`, a daemon's child)
// is held, before anything else is opened, by a path-only descriptor of "/":
// left closed, the next open took its number, so --output's file became fd 2
// and "ioplan: stopping (signal 2)" landed inside the JSON, and the reports of
// the results so far went into the engine's eventfd on fd 1.  A path-only
// descriptor fails every read, write and poll with EBADF, as a closed one
// does, so what ioplan says about a closed stdout or stderr is unchanged.
__attribute__((constructor(101))) static void hold_std_fds()
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int held = open("/", O_PATH | O_DIRECTORY);  // the lowest free number: fd itself
        if (held >= 0 && held != fd) {
            dup2(held, fd);
            close(held);
        }
    }
}

// SIGUSR1 asks a run for its results so far (fio's meaning), and a run takes it
// from its start (cli/run.cpp); before that its default action ended ioplan: a
// monitor that asked while a long job file or trace was being read killed the
// run before it began (exit 138).  Taken from the first instruction on and
// dropped: there is nothing to report yet.  A handler, not SIG_IGN, since a
// caught signal gets its default action back in the programs ioplan starts.
static void usr1_before_the_run(int) {}

__attribute__((constructor(102))) static void take_usr1_early()
{
    struct sigaction sa {};
    sa.sa_handler = usr1_before_the_run;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, nullptr);
}

// Under a memory limit (ulimit -v, a cgroup) any allocation can fail, even in a
// static initializer before main or in nlohmann's json destructor, which
// allocates as it frees (noexcept: the bad_alloc aborts).  The first failure
// gives back a reserve and throws, so an unwinding has room; one nothing can
// catch ends in on_terminate, which says what happened instead of aborting.
static void *oom_reserve;
static const char oom_message[] = "ioplan: error: out of memory (a limit such as ulimit -v or a cgroup's "
                                  "memory.max, or the machine's memory)\n";

static void give_back_reserve()
{
    std::free(oom_reserve);
    oom_reserve = nullptr;
    std::set_new_handler(nullptr);
    throw std::bad_alloc();
}

[[noreturn]] static void on_terminate()
{
    if (std::exception_ptr e = std::current_exception()) {
        try {
            std::rethrow_exception(e);
        } catch (const std::bad_alloc &) {
            std::fputs(oom_message, stderr);
            _exit(1);
        } catch (...) {
        }
    }
    std::abort();
}

// Before every static initializer (priority 101 runs ahead of the default).
// A limit that leaves no room for the reserve leaves none for a run either, and
// ends it here: going on, the option table's initializer (its rows are built on
// the stack, about 120 KiB) could take the last of the address space, and its
// bad_alloc then unwound into a stack that could not grow, a SIGSEGV in the
// dynamic linker instead of this error (ulimit -v 16128, io_uring with logs: 3
// runs in 20).
__attribute__((constructor(101))) static void memory_guards()
{
    std::set_terminate(on_terminate);
    oom_reserve = std::malloc(1 << 20);
    if (!oom_reserve) {
        std::fputs(oom_message, stderr);
        _exit(1);
    }
    std::set_new_handler(give_back_reserve);
}

int main(int argc, char **argv)
{
    try {
        if (called_as_diskspd(argv[0]))
            return cli::diskspd_main(argv[0], std::vector<std::string>(argv + 1, argv + argc));
        if (argc > 1 && (!std::strcmp(argv[1], "results") || !std::strcmp(argv[1], "compare")))
            return cli::results_main(argv[1], std::vector<std::string>(argv + 2, argv + argc));
        if (argc > 1 && !std::strcmp(argv[1], "diskspd"))
            return cli::diskspd_main("diskspd", std::vector<std::string>(argv + 2, argv + argc));
        cli::args a = cli::parse_args(argc, argv);
        a.who = report::personality_of(argv[0]);
        int rc = info_action(a);
        if (rc < 0)
            rc = plan_action(a);
        return cli::flush_stdout() ? rc : 1;
    } catch (const parser::error &e) {
        fputs(e.text().c_str(), stderr);
        return 2;
    } catch (const std::bad_alloc &) {
        std::fputs(oom_message, stderr);
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ioplan: error: %s\n", e.what());
        return 1;
    }
}

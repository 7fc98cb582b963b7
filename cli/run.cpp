// cli/run.cpp - plan -> preflight -> engine -> results -> reports.
//
// SIGINT, SIGTERM and SIGHUP are blocked in every thread before the engine starts
// (its workers inherit the mask); a signalfd wakes the supervisor and
// sigtimedwait takes them, so the first one asks the engine to stop and keep
// what it measured, and a second aborts at once; the report is still written
// and JSON stays valid.  SIGUSR1, taken the same way, asks for a report of
// the results so far, as fio's does (and --status-interval asks every
// interval: cli/interim.hpp).  Once the engine is done the mask is lifted
// again, but for --save's store (save_holding_signals): a signal while the
// report is written (to a pipe nobody reads, say) ends ioplan as it ends any
// program, after --save has kept the run.  SIGUSR1 outside the engine's run
// does nothing (no_report_now): the whole report is on its way.
// SIGPIPE is ignored from the start of a run to its exit: a reader that left
// makes a write fail with EPIPE, which is said, instead of ending the process
// before the run is saved, its logs closed and its errors said.  A reader of
// the reports of the results so far that leaves stops the run, as SIGTERM
// would, since nothing reads what the run was asked to show.
// SIGXFSZ is ignored for the same span: a write past `ulimit -f` (a layout, a
// log, the report) then fails with EFBIG, which names the file and keeps what
// was measured, where the signal's default action ended ioplan silently
// (exit 153, an empty report, a half-written file).
// While signals are blocked nothing may block the supervisor, so the progress
// line and its messages are only written when stderr can take them.
#include "cli/run.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <poll.h>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <fcntl.h>
#include <memory>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "cli/debug.hpp"
#include "cli/interim.hpp"
#include "cli/left_behind.hpp"
#include "cli/output.hpp"
#include "cli/mpi/agg_bw_log.hpp"
#include "cli/mpi/live.hpp"
#include "cli/progress.hpp"
#include "cli/save.hpp"
#include "cli/run_checks.hpp"
#include "cli/mpi/run_ranks.hpp"
#include "engine/engine.h"
#include "results/record.hpp"
#include "results/store.hpp"
#include "engine/safety/preflight.h"
#include "report/cdm.hpp"
#include "report/report.hpp"

namespace cli {

namespace {

// A signal's disposition set for a scope, the one before back at its end
// (SA_RESTART: a write the handler interrupts goes on).
class scoped_signal {
public:
    scoped_signal(int sig, void (*handler)(int)) : sig_(sig)
    {
        struct sigaction sa {};
        sa.sa_handler = handler;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, &was_);
    }
    ~scoped_signal() { sigaction(sig_, &was_, nullptr); }
    scoped_signal(const scoped_signal &) = delete;
    scoped_signal &operator=(const scoped_signal &) = delete;

private:
    int sig_;
    struct sigaction was_ {};
};

// SIGUSR1 outside the engine's run (the save, the report): the whole report is
// coming, so nothing to do.  Its default action ended ioplan, and a monitor's
// SIGUSR1 while the report waited for its reader lost the run.
void no_report_now(int) {}

const char *level_name(res_msg_level l)
{
    return l == RES_MSG_ERROR ? "error" : l == RES_MSG_WARNING ? "warning" : "note";
}

// Preflight findings go into the results.  stderr is for errors only (fio's
// clients, kubestr among them, fail a run that wrote anything there), so a
// warning reaches stderr only when errors stop the run and no report follows,
// or when the report cannot carry it (a.writer: DISKSPD's layouts have no place
// for ioplan's findings).  An error that fails one job when it starts (as
// fio's) lets the run go on: it reaches stderr with the run's other errors.
bool preflight(const plan &p, pf_report *pf, const args &a)
{
    int ret = pf_run(&p, &safety_system, pf);
    if (ret) {
        std::fprintf(stderr, "ioplan: error: preflight: %s\n", strerror(-ret));
        return false;
    }
    for (uint32_t i = 0; i < pf->nr; i++) {
        if (!pf->nr_errors && !a.writer)
            continue;
        std::string hint = a.finding_hint ? a.finding_hint(pf->findings[i].code) : "";
        std::fprintf(stderr, "ioplan: %s: %s%s\n", level_name(pf->findings[i].level), pf->findings[i].text,
                     hint.c_str());
    }
    return pf->nr_errors == 0;
}

void attach_findings(results *r, const pf_report &pf, const std::vector<std::string> &notes)
{
    for (const std::string &n : notes)
        res_msg_add(r, RES_MSG_NOTE, "job/note", -1, "%s", n.c_str());
    for (uint32_t i = 0; i < pf.nr; i++)
        res_msg_add(r, pf.findings[i].level, ("preflight/" + std::string(pf.findings[i].code)).c_str(),
                    pf.findings[i].job_id, "%s", pf.findings[i].text);
}

// A status line or message for stderr, written only if stderr can take it
// now: with SIGINT blocked, a write into a pipe nobody reads would leave
// ioplan unkillable.  A line stderr cannot take is dropped (it is status, and
// a stderr that does not drain could not carry an error either).
void status(const std::string &text, int fd = STDERR_FILENO)
{
    pollfd pfd{fd, POLLOUT, 0};
    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT))
        (void)!::write(fd, text.data(), text.size());
}

// Where the progress line goes, or -1 for none: ioplan's on stderr; run as fio,
// fio's on stdout, and none while stdout carries machine formats alone (fio's
// calc_thread_status), so a client's JSON or terse stays clean.
int progress_fd(const args &a)
{
    bool as_fio = a.who == report::personality::fio;
    int fd = as_fio ? STDOUT_FILENO : STDERR_FILENO;
    unsigned formats = 0;
    std::string err;
    if (as_fio && a.output_path.empty() && report::parse_formats(a.output_format, &formats, &err) &&
        !(formats & report::FORMAT_NORMAL))
        return -1;
    return progress_enabled(a.eta, isatty(fd)) ? fd : -1;
}

// Whether a report asked for lists the world's threads one by one (DISKSPD's
// rows, text or XML): the merge of the ranks then keeps each rank's threads.
bool lists_threads(const args &a)
{
    unsigned formats = 0;
    std::string err;
    return a.writer || (report::parse_formats(a.output_format, &formats, &err) &&
                        (formats & (report::FORMAT_DISKSPD | report::FORMAT_DISKSPD_XML)));
}

// Takes every pending SIGINT/SIGTERM/SIGHUP: the first asks the engine to stop, the
// second aborts (e is null once the engine is done: a signal then only
// counts).  A SIGUSR1 sets *usr1 (a report of the results so far).  Returns
// how many stopping signals have been seen so far.
// stopped: the engine was stopped already for another rank (live.hpp), so
// the first signal only counts and the second aborts.
int take_signals(eng *e, const sigset_t &sigs, int signals, progress_line &line, int eta_fd,
                 bool *usr1 = nullptr, bool stopped = false)
{
    timespec none{0, 0};
    int sig;
    while ((sig = sigtimedwait(&sigs, nullptr, &none)) > 0) {
        if (sig == SIGUSR1) {
            if (usr1)
                *usr1 = true;
            continue;
        }
        if (!e) {
            status("ioplan: interrupted (signal " + std::to_string(sig) + ") as the run ended\n");
            signals++;
            continue;
        }
        if (!stopped || signals)
            eng_stop(e); // the second call aborts at once
        if (++signals == 1 && eta_fd >= 0)
            status(line.clear(), eta_fd);
        if (signals == 1)
            status("ioplan: stopping (signal " + std::to_string(sig) + "); send it again to abort\n");
        else if (signals == 2)
            status("ioplan: aborting (signal " + std::to_string(sig) + "): in-flight I/O is abandoned\n");
    }
    return signals;
}

// --trigger-file, --trigger-timeout: as fio, the run stops when the file
// appears (it is removed) or the time since the start has passed.
bool trigger_fired(const args &a, uint64_t elapsed_ns)
{
    struct stat st;
    if (a.trigger_timeout_ns && elapsed_ns >= a.trigger_timeout_ns)
        return true;
    if (a.trigger_file.empty() || stat(a.trigger_file.c_str(), &st) != 0)
        return false;
    if (unlink(a.trigger_file.c_str()) != 0)
        status("ioplan: cannot remove the trigger file " + a.trigger_file + ": " + strerror(errno) + "\n");
    return true;
}

// Under mpirun: the world's part of a supervisor tick (cli/mpi/live.hpp).
// Rank 0 shows the merged reports that are ready and returns the world's
// status (asking the ranks for theirs every 100 ms when it draws or logs
// it); the other ranks answer rank 0 and show nothing.
eng_status live_tick(live_world *live, eng *e, const eng_status &st, bool wanted, interim_reports &interim,
                     uint64_t *next_ask_ns)
{
    if (!live)
        return st;
    live->tick(e, st, interim.wait_ns());
    if (!live->rank0())
        return st;
    for (results *merged : live->take_ready()) {
        interim.show(*merged);
        results_free(merged);
    }
    if (wanted && st.elapsed_ns >= *next_ask_ns) {
        live->ask_status();
        *next_ask_ns = st.elapsed_ns + 100000000ull;
    }
    return live->world_status(st);
}

// The reports asked for that wait for other ranks' answers, shown before the final report.
void live_finish(live_world *live, eng *e, double timeout_s, interim_reports &interim)
{
    if (!live)
        return;
    live->finish(e, timeout_s);
    for (results *merged : live->take_ready()) {
        interim.show(*merged);
        results_free(merged);
    }
}

// Under mpirun: a stop of this rank's own (own_stop: a signal, stdout's
// reader gone; *triggered: its trigger) is passed on to every rank, and the
// first stop another rank passed on stops this rank's engine, as a trigger's
// (*triggered: the run counts as finished) or a signal's (interrupted).
// *world_stopped: this rank was stopped so, after which it passes on nothing.
void share_stops(live_world *live, eng *e, bool own_stop, bool *triggered, bool *world_stopped)
{
    if (!live || *world_stopped)
        return;
    if (*triggered)
        live->stopped_here(live_world::STOP_TRIGGER);
    if (own_stop)
        live->stopped_here(live_world::STOP_INTERRUPT);
    int64_t asked = live->stop_asked();
    if (asked == live_world::STOP_NONE || own_stop || *triggered)
        return;
    eng_stop(e);
    *world_stopped = true;
    *triggered = asked == live_world::STOP_TRIGGER;
}

constexpr int tick_ms = 10;

// Waits for the end of the run or a signal, and at most a tick while
// something is drawn, reported, logged or watched over time: true once the run
// has ended.  An idle supervisor does not wake at all, so it costs nothing, and
// a run counted by callgrind (bench/instr_per_io.py), which a loaded machine
// slows many times over, does not count its wake-ups as work per I/O.  Without
// the two descriptors (engine.h, signalfd) it ticks.  notes_fd: the opening
// notes' (interim.hpp), which wakes it to print them, or -1.
bool wait_run(eng *e, int sigfd, int notes_fd, bool ticking)
{
    uint64_t tick_ns = tick_ms * 1000000ull;
    int done = eng_done_fd(e);
    if (done < 0 || sigfd < 0)
        return eng_wait(e, tick_ns) == 0;
    pollfd pfd[3] = {{done, POLLIN, 0}, {sigfd, POLLIN, 0}, {notes_fd, POLLIN, 0}};
    if (poll(pfd, 3, ticking ? tick_ms : -1) < 0 && errno != EINTR)
        return eng_wait(e, tick_ns) == 0;
    return eng_wait(e, 0) == 0;
}

// The opening notes (interim.hpp), once the engine handed them over, go out as
// soon as the banner has: printed as the run began, or with a report so far;
// until then the first report opens with them.  A progress line on stdout
// (run as fio) is cleared first.
void send_notes(opening_notes *notes, interim_reports &interim, const progress_line &line, int eta_fd)
{
    std::string text = notes ? notes->ready() : std::string();
    if (text.empty() || !(notes->banner_written || interim.any()))
        return;
    if (eta_fd == STDOUT_FILENO)
        status(line.clear(), eta_fd);
    interim.emit(text);
    notes->sent();
}

// Waits for the run, forwarding signals, watching the triggers, drawing the
// progress line and writing the reports of the results so far (interim.hpp).
// Signals are taken as they come, so a second one reaches a run that is still
// finishing (end_fsync, layout).  Under mpirun only rank 0 draws and reports,
// for the world (live).  Returns how many signals were taken.
int supervise(eng *e, const plan &p, const sigset_t &sigs, const args &a, bool *triggered,
              interim_reports &interim, agg_bw_log &agg, live_world *live, double live_timeout_s,
              opening_notes *notes)
{
    bool rank0 = !live || live->rank0();
    int eta_fd = rank0 ? progress_fd(a) : -1;
    bool show_progress = eta_fd >= 0;
    progress_line line(p);
    // Run as fio, fio's one line a second (its eta_interval): a log of a piped
    // --eta=always run had twice fio's lines.
    uint64_t every = a.eta_interval_ns || a.who != report::personality::fio ? a.eta_interval_ns : 1000000000ull;
    line.set_timing(every, a.eta_newline_ns);
    line.set_copies(live ? live->ranks() : 1);
    std::vector<char> states(p.nr_threads + 1, 0);
    int signals = 0;
    bool reader_stop = false;
    bool world_stopped = false;
    uint64_t next_ask_ns = 0;
    int sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
    bool watching = show_progress || live || a.bandwidth_log || !a.trigger_file.empty() || a.trigger_timeout_ns;
    while (!wait_run(e, sigfd, notes ? notes->wake_fd() : -1, watching || interim.timed())) {
        bool usr1 = false;
        if (notes)
            notes->drain_wake();
        int before = signals;
        signals = take_signals(e, sigs, signals, line, eta_fd, &usr1, world_stopped);
        if (live && !before && signals)
            live->stopping();
        eng_status st{};
        st.states = states.data();
        if (eng_get_status(e, &st) != 0)
            continue;
        send_notes(notes, interim, line, eta_fd);
        if (rank0)
            interim.tick(e, st.elapsed_ns, usr1);
        eng_status world = live_tick(live, e, st, show_progress || a.bandwidth_log, interim, &next_ask_ns);
        agg.tick(world);
        if (!*triggered && trigger_fired(a, st.elapsed_ns)) {
            *triggered = true;
            if (!world_stopped)
                eng_stop(e);
        }
        if (!reader_stop && interim.reader_gone()) {
            reader_stop = true;
            if (!signals && !*triggered && !world_stopped)
                eng_stop(e); // once, and not after a signal's or a trigger's: a second call aborts
        }
        share_stops(live, e, signals || reader_stop, triggered, &world_stopped);
        if (show_progress && line.due(st.elapsed_ns))
            status(line.update(world), eta_fd);
    }
    if (sigfd >= 0)
        close(sigfd);
    if (show_progress)
        status(line.clear(), eta_fd);
    send_notes(notes, interim, line, -1);
    live_finish(live, e, live_timeout_s, interim);
    return signals;
}

// Run as fio into an --output file: fio's per-job notes reach it only from its
// thread=1 jobs (report::options::fio_output_file).
bool fio_output_file(const args &a)
{
    return a.who == report::personality::fio && !a.output_path.empty();
}

std::string render_reports(const results &r, const plan &p, const args &a, unsigned formats, bool banner,
                           opening_notes &notes)
{
    std::ostringstream text;
    if (a.writer) {
        a.writer(r, p, text);
        return text.str();
    }
    report::options o;
    o.formats = formats;
    o.who = a.who;
    o.notes_first = a.who == report::personality::fio && a.output_path.empty();
    o.fio_output_file = fio_output_file(a);
    o.said = a.fio_said;
    o.terse_version = a.terse_version;
    o.banner = banner;
    o.banner_written = notes.banner_written;
    o.notes_written = notes.all_out();
    o.notes_text = notes.ready();
    if (banner && (formats & report::FORMAT_NORMAL) && !o.notes_text.empty())
        notes.sent();
    o.pid = a.fake_clock_step_ns ? 0 : getpid(); // a golden run's output names no process
    o.admin = !a.fake_clock_step_ns && geteuid() == 0; // goldens must not depend on who runs them
    const plan_job *first = plan_job_at(&p, 0);
    // The drive CrystalDiskMark's footer names: none for an engine that opens no file (null,
    // cpuio, the network engines), whose files are names only.
    if (!a.fake_clock_step_ns && first && first->nr_clones && first->clones[0].nr_files &&
        eng_ioengine_opens_files(first->ioengine)) {
        std::string path = first->clones[0].files[0].path;
        size_t slash = path.rfind('/');
        o.cdm_target = report::cdm_target_usage(slash == std::string::npos ? "." : path.substr(0, slash));
    }
    report::write(r, p, o, text);
    return text.str();
}

// The results go to --output or stdout.  When --output cannot take them (a
// disk that filled during the run) they go to stdout instead: the run cannot
// be had again, its numbers must not be lost with the file.
// Reports of the results so far that stdout has not taken yet go first.
int write_reports(const results &r, const plan &p, const args &a, unsigned formats, output_file &out,
                  interim_reports &interim, opening_notes &notes)
{
    if (a.output_path.empty() && interim.reader_gone())
        return 1; // said once, when it left
    std::string text = interim.take_pending() + render_reports(r, p, a, formats, !interim.any(), notes);
    if (a.output_path.empty())
        return write_stdout(text, "the results to stdout") ? 0 : 1;
    if (out.commit(text))
        return 0;
    std::fprintf(stderr, "ioplan: the results are on stdout instead\n");
    write_stdout(text, "the results to stdout");
    return 1;
}

// Runs the plan with SIGINT/SIGTERM/SIGHUP taken by supervise(); the caller's signal
// mask is back in place when it returns.  *signals: how many were taken.
// The run's exit status: 1 when it failed; run as fio, fio's count of the jobs
// (threads) that failed, at least 1, at most 255 (fio's own wraps to 0 at 256).
int failed_status(const results &r, report::personality who)
{
    if (!r.error && !r.interrupted)
        return 0;
    uint32_t failed = 0;
    for (uint32_t i = 0; who == report::personality::fio && i < r.nr_jobs; i++)
        for (uint32_t c = 0; c < r.jobs[i].nr_clones; c++)
            failed += r.jobs[i].clones[c].error != 0;
    return failed > 1 ? (int)std::min<uint32_t>(failed, 255) : 1;
}

int run_engine(const plan &p, const args &a, const pf_report &pf, results **r, int *signals,
               bool *triggered, interim_reports &interim, world *w, live_world *live, opening_notes *notes)
{
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP); // as fio: a closed terminal stops the run like SIGTERM
    sigaddset(&sigs, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    eng_opts eo{};
    eo.fake_clock = a.fake_clock_step_ns != 0;
    eo.fake_clock_step_ns = a.fake_clock_step_ns;
    eo.snapshots = a.status_interval_ns != 0;
    eo.idle_prof = a.idle_prof == "percpu" ? RES_IDLE_PERCPU : a.idle_prof == "system" ? RES_IDLE_SYSTEM : RES_IDLE_NONE;
    // One profiler a machine: the idle threads of two ranks on its CPUs would
    // share its idle time, each counting about half of it.
    if (w && w->local_rank() != 0)
        eo.idle_prof = RES_IDLE_NONE;
    eo.sync = w ? w->sync() : nullptr;
    eo.preflight = &pf;
    eo.opening = notes ? opening_notes::take : nullptr;
    eo.opening_arg = notes;
    eng *e = nullptr;
    int ret = eng_start(&p, &eo, &e);
    if (ret) {
        char hint[192];
        std::fprintf(stderr, "ioplan: error: cannot start: %s%s\n", strerror(-ret),
                     eng_thread_refusal_hint(ret, hint, sizeof(hint)));
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        return ret;
    }
    if (w)
        w->attach(e);
    const plan_job *first = plan_job_at(&p, 0);
    // Under mpirun rank 0 logs the world's bandwidth; the others would write the same files.
    agg_bw_log agg(a.bandwidth_log && (!w || w->rank() == 0), first ? first->bw_avg_time_ns : 0);
    *signals = supervise(e, p, sigs, a, triggered, interim, agg, live, w ? w->merge_timeout_s() : 0,
                         notes);
    ret = eng_finish(e, r);
    if (w)
        w->attach(nullptr);
    std::string agg_err = agg.finish();
    if (!agg_err.empty() && *r) {
        // As a failed per-job log: an error of the run (exit 1), in the reports and on stderr.
        res_msg_add(*r, RES_MSG_ERROR, "log-write", -1, "--bandwidth-log: %s", agg_err.c_str());
        if (!(*r)->error)
            (*r)->error = agg.error();
    } else if (!agg_err.empty()) {
        std::fprintf(stderr, "ioplan: error: --bandwidth-log: %s\n", agg_err.c_str());
    }
    progress_line none(p);
    // Signals that came while the engine finished count too; one that comes
    // after this drain and before the unmask ends ioplan, as it would anyway.
    *signals = take_signals(nullptr, sigs, *signals, none, -1);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ret;
}

// The side files the cli writes (--rank-output, --bandwidth-log), judged
// before any I/O; false after printing why (exit 2).
// Under mpirun without --rank-output, *rank_dir is set to the default directory
// each rank keeps its result in (a.rank_keep) once it is made; one that cannot
// be is a warning, not a refusal: the run goes on as it did before.
bool cli_side_files_ok(const args &a, world *w, std::string *rank_dir)
{
    if (!a.rank_output.empty() && !rank_output_ok(a.rank_output, w ? w->who().rank : 0))
        return false;
    if (a.rank_output.empty() && !a.rank_keep.empty() && w) {
        std::string why = make_default_rank_dir(a.rank_keep, w->rank());
        if (why.empty())
            *rank_dir = a.rank_keep;
        else // the same words on every rank that meets it: said once (held_stderr)
            std::fprintf(stderr, "ioplan: warning: the ranks' results are not kept apart from rank 0's report (%s): "
                         "a world that loses rank 0 loses them; --rank-output=DIR keeps them\n", why.c_str());
    }
    std::string why = a.bandwidth_log && (!w || w->rank() == 0) ? agg_bw_log_check() : "";
    if (why.empty())
        return true;
    std::fprintf(stderr, "ioplan: error: --bandwidth-log: %s\n", why.c_str());
    return false;
}

volatile sig_atomic_t trigger_signal = 0;

void note_trigger_signal(int sig)
{
    trigger_signal = sig;
}

// A trigger stopped the run: its command runs now (signals are unblocked
// again, so it can be interrupted), and the run counts as finished, as fio's.
// Under mpirun it runs once, on rank 0 (command: false on the others), as
// fio's client runs --trigger where it was started.
// SIGTERM or SIGHUP to ioplan meanwhile is noted (the command, which gets its
// signals as any program, runs on): it ended ioplan before the run's report,
// where fio reports; now it is said and counted in *signals (exit 1).
void after_trigger(const args &a, results *r, int *signals, bool command)
{
    if (r && !*signals)
        r->interrupted = false;
    if (a.trigger_cmd.empty() || !command)
        return;
    std::fflush(nullptr);
    scoped_signal as_any_program(SIGPIPE, SIG_DFL); // an ignored signal would stay ignored in the command
    scoped_signal as_any_program_xfsz(SIGXFSZ, SIG_DFL);
    trigger_signal = 0;
    {
        scoped_signal term(SIGTERM, note_trigger_signal), hup(SIGHUP, note_trigger_signal);
        if (std::system(a.trigger_cmd.c_str()) == -1)
            std::fprintf(stderr, "ioplan: error: --trigger: cannot run '%s': %s\n", a.trigger_cmd.c_str(),
                         strerror(errno));
    }
    if (!trigger_signal)
        return;
    std::fprintf(stderr, "ioplan: signal %d while --trigger's command ran: the run's report follows, then ioplan "
                         "stops\n", (int)trigger_signal);
    ++*signals;
}

// Whether SIGINT, SIGTERM or SIGHUP waits, held, to be taken.
bool stop_signal_pending()
{
    sigset_t p;
    if (sigpending(&p))
        return false;
    return sigismember(&p, SIGINT) == 1 || sigismember(&p, SIGTERM) == 1 || sigismember(&p, SIGHUP) == 1;
}

// A stop signal was taken before the save: never wait for the store's lock.
bool stopped_already()
{
    return true;
}

// --save with SIGINT, SIGTERM, SIGHUP and SIGUSR1 held: a signal that ended
// ioplan during the save lost the run it had measured, neither stored nor
// reported.  One taken meanwhile is said and counted (*signals: the exit
// status says the run was stopped); the report is still written after it.
// The save may wait up to the store's 10 s for another process's lock: a stop
// signal ends that wait at once, and the run is kept as an unsaved file
// (save_run) rather than held for 10 s (a container's stop gives 10 s, then
// SIGKILL, which would take the report too).  A run a stop signal already
// ended does not wait at all: whoever sent it expects ioplan to end, and
// mpirun, which forwards one SIGTERM to each rank, sends SIGKILL a second
// later (odls_base_sigkill_timeout): rank 0 killed in the wait lost the run,
// neither stored, nor kept, nor reported.
bool save_holding_signals(const results &r, const plan &p, const args &a, int *signals)
{
    sigset_t sigs, old;
    sigemptyset(&sigs);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1})
        sigaddset(&sigs, sig);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    resdb::set_wait_interrupted(*signals ? stopped_already : stop_signal_pending);
    bool ok = save_run(r, p, a);
    resdb::set_wait_interrupted(nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1})
        if (sigismember(&old, sig))
            sigdelset(&sigs, sig); // the caller's to take
    const struct timespec now {};
    for (int sig; (sig = sigtimedwait(&sigs, nullptr, &now)) > 0;) {
        if (sig == SIGUSR1)
            continue; // a report of the results so far: the whole report follows
        std::fprintf(stderr, "ioplan: signal %d while --save stored the run: its report follows, then ioplan stops\n",
                     sig);
        ++*signals;
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ok;
}

bool has_warnings(const pf_report &pf)
{
    for (uint32_t i = 0; i < pf.nr; i++)
        if (pf.findings[i].level != RES_MSG_ERROR)
            return true;
    return false;
}

// --warnings-fatal's refusal, naming the warnings: a bare "gave warnings" leaves the user to guess.
bool fatal_warnings(const pf_report &pf)
{
    for (uint32_t i = 0; i < pf.nr; i++)
        if (pf.findings[i].level != RES_MSG_ERROR)
            std::fprintf(stderr, "ioplan: warning: %s\n", pf.findings[i].text);
    std::fprintf(stderr, "ioplan: error: --warnings-fatal: preflight gave warnings; nothing was run\n");
    return true;
}

// The preflight here and, under mpirun, the verdict of every rank's: any
// rank's error stops them all before any I/O.
// Ranks running another plan than rank 0's would be merged as one: they
// stop too, rank 0 naming them and the first option that differs.
bool preflight_everywhere(const plan &p, const args &a, world *w, const plan_source *src, pf_report *pf,
                          bool outputs_ok, const std::vector<input_file> &inputs)
{
    // Run as fio, --warnings-fatal is fio's: the job files' warnings only (main.cpp), not
    // ioplan's own about the measurement (the page cache), which fio does not give.
    bool fatal = a.warnings_fatal && a.who != report::personality::fio;
    bool ok = outputs_ok && preflight(p, pf, a) &&
              !(fatal && has_warnings(*pf) && fatal_warnings(*pf));
    if (ok && !targets_apart(p, *pf, inputs))
        ok = outputs_ok = false;
    bool same = !w || w->same_plan((src ? src->identity : "") + plan_shape(p));
    // A rank whose own outputs are refused says so in the agreement too: the
    // others would otherwise wait for it at the next step until --rank-timeout.
    std::string why = ok ? "" : outputs_ok ? first_finding(*pf) : "a file it would write is refused (the rank's own error says why)";
    if (w && w->agree(ok && same ? 0 : 2, why, "preflight"))
        ok = false;
    return ok && same;
}

// What the run itself says in its report: the files it left for the next run
// (ioplan's own note), and under mpirun the rank files an earlier world of more
// ranks left in --rank-output.
void add_run_notes(results *r, const args &a, world *w, const std::vector<const char *> &made)
{
    std::string left = a.who == report::personality::ioplan ? left_behind(r->left, made) : "";
    if (!left.empty())
        res_msg_add(r, RES_MSG_NOTE, "run/left-files", -1, "%s", left.c_str());
    std::string stale = w && w->rank() == 0 && !a.rank_output.empty() ? stale_rank_files(a.rank_output, w->size())
                                                                      : "";
    if (!stale.empty())
        res_msg_add(r, RES_MSG_WARNING, "mpi/stale-rank-files", -1, "%s", stale.c_str());
}

// fio prints normal output's banner (the job lines, its version, "Starting N
// processes") as the run starts: a reader of stdout (a pipe, `| tee`) sees what
// runs before it ends.  An --output file takes it with the results, as before:
// that file is not touched until there are results to keep.  A banner stdout
// does not take stays with the report, whose failure is said once.  Under
// mpirun its Starting line counts every rank's clones.
bool banner_now(const plan &p, const args &a, const world *w)
{
    std::ostringstream text;
    report::write_banner(p, text, a.who, a.fio_said, w ? static_cast<uint32_t>(w->size()) : 1u);
    return write_whole(STDOUT_FILENO, text.str()) == 0;
}

// Under mpirun: rank 0's reports while the run goes on are the world's
// (cli/mpi/live.hpp); a rank's answer is waited for one interval, 1 to 10 s.
std::unique_ptr<live_world> live_world_for(world &w, const plan &p, const args &a, const plan_source *src,
                                           interim_reports &interim)
{
    uint64_t grace = std::clamp<uint64_t>(a.status_interval_ns, 1000000000ull, 10000000000ull);
    auto live = std::make_unique<live_world>(w, src, grace, p.nr_threads, a.straggler_pct, lists_threads(a));
    live_world *l = live.get();
    interim.set_gather([l](results *mine) { l->ask_interim(mine); });
    return live;
}

} // namespace

int run_plan(const plan &p, const args &a, const std::vector<std::string> &notes, world *w,
             const plan_source *src)
{
    scoped_signal ignored(SIGPIPE, SIG_IGN);
    scoped_signal file_size(SIGXFSZ, SIG_IGN);
    scoped_signal usr1(SIGUSR1, no_report_now); // taken by the engine's supervisor while it runs
    unsigned formats = 0;
    std::string err;
    if (!a.writer && !report::parse_formats(a.output_format, &formats, &err)) {
        std::fprintf(stderr, "ioplan: error: --output-format: %s\n", err.c_str());
        return 2;
    }
    if (a.append_terse)
        formats |= report::FORMAT_TERSE;
    output_file out;
    bool reports = !w || w->rank() == 0; // under mpirun rank 0 reports for the world
    held_stderr held; // every rank finds the same faults: each said once, at the agreement
    if (w && w->size() > 1 && held.start())
        w->hold_until_agreed(&held);
    std::vector<input_file> inputs = run_inputs(a, p, src);
    std::string rank_dir = a.rank_output; // or, under mpirun, the default (cli_side_files_ok)
    bool outputs_ok = job_directories_ok(p) &&
                      (!reports || a.output_path.empty() || open_output(p, a.output_path, inputs, &out)) &&
                      job_outputs_ok(p, inputs) && cli_side_files_ok(a, w, &rank_dir) &&
                      (!a.save || !reports || save_store_ok(a));
    if (!outputs_ok && !w)
        return 2;
    pf_report pf{};
    if (!preflight_everywhere(p, a, w, src, &pf, outputs_ok, inputs)) {
        // No report follows: the notes it would carry (a command-line value a
        // job file overrode, which often is why the preflight failed) go with
        // the errors.
        for (const std::string &n : notes)
            std::fprintf(stderr, "ioplan: note: %s\n", n.c_str());
        pf_free(&pf);
        return 2;
    }
    long pid = a.fake_clock_step_ns ? 0 : getpid();
    debug_before_run(a.debug, p, pid, stderr);
    results *r = nullptr;
    int signals = 0;
    bool triggered = false;
    bool banner_written = reports && a.output_path.empty() && !a.writer && (formats & report::FORMAT_NORMAL) &&
                          banner_now(p, a, w);
    // Under mpirun the world's notes are the merge's: they come with its report.
    opening_notes opening(p, a.who, banner_written, fio_output_file(a));
    bool opening_early = !w && !a.writer && (formats & report::FORMAT_NORMAL);
    // The page is one document of the run: drawn with --status-interval's reports
    // too, a file held a page per interval, and a browser showed the first, the
    // figures of the first second, as the run's.
    interim_reports interim(
        a.status_interval_ns,
        [&](const results &so_far, bool banner) {
            return render_reports(so_far, p, a, formats & ~report::FORMAT_HTML, banner, opening);
        },
        a.output_path.empty() ? interim_reports::sink_fn()
                              : interim_reports::sink_fn([&](const std::string &text) {
                                    return out.append(text, "the results so far");
                                }));
    std::vector<const char *> made = a.who == report::personality::ioplan ? files_jobs_make(p, pf)
                                                                          : std::vector<const char *>{};
    std::unique_ptr<live_world> live = w ? live_world_for(*w, p, a, src, interim) : nullptr;
    if (w && !rank_dir.empty())
        w->keep_groups(rank_dir, src, a.rank_output.empty());
    int ret = run_engine(p, a, pf, &r, &signals, &triggered, interim, w, live.get(), opening_early ? &opening : nullptr);
    if (triggered)
        after_trigger(a, r, &signals, reports);
    // Named only when it was another rank's stop: a signal to every rank (mpirun's
    // SIGTERM, Ctrl-C) reaches rank 0 too, and is no one rank's doing.
    std::string trigger_said = a.trigger_file.empty() ? ""
                               : a.trigger_timeout_ns ? "met its trigger (--trigger-file or --trigger-timeout)"
                                                      : "found --trigger-file";
    std::string stopped_by = live && reports && !signals ? live->stop_text(trigger_said) : "";
    if (!stopped_by.empty()) {
        status("ioplan: " + stopped_by + "\n");
        if (r)
            res_msg_add(r, RES_MSG_WARNING, "mpi/stopped", -1, "%s", stopped_by.c_str());
    }
    // The worst of the statuses below, not their bits: run as fio, the count of
    // failed jobs (2) must not become 3 with the 1 of the run that failed.
    int rc = ret || !r || signals ? 1 : 0;
    debug_after_run(a.debug, p, pid, stderr);
    if (r) {
        attach_findings(r, pf, notes);
        add_run_notes(r, a, w, made);
    }
    if (r && src && !r->job_text)
        r->job_text = strdup(job_text_of(*src).c_str());
    if (!rank_dir.empty() && r) {
        // A world that failed at a step did not run its last group together: the rank file says so.
        bool was = r->interrupted;
        r->interrupted = was || (w && !w->lost_step().empty());
        bool kept = write_rank_file(rank_dir, *r, w ? w->who() : rank_info{}, src, a.rank_output.empty());
        rc = std::max(rc, kept || a.rank_output.empty() ? 0 : 1); // the default's fault is a warning
        if (kept && r->interrupted && a.rank_output.empty())
            say_kept(*w, rank_dir);	// a rank not stopped by the world (a signal to it): said once
        r->interrupted = was;
    }
    if (w)
        rc = std::max(rc, merge_ranks(w, r, src, a.straggler_pct, lists_threads(a)));
    // One id for the run in every report and in the store, so that importing
    // its own JSON after --save finds it stored (interim reports have none,
    // nor has a golden run's: its output is the same every time).
    if (r && !r->run_uuid && !a.fake_clock_step_ns)
        r->run_uuid = strdup((w ? world_uuid(w->who().run_id) : resdb::new_uuid()).c_str());
    if (r && reports) {
        // fio prints its notes on stdout ahead of the JSON (with --output, nowhere); run as
        // ioplan, without the normal output to carry them they go to stderr, so stdout
        // stays one document (run as fio, the report puts them where fio does).
        if (!(formats & report::FORMAT_NORMAL) && a.who != report::personality::fio)
            for (uint32_t i = 0; i < r->nr_msgs; i++)
                if (r->msgs[i].code && std::strcmp(r->msgs[i].code, "fio-note") == 0)
                    status(std::string(r->msgs[i].text) + "\n");
        // Kept before the report is written: a reader that blocks or leaves cannot lose it.
        if (a.save)
            rc = std::max(rc, save_holding_signals(*r, p, a, &signals) && !signals ? 0 : 1);
        rc = std::max(rc, write_reports(*r, p, a, formats, out, interim, opening));
        // A terse line has no place for "this measured memory": stderr has it.
        if (!(formats & ~report::FORMATS_WITHOUT_CAVEATS))
            status(report::caveat_lines(*r, p));
        rc = std::max(rc, failed_status(*r, a.who));
        bool said = false;
        for (uint32_t i = 0; i < r->nr_msgs; i++)
            if (r->msgs[i].level == RES_MSG_ERROR) {
                std::fprintf(stderr, "ioplan: error: %s\n", r->msgs[i].text);
                said = true;
            }
        // Out of memory the engine may fail without room to say why.
        char hint[192];
        if (!said && r->error)
            std::fprintf(stderr, "ioplan: error: the run failed: %s (errno %d)%s\n", strerror(r->error), r->error,
                         eng_thread_refusal_hint(-r->error, hint, sizeof(hint)));
        results_free(r);
    } else if (r) {
        rc = std::max(rc, failed_status(*r, a.who));
        results_free(r);
    } else if (!write_stdout(interim.take_pending(), "the results so far to stdout")) {
        rc = 1;
    }
    pf_free(&pf);
    // fio's exit_value for a run a signal stopped (its sig_int); ioplan says 1.
    if (signals && a.who == report::personality::fio)
        rc = 128;
    return rc;
}

} // namespace cli

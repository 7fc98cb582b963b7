// cli/run.cpp - plan -> preflight -> engine -> results -> reports.
//
// SIGINT and SIGTERM are blocked in every thread before the engine starts
// (its workers inherit the mask) and taken here with sigtimedwait, so the
// first one asks the engine to stop and keep what it measured, and a second
// aborts at once; the report is still written and JSON stays valid.
#include "cli/run.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "cli/progress.hpp"
#include "engine/engine.h"
#include "engine/preflight.h"
#include "report/cdm.hpp"
#include "report/report.hpp"

namespace cli {

namespace {

const char *level_name(res_msg_level l)
{
    return l == RES_MSG_ERROR ? "error" : l == RES_MSG_WARNING ? "warning" : "note";
}

// Preflight findings go to stderr now and into the results later.
bool preflight(const plan &p, pf_report *pf)
{
    int ret = pf_run(&p, &safety_system, pf);
    if (ret) {
        std::fprintf(stderr, "ioplan: error: preflight: %s\n", strerror(-ret));
        return false;
    }
    for (uint32_t i = 0; i < pf->nr; i++)
        std::fprintf(stderr, "ioplan: %s: %s\n", level_name(pf->findings[i].level), pf->findings[i].text);
    return pf->nr_errors == 0;
}

// --output naming a FIFO that nobody reads would block the report's open()
// after the run, with SIGINT blocked by then: a hang only SIGKILL ends.  An
// O_NONBLOCK open for writing tells (ENXIO: no reader) without waiting, and
// is held until the report is written, so the reader does not see the end
// of its input before the report comes.
struct output_fifo {
    int fd = -1;
    bool no_reader = false;
    explicit output_fifo(const std::string &path)
    {
        struct stat st;
        if (path.empty() || stat(path.c_str(), &st) != 0 || !S_ISFIFO(st.st_mode))
            return;
        fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        no_reader = fd < 0 && errno == ENXIO;
    }
    ~output_fifo()
    {
        if (fd >= 0)
            close(fd);
    }
};

void attach_findings(results *r, const pf_report &pf)
{
    for (uint32_t i = 0; i < pf.nr; i++)
        res_msg_add(r, pf.findings[i].level, ("preflight/" + std::string(pf.findings[i].code)).c_str(),
                    pf.findings[i].job_id, "%s", pf.findings[i].text);
}

// Takes every pending SIGINT/SIGTERM: the first asks the engine to stop, the
// second aborts.  Returns how many signals have been seen so far.
int take_signals(eng *e, const sigset_t &sigs, int signals, progress_line &line, bool show_progress)
{
    timespec none{0, 0};
    int sig;
    while ((sig = sigtimedwait(&sigs, nullptr, &none)) == SIGINT || sig == SIGTERM) {
        eng_stop(e); // the second call aborts at once
        if (++signals == 1 && show_progress)
            std::fputs(line.clear().c_str(), stderr);
        if (signals == 1)
            std::fprintf(stderr, "ioplan: stopping (signal %d); send it again to abort\n", sig);
        else if (signals == 2)
            std::fprintf(stderr, "ioplan: aborting (signal %d): in-flight I/O is abandoned\n", sig);
    }
    return signals;
}

// Waits for the run, forwarding signals and drawing the progress line.  The
// engine wait returns the moment the run ends; signals are taken every 10 ms,
// so a second one reaches a run that is still finishing (end_fsync, layout).
void supervise(eng *e, const plan &p, const sigset_t &sigs, bool show_progress)
{
    progress_line line(p);
    std::vector<char> states(p.nr_threads + 1, 0);
    int signals = 0;
    while (eng_wait(e, 10 * 1000 * 1000) == -ETIMEDOUT) {
        signals = take_signals(e, sigs, signals, line, show_progress);
        eng_status st{};
        st.states = states.data();
        if (show_progress && eng_get_status(e, &st) == 0 && line.due(st.elapsed_ns))
            std::fputs(line.update(st).c_str(), stderr);
    }
    if (show_progress)
        std::fputs(line.clear().c_str(), stderr);
}

int write_reports(const results &r, const plan &p, const args &a, unsigned formats)
{
    report::options o;
    o.formats = formats;
    o.pid = a.fake_clock_step_ns ? 0 : getpid(); // a golden run's output names no process
    o.admin = !a.fake_clock_step_ns && geteuid() == 0; // goldens must not depend on who runs them
    const plan_job *first = plan_job_at(&p, 0);
    if (!a.fake_clock_step_ns && first && first->nr_clones && first->clones[0].nr_files) {
        std::string path = first->clones[0].files[0].path;
        size_t slash = path.rfind('/');
        o.cdm_target = report::cdm_target_usage(slash == std::string::npos ? "." : path.substr(0, slash));
    }
    std::string err;
    if (a.writer) {
        std::ofstream file;
        if (!a.output_path.empty())
            file.open(a.output_path);
        std::ostream &out = a.output_path.empty() ? std::cout : file;
        a.writer(r, p, out);
        out.flush();
        if (!out.good())
            std::fprintf(stderr, "ioplan: error: cannot write the results to %s\n",
                         a.output_path.empty() ? "stdout" : a.output_path.c_str());
        return out.good() ? 0 : 1;
    }
    if (a.output_path.empty()) {
        report::write(r, p, o, std::cout);
        std::cout.flush();
        return std::cout.good() ? 0 : 1;
    }
    if (!report::write_to_file(a.output_path, r, p, o, &err)) {
        std::fprintf(stderr, "ioplan: error: %s\n", err.c_str());
        return 1;
    }
    return 0;
}

} // namespace

int run_plan(const plan &p, const args &a)
{
    unsigned formats = 0;
    std::string err;
    if (!a.writer && !report::parse_formats(a.output_format, &formats, &err)) {
        std::fprintf(stderr, "ioplan: error: --output-format: %s\n", err.c_str());
        return 2;
    }
    output_fifo fifo(a.output_path);
    if (fifo.no_reader) {
        std::fprintf(stderr, "ioplan: error: --output=%s is a FIFO that nobody reads: start its reader "
                     "first\n", a.output_path.c_str());
        return 2;
    }
    pf_report pf{};
    if (!preflight(p, &pf)) {
        pf_free(&pf);
        return 2;
    }
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
    eng_opts eo{};
    eo.fake_clock = a.fake_clock_step_ns != 0;
    eo.fake_clock_step_ns = a.fake_clock_step_ns;
    eng *e = nullptr;
    int ret = eng_start(&p, &eo, &e);
    if (ret) {
        std::fprintf(stderr, "ioplan: error: cannot start: %s\n", strerror(-ret));
        pf_free(&pf);
        return 1;
    }
    supervise(e, p, sigs, progress_enabled(a.eta, isatty(STDERR_FILENO)));
    results *r = nullptr;
    ret = eng_finish(e, &r);
    int rc = ret || !r ? 1 : 0;
    if (r) {
        attach_findings(r, pf);
        rc |= write_reports(*r, p, a, formats);
        rc |= r->error || r->interrupted ? 1 : 0;
        for (uint32_t i = 0; i < r->nr_msgs; i++)
            if (r->msgs[i].level == RES_MSG_ERROR)
                std::fprintf(stderr, "ioplan: error: %s\n", r->msgs[i].text);
        results_free(r);
    }
    pf_free(&pf);
    return rc;
}

} // namespace cli

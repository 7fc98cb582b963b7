// cli/interim.cpp - reports of the results so far while the run goes on (interim.hpp).
#include "cli/interim.hpp"
#include "report/report.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <sys/eventfd.h>
#include <sstream>
#include <unistd.h>
#include <utility>

namespace cli {

namespace {

constexpr uint64_t max_wait_ns = 200000000; // a thread in a long I/O or think is shown as it was

} // namespace

interim_reports::interim_reports(uint64_t interval_ns, render_fn render, sink_fn sink)
    : interval_ns_(interval_ns), next_ns_(interval_ns), render_(std::move(render)), sink_(std::move(sink))
{
}

uint64_t interim_reports::wait_ns() const
{
    return interval_ns_ && interval_ns_ / 2 < max_wait_ns ? interval_ns_ / 2 : max_wait_ns;
}

void interim_reports::tick(eng *e, uint64_t elapsed_ns, bool asked)
{
    bool due = interval_ns_ && elapsed_ns >= next_ns_;
    if (due) // a late tick skips what it missed, as fio's timer does
        next_ns_ = (elapsed_ns / interval_ns_ + 1) * interval_ns_;
    if (due || asked)
        report(e);
    drain();
}

void interim_reports::report(eng *e)
{
    results *r = nullptr;
    if (failed_ || eng_snapshot(e, wait_ns(), &r) != 0 || !r)
        return; // out of memory: this report is skipped, the run goes on
    if (gather_)
        return gather_(r);
    show(*r);
    results_free(r);
}

void interim_reports::show(const results &r)
{
    if (failed_)
        return;
    std::string text = render_(r, count_ == 0);
    count_++;
    if (!sink_)
        pending_ += text;
    else if (!sink_(text))
        failed_ = true; // said once; the final report tries again and fails the run
}

void interim_reports::drain()
{
    while (!pending_.empty() && !failed_) {
        pollfd pfd{STDOUT_FILENO, POLLOUT, 0};
        // POLLERR: a pipe without a reader, full or not; the write says EPIPE at once.
        // POLLNVAL: a stdout the caller closed (>&-); the write says EBADF, where
        // waiting for it to drain kept every report in memory for the whole run.
        if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & (POLLOUT | POLLERR | POLLNVAL)))
            return;
        // At most PIPE_BUF: a pipe that polls writable takes that much without blocking.
        size_t n = pending_.size() < PIPE_BUF ? pending_.size() : PIPE_BUF;
        ssize_t w = ::write(STDOUT_FILENO, pending_.data(), n);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (w <= 0) {
            reader_gone_ = w < 0 && errno == EPIPE;
            std::fprintf(stderr, "ioplan: error: writing the results so far to stdout: %s%s\n",
                         std::strerror(w < 0 ? errno : EIO),
                         reader_gone_ ? ": nothing reads them, so the run stops and keeps what it measured" : "");
            failed_ = true;
            pending_.clear();
            return;
        }
        pending_.erase(0, (size_t)w);
    }
}

void interim_reports::emit(const std::string &text)
{
    if (failed_ || text.empty())
        return;
    if (!sink_) {
        pending_ += text;
        drain();
    } else if (!sink_(text)) {
        failed_ = true;
    }
}

opening_notes::opening_notes(const plan &p, report::personality who, bool banner_out, bool fio_output_file)
    : banner_written(banner_out), p_(p), who_(who), fio_output_file_(fio_output_file),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
}

opening_notes::~opening_notes()
{
    if (wake_fd_ >= 0)
        close(wake_fd_);
}

void opening_notes::take(void *self, const results *r)
{
    auto *n = static_cast<opening_notes *>(self);
    // Called from the engine's C: nothing may be thrown through it.  Without
    // memory the notes stay with the final report, which renders them from r.
    try {
        std::ostringstream text;
        report::write_opening_notes(text, *r, n->p_, n->who_, n->fio_output_file_);
        std::string s = text.str();
        std::lock_guard<std::mutex> hold(n->mu_);
        n->text_.swap(s);
        n->came_ = true;
    } catch (...) {
        return;
    }
    if (n->wake_fd_ >= 0)
        (void)!eventfd_write(n->wake_fd_, 1);
}

// The lines of now that are not the lines of before, taken in order: the
// later hand-over holds the earlier one's lines, with others among them
// (a file fio ignores is said between two threads' layout lines).
static std::string lines_not_in(const std::string &now, const std::string &before)
{
    std::string rest;
    size_t b = 0;
    for (size_t i = 0, nl; i < now.size(); i = nl + 1) {
        nl = now.find('\n', i);
        if (nl == std::string::npos)
            nl = now.size() - 1;
        size_t len = nl + 1 - i;
        if (before.compare(b, len, now, i, len) == 0)
            b += len;
        else
            rest.append(now, i, len);
    }
    return rest;
}

std::string opening_notes::ready()
{
    std::lock_guard<std::mutex> hold(mu_);
    ready_text_ = text_;
    return came_ ? lines_not_in(ready_text_, out_text_) : std::string();
}

void opening_notes::sent()
{
    std::lock_guard<std::mutex> hold(mu_);
    out_text_ = ready_text_;	// not text_: a hand-over since ready() has not gone out
    out_ = true;
}

bool opening_notes::all_out()
{
    std::lock_guard<std::mutex> hold(mu_);
    return out_ && lines_not_in(text_, out_text_).empty();
}

void opening_notes::drain_wake()
{
    eventfd_t v;
    if (wake_fd_ >= 0)
        (void)eventfd_read(wake_fd_, &v);
}

std::string interim_reports::take_pending()
{
    std::string s;
    s.swap(pending_);
    return s;
}

} // namespace cli

// cli/mpi/held_stderr.cpp - holding a rank's stderr until the preflight's
// agreement (held_stderr.hpp says why).
//
// One holder at a time, in globals: the signal handler and the world's exit
// paths reach it without a pointer, and only async-signal-safe calls touch it
// there (pread, write, dup2, close, sigaction, raise).
#include "cli/mpi/held_stderr.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace cli {

namespace {

volatile sig_atomic_t held_fd = -1;  // the memory file where fd 2 now writes
volatile sig_atomic_t saved_fd = -1; // the stderr it stands in for
const int ended_by[] = {SIGTERM, SIGINT, SIGHUP};
struct sigaction before[sizeof(ended_by) / sizeof(ended_by[0])];

void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

// The held text goes out; fd 2 is stderr again and the handlers are the ones before.
void give_back(bool print)
{
    int mem = held_fd, out = saved_fd;
    if (mem < 0)
        return;
    held_fd = -1;
    saved_fd = -1;
    dup2(out, STDERR_FILENO);
    close(out);
    char buf[4096];
    ssize_t n;
    for (off_t at = 0; print && (n = pread(mem, buf, sizeof(buf), at)) > 0; at += n)
        write_all(STDERR_FILENO, buf, (size_t)n);
    close(mem);
    for (size_t i = 0; i < sizeof(ended_by) / sizeof(ended_by[0]); i++)
        sigaction(ended_by[i], &before[i], nullptr);
}

// A signal that ends the rank while its text is held: the text first, then the
// signal's own effect (the handler before, usually the default's end).
void on_ending_signal(int sig)
{
    int saved_errno = errno;
    give_back(true);
    raise(sig);
    errno = saved_errno;
}

} // namespace

bool held_stderr::start()
{
    if (held_fd >= 0)
        return false;
    std::fflush(stderr);
    int mem = memfd_create("ioplan-held-stderr", MFD_CLOEXEC);
    int out = mem < 0 ? -1 : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (out < 0 || dup2(mem, STDERR_FILENO) < 0) {
        if (out >= 0)
            close(out);
        if (mem >= 0)
            close(mem);
        return false;
    }
    saved_fd = out;
    held_fd = mem;
    struct sigaction sa {};
    sa.sa_handler = on_ending_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (size_t i = 0; i < sizeof(ended_by) / sizeof(ended_by[0]); i++) {
        sigaction(ended_by[i], nullptr, &before[i]);
        if (before[i].sa_handler == SIG_DFL) // an ignored or handled signal keeps its handling
            sigaction(ended_by[i], &sa, nullptr);
    }
    return true;
}

uint64_t held_stderr::digest() const
{
    std::fflush(stderr);
    uint64_t h = 0xcbf29ce484222325ull;
    bool any = false;
    char buf[4096];
    ssize_t n;
    for (off_t at = 0; held_fd >= 0 && (n = pread(held_fd, buf, sizeof(buf), at)) > 0; at += n)
        for (ssize_t i = 0; i < n; i++, any = true)
            h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ull;
    return any ? h : 0;
}

void held_stderr::release(bool print)
{
    std::fflush(stderr);
    give_back(print);
}

void held_stderr_release_now()
{
    give_back(true);
}

} // namespace cli

// cli/mpi/held_stderr.cpp - holding a rank's stderr until the preflight's
// agreement (held_stderr.hpp says why).
//
// One holder at a time, in globals: the world's exit paths reach it without a
// pointer (held_stderr_release_now).  No signal handler: under mpirun SIGINT
// and SIGTERM are blocked from the join on (mpi.cpp, block_run_signals) and
// wait for the run, so a held text comes out at the agreement or when the
// wait for it has lasted too long (world::held_slice).
#include "cli/mpi/held_stderr.hpp"

#include <cstdio>
#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/mpi/wire.hpp"
#include "cli/output.hpp"

namespace cli {

namespace {

int held_fd = -1;  // the memory file where fd 2 now writes
int saved_fd = -1; // the stderr it stands in for

// What the memory file holds (a preflight's findings: a few lines).
std::string held_text()
{
    std::string text;
    char buf[4096];
    ssize_t n;
    for (off_t at = 0; held_fd >= 0 && (n = pread(held_fd, buf, sizeof(buf), at)) > 0; at += n)
        text.append(buf, (size_t)n);
    return text;
}

// fd 2 is stderr again; the held text goes out on it when print.
void give_back(bool print)
{
    if (held_fd < 0)
        return;
    std::fflush(stderr);
    std::string text = print ? held_text() : "";
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    close(held_fd);
    held_fd = saved_fd = -1;
    if (!text.empty())
        write_whole(STDERR_FILENO, text);
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
    return true;
}

uint64_t held_stderr::digest() const
{
    std::fflush(stderr);
    std::string text = held_text();
    return text.empty() ? 0 : wire::fnv1a(text);
}

void held_stderr::release(bool print)
{
    give_back(print);
}

void held_stderr_release_now()
{
    give_back(true);
}

} // namespace cli

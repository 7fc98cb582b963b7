// cli/mpi/held_stderr.hpp - what a rank writes on stderr before the ranks agree
// on the preflight, held back until they have.
//
// Every rank checks the same job, so N ranks find the same fault and each
// printed it: 64 copies of one line before rank 0's one line naming "ranks
// 0-63".  Held, the text goes out after the agreement only where it differs
// from rank 0's (which rank 0 prints): a fault of one rank or one host is
// still said by that rank, in full.  A world that ends before the agreement
// must not lose the text: the world's exit paths print it first
// (held_stderr_release_now), and a rank kept waiting for the agreement prints
// it before long (world::held_slice), since mpirun ends the ranks with SIGKILL
// when one of them aborts or dies.  (SIGINT and SIGTERM wait for the run under
// mpirun: they are blocked from the join on.)
//
// The file descriptor itself is held (an unnamed memory file in place of fd
// 2), not the C stream: every check writes with fprintf(stderr) as it would
// alone, and nothing of it needs to know.
#pragma once

#include <cstdint>
#include <string>

namespace cli {

class held_stderr {
public:
    held_stderr() = default;
    held_stderr(const held_stderr &) = delete;
    held_stderr &operator=(const held_stderr &) = delete;
    ~held_stderr() { release(true); }

    // Holds fd 2 from now on; false (nothing held, stderr as before) when the
    // memory file or the descriptors cannot be had.
    bool start();
    // FNV-1a of what is held (wire::fnv1a), 0 when nothing is: equal digests, equal texts.
    uint64_t digest() const;
    // Gives fd 2 back; the held text goes out on it when print.
    void release(bool print);
};

// Gives fd 2 back and writes out what it held; nothing when nothing is held.
// For the paths that end the rank without returning.
void held_stderr_release_now();

} // namespace cli

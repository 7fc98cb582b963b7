// cli/mpi/wire.hpp - what the parts of one rank's world share on the wire:
// the tags of its messages, and the clocks and hash its steps are keyed by.
// Private to cli/mpi; a tag is used by one exchange only, so a late message
// of one step is never taken for another's.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace cli {
namespace wire {

constexpr int TAG_CLOCK_ASK = 10;
constexpr int TAG_CLOCK_TELL = 11;
constexpr int TAG_RESULT = 20;
constexpr int TAG_TURN = 21;
constexpr int TAG_PLAN = 30;
constexpr int TAG_ARRIVE = 40;
constexpr int TAG_ANSWER = 41;
constexpr int TAG_SHARE = 50;
constexpr int TAG_GATHER = 70;
constexpr int TAG_SCATTER = 71;
constexpr int TAG_PULSE = 72;

// How often a wait for a rank that may be working (a layout, a group's I/O)
// looks at its pulses again (world::pulse).
constexpr double PULSE_LOOK_S = 0.05;

inline uint64_t clock_ns(clockid_t which)
{
    timespec ts;
    clock_gettime(which, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Start times travel between ranks on the real-time clock; deadlines are kept
// on the monotonic one, which a clock step does not move.
inline uint64_t realtime_ns() { return clock_ns(CLOCK_REALTIME); }
inline uint64_t mono_ns() { return clock_ns(CLOCK_MONOTONIC); }

// A short key every rank computes alike (a plan's identity, a file's path).
inline uint64_t fnv1a(const std::string &s)
{
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : s)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

} // namespace wire
} // namespace cli

// tests/fuzz/fuzz_iolog.cpp - libFuzzer target: the trace reader (engine/iolog.h)
// on any bytes, as a text iolog (v2, v3) or a blktrace binary, with and without
// the replay_* options.  A trace it accepts must be self-consistent: every I/O
// names a file it holds and lies inside that file's extent.
#include <cerrno>
#include <cstdlib>

#include "engine/iolog.h"

namespace {

void check(const uint8_t *data, size_t size, const iolog_opts &o)
{
    iolog_trace t;
    iolog_error e;
    int ret = iolog_parse(data, size, &o, &t, &e);
    if (!ret) {
        for (uint64_t i = 0; i < t.nr_ios; i++) {
            const plan_replay_io &io = t.ios[i];
            if (io.file >= t.nr_files || (io.ddir < PLAN_DDIR_NR && io.offset + io.len > t.extent[io.file]) ||
                (i && io.time_ns < t.ios[i - 1].time_ns))
                std::abort();
        }
    } else if (ret != -EINVAL && ret != -ENOMEM) {
        std::abort();
    }
    iolog_trace_free(&t);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size, iolog_opts{});
    iolog_opts o{};
    o.scale = 3;
    o.align = 4096;
    o.skip = 1u << PLAN_DDIR_TRIM;
    o.redirect = "/tmp/redirected";
    check(data, size, o);
    return 0;
}

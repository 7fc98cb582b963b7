// tests/fuzz/fuzz_iolog.cpp - libFuzzer target: the trace reader (parser/iolog/iolog.h)
// on any bytes, as a text iolog (v2, v3) or a blktrace binary, with and without
// the replay_* options.  A trace it accepts must be self-consistent: every I/O
// names a file it holds and lies inside that file's extent.  The blktrace merge
// (merge_blktrace_file) gets the bytes as two traces: a merge it accepts is whole
// records, and reads back as a blktrace.
#include <cerrno>
#include <cstdlib>

#include "parser/iolog/iolog.h"

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

// The input split in two traces, the first repeated twice at half speed.
void check_merge(const uint8_t *data, size_t size)
{
    size_t half = size / 2;
    iolog_merge_src src[2] = {{data, half, 50, 2}, {data + half, size - half, 100, 1}};
    uint8_t *out = nullptr;
    size_t len = 0;
    uint32_t bad = 0;
    iolog_error e;
    int ret = iolog_merge(src, 2, &out, &len, &bad, &e);
    if ((ret && ret != -EINVAL && ret != -ENOMEM) || (!ret && (!len || len % 48 || !iolog_is_blktrace(out, len))) ||
        (ret && (out || bad > 1)))
        std::abort();
    std::free(out);
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
    check_merge(data, size);
    return 0;
}

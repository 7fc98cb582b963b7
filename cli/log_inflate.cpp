// cli/log_inflate.cpp - --inflate-log: fio's compressed log files (.log.fz) as text.
//
// A .log.fz file is zlib (or gzip) streams one after another, each holding
// fio's binary samples (struct io_sample, 32 bytes, or 40 with the offset):
// the first sample's ddir flag bits say whether there is an offset and how the
// priority is printed.  zlib (Debian's) does the inflating; the lines are
// printed as fio's flush_samples prints them.
#include "cli/log_inflate.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include <zlib.h>

#include "parser/structured.hpp"

namespace cli {

namespace {

// A compressed log read from a pipe holds at most this much (a bound: an endless stream is refused).
constexpr size_t LOG_PIPE_MAX = size_t(1) << 30;

// fio's struct io_sample (iolog.h): 32 bytes, 40 with the offset; flag bits in its ddir word.
constexpr size_t SAMPLE_BYTES = 32, SAMPLE_OFFSET_BYTES = 40;
constexpr uint32_t OFFSET_BIT = 0x80000000u, PRIO_BIT = 0x40000000u;

// fio's IOPRIO_CLASS_RT (class in the top three bits of the 16-bit value).
bool prio_is_rt(uint16_t prio)
{
    return (prio >> 13) == 1;
}

// Appends the samples' text lines, as fio's flush_samples prints them.
void append_samples(const std::vector<unsigned char> &b, std::string *out)
{
    if (b.size() < SAMPLE_BYTES)
        return;
    uint32_t ddir0;
    std::memcpy(&ddir0, b.data() + 16, 4);
    bool offset = ddir0 & OFFSET_BIT, prio_hex = ddir0 & PRIO_BIT;
    size_t sz = offset ? SAMPLE_OFFSET_BYTES : SAMPLE_BYTES;
    char line[160];
    for (size_t at = 0; at + sz <= b.size(); at += sz) {
        const unsigned char *p = b.data() + at;
        uint64_t t, bs, off = 0;
        int64_t v;
        uint32_t ddir;
        uint16_t prio;
        std::memcpy(&t, p, 8);
        std::memcpy(&v, p + 8, 8);
        std::memcpy(&ddir, p + 16, 4);
        std::memcpy(&prio, p + 20, 2);
        std::memcpy(&bs, p + 24, 8);
        if (offset)
            std::memcpy(&off, p + 32, 8);
        int n = std::snprintf(line, sizeof line, "%" PRIu64 ", %" PRId64 ", %u, %" PRIu64 ", ", t, v,
                              ddir & ~(OFFSET_BIT | PRIO_BIT), bs);
        if (offset)
            n += std::snprintf(line + n, sizeof line - (size_t)n, "%" PRIu64 ", ", off);
        if (prio_hex)
            std::snprintf(line + n, sizeof line - (size_t)n, "0x%04x\n", prio);
        else
            std::snprintf(line + n, sizeof line - (size_t)n, "%u\n", prio_is_rt(prio) ? 1u : 0u);
        out->append(line);
    }
}

// Inflates the stream at in[*at...]: its bytes, or false on a corrupt stream.
bool inflate_stream(const std::vector<unsigned char> &in, size_t *at, std::vector<unsigned char> *out)
{
    z_stream zs;
    std::memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 15 + 32) != Z_OK) // +32: a zlib or a gzip header, as fio accepts
        return false;
    zs.next_in = const_cast<Bytef *>(in.data() + *at);
    zs.avail_in = (uInt)(in.size() - *at);
    unsigned char buf[65536];
    int ret;
    do {
        zs.next_out = buf;
        zs.avail_out = sizeof(buf);
        ret = inflate(&zs, Z_NO_FLUSH);
        out->insert(out->end(), buf, buf + (sizeof(buf) - zs.avail_out));
    } while (ret == Z_OK);
    *at = in.size() - zs.avail_in;
    inflateEnd(&zs);
    return ret == Z_STREAM_END;
}

} // namespace

namespace {

// Each stream's text lines to sink, in order; false with why in err (a sink
// that refuses more sets err itself).
bool inflate_each(const std::string &path, const std::function<bool(const std::string &)> &sink, std::string *err)
{
    std::vector<unsigned char> in;
    if (!parser::read_file_bytes(path, "log", LOG_PIPE_MAX, &in, err))
        return false;
    size_t at = 0;
    while (at < in.size()) {
        std::vector<unsigned char> samples;
        std::string lines;
        if (!inflate_stream(in, &at, &samples)) {
            *err = "not a compressed log (bad zlib data at byte " + std::to_string(at) + ")";
            return false;
        }
        append_samples(samples, &lines);
        if (!sink(lines))
            return false;	/* the sink says why */
    }
    return true;
}

} // namespace

bool inflate_log_text(const std::string &path, size_t max_bytes, std::string *text, std::string *err)
{
    return inflate_each(path, [&](const std::string &lines) {
        text->append(lines);
        if (text->size() <= max_bytes)
            return true;
        *err = "inflated, its text is larger than " + std::to_string(max_bytes >> 20) + " MiB";
        return false;
    }, err);
}

int inflate_log(const std::string &path, FILE *out)
{
    std::string err;
    if (!inflate_each(path, [&](const std::string &lines) {
            std::fwrite(lines.data(), 1, lines.size(), out);
            return true;
        }, &err)) {
        std::fprintf(stderr, "ioplan: error: --inflate-log: %s: %s\n", path.c_str(), err.c_str());
        return 1;
    }
    return 0;
}

} // namespace cli

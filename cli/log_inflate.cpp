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

// One sample's text line, as fio's flush_samples prints it.
void append_sample(const unsigned char *p, bool offset, bool prio_hex, std::string *out)
{
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
    char line[160];
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

// One stream's samples turned into text as zlib hands them out, so a stream
// that inflates to gigabytes (a crafted one: zlib packs a thousand to one)
// costs a buffer, not its size.  The first sample's flag bits rule the stream.
struct stream_text {
    std::vector<unsigned char> part; // a sample the buffer's end cut
    size_t sample = 0;               // its size once the first sample is whole

    void feed(const unsigned char *p, size_t n, std::string *out)
    {
        part.insert(part.end(), p, p + n);
        if (!sample && part.size() >= SAMPLE_BYTES) {
            uint32_t ddir0;
            std::memcpy(&ddir0, part.data() + 16, 4);
            offset = ddir0 & OFFSET_BIT;
            prio_hex = ddir0 & PRIO_BIT;
            sample = offset ? SAMPLE_OFFSET_BYTES : SAMPLE_BYTES;
        }
        size_t at = 0;
        for (; sample && at + sample <= part.size(); at += sample)
            append_sample(part.data() + at, offset, prio_hex, out);
        part.erase(part.begin(), part.begin() + (ptrdiff_t)at);
    }

private:
    bool offset = false, prio_hex = false;
};

enum class inflated { whole, corrupt, refused };

// Inflates the stream at in[*at...], handing its text to sink a buffer at a time.
inflated inflate_stream(const std::vector<unsigned char> &in, size_t *at,
                        const std::function<bool(const std::string &)> &sink)
{
    z_stream zs;
    std::memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 15 + 32) != Z_OK) // +32: a zlib or a gzip header, as fio accepts
        return inflated::corrupt;
    zs.next_in = const_cast<Bytef *>(in.data() + *at);
    zs.avail_in = (uInt)(in.size() - *at);
    unsigned char buf[65536];
    stream_text st;
    std::string lines;
    int ret;
    do {
        zs.next_out = buf;
        zs.avail_out = sizeof(buf);
        ret = inflate(&zs, Z_NO_FLUSH);
        lines.clear();
        st.feed(buf, sizeof(buf) - zs.avail_out, &lines);
        if (!lines.empty() && !sink(lines)) {
            inflateEnd(&zs);
            return inflated::refused;
        }
    } while (ret == Z_OK);
    *at = in.size() - zs.avail_in;
    inflateEnd(&zs);
    return ret == Z_STREAM_END ? inflated::whole : inflated::corrupt;
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
        inflated r = inflate_stream(in, &at, sink);
        if (r == inflated::refused)
            return false;	/* the sink says why */
        if (r == inflated::corrupt) {
            *err = "not a compressed log (bad zlib data at byte " + std::to_string(at) + ")";
            return false;
        }
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
    // A write that fails (a full disk) stops the inflating: the rest would fail too.
    if (!inflate_each(path, [&](const std::string &lines) {
            if (std::fwrite(lines.data(), 1, lines.size(), out) == lines.size())
                return true;
            err = std::string("writing its text: ") + std::strerror(errno);
            return false;
        }, &err)) {
        std::fprintf(stderr, "ioplan: error: --inflate-log: %s: %s\n", path.c_str(), err.c_str());
        std::clearerr(out); // said once, here
        return 1;
    }
    return 0;
}

} // namespace cli

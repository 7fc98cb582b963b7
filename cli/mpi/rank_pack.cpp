// cli/mpi/rank_pack.cpp - histograms and series packed for rank files (rank_pack.hpp).
#include "cli/mpi/rank_pack.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace cli {

namespace {

// A series sample is this many 64-bit words, in struct order (visit_series).
constexpr size_t sample_words = 2 + 4 * PLAN_DDIR_NR;
static_assert(sizeof(res_sample) == sample_words * sizeof(uint64_t), "res_sample is all uint64_t");

// Histograms and per-interval series are the bulk of a long run's rank file
// (a 24-clone, 10-minute job: 1.2 MB of JSON, 4 of 5 bytes theirs), and one
// JSON number each made the reading slow.  They are written as lists of
// 64-bit words in LEB128 varints, in base64 (RFC 4648, padded): exact,
// a quarter of the text, and read without a JSON number parser.
const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string words_pack(const std::vector<uint64_t> &words)
{
    std::string bytes;
    bytes.reserve(words.size() * 2);
    for (uint64_t z : words) {
        for (; z >= 0x80; z >>= 7)
            bytes += static_cast<char>(0x80 | (z & 0x7F));
        bytes += static_cast<char>(z);
    }
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        size_t left = bytes.size() - i;
        if (left > 1)
            v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        if (left > 2)
            v |= static_cast<unsigned char>(bytes[i + 2]);
        out += b64[v >> 18];
        out += b64[(v >> 12) & 63];
        out += left > 1 ? b64[(v >> 6) & 63] : '=';
        out += left > 2 ? b64[v & 63] : '=';
    }
    return out;
}

// Calls put(word) for each word words_pack wrote, decoding base64 and the
// varints in one pass (no buffer in between): "" or why the text is not such
// words.
template <class F> std::string words_each(std::string_view text, F put)
{
    static const auto table = [] {
        std::array<int8_t, 256> t;
        t.fill(-1);
        for (int i = 0; i < 64; i++)
            t[static_cast<unsigned char>(b64[i])] = static_cast<int8_t>(i);
        return t;
    }();
    size_t n = text.size();
    if (n % 4)
        return "not base64";
    int pad = n ? (text[n - 1] == '=') + (text[n - 2] == '=') : 0;
    const auto *in = reinterpret_cast<const unsigned char *>(text.data());
    uint64_t z = 0;
    unsigned shift = 0;
    int bad = 0;
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int a = table[in[i]], b = table[in[i + 1]];
        int c = last && pad >= 2 ? 0 : table[in[i + 2]], d = last && pad >= 1 ? 0 : table[in[i + 3]];
        bad |= a | b | c | d; // any -1 sets the sign bit
        uint32_t v = static_cast<uint32_t>(a) << 18 | static_cast<uint32_t>(b) << 12 | static_cast<uint32_t>(c) << 6 |
                     static_cast<uint32_t>(d);
        for (int k = 0, bytes = last ? 3 - pad : 3; k < bytes; k++) {
            uint32_t byte = (v >> (16 - 8 * k)) & 0xFF;
            z |= static_cast<uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80)) {
                put(z);
                z = 0;
                shift = 0;
            } else if ((shift += 7) > 63) {
                return "a varint is too long";
            }
        }
    }
    if (bad < 0)
        return "not base64";
    return shift ? "a varint is cut short" : "";
}

} // namespace

// A series: each of a sample's words as its change from the sample before
// (modulo 2^64, as a signed number, zigzag-folded: a steady series is
// mostly zeros).
std::string samples_pack(const res_sample *items, uint32_t nr)
{
    std::vector<uint64_t> words;
    words.reserve(size_t(nr) * sample_words);
    uint64_t prev[sample_words] = {}, cur[sample_words];
    for (uint32_t i = 0; i < nr; i++) {
        memcpy(cur, &items[i], sizeof(cur));
        for (size_t w = 0; w < sample_words; w++) {
            uint64_t d = cur[w] - prev[w];
            words.push_back((d << 1) ^ (0 - (d >> 63)));
        }
        memcpy(prev, cur, sizeof(cur));
    }
    return words_pack(words);
}

std::string samples_unpack(std::string_view text, res_sample **items, uint32_t *nr)
{
    // Each word is a byte or more: a bound for the array (its cap is not read).
    size_t cap = text.size() / 4 * 3 / sample_words;
    if (cap > UINT32_MAX)
        return "too many samples";
    // malloc, not calloc: every sample kept is written whole, and the bound is
    // about twice the samples (zeroing it was a tenth of a merge's time).
    auto *out = static_cast<res_sample *>(cap ? malloc(cap * sizeof(res_sample)) : nullptr);
    if (cap && !out)
        throw std::bad_alloc();
    uint64_t sum[sample_words] = {};
    size_t w = 0, words = 0;
    std::string why = words_each(text, [&](uint64_t z) {
        sum[w] += (z >> 1) ^ (0 - (z & 1));
        words++;
        if (++w == sample_words) {
            memcpy(&out[(*nr)++], sum, sizeof(sum)); // *nr < cap: each word took a byte
            w = 0;
        }
    });
    *items = out; // the caller's results_free frees it, whole or not
    if (why.empty() && w)
        why = std::to_string(words) + " words, not samples of " + std::to_string(sample_words);
    return why;
}

// A histogram: its non-zero buckets as (buckets since the last one, count) pairs.
std::string hist_pack(const uint64_t *h)
{
    std::vector<uint64_t> words;
    uint32_t last = 0;
    for (uint32_t i = 0; i < RES_HIST_NR; i++)
        if (h[i]) {
            words.push_back(i - last);
            words.push_back(h[i]);
            last = i;
        }
    return words_pack(words);
}

std::string hist_unpack(std::string_view text, uint64_t *h)
{
    uint64_t at = 0, words = 0;
    bool bad = false;
    std::string why = words_each(text, [&](uint64_t z) {
        if (words++ % 2) {
            h[at] = z;
            return;
        }
        bad = bad || z >= RES_HIST_NR || at + z >= RES_HIST_NR || (words > 1 && !z);
        at = bad ? 0 : at + z;
    });
    if (why.empty() && bad)
        why = "a histogram bucket out of range or repeated";
    if (why.empty() && words % 2)
        why = "not (bucket, count) pairs";
    return why;
}

} // namespace cli

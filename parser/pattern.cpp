// parser/pattern.cpp - fio's buffer_pattern / verify_pattern syntax: the bytes a buffer repeats.
//
// As fio 3.33's lib/pattern.c reads it, pieces follow one another with nothing
// between them: 0x hex of any length ("0xff0x14" is two pieces), a decimal
// number (its 32-bit value in as few little-endian bytes as hold it; "-12" is
// one piece of "-120xdeadface"), "double-quoted text", and 'a file name' whose
// first 512 bytes are the piece.  A '|' between pieces (ioplan's earlier
// separator) is still taken.  In verify_pattern, %o stands for 8 bytes that
// each block replaces with its offset (little-endian); buffer_pattern refuses
// it, as fio does.
#include "parser/values.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace parser {

namespace {

constexpr size_t max_pattern = 512; // fio's MAX_PATTERN_SIZE

bool is_hex_start(const std::string &s, size_t at)
{
    return at + 1 < s.size() && s[at] == '0' && (s[at + 1] == 'x' || s[at + 1] == 'X');
}

// 0x and its digits; a trailing "0x" begins the next piece, as fio reads "0xff0x14".
size_t append_hex(const std::string &s, size_t at, std::vector<uint8_t> &out)
{
    size_t end = at + 2;
    while (end < s.size() && std::isxdigit((unsigned char)s[end]))
        end++;
    if (end < s.size() && (s[end] == 'x' || s[end] == 'X') && s[end - 1] == '0' && end - 1 > at + 2)
        end--;
    std::string hex = s.substr(at + 2, end - at - 2);
    if (hex.empty())
        throw value_error("bad hex pattern '" + s.substr(at, end - at) + "'");
    if (hex.size() % 2)
        hex = "0" + hex;
    for (size_t i = 0; i < hex.size(); i += 2)
        out.push_back((uint8_t)std::strtoul(hex.substr(i, 2).c_str(), nullptr, 16));
    return end;
}

// fio takes a decimal pattern within int's range and stores its 32-bit value in
// as few little-endian bytes as hold it: 258 is 02 01, 0 is one 00, -1 is ff ff ff ff.
size_t append_decimal(const std::string &s, size_t at, std::vector<uint8_t> &out)
{
    size_t end = at + (s[at] == '-' || s[at] == '+');
    while (end < s.size() && std::isdigit((unsigned char)s[end]) && !is_hex_start(s, end))
        end++;
    std::string tok = s.substr(at, end - at);
    if (tok.empty() || !std::isdigit((unsigned char)tok.back()))
        throw value_error("bad pattern '" + s.substr(at) + "' (0x hex, a number, \"text\" or 'file')");
    int64_t v = parse_int(tok);
    if (v < INT32_MIN || v > INT32_MAX)
        throw value_error("decimal pattern " + tok + " is outside -2147483648..2147483647 (use 0x... for more bytes)");
    uint32_t u = (uint32_t)v;
    do {
        out.push_back((uint8_t)(u & 0xff));
        u >>= 8;
    } while (u);
    return end;
}

size_t closing(const std::string &s, size_t at, char q)
{
    size_t end = s.find(q, at + 1);
    if (end == std::string::npos)
        throw value_error(std::string("unterminated ") + q + " in pattern");
    return end;
}

void append_file(const std::string &name, std::vector<uint8_t> &out)
{
    std::ifstream f(name, std::ios::binary);
    if (!f)
        throw value_error("cannot read pattern file '" + name + "': " + std::strerror(errno));
    char buf[max_pattern];
    f.read(buf, sizeof(buf));
    if (f.gcount() <= 0)
        throw value_error("pattern file '" + name + "' is empty");
    out.insert(out.end(), buf, buf + f.gcount());
}

} // namespace

std::vector<uint8_t> parse_pattern(const std::string &s0)
{
    return parse_pattern(s0, nullptr);
}

std::vector<uint8_t> parse_pattern(const std::string &s0, std::vector<uint32_t> *offset_at)
{
    std::vector<uint8_t> out;
    const std::string s = trim(s0);
    for (size_t at = 0; at < s.size();) {
        char c = s[at];
        if (c == '|' || std::isspace((unsigned char)c)) {
            at++;
        } else if (c == '"') {
            size_t end = closing(s, at, '"');
            out.insert(out.end(), s.begin() + (long)at + 1, s.begin() + (long)end);
            at = end + 1;
        } else if (c == '\'') {
            size_t end = closing(s, at, '\'');
            append_file(s.substr(at + 1, end - at - 1), out);
            at = end + 1;
        } else if (c == '%') {
            if (s.compare(at, 2, "%o") || !offset_at)
                throw value_error("pattern format " + s.substr(at, 2) + " is not supported" +
                                  (offset_at ? " (verify_pattern knows %o)" : " in buffer_pattern (verify_pattern knows %o)"));
            offset_at->push_back((uint32_t)out.size());
            out.insert(out.end(), 8, 0);
            at += 2;
        } else if (is_hex_start(s, at)) {
            at = append_hex(s, at, out);
        } else {
            at = append_decimal(s, at, out);
        }
    }
    if (out.empty())
        throw value_error("empty pattern");
    if (out.size() > max_pattern)
        throw value_error("pattern of " + std::to_string(out.size()) + " bytes is longer than fio's 512");
    return out;
}

} // namespace parser

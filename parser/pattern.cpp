// parser/pattern.cpp - fio's buffer_pattern / verify_pattern syntax: 0x hex,
// "quoted text" and decimal numbers, joined, as the bytes a buffer repeats.
#include "parser/values.hpp"

#include <cctype>
#include <cstdlib>

namespace parser {

namespace {

void append_hex(const std::string &tok, std::vector<uint8_t> &out)
{
    std::string hex = tok.substr(2);
    if (hex.empty() || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        throw value_error("bad hex pattern '" + tok + "'");
    if (hex.size() % 2)
        hex = "0" + hex;
    for (size_t i = 0; i < hex.size(); i += 2)
        out.push_back((uint8_t)std::strtoul(hex.substr(i, 2).c_str(), nullptr, 16));
}

// fio takes a decimal pattern within int's range and stores its 32-bit value in
// as few little-endian bytes as hold it: 258 is 02 01, 0 is one 00, -1 is ff ff ff ff.
void append_decimal(const std::string &tok, std::vector<uint8_t> &out)
{
    int64_t v = parse_int(tok);
    if (v < INT32_MIN || v > INT32_MAX)
        throw value_error("decimal pattern " + tok + " is outside -2147483648..2147483647 (use 0x... for more bytes)");
    uint32_t u = (uint32_t)v;
    do {
        out.push_back((uint8_t)(u & 0xff));
        u >>= 8;
    } while (u);
}

} // namespace

std::vector<uint8_t> parse_pattern(const std::string &s0)
{
    std::vector<uint8_t> out;
    for (std::string tok : split(trim(s0), '|')) {
        tok = trim(tok);
        if (tok.size() >= 2 && (tok[0] == '"' || tok[0] == '\'') && tok.back() == tok[0]) {
            out.insert(out.end(), tok.begin() + 1, tok.end() - 1);
        } else if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
            append_hex(tok, out);
        } else {
            append_decimal(tok, out);
        }
    }
    if (out.empty())
        throw value_error("empty pattern");
    return out;
}

} // namespace parser

// parser/values_more.cpp - the rarer value forms: patterns, CPU lists, fio keywords.
#include "parser/values.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <unistd.h>

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

uint64_t parse_cpu_list(const std::string &s)
{
    uint64_t mask = 0;
    for (const std::string &item : split(s, ',')) {
        size_t dash = item.find('-');
        int64_t lo = parse_int(item.substr(0, dash));
        int64_t hi = dash == std::string::npos ? lo : parse_int(item.substr(dash + 1));
        if (lo < 0 || hi < lo || hi > 63)
            throw value_error("CPU range '" + item + "' is not within 0..63");
        for (int64_t c = lo; c <= hi; c++)
            mask |= 1ull << c;
    }
    return mask;
}

namespace {

// A tiny + - * / evaluator over integers (left to right with * / binding
// tighter), enough for fio's `bs=$pagesize*2`, `size=$mb_memory/100`.
struct calc {
    const std::string &s;
    size_t i = 0;

    int64_t number()
    {
        size_t start = i;
        while (i < s.size() && std::isdigit((unsigned char)s[i]))
            i++;
        if (start == i)
            throw value_error("bad arithmetic in '" + s + "'", i);
        errno = 0;
        int64_t v = std::strtoll(s.substr(start, i - start).c_str(), nullptr, 10);
        if (errno == ERANGE)
            overflow();
        return v;
    }
    // fio hands this to bc, which has no limit; a plan field has 64 bits, so a
    // result that does not fit is an error rather than a wrapped number.
    [[noreturn]] void overflow() const
    {
        throw value_error("'" + s + "' does not fit in a 64-bit integer");
    }
    int64_t apply(char op, int64_t v, int64_t r) const
    {
        int64_t out = 0;
        bool over = op == '*'   ? __builtin_mul_overflow(v, r, &out)
                    : op == '+' ? __builtin_add_overflow(v, r, &out)
                    : op == '-' ? __builtin_sub_overflow(v, r, &out)
                                : (out = v / r, false);
        if (over)
            overflow();
        return out;
    }
    int64_t term()
    {
        int64_t v = number();
        while (i < s.size() && (s[i] == '*' || s[i] == '/')) {
            char op = s[i++];
            int64_t r = number();
            if (op == '/' && r == 0)
                throw value_error("division by zero in '" + s + "'");
            v = apply(op, v, r);
        }
        return v;
    }
    int64_t expr()
    {
        int64_t v = term();
        while (i < s.size() && (s[i] == '+' || s[i] == '-')) {
            char op = s[i++];
            v = apply(op, v, term());
        }
        if (i != s.size())
            throw value_error("bad arithmetic in '" + s + "'", i);
        return v;
    }
};

bool replace_all(std::string &s, const std::string &from, const std::string &to)
{
    bool any = false;
    for (size_t p; (p = s.find(from)) != std::string::npos; any = true)
        s.replace(p, from.size(), to);
    return any;
}

} // namespace

std::string expand_keywords(const std::string &s0)
{
    // Every option value passes here: ask the system only when a keyword is there.
    if (s0.find('$') == std::string::npos)
        return s0;
    std::string s = s0;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    bool any = replace_all(s, "$pagesize", std::to_string(page));
    any |= replace_all(s, "$mb_memory", std::to_string((int64_t)pages * page / (1024 * 1024)));
    any |= replace_all(s, "$ncpus", std::to_string(sysconf(_SC_NPROCESSORS_ONLN)));
    if (!any || s.find_first_of("+-*/") == std::string::npos)
        return s;
    std::string compact;
    for (char c : s)
        if (c != ' ')
            compact += c;
    return std::to_string(calc{compact}.expr());
}

} // namespace parser

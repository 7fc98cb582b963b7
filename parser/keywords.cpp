// parser/keywords.cpp - fio's $pagesize, $mb_memory and $ncpus in option
// values, with the arithmetic fio hands to bc when one is used, and fio's own
// calculator for a value that starts with '('.
#include "parser/values.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <unistd.h>

namespace parser {

namespace {

// A small integer evaluator: + - * / % and parentheses, * / % binding tighter,
// left to right (bc's integer arithmetic): `bs=$pagesize*2`, `size=$mb_memory/100`,
// `iodepth=(8*4)`.
struct calc {
    const std::string &s;
    size_t i = 0;

    int64_t number()
    {
        if (i < s.size() && s[i] == '(') {
            i++;
            int64_t v = sum();
            if (i >= s.size() || s[i] != ')')
                throw value_error("missing ')' in '" + s + "'", i);
            i++;
            return v;
        }
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
                    : op == '%' ? (out = v % r, false)
                                : (out = v / r, false);
        if (over)
            overflow();
        return out;
    }
    int64_t term()
    {
        int64_t v = number();
        while (i < s.size() && (s[i] == '*' || s[i] == '/' || s[i] == '%')) {
            char op = s[i++];
            int64_t r = number();
            if (op != '*' && r == 0)
                throw value_error("division by zero in '" + s + "'");
            v = apply(op, v, r);
        }
        return v;
    }
    int64_t sum()
    {
        int64_t v = term();
        while (i < s.size() && (s[i] == '+' || s[i] == '-')) {
            char op = s[i++];
            v = apply(op, v, term());
        }
        return v;
    }
    int64_t expr()
    {
        int64_t v = sum();
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

std::string evaluate(const std::string &s)
{
    std::string compact;
    for (char c : s)
        if (c != ' ')
            compact += c;
    return std::to_string(calc{compact}.expr());
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
    any |= replace_all(s, "$ncpus", std::to_string(sysconf(_SC_NPROCESSORS_CONF))); // fio: cpus_configured()
    if (!any || s.find_first_of("+-*/") == std::string::npos)
        return s;
    return evaluate(s);
}

std::string evaluate_parenthesized(const std::string &s)
{
    std::string t = trim(s);
    return t.empty() || t[0] != '(' ? s : evaluate(t);
}

} // namespace parser

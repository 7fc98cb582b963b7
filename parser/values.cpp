// parser/values.cpp - parsing of fio's value syntax: numbers, sizes, times,
// read,write,trim lists, ranges, bssplit and CPU lists (see values.hpp for the
// rules).  Buffer patterns are in pattern.cpp, $keywords in keywords.cpp.
#include "parser/values.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace parser {

std::string trim(const std::string &s)
{
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t p = s.find(sep, start);
        out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos)
            return out;
        start = p + 1;
    }
}

namespace {

std::string lower(std::string s)
{
    for (auto &c : s)
        c = (char)std::tolower((unsigned char)c);
    return s;
}

// A value's leading number: as a double, and exactly when it is an integer
// (a double keeps 53 bits, so 9007199254740993 would silently lose its last byte).
struct number {
    double v = 0;
    bool integral = false;
    uint64_t n = 0;
};

// Leading number (decimal, fraction, or 0x hex) and the suffix after it.
number leading_number(const std::string &s, std::string *suffix)
{
    if (s.empty())
        throw value_error("empty value");
    const char *p = s.c_str();
    if (*p == '-')
        throw value_error("negative value '" + s + "'");
    if (*p == '+') // fio's strtoll takes a sign: size=+512k is 512k
        p++;
    char *end = nullptr;
    errno = 0;
    number num;
    bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && std::isxdigit((unsigned char)p[2]);
    if (hex) {
        num.v = (double)std::strtoull(p, &end, 16);
    } else {
        // Digits and one fraction point only: strtod would also read "inf", "nan" and
        // exponents, and fio reads 1e6 as 1 followed by a suffix.
        const char *q = p;
        while (std::isdigit((unsigned char)*q))
            q++;
        if (*q == '.' && std::isdigit((unsigned char)q[1]))
            for (q++; std::isdigit((unsigned char)*q);)
                q++;
        std::string digits(p, q);
        num.v = digits.empty() ? 0 : std::strtod(digits.c_str(), nullptr);
        end = const_cast<char *>(q);
    }
    if (end != p && errno == ERANGE)
        throw value_error("'" + s + "' is out of range");
    if (end == p || !std::isfinite(num.v))
        throw value_error("'" + s + "' is not a number");
    num.integral = hex || std::all_of(p, (const char *)end, [](char c) { return c >= '0' && c <= '9'; });
    if (num.integral) {
        errno = 0;
        num.n = std::strtoull(p, nullptr, hex ? 16 : 10);
        if (errno == ERANGE)
            throw value_error("'" + s + "' is out of range");
    }
    *suffix = end;
    return num;
}

// num * mult, exact for integers; false when it is `limit` or more.
bool scale(const number &num, uint64_t mult, uint64_t limit, uint64_t *out)
{
    if (num.integral)
        return !__builtin_mul_overflow(num.n, mult, out) && *out < limit;
    double d = std::round(num.v * (double)mult);
    if (!(d < (double)limit))
        return false;
    *out = (uint64_t)d;
    return true;
}

uint64_t pow_u64(uint64_t base, int n)
{
    uint64_t r = 1;
    while (n-- > 0)
        r *= base;
    return r;
}

// Power of the size unit letter (k=1 ... p=5), or -1.
int size_power(char c)
{
    const char *units = "kmgtp";
    const char *p = std::strchr(units, std::tolower((unsigned char)c));
    return (c && p) ? (int)(p - units) + 1 : -1;
}

uint64_t size_multiplier(const std::string &suffix_raw, unsigned kb_base, const std::string &whole)
{
    std::string suf = lower(suffix_raw);
    if (suf.empty() || suf == "b")
        return 1;
    // fio reads a size up to its first character that is neither digit nor letter
    // and ignores the rest ("65536)" from t/strided.py, "512/25" in a bsrange):
    // clients rely on it, so text after the number or its unit letter is dropped.
    if (!std::isalpha((unsigned char)suf[0]) && suf[0] != '%') {
        note_ignored(suffix_raw);
        return 1;
    }
    if (suf.size() > 1 && !std::isalnum((unsigned char)suf[1]) && suf[1] != '%') {
        note_ignored(suffix_raw.substr(1));
        suf.resize(1);
    }
    int pw = size_power(suf[0]);
    std::string rest = suf.substr(1);
    if (pw > 0 && (rest.empty() || rest == "b" || rest == "i"))
        return pow_u64(kb_base, pw);
    if (pw > 0 && rest == "ib")
        return pow_u64(1024, pw); // IEC means IEC, whatever kb_base says
    throw value_error("bad size suffix '" + suffix_raw + "' in '" + whole +
                      "' (use k, m, g, t, p, their KiB/MiB forms, or b)",
                      whole.size() - suffix_raw.size());
}

} // namespace

int64_t parse_int(const std::string &s0)
{
    std::string s = trim(s0);
    if (s.empty())
        throw value_error("empty value");
    char *end = nullptr;
    errno = 0;
    bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    long long v = std::strtoll(s.c_str(), &end, hex ? 16 : 10);
    if (end == s.c_str() || *end != '\0')
        throw value_error("'" + s + "' is not an integer");
    if (errno == ERANGE)
        throw value_error("'" + s + "' is out of range");
    return v;
}

double parse_float(const std::string &s0)
{
    std::string s = trim(s0);
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
        throw value_error("'" + s + "' is not a number");
    return v;
}

namespace {
// The scope apply_entry opens around one value; parsing defaults opens none.
thread_local ignored_text *ignored_scope = nullptr;
} // namespace

ignored_text::ignored_text() : outer_(ignored_scope) { ignored_scope = this; }
ignored_text::~ignored_text() { ignored_scope = outer_; }

void note_ignored(const std::string &text)
{
    if (ignored_scope && !text.empty())
        ignored_scope->texts.push_back(text);
}

void note_reading(const std::string &how)
{
    // A value read once per direction (bs=4KiB) says each reading once.
    if (ignored_scope && std::find(ignored_scope->readings.begin(), ignored_scope->readings.end(), how) ==
                             ignored_scope->readings.end())
        ignored_scope->readings.push_back(how);
}

int64_t parse_int_lenient(const std::string &s0)
{
    std::string s = trim(s0);
    if (s.empty())
        throw value_error("empty value");
    bool hex = s.find("0x") != std::string::npos || s.find("0X") != std::string::npos;
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, hex ? 16 : 10);
    if (end == s.c_str())
        throw value_error("'" + s + "' is not an integer");
    if (errno == ERANGE)
        throw value_error("'" + s + "' is out of range");
    if (*end == '\0')
        return v;
    if (std::isalpha((unsigned char)*end) || *end == '%') {
        uint64_t n = parse_size(s, 1024);
        if (n > (uint64_t)INT64_MAX)
            throw value_error("'" + s + "' is out of range");
        return (int64_t)n;
    }
    note_ignored(end);
    return v;
}

int64_t parse_bool_number(const std::string &s0)
{
    std::string s = lower(trim(s0));
    if (s == "true" || s == "yes" || s == "on")
        return 1;
    if (s == "false" || s == "no" || s == "off")
        return 0;
    bool hex = s.find("0x") != std::string::npos;
    char *end = nullptr;
    unsigned long v = std::strtoul(s.c_str(), &end, hex ? 16 : 10);
    if (end == s.c_str())
        throw value_error("'" + trim(s0) + "' is not a boolean (use 0 or 1)");
    note_ignored(end);
    return (int32_t)(uint32_t)v; // %u into an int, as fio's check_int
}

bool parse_bool(const std::string &s)
{
    int64_t v = parse_bool_number(s);
    if (v > 1)
        throw value_error("'" + trim(s) + "' is not a boolean (use 0 or 1)");
    return v != 0;
}

namespace {
// fio's compatibility mode (kb_base=1024, its default) swaps the IEC units: it reads
// 4KiB as 4000 bytes, 1GiB as 10^9.  ioplan reads them as written (see ioplan-job(5),
// Suffixes), so a job file using them moves other amounts than under fio: say so
// with fio's figure, and how to write it so that both read the same.
void note_iec_reading(const std::string &s, const std::string &suffix, const number &num, unsigned kb_base)
{
    std::string suf = lower(suffix);
    int pw = suf.size() == 3 && suf.compare(1, 2, "ib") == 0 ? size_power(suf[0]) : -1;
    uint64_t fio_bytes;
    // A fraction stops fio's reading before the unit: check_fraction refuses it.
    if (kb_base != 1024 || pw < 0 || !num.integral || !scale(num, pow_u64(1000, pw), UINT64_MAX, &fio_bytes))
        return;
    note_reading("fio 3.33 reads '" + s + "' as " + std::to_string(fio_bytes) + " bytes (under kb_base=1024, its " +
                 "default, fio's " + suffix + " is a power of 1000); ioplan reads a power of 1024: write '" +
                 s.substr(0, s.size() - suffix.size()) + suffix.substr(0, 1) +
                 "', or set kb_base=1000, for a value both read alike");
}
// fio 3.33 reads a size's digits up to a '.' and takes no unit after it: size=1.5g
// is 1 byte there, 8192.5 is 8192.  Where that is not what ioplan reads (1.5 GiB,
// 8193 rounded) the value is refused, with fio's figure and the value both read
// alike: ioplan once ran it as written, a job fio runs with 1-byte blocks.
void check_fraction(const std::string &s, const number &num, uint64_t bytes)
{
    uint64_t fio_bytes = (uint64_t)num.v;
    if (num.integral || fio_bytes == bytes)
        return;
    throw value_error("'" + s + "' is " + std::to_string(fio_bytes) + " byte" + (fio_bytes == 1 ? "" : "s") +
                          " to fio 3.33 (it stops at the '.' and takes no unit after it), " +
                          std::to_string(bytes) + " as written: write '" + std::to_string(bytes) +
                          "', which both read alike",
                      s.find('.'));
}
} // namespace

uint64_t parse_size(const std::string &s0, unsigned kb_base)
{
    std::string s = trim(s0), suffix;
    number num = leading_number(s, &suffix);
    uint64_t bytes;
    if (!scale(num, size_multiplier(suffix, kb_base, s), UINT64_MAX, &bytes))
        throw value_error("'" + s + "' is too large");
    note_iec_reading(s, suffix, num, kb_base);
    check_fraction(s, num, bytes);
    return bytes;
}

namespace {
// fio 3.33 (parse.c's str_to_decimal and get_mult_bytes) reads a percentage only
// where a sign and decimal digits stand just before the '%'.  Anything else there
// is read as a number of bytes: '50.5%' is 50 ('.' stops the digits and no '%'
// is looked for past it), '50 %' is 50, '1e2%' is 1, and a value holding 0x is
// read in hex ('0x10%' is 16).  Refused, with fio's reading, as check_fraction
// refuses '1.5k': ioplan read them as percentages, another job than fio's.
void check_fio_percent(const std::string &s, size_t pct)
{
    size_t digits = s[0] == '+' || s[0] == '-' ? 1 : 0;
    bool hex = s.find("0x") != std::string::npos || s.find("0X") != std::string::npos;
    if (!hex && pct > digits && s.find_first_not_of("0123456789", digits) == pct)
        return;
    char *end = nullptr;
    long long fio = std::strtoll(s.c_str(), &end, hex ? 16 : 10);
    std::string reading = end == s.c_str() || std::isalpha((unsigned char)*end)
                              ? "no percentage to fio 3.33"
                              : std::to_string(fio) + " byte" + (fio == 1 ? "" : "s") + " to fio 3.33";
    throw value_error("'" + s + "' is " + reading + ", which reads a percentage only as a whole number of " +
                          "digits just before the '%'; write one (1% to 100%), which both read alike",
                      end == s.c_str() ? 0 : (size_t)(end - s.c_str()));
}
} // namespace

bool parse_percent_ppm(const std::string &s0, uint32_t *ppm, unsigned rules)
{
    std::string s = trim(s0);
    size_t pct = s.find('%');
    if (pct == std::string::npos)
        return false;
    check_fio_percent(s, pct);
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == ERANGE)
        throw value_error("'" + s + "' is out of range");
    note_ignored(s.substr(pct + 1));
    s = s.substr(0, pct + 1);
    if (v == 0 && (rules & PCT_ZERO_IS_NONE)) {
        *ppm = 0;
        return true;
    }
    // fio 3.33 reads N% past 100 as a size of 2^64-1-N bytes: size=150% lays out
    // an existing file by cutting it to 0 bytes, then fails (err=22).
    if (v > 100 && (rules & PCT_SIZE))
        throw value_error("percentage '" + s + "' is past 100%, which fio 3.33 reads as a size of " +
                          std::to_string(~0ull - (unsigned long long)v) + " bytes (2^64-1-" + std::to_string(v) +
                          "): laying out an existing file, it cuts the file to 0 bytes and fails; give 1% to 100%");
    if (v <= 0 || v > 100)
        throw value_error("percentage '" + s + "' must be above 0% and at most 100%");
    *ppm = (uint32_t)v * 10000u;
    return true;
}

namespace {

// The nanoseconds of a time unit's word (lower case), 0 for none ioplan knows.
uint64_t unit_ns(const std::string &word)
{
    static const struct { const char *name; uint64_t ns; } table[] = {
        {"ns", 1}, {"nsec", 1}, {"us", 1000}, {"usec", 1000}, {"usecs", 1000}, {"ms", 1000000},
        {"msec", 1000000}, {"msecs", 1000000}, {"s", 1000000000ull}, {"sec", 1000000000ull},
        {"secs", 1000000000ull}, {"m", 60000000000ull}, {"min", 60000000000ull},
        {"mins", 60000000000ull}, {"h", 3600000000000ull}, {"d", 86400000000000ull},
    };
    for (const auto &t : table)
        if (word == t.name)
            return t.ns;
    return 0;
}

// The letters that start a suffix: its unit's word.
size_t word_length(const std::string &suffix)
{
    size_t n = 0;
    while (n < suffix.size() && std::isalpha((unsigned char)suffix[n]))
        n++;
    return n;
}

uint64_t time_multiplier_ns(const std::string &suffix_raw, time_unit base, const std::string &whole)
{
    static const uint64_t base_ns[] = {1, 1000, 1000000, 1000000000};
    size_t letters = word_length(suffix_raw);
    std::string suf = lower(suffix_raw.substr(0, letters));
    if (suf.empty())
        return base_ns[(int)base];
    if (uint64_t ns = unit_ns(suf))
        return ns;
    throw value_error("bad time suffix '" + suffix_raw + "' in '" + whole +
                      "' (use ns, us, ms, s, m, h or d)",
                      whole.size() - suffix_raw.size());
}

// The rest of a time value after its first unit ("30s" of 1m30s) as more
// whole numbers with units, in nanoseconds; false unless it is all that.
bool more_time_parts(const std::string &rest, uint64_t *ns)
{
    *ns = 0;
    size_t i = 0;
    while (i < rest.size()) {
        size_t d = i;
        while (d < rest.size() && std::isdigit((unsigned char)rest[d]))
            d++;
        size_t w = d + word_length(rest.substr(d));
        uint64_t unit = unit_ns(lower(rest.substr(d, w - d)));
        uint64_t part;
        if (d == i || !unit || d - i > 18 || __builtin_mul_overflow(std::stoull(rest.substr(i, d - i)), unit, &part) ||
            __builtin_add_overflow(*ns, part, ns))
            return false;
        i = w;
    }
    return true;
}

// The value in the largest unit fio reads alike that keeps it whole ("90s"),
// "" for one in nanoseconds, which fio has no unit for.
std::string fio_spelling(uint64_t ns)
{
    if (ns % 1000ull)
        return "";
    if (ns % 1000000000ull == 0)
        return std::to_string(ns / 1000000000ull) + "s";
    if (ns % 1000000ull == 0)
        return std::to_string(ns / 1000000ull) + "ms";
    return std::to_string(ns / 1000ull) + "us";
}

} // namespace

namespace {
// fio 3.33's time suffixes are us and ms (and what starts so), s, m, h and d; it
// takes any other word for microseconds, so runtime=60sec (found in real job
// files) runs 60 us under fio.  ioplan reads sec, min and ns as they say: say so
// with fio's figure, and how to write the value so that both read it alike.
void note_time_reading(const std::string &s, const std::string &suffix)
{
    static const struct { const char *name, *unit, *alike; } words[] = {
        {"sec", "seconds", "s"}, {"secs", "seconds", "s"}, {"min", "minutes", "m"},
        {"mins", "minutes", "m"}, {"ns", "nanoseconds", nullptr}, {"nsec", "nanoseconds", nullptr},
    };
    std::string suf = lower(suffix);
    for (const auto &w : words) {
        if (suf != w.name)
            continue;
        std::string digits = s.substr(0, s.size() - suffix.size());
        note_reading("fio 3.33 reads '" + s + "' as " + digits + " microseconds (its time suffixes are us, ms, s, m, "
                     "h and d, and it takes any other word for microseconds); ioplan reads " + w.unit +
                     (w.alike ? ": write '" + digits + w.alike + "' for a value both read alike"
                              : ", which fio has no suffix for"));
        return;
    }
}
} // namespace

namespace {
// fio 3.33 compares the whole text after the number with s, m, h and d (us and
// ms only as prefixes), so a unit with more after it (runtime=1m30s, 10s5) is
// no unit to fio: it reads microseconds.  ioplan adds up more parts with units
// (1m30s is 90 s) and ignores other text; the report says fio's figure.
void note_text_after_unit(const std::string &s, const std::string &suffix, uint64_t ns, bool summed)
{
    size_t letters = word_length(suffix);
    std::string word = lower(suffix.substr(0, letters)), rest = suffix.substr(letters);
    if (rest.empty())
        return;
    if (word.empty() || word.rfind("us", 0) == 0 || word.rfind("ms", 0) == 0) {
        note_ignored(rest);  // fio stops there too
        return;
    }
    std::string digits = s.substr(0, s.size() - suffix.size());
    std::string fio = "fio 3.33 reads '" + s + "' as " + digits + (digits == "1" ? " microsecond" : " microseconds") +
                      " (a time suffix with more text after it is none to fio, which then reads microseconds); ";
    std::string alike = fio_spelling(ns);
    std::string write = alike.empty() ? ", which fio has no suffix for" : ": write '" + alike + "' for a value both read alike";
    if (summed)
        note_reading(fio + "ioplan reads " + (alike.empty() ? std::to_string(ns) + "ns" : alike) + write);
    else
        note_reading(fio + "ioplan reads '" + digits + suffix.substr(0, letters) + "' and ignores '" + rest + "'" +
                     write);
}
} // namespace

uint64_t parse_time_ns(const std::string &s0, time_unit base)
{
    std::string s = trim(s0), suffix;
    number num = leading_number(s, &suffix);
    uint64_t ns, more = 0;
    if (!scale(num, time_multiplier_ns(suffix, base, s), (uint64_t)INT64_MAX, &ns))
        throw value_error("'" + s + "' is too long");
    std::string rest = suffix.substr(word_length(suffix));
    bool summed = word_length(suffix) && !rest.empty() && more_time_parts(rest, &more);
    if (summed && (__builtin_add_overflow(ns, more, &ns) || ns >= (uint64_t)INT64_MAX))
        throw value_error("'" + s + "' is too long");
    note_time_reading(s, suffix);
    note_text_after_unit(s, suffix, ns, summed);
    return ns;
}

std::array<std::string, 3> split_ddir_list(const std::string &s)
{
    std::vector<std::string> parts = split(s, ',');
    if (parts.size() > 3)
        throw value_error("at most three values (read,write,trim) in '" + s + "'");
    std::array<std::string, 3> out;
    for (size_t i = 0; i < parts.size(); i++)
        out[i] = trim(parts[i]);
    // A last value not followed by a comma also fills the remaining slots.
    for (size_t i = parts.size(); i < 3; i++)
        out[i] = out[parts.size() - 1];
    return out;
}

std::pair<uint64_t, uint64_t> parse_size_range(const std::string &s, unsigned kb_base)
{
    size_t p = s.find_first_of("-:");
    if (p == std::string::npos) {
        uint64_t v = parse_size(s, kb_base);
        return {v, v};
    }
    uint64_t lo = parse_size(s.substr(0, p), kb_base);
    uint64_t hi = parse_size(s.substr(p + 1), kb_base);
    if (lo > hi)
        std::swap(lo, hi);
    return {lo, hi};
}

namespace {

// A bssplit share as fio reads it (atoi into an unsigned 64-bit number): 0 or
// none is "not given" (false), anything above 100 -- a negative number or one
// that overflows an int too -- is 100.
bool bssplit_pct(const std::string &text, uint32_t *pct)
{
    int v = (int)std::strtol(text.c_str(), nullptr, 10);
    if (!v)
        return false;
    uint64_t p = (uint64_t)(int64_t)v;
    *pct = p > 100 ? 100 : (uint32_t)p;
    return true;
}

} // namespace

// fio's split_parse_ddir and bssplit_ddir: entries up to the first empty one,
// a block size of 0 kept (the planner takes bs= for the minimum then), the
// rest of 100% divided evenly, rounded down, among the entries without a share.
std::vector<bssplit_entry> parse_bssplit_dir(const std::string &s, unsigned kb_base)
{
    std::vector<bssplit_entry> out;
    std::vector<bool> given;
    uint32_t total = 0, blanks = 0;
    for (const std::string &item : split(s, ':')) {
        if (item.empty())
            break;
        size_t slash = item.find('/');
        bssplit_entry e{parse_size(item.substr(0, slash), kb_base), 0};
        bool has = slash != std::string::npos && bssplit_pct(item.substr(slash + 1), &e.pct);
        total += e.pct;
        blanks += !has;
        out.push_back(e);
        given.push_back(has);
    }
    if (total > 100 && blanks > 1)
        throw value_error("bssplit percentages add up to " + std::to_string(total) + " (more than 100)");
    if (blanks == 1 && out.size() == 1)
        total = 100;
    for (size_t i = 0; i < out.size(); i++)
        if (!given[i])
            out[i].pct = (100u - total) / blanks; // unsigned, as fio's: past 100 it wraps
    return out;
}

// Each "lo-hi" or "n" of a comma list, within 0..max ("CPU" or "node" names the kind).
template <typename F> static void for_each_id(const std::string &s, int64_t max, const char *kind, F add)
{
    for (const std::string &item : split(s, ',')) {
        size_t dash = item.find('-');
        int64_t lo = parse_int(item.substr(0, dash));
        int64_t hi = dash == std::string::npos ? lo : parse_int(item.substr(dash + 1));
        if (lo < 0 || hi < lo || hi > max)
            throw value_error(std::string(kind) + " range '" + item + "' is not within 0.." + std::to_string(max));
        for (int64_t c = lo; c <= hi; c++)
            add(c);
    }
}

// fio reads a CPU list's numbers with atoi, so cpus_allowed=0x3 (a mask's
// spelling, cpumask='s) pins to CPU 0, and read as hex it would name CPUs 3:
// neither is what its writer meant.
static void refuse_mask_spelling(const std::string &s)
{
    for (const std::string &item : split(s, ','))
        for (const std::string &end : split(item, '-'))
            if (end.size() > 1 && end[0] == '0' && (end[1] == 'x' || end[1] == 'X'))
                throw value_error("'" + end + "' is a mask's spelling, and a CPU list takes CPU numbers (fio 3.33 "
                                  "reads it as CPU 0): write cpumask=" + end + " for a mask, or the CPUs' numbers");
}

plan_cpus parse_cpu_list(const std::string &s)
{
    plan_cpus set{};
    refuse_mask_spelling(s);
    for_each_id(s, PLAN_CPUS_MAX - 1, "CPU", [&set](int64_t c) { set.word[c / 64] |= 1ull << (c % 64); });
    return set;
}

uint64_t parse_node_list(const std::string &s)
{
    uint64_t mask = 0;
    for_each_id(s, 63, "node", [&mask](int64_t n) { mask |= 1ull << n; });
    return mask;
}

// fio replaces the keywords in the text it parses, so its "job options" and
// --showcmd show the value it ran with.
std::string shown_value(const std::string &v)
{
    try {
        return expand_keywords(v);
    } catch (const value_error &) {
        return v; // a value its option refuses is reported where the job is planned
    }
}

} // namespace parser

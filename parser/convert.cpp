// parser/convert.cpp - an option's value text to the number, size, time or
// choice value it means, checked against the option's range and choices.
#include "parser/convert.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <strings.h>

namespace parser {

namespace {

std::string range_text(const option &o)
{
    auto num = [](double d) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.15g", d);
        return std::string(buf);
    };
    return num(o.min) + ".." + num(o.max);
}

void check_range(const option &o, double v, const std::string &text)
{
    if (o.min <= o.max && (v < o.min || v > o.max))
        throw value_error(std::string(o.name) + "=" + text + " is out of range (" + range_text(o) +
                          (o.unit && *o.unit ? std::string(" ") + o.unit : "") + ")");
}

time_unit unit_of(const option &o)
{
    if (!std::strcmp(o.unit, "us"))
        return time_unit::us;
    if (!std::strcmp(o.unit, "ms"))
        return time_unit::ms;
    if (!std::strcmp(o.unit, "ns"))
        return time_unit::ns;
    return time_unit::s;
}

} // namespace

// fio reads its integer options as sizes (parse.c: FIO_OPT_INT goes through
// str_to_decimal), so "iodepth=1k" is 1024, t0009's "verify_backlog=1m" is
// 1048576 and "rwmixread=70.0" is 70.
int64_t int_in(const option &o, const std::string &v)
{
    // fio 3.33 takes rwmixread=70% and runs 100% reads: the number is a percentage already.
    std::string t = trim(v);
    if (o.unit && std::strcmp(o.unit, "%") == 0 && !t.empty() && t.back() == '%')
        throw value_error("'" + t + "': " + o.name + " is a percentage, written without '%' (" + o.name + "=" +
                              trim(t.substr(0, t.size() - 1)) + ")",
                          t.size() - 1);
    int64_t n = parse_int_lenient(v);
    check_range(o, (double)n, trim(v));
    return n;
}

// fio's FIO_OPT_BOOL takes 0 or 1; its FIO_OPT_STR_SET (ioplan's flag) any
// number, non-zero meaning set (time_based=10).
bool flag_value(const option &o, const std::string &v)
{
    if (trim(v).empty())
        return true;
    if (o.type == opt_type::boolean)
        return parse_bool(v);
    return parse_bool_number(v) != 0;
}

uint64_t size_in(const job_spec &j, const option &o, const std::string &v)
{
    uint64_t n = parse_size(v, j.kb_base);
    check_range(o, (double)n, trim(v));
    return n;
}

uint64_t time_in(const option &o, const std::string &v)
{
    uint64_t ns = parse_time_ns(v, unit_of(o));
    static const double per_unit[] = {1, 1e3, 1e6, 1e9};
    check_range(o, (double)ns / per_unit[(int)unit_of(o)], trim(v));
    return ns;
}

long long choice_of(const option &o, const std::string &v0)
{
    std::string v = trim(v0), names;
    for (size_t i = 0; i < o.choices.size(); i++) {
        if (!strcasecmp(o.choices[i].name, v.c_str()))
            return o.choices[i].value;
        names += (i ? ", " : "") + std::string(o.choices[i].name);
    }
    throw value_error("'" + v + "' is not a valid " + o.name + " (one of: " + names + ")");
}

void size_or_pct(const job_spec &j, const option &o, const std::string &v, uint64_t *bytes, uint32_t *ppm,
                 unsigned rules)
{
    uint32_t p = 0;
    if (parse_percent_ppm(v, &p, rules)) {
        *bytes = 0;
        *ppm = p;
        return;
    }
    *bytes = size_in(j, o, v);
    *ppm = 0;
}

// fio's zone count (parse.c, FIO_OPT_STR_VAL_ZONE): digits then 'z', which ends the value.
static bool zones_of(const std::string &v0, uint32_t *n)
{
    std::string v = trim(v0);
    size_t digits = v.find_first_not_of("0123456789");
    if (!digits || digits == std::string::npos || v.back() != 'z' || v[digits] != 'z')
        return false;
    unsigned long long count = std::strtoull(v.c_str(), nullptr, 10);
    *n = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
    return true;
}

void size_pct_or_zones(job_spec &j, const option &o, const std::string &v, int which, uint64_t *bytes,
                       uint32_t *ppm, unsigned rules)
{
    uint32_t n = 0;
    j.in_zones[which] = 0;
    if (zones_of(v, &n)) {
        *bytes = 0;
        if (ppm)
            *ppm = 0;
        j.in_zones[which] = n;
    } else if (ppm) {
        size_or_pct(j, o, v, bytes, ppm, rules);
    } else {
        *bytes = size_in(j, o, v);
    }
}

void for_each_ddir(const option &o, const std::string &v0,
                   const std::function<void(int, const std::string &)> &set)
{
    std::string v = trim(v0);
    // fio splits at ':' when there is no comma, and at '-' when there is neither
    // (parse.c's parse_option): bs=4k-16k is 4k for reads and 16k for writes and
    // trims, not a range, which a note says.
    char sep = v.find(',') != std::string::npos ? ',' : v.find(':') != std::string::npos ? ':'
                                                       : v.find('-', 1) != std::string::npos ? '-' : ',';
    if (sep != ',' && o.type != opt_type::bssplit && o.type != opt_type::size_range_ddir)
        for (size_t i = 1; i < v.size(); i++)
            if (v[i] == sep)
                v[i] = ',';
    auto slots = split_ddir_list(v);
    // fio's parse_option fails a list whose every part is empty (rate_iops=, or
    // bs=,, from a template whose variables were unset); bssplit parses its own.
    if (o.type != opt_type::bssplit && slots[0].empty() && slots[1].empty() && slots[2].empty())
        throw value_error("'" + v0 + "' gives no value for any direction (fio 3.33 refuses it too)");
    if (sep == '-' && o.type != opt_type::bssplit && o.type != opt_type::size_range_ddir)
        note_reading("fio reads '-' here as a comma between directions: " + slots[0] + " for reads, " + slots[1] +
                     " for writes, " + slots[2] + " for trims, not a range" +
                     (std::string(o.name) == "bs" ? " (a range is bsrange=" + v0 + ")" : ""));
    for (int d = 0; d < 3; d++)
        if (!slots[d].empty())
            set(d, slots[d]);
}

std::vector<std::string> path_list(const std::string &v)
{
    std::vector<std::string> out(1);
    for (size_t i = 0; i < v.size(); i++) {
        if (v[i] == '\\' && i + 1 < v.size() && v[i + 1] == ':')
            out.back() += v[++i];
        else if (v[i] == ':')
            out.emplace_back();
        else
            out.back() += v[i];
    }
    for (auto &p : out) {
        p = trim(p);
        if (p.empty())
            throw value_error("empty path in '" + v + "'");
    }
    return out;
}

} // namespace parser

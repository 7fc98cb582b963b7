// parser/cmdprio.cpp - fio 3.33's cmdprio_bssplit syntax (its options.c
// split_parse_prio_ddir and parse_cmdprio_bssplit_entry), checked at parse time.
//
// fio finds a bad entry only when the engine starts ("invalid cmdprio_bssplit
// format") and quietly clamps a percentage above 100 or a class above 3; here
// every such value is an error that points into the value.  Entries of 0 % are
// dropped as fio drops them; the rest are sorted by block size (stable, so the
// entries of one size keep their order, which decides their random ranges).
#include "parser/cmdprio.hpp"

#include <algorithm>
#include <vector>

#include "parser/convert.hpp"
#include "parser/values.hpp"

namespace parser {

namespace {

constexpr int64_t MAX_CLASS = 3, MAX_LEVEL = 7;

int64_t number_at(const std::string &text, size_t at, const char *what, int64_t max)
{
    std::string t = trim(text);
    int64_t n;
    try {
        n = parse_int(t);
    } catch (const value_error &e) {
        throw value_error(std::string("cmdprio_bssplit: ") + what + " '" + t + "' is not a number", at);
    }
    if (n < 0 || n > max)
        throw value_error(std::string("cmdprio_bssplit: ") + what + " " + t + " is not within 0.." +
                              std::to_string(max),
                          at);
    return n;
}

// One entry: bs/, bs/percent or bs/percent/class/level (fio: three fields are an error).
plan_cmdprio_split parse_entry(const job_spec &j, const std::string &item, size_t at)
{
    std::vector<std::string> f = split(item, '/');
    if (f.size() == 3 || f.size() > 4)
        throw value_error("cmdprio_bssplit: '" + trim(item) +
                              "' is not bs/percent or bs/percent/class/level",
                          at);
    plan_cmdprio_split e{0, 0, -1};
    try {
        e.bs_bytes = parse_size(f[0], j.kb_base);
    } catch (const value_error &) {
        throw value_error("cmdprio_bssplit: block size '" + trim(f[0]) + "' is not a size", at);
    }
    size_t pos = at + f[0].size() + 1;
    if (f.size() >= 2 && !trim(f[1]).empty())
        e.pct = (uint32_t)number_at(f[1], pos, "percentage", 100);
    if (f.size() == 4) {
        pos += f[1].size() + 1;
        int64_t c = number_at(f[2], pos, "class", MAX_CLASS);
        int64_t l = number_at(f[3], pos + f[2].size() + 1, "level", MAX_LEVEL);
        // fio's ioprio_value(): class 0 (none) is best effort.
        e.ioprio = (int32_t)(((c ? c : 2) << PLAN_IOPRIO_CLASS_SHIFT) | l);
    }
    return e;
}

void parse_list(const job_spec &j, const std::string &list, size_t at, plan_cmdprio &out,
                std::vector<plan_cmdprio_split> &table)
{
    std::vector<plan_cmdprio_split> entries;
    size_t pos = at;
    for (const std::string &item : split(list, ':')) {
        if (!trim(item).empty()) {
            plan_cmdprio_split e = parse_entry(j, item, pos);
            if (e.pct)
                entries.push_back(e);
        }
        pos += item.size() + 1;
    }
    if (entries.size() > PLAN_CMDPRIO_SPLIT_MAX)
        throw value_error("cmdprio_bssplit has more than " + std::to_string(PLAN_CMDPRIO_SPLIT_MAX) + " entries",
                          at);
    std::stable_sort(entries.begin(), entries.end(),
                     [](const plan_cmdprio_split &a, const plan_cmdprio_split &b) { return a.bs_bytes < b.bs_bytes; });
    for (size_t i = 0; i < entries.size();) {
        uint32_t total = 0;
        size_t k = i;
        for (; k < entries.size() && entries[k].bs_bytes == entries[i].bs_bytes; k++)
            total += entries[k].pct;
        if (total > 100)
            throw value_error("cmdprio_bssplit: the percentages of block size " +
                                  std::to_string(entries[i].bs_bytes) + " add up to " + std::to_string(total) +
                                  " (more than 100)",
                              at);
        i = k;
    }
    out.nr_split = (uint32_t)entries.size();
    table = entries;
}

} // namespace

void set_cmdprio_bssplit(job_spec &j, const option &o, const std::string &v)
{
    (void)o;
    std::vector<std::string> dirs = split(v, ',');
    if (dirs.size() > 3)
        throw value_error("cmdprio_bssplit takes at most three lists (read,write,trim)");
    // fio: one list is every direction's; with commas, the first is read's, the second write's.
    for (int d = 0; d < 2; d++) {
        size_t k = std::min<size_t>((size_t)d, dirs.size() - 1);
        size_t at = k ? dirs[0].size() + 1 : 0;
        parse_list(j, dirs[k], at, j.pj.cmdprio[d], j.cmdprio_split[d]);
    }
    j.pj.cmdprio_bssplit = !trim(v).empty();
}

} // namespace parser

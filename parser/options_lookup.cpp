// parser/options_lookup.cpp - finding options by name, why a refused fio option is
// refused, and the all-defaults job.
#include "parser/options.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <numeric>
#include <strings.h>
#include <unordered_map>

#include "parser/values.hpp"

namespace parser {

namespace {

std::string lower(const std::string &s)
{
    std::string l = s;
    for (char &c : l)
        c = (char)tolower((unsigned char)c);
    return l;
}

} // namespace

// Names and aliases, case folded, in a hash: every entry of every section is
// looked up several times, and a walk of the table with strcasecmp was 12% of
// --parse-only's time.  The first option in table order keeps a name.
const option *find_option(const std::string &name)
{
    static const std::unordered_map<std::string, const option *> by_name = [] {
        std::unordered_map<std::string, const option *> m;
        for (const option &o : options()) {
            m.emplace(lower(o.name), &o);
            for (const char *a : o.aliases)
                m.emplace(lower(a), &o);
        }
        return m;
    }();
    auto it = by_name.find(lower(name));
    return it == by_name.end() ? nullptr : it->second;
}

namespace {

// 0 is parsed first.  fio sorts a section's options by .prio (a stable sort:
// glibc's qsort merges), parses them, and leaves those its table lacks to the
// engine's table after.  An option neither knows is refused before any echo.
int parse_rank(const entry &e)
{
    const option *o = find_option(e.key);
    if (!o)
        return 1;
    return o->engines ? 3 : 1 - o->fio_prio;
}

} // namespace

void fio_echo_places(const std::vector<entry> &entries, size_t from, std::vector<uint32_t> &at)
{
    std::vector<int> rank;
    for (size_t i = from; i < entries.size(); i++)
        rank.push_back(parse_rank(entries[i]));
    if (at.empty() && std::is_sorted(rank.begin(), rank.end())) // the usual section: nothing moves
        return;
    for (size_t i = at.size(); i < entries.size(); i++)
        at.push_back((uint32_t)i);
    std::vector<uint32_t> by_place(rank.size());
    std::iota(by_place.begin(), by_place.end(), 0u);
    std::stable_sort(by_place.begin(), by_place.end(), [&](uint32_t a, uint32_t b) { return rank[a] < rank[b]; });
    for (size_t k = 0; k < by_place.size(); k++)
        at[from + by_place[k]] = (uint32_t)(from + k);
}

bool deprecated_option(const std::string &name)
{
    // fio 3.33's FIO_OPT_SOFT_DEPRECATED options: accepted, noted, without effect.
    static const char *const names[] = {"verifysort", "verifysort_nr", "flow_watermark"};
    for (const char *n : names)
        if (!strcasecmp(n, name.c_str()))
            return true;
    return false;
}

std::string unsupported_reason(const std::string &name)
{
    for (const option &o : option_table())
        if (o.refused && !strcasecmp(o.name, name.c_str()))
            return o.refused;
    return "";
}

std::vector<std::string> option_names()
{
    std::vector<std::string> out;
    for (const option &o : options()) {
        out.emplace_back(o.name);
        for (const char *a : o.aliases)
            out.emplace_back(a);
    }
    return out;
}

const char *opt_type_name(opt_type t)
{
    static const char *const names[] = {
        "flag", "bool", "int", "size", "size or percent", "size list", "int list", "size range",
        "size range list", "bssplit", "time", "string", "path list", "choice", "float list", "pattern", "cpu list",
    };
    return names[(int)t];
}

bool takes_list(const option &o)
{
    switch (o.type) {
    case opt_type::size_ddir:
    case opt_type::int_ddir:
    case opt_type::size_range_ddir:
    case opt_type::bssplit:
    case opt_type::path_list:
    case opt_type::float_list:
    case opt_type::cpu_list:
        return true;
    default:
        return false;
    }
}

bool option_foreign_to(const option &o, const char *engine)
{
    if (!o.engines)
        return false;
    std::string list = std::string(" ") + o.engines + " ";
    return list.find(std::string(" ") + engine + " ") == std::string::npos;
}

job_spec default_spec()
{
    job_spec j;
    // Padding too: a plan's bytes then depend only on its values (the
    // every-choice test compares plans with memcmp).
    std::memset(&j.pj, 0, sizeof j.pj);
    j.pj.repeat = 1;
    for (const option &o : options())
        if (o.def && !o.engine_opt) // engine options' defaults: engine_value_of
            o.apply(j, o, o.def);
    j.pj.startdelay_max_ns = j.pj.startdelay_min_ns;
    j.randseed_set = false; // the default seed is not the user's randseed=
    j.bw_avg_set = j.iops_avg_set = false;
    j.verify_set = false; // verify=none by default: verify_pattern then picks the pattern check
    j.pj.verify_state_save_asked = false; // fio's default saves, but leaves a user's file be
    j.pj.thinktime_blocks_set = false; // thinktime_iotime alone thinks by time only, as fio
    return j;
}

const engine_value *engine_value_of(const job_spec &s, const std::string &name)
{
    static const std::map<std::string, engine_value> defaults = [] {
        job_spec j;
        for (const option &o : options())
            if (o.def && o.engine_opt)
                o.apply(j, o, o.def);
        return j.engine_values;
    }();
    auto v = s.engine_values.find(name);
    if (v != s.engine_values.end())
        return &v->second;
    v = defaults.find(name);
    return v == defaults.end() ? nullptr : &v->second;
}

} // namespace parser

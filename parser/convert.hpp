// parser/convert.hpp - conversions the option table's appliers share: parse a
// value of the option's type and check it against the option's range or choices.
//
// They throw value_error with a message naming the option and its range, so
// every entry in the table stays a one-line assignment.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "parser/options.hpp"
#include "parser/values.hpp"

namespace parser {

int64_t int_in(const option &o, const std::string &v);
// A boolean or flag option's value as fio reads it; bare means 1.
bool flag_value(const option &o, const std::string &v);
uint64_t size_in(const job_spec &j, const option &o, const std::string &v);
uint64_t time_in(const option &o, const std::string &v);

// The value of the choice named v (case-insensitive); value_error names the choices.
long long choice_of(const option &o, const std::string &v);

// Size or percentage: sets at most one of *bytes / *ppm (the other to 0);
// rules as parse_percent_ppm's.
void size_or_pct(const job_spec &j, const option &o, const std::string &v, uint64_t *bytes, uint32_t *ppm,
                 unsigned rules = PCT_PLAIN);

// size_or_pct (ppm NULL: size_in), or a count of zones (fio's "Nz") kept in
// j.in_zones[which] for finalize_spec, with *bytes (and *ppm) 0.
void size_pct_or_zones(job_spec &j, const option &o, const std::string &v, int which, uint64_t *bytes,
                       uint32_t *ppm, unsigned rules = PCT_PLAIN);

// read,write,trim list: calls set(ddir, text) for every slot the value sets.
void for_each_ddir(const option &o, const std::string &v,
                   const std::function<void(int, const std::string &)> &set);

// Colon-separated list with \: escaping a colon.
std::vector<std::string> path_list(const std::string &v);

} // namespace parser

// results/record_fields.hpp - the field readers a run's JSON is read with, shared by
// the report reader (record.cpp) and the reader of results export's JSON
// (record_export.cpp), so both refuse the same hand edits in the same words.
// Internal to results/.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "results/record.hpp"

namespace resdb::fields {

using json = nlohmann::json;

// o[key], or null when o is not an object or has no such key.
const json &at(const json &o, const char *key);
// A figure: absent is 0; a number or a string holding one; else input_error.
double num(const json &o, const char *key);
// A count, size or time in ns below 2^63; else input_error.
uint64_t u64(const json &o, const char *key);
// A small whole number (a rank, an errno, a job's index).
int small(const json &o, const char *key);
// A run's start, Unix seconds: a date gmtime prints (up to 9999-12-31).
int64_t date_of(const json &o, const char *key);
// A run's uuid as ioplan makes one: 32 lower-case hex digits.
bool is_run_id(const std::string &id);
// One per-interval sample: finite, not negative.
double sample(const json &v, const char *what);
// A string, "" for null, else the value's JSON text.
std::string str(const json &o, const char *key);
// The facts runs are grouped by, from r's fields and its environment env.
void read_facts(run_record &r, const json &env);

} // namespace resdb::fields

namespace resdb {

// Whether doc is a run of `results export` or `results show --output-format=json`.
bool is_exported_run(const nlohmann::json &doc);

// One such run read back, every field checked; where names it in errors ("[1]").
run_record exported_run(const nlohmann::json &o, const std::string &where);

} // namespace resdb

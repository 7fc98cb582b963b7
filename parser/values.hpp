// parser/values.hpp - fio's value syntax: sizes, times, booleans, lists, ranges.
//
// One implementation shared by user input and the option table's defaults (the
// defaults are text parsed by this same code, so they cannot disagree).  Each
// function throws value_error with a message and the byte offset in the value
// where the problem is, which the caller turns into a positioned diagnostic.
//
// Where fio's behaviour is a trap, ioplan parses the unsurprising way and the
// man page's COMPATIBILITY section says so: `1MiB` is 1048576 bytes (fio: 1000000
// under kb_base=1024), `1sec` is one second (fio: one microsecond), an unknown
// suffix is an error (fio: silently 1), and `bs=4k-16k` is an error pointing to
// bsrange= (fio: read 4k, write 16k).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/plan.h"

namespace parser {

class value_error : public std::runtime_error {
public:
    value_error(const std::string &msg, size_t at = 0) : std::runtime_error(msg), offset(at) {}
    size_t offset;
};

enum class time_unit { ns, us, ms, s };

std::string trim(const std::string &s);
std::vector<std::string> split(const std::string &s, char sep);

// Integer with optional 0x prefix; no suffix allowed.
int64_t parse_int(const std::string &s);
double parse_float(const std::string &s);

// fio reads a number option up to the first character that cannot continue it
// ("70.0" is 70, "128*1" is 128, "10*2" seconds is 10) and drops the rest.  The
// parsers below do the same and tell the ignored text to the innermost
// ignored_text scope, which apply_entry turns into a note at the value.
class ignored_text {
public:
    ignored_text();
    ~ignored_text();
    ignored_text(const ignored_text &) = delete;
    ignored_text &operator=(const ignored_text &) = delete;
    std::vector<std::string> texts;   // what was dropped, in order
    std::vector<std::string> readings; // how fio reads a value that means other than it says

private:
    ignored_text *outer_;
};
void note_ignored(const std::string &text);
void note_reading(const std::string &how);

// fio's integer read (str_to_decimal): a leading integer (hexadecimal when the
// value holds 0x), then a size unit letter if one follows; other text after
// the number is ignored.
int64_t parse_int_lenient(const std::string &s);

// fio's booleans (0/1) and set-flags (any number): sscanf's %u, so "10" and
// "1.5" are numbers (10, 1); also true/false, yes/no, on/off.
int64_t parse_bool_number(const std::string &s);
bool parse_bool(const std::string &s);

// Size with fio's suffixes (k, kb, m, mb, g, t, p; ki/mi...; KiB/MiB... as IEC)
// under kb_base 1024 or 1000.  Returns bytes.
uint64_t parse_size(const std::string &s, unsigned kb_base);

// What a percentage may be besides (0, 100]: 0 is none at all (offset=0%: no
// offset, as fio reads it).  PCT_SIZE: size='s, whose error past 100% says what
// fio does with it.
enum pct_rule : unsigned { PCT_PLAIN = 0, PCT_SIZE = 1, PCT_ZERO_IS_NONE = 2 };

// "50%" -> 500000 ppm; returns false when s is not a percentage.  A whole
// number of percent from 1 to 100 only, as fio reads one ('50.5%' is 50 bytes
// to fio, '150%' a size of 2^64-151): an error otherwise.  Text after the '%'
// is ignored as fio does (configparser writes "100%%").  0% under
// PCT_ZERO_IS_NONE gives *ppm 0.
bool parse_percent_ppm(const std::string &s, uint32_t *ppm, unsigned rules = PCT_PLAIN);

// Time with suffix (ns, us/usec, ms/msec, s/sec, m/min, h, d); a bare number is
// in `base`.  Returns nanoseconds.
uint64_t parse_time_ns(const std::string &s, time_unit base);

// fio's read,write,trim lists: "a,b" -> {a,b,b}; ",b" -> {unset,b,b};
// "a," -> {a,unset,unset}.  Empty strings mark unset slots.
std::array<std::string, 3> split_ddir_list(const std::string &s);

// "lo-hi" or "lo:hi" (swapped when reversed).
std::pair<uint64_t, uint64_t> parse_size_range(const std::string &s, unsigned kb_base);

struct bssplit_entry {
    uint64_t bs;
    uint32_t pct;
};

// One direction of bssplit= ("4k/30:64k/70", blank percentages share the rest).
std::vector<bssplit_entry> parse_bssplit_dir(const std::string &s, unsigned kb_base);

// fio's buffer_pattern / verify_pattern: 0x hex, "string", decimal, combined.
std::vector<uint8_t> parse_pattern(const std::string &s);
// verify_pattern's form: also takes %o (8 bytes where each block's offset goes), their positions in offset_at.
std::vector<uint8_t> parse_pattern(const std::string &s, std::vector<uint32_t> *offset_at);

// cpus_allowed: "0-3,6" -> the set of CPUs (0..PLAN_CPUS_MAX-1).
plan_cpus parse_cpu_list(const std::string &s);
// numa_cpu_nodes: "0-1,3" -> bitmask (nodes 0..63).
uint64_t parse_node_list(const std::string &s);

// Replaces fio's $pagesize, $mb_memory and $ncpus and evaluates + - * / % and
// parentheses when a keyword was replaced (fio pipes that through bc).  Returns
// s unchanged otherwise.
std::string expand_keywords(const std::string &s);

// A value as fio shows it ("job options", --showcmd): expand_keywords', or s
// as typed when that fails (the option's own check says why).
std::string shown_value(const std::string &s);

// A number option's value that starts with '(' is an expression in fio
// (str_to_decimal's calculator): "(8*4)" -> "32".  Others are returned as they are.
std::string evaluate_parenthesized(const std::string &s);

} // namespace parser

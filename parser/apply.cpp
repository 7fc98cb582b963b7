// parser/apply.cpp - applies one entry (name=value) of a job section to a job:
// finds the option, checks the value is present when it must be, reads the
// value as fio does ($keywords, arithmetic, text after a number noted), runs
// the option's applier and turns its value_error into a positioned diagnostic.
#include "parser/parser.hpp"

#include <algorithm>
#include <cstring>

#include "parser/options.hpp"
#include "parser/structured.hpp"
#include "parser/values.hpp"

namespace parser {

namespace {

// What fio 3.33 strips at a value's end where it strips (isspace): a job file
// line's end, or a callback's strip_blank_end.
const char *const BLANKS = " \t\n\r\f\v";

// write_bw_log and its kin: a file name prefix, the job's name when none is given.
bool log_prefix(const option &o)
{
    std::string n = o.name;
    return o.type == opt_type::string && n.compare(0, 6, "write_") == 0 && n.size() > 4 &&
           n.compare(n.size() - 4, 4, "_log") == 0;
}

// fio's write_bw_log/write_iops_log/write_lat_log may be written bare: the log
// is then named after the job.
bool takes_bare(const option &o)
{
    return o.type == opt_type::flag || o.type == opt_type::boolean || log_prefix(o);
}

[[noreturn]] void unknown_option(const entry &e)
{
    std::string reason = unsupported_reason(e.key);
    if (!reason.empty())
        fail(e.key_loc, "option '" + e.key + "' " + reason);
    std::string hint = closest(e.key, option_names());
    fail(e.key_loc, "unknown option '" + e.key + "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
}

// fio's str_to_decimal evaluates a number option's value that starts with '('.
bool numeric(const option &o)
{
    switch (o.type) {
    case opt_type::integer:
    case opt_type::size:
    case opt_type::size_pct:
    case opt_type::time:
        return true;
    default:
        return false;
    }
}

void note_value(diag_list *notes, const entry &e, const std::string &msg)
{
    if (notes)
        notes->push_back(diag{severity::note, e.value_loc, e.key + "=" + e.value + ": " + msg});
}

// Options whose fio 3.33 callback skips the blanks at the value's start
// (strip_blank_front): a blank after '=' changes nothing there.
bool fio_strips_front(const option &o)
{
    static const char *const names[] = {"filename", "bssplit", "replay_skip", "ignore_error", "cpus_allowed",
                                        "verify_async_cpus", "log_compression_cpus"};
    return std::any_of(std::begin(names), std::end(names), [&](const char *n) { return !std::strcmp(o.name, n); });
}

// The kinds of option whose value fio 3.33 reads as a number (str_to_decimal,
// check_int), a list's first part included.
bool fio_number(const option &o)
{
    static const opt_type also[] = {opt_type::flag, opt_type::boolean, opt_type::size_ddir, opt_type::int_ddir,
                                    opt_type::size_range, opt_type::size_range_ddir};
    return numeric(o) || std::find(std::begin(also), std::end(also), o.type) != std::end(also);
}

// Whether fio 3.33 reads " value" as ioplan reads "value".  Its numbers take
// strtoll's leading blanks, but the unit is looked for at the value's first
// character, a blank, so none is found: bs= 16k is 16 bytes, runtime= 10m ten
// seconds.  A plain number (or seconds written as such) reads alike, and so do
// a list's later parts and an empty first part; every other kind keeps the blank in its text
// (rw= read is refused, name= a is " a").
bool blank_reads_alike(const option &o, const std::string &v)
{
    if (fio_strips_front(o))
        return true;
    if (!fio_number(o))
        return false;
    if (v[0] == ',')
        return true; // an empty first part, blank or not (rate= ,1m)
    std::string first = v.substr(0, v.find_first_of(",:-", 1));
    size_t i = (first[0] == '+' || first[0] == '-') ? 1 : 0;
    size_t end = first.find_first_not_of("0123456789", i);
    if (end == i)
        return false;
    if (end == std::string::npos)
        return true;
    return o.type == opt_type::time && !std::strcmp(o.unit, "s") && first.compare(end, std::string::npos, "s") == 0;
}

// Whether the entry was given as an argument (--bs=16k), not in a job file.
bool from_command_line(const entry &e)
{
    return e.key_loc.path == "<command line>";
}

// key= value (a job file) or '--key= value' (an argument, which keeps its blanks
// in e.value) where fio 3.33 reads the value another way than ioplan.
void check_blank_after_eq(const option &o, const entry &e)
{
    size_t lead = e.value.find_first_not_of(" \t");
    if (!e.blank_after_eq || lead == std::string::npos)
        return;
    std::string v = e.value.substr(lead, e.value.find_last_not_of(BLANKS) + 1 - lead);
    if (blank_reads_alike(o, v))
        return;
    bool cli = from_command_line(e);
    std::string shown = "'" + (cli ? e.value : " " + v) + "'", how;
    size_t digits = v.find_first_not_of("+-0123456789");
    if (!fio_number(o))
        how = shown + " is no value it knows, or another name than '" + v + "'";
    else if (digits == 0 || v.find_first_of("0123456789") > digits)
        how = shown + " is no number";
    else
        how = "a blank before the number hides its unit: " + shown + " is read as " + v.substr(0, digits);
    loc at = e.value_loc;
    if (!cli)
        at.advance(-1); // the value's place is after the blanks there, at them here
    fail(at, std::string("a blank after '='") + (!cli && e.substituted ? " (a ${VAR} may bring it)" : "") +
                 ": fio 3.33 keeps it in the value, and there " + how + "; write '" + (cli ? "--" : "") + e.key +
                 "=" + v + "', which both read alike");
}

// fio 3.33's options read as a time (its .is_time: get_mult_time), whose unit
// word must match whole: "10s" is seconds there, "10s " ten microseconds.
bool fio_time(const option &o)
{
    static const char *const names[] = {"runtime",        "ramp_time",        "startdelay",
                                        "steadystate_duration", "steadystate_ramp_time", "thinktime",
                                        "thinktime_spin", "thinktime_iotime", "max_latency",
                                        "latency_target", "latency_window"};
    return std::any_of(std::begin(names), std::end(names), [&](const char *n) { return !std::strcmp(o.name, n); });
}

// Why fio 3.33 reads v + tail (blanks at the end, which an argument or a ${VAR}
// keeps) another way than ioplan reads v, or "" where it reads the same.  Its
// numbers find their unit by prefix (4k , 50% , 10ms ), and the callbacks of
// fio_strips_front's options and a choice's ":..." part strip it; but a word
// (rw=write ) is no value it knows, a text (directory=d ) keeps the blank, a
// time's s, m, h or d is no unit there, and 10z  is ten bytes, not zones.
std::string trailing_blank_reading(const option &o, const std::string &v, const std::string &tail)
{
    std::string shown = "'" + v + tail + "'";
    if (o.ioplan_only || fio_strips_front(o))
        return "";
    if (o.type == opt_type::choice || o.type == opt_type::pattern)
        return v.find(':') != std::string::npos ? "" : shown + " is no value it knows";
    if (o.type == opt_type::string || o.type == opt_type::path_list)
        return shown + " stays as written, another name than '" + v + "'";
    size_t digits = v.find_first_not_of("+-0123456789.");
    if (digits == 0 || digits == std::string::npos)
        return "";
    std::string n = v.substr(0, digits), unit = v.substr(digits);
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return (char)std::tolower(c); });
    if (fio_time(o) && (unit == "s" || unit == "m" || unit == "h" || unit == "d"))
        return shown + " is " + n + " microsecond" + (n == "1" ? "" : "s") + " (it knows no unit '" + unit + tail +
               "')";
    if (o.type == opt_type::size_pct && unit == "z")
        return shown + " is " + n + " byte" + (n == "1" ? "" : "s") + ", not zones";
    return "";
}

// '--key=value ' (an argument, which keeps its blanks in e.value) or a job
// file's ${VAR} that ends with a blank (e.value trimmed), where fio 3.33 reads
// the value another way than ioplan.
void check_blank_at_end(const option &o, const entry &e)
{
    size_t end = e.value.find_last_not_of(BLANKS);
    if (!e.blank_at_end || end == std::string::npos)
        return;
    size_t lead = e.value.find_first_not_of(BLANKS);
    std::string v = e.value.substr(lead, end + 1 - lead), tail = e.value.substr(end + 1);
    std::string how = trailing_blank_reading(o, v, tail.empty() ? " " : tail);
    if (how.empty())
        return;
    bool cli = from_command_line(e);
    loc at = e.value_loc;
    if (cli)
        at.advance((int)end + 1); // at the blank
    fail(at, "a blank at the end of the value" + std::string(cli ? "" : ", from a ${VAR}") + ": fio 3.33 keeps it " +
                 (cli ? "in an argument" : "(it strips the line's end before it expands the variable)") +
                 ", and there " + how + "; write '" + (cli ? "--" : "") + e.key + "=" + v +
                 "', which both read alike");
}

} // namespace

// fio 3.33 reads a negative size as its absolute value, and a client depends
// on it (docker-diskmark's default profile passes --size=-N).  The layering
// notes each one (layering::note_negative_size).
bool negative_size(const option &o, const entry &e)
{
    return e.has_value && !e.value.empty() && e.value[0] == '-' && std::strcmp(o.name, "size") == 0;
}

// fio runs these options' callbacks once per part of a list (parse.c's
// handle_option cuts what is left at its first ',', else ':', else '-'), so
// the last part it reads is what it keeps: size=1m,2m is 2m.  A part with no
// number (size=16m // bytes, or) fails silently there and leaves the value of
// the part before it.  Empty when the value is no such list.
namespace {

// Where each part starts.
std::vector<size_t> fio_list_parts(const std::string &s)
{
    std::vector<size_t> starts{0};
    for (;;) {
        size_t from = starts.back(), at = s.find(',', from);
        if (at == std::string::npos)
            at = s.find(':', from);
        if (at == std::string::npos)
            at = s.find('-', from);
        if (at == std::string::npos)
            return starts;
        starts.push_back(at + 1);
    }
}

// What fio's str_to_decimal needs to read a number: strtoll takes a digit
// after blanks and a sign.
bool reads_a_number(const std::string &part)
{
    size_t i = part.find_first_not_of(" \t");
    if (i != std::string::npos && (part[i] == '+' || part[i] == '-'))
        i++;
    return i < part.size() && part[i] >= '0' && part[i] <= '9';
}

} // namespace

std::string last_of_list(const option &o, const std::string &v, std::string *skipped)
{
    static const char *const kept_last[] = {"size", "io_size", "offset", "offset_increment", "zoneskip",
                                            "rwmixread", "rwmixwrite", "buffer_compress_percentage",
                                            "dedupe_percentage"};
    if (std::none_of(std::begin(kept_last), std::end(kept_last),
                     [&](const char *n) { return std::strcmp(o.name, n) == 0; }))
        return "";
    std::string s = v;
    if (s.find('(') != std::string::npos)
        return ""; // arithmetic: its '-' is no list separator
    if (!s.empty() && s.back() == ',')
        s.pop_back(); // fio drops a trailing comma before it splits
    size_t at = s.find_last_of(",:-");
    if (at == std::string::npos || at == 0 || at + 1 == s.size())
        return "";
    std::vector<size_t> starts = fio_list_parts(s);
    auto part = [&](size_t i) {
        return i + 1 < starts.size() ? s.substr(starts[i], starts[i + 1] - 1 - starts[i]) : s.substr(starts[i]);
    };
    size_t kept = starts.size() - 1;
    while (kept > 0 && !reads_a_number(part(kept)))
        kept--;
    if (!reads_a_number(part(kept)))
        return s.substr(at + 1); // no part is a number: the last one's error
    if (skipped && kept + 1 < starts.size())
        *skipped = s.substr(starts[kept + 1]);
    return part(kept);
}

void apply_entry(job_spec &j, const entry &e, diag_list *notes)
{
    if (deprecated_option(e.key)) {
        if (notes)
            notes->push_back(diag{severity::note, e.key_loc,
                                  "option " + e.key + " is deprecated and ignored, as in fio 3.33"});
        return;
    }
    const option *o = find_option(e.key);
    if (!o)
        unknown_option(e);
    if (!e.has_value && !takes_bare(*o))
        fail(e.key_loc, "option '" + e.key + "' needs a value (" + e.key + "=...)");
    // fio reads write_lat_log= as the bare option (the job's name as prefix); every
    // other empty string, description= too, fails its parse and drops the job.
    check_blank_after_eq(*o, e);
    check_blank_at_end(*o, e);
    if (e.has_value && e.value.empty() && !log_prefix(*o))
        fail(e.value_loc, "empty value for option '" + e.key + "'" +
                              (e.substituted ? ": its ${VAR} is not set or empty in the environment" : ""));
    try {
        ignored_text dropped;
        std::string v = expand_keywords(negative_size(*o, e) ? e.value.substr(1) : e.value);
        std::string skipped;
        std::string last = last_of_list(*o, v, &skipped);
        if (!last.empty() && !skipped.empty()) {
            note_value(notes, e, "'" + skipped + "' has no number and is ignored, as fio ignores it: '" + last +
                                     "' is used");
            v = last;
        } else if (!last.empty()) {
            note_value(notes, e, "only '" + last + "', the last of the list, is used, as fio uses it");
            v = last;
        }
        if (numeric(*o))
            v = evaluate_parenthesized(v);
        o->apply(j, *o, v);
        for (const std::string &t : dropped.texts)
            note_value(notes, e, "'" + t + "' after the number is ignored, as fio ignores it");
        for (const std::string &how : dropped.readings)
            note_value(notes, e, how);
        if (o->engines && std::find(j.engine_opts_set.begin(), j.engine_opts_set.end(), o->name) ==
                              j.engine_opts_set.end())
            j.engine_opts_set.push_back(o->name);
    } catch (const value_error &err) {
        loc at = e.value_loc;
        at.advance((int)std::min(err.offset, e.value.size()));
        std::string msg = err.what();
        // Messages that already name the option read better without the prefix.
        bool named = msg.compare(0, strlen(o->name), o->name) == 0;
        fail(at, named ? msg : std::string("bad value for ") + o->name + ": " + msg);
    }
}

} // namespace parser

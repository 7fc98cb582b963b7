// parser/options.hpp - the one option table: every job option ioplan accepts.
//
// From this table come what the readers accept (with "did you mean"),
// --cmdhelp, schema/job.schema.json and the option list in ioplan-job(5).  Each
// entry's default is text parsed by the same applier as user input, so defaults
// and user values cannot disagree; a unit test walks the table.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "parser/spec.hpp"

namespace parser {

enum class opt_type {
    flag,        // bare means 1; also =0/=1 (fio's STR_SET)
    boolean,     // 0/1 (a bare name means 1 in ioplan; fio rejects it)
    integer,
    size,        // bytes with suffixes
    size_pct,    // bytes, or a percentage of the file/device
    size_ddir,   // read,write,trim list of sizes
    int_ddir,    // read,write,trim list of integers
    size_range,  // lo-hi
    size_range_ddir,
    bssplit,
    time,        // with suffix; `unit` is the unit of a bare number
    string,
    path_list,   // colon-separated, \: escapes a colon
    choice,
    float_list,  // colon-separated
    pattern,
    cpu_list,
};

// A choice and the value it stands for (fio's .oval): the applier stores the
// value, so a new choice is one entry here and never an index into a side array.
struct opt_choice {
    const char *name;
    const char *help;
    long long value;
};

struct option;
using opt_apply = void (*)(job_spec &j, const option &o, const std::string &value);

struct option {
    const char *name;
    std::vector<const char *> aliases;
    opt_type type;
    const char *unit;        // "bytes", "s", "ms", "us", "%", "" ...
    const char *def;         // default as text; nullptr = unset
    double min, max;         // numeric range (min > max: unchecked)
    std::vector<opt_choice> choices;
    const char *category;
    const char *help;
    opt_apply apply;
    bool ioplan_only;        // not an fio option: stripped before handing a file to fio
    const char *engines;     // an engine's own option: the engines it belongs to, space-separated
                             // (nullptr: every engine); --enghelp=ENGINE lists them; for the rows an
                             // engine's file brings, the engines whose list line names its table
    const char *refused;     // an fio option ioplan knows and refuses: why (nullptr: accepted)
    const plan_engopt *engine_opt; // brought by an engine's file (engine/plan_engopts.h); nullptr: the table's own
    int fio_prio;            // fio's parse priority (its .prio): a section's higher ones are parsed, and echoed, first
};

// Writes a table entry with named fields, one per line, so a row reads without
// opening this header: opt("nrfiles", opt_type::integer, CAT_FILES).def("1")...
// Fields not named keep the option's neutral value (no alias, unit, default,
// range or choices; an fio option).
struct opt {
    option o;
    opt(const char *name, opt_type type, const char *category)
        : o{name, {}, type, "", nullptr, 1, 0, {}, category, "", nullptr, false, nullptr, nullptr, nullptr, 0} {}
    opt &aliases(std::vector<const char *> a) { o.aliases = std::move(a); return *this; }
    opt &unit(const char *u) { o.unit = u; return *this; }
    opt &def(const char *d) { o.def = d; return *this; }
    opt &range(double lo, double hi) { o.min = lo; o.max = hi; return *this; }
    opt &choices(std::vector<opt_choice> c) { o.choices = std::move(c); return *this; }
    opt &help(const char *h) { o.help = h; return *this; }
    opt &apply(opt_apply f) { o.apply = f; return *this; }
    opt &ioplan_only() { o.ioplan_only = true; return *this; }
    opt &engines(const char *e) { o.engines = e; return *this; }
    opt &refused(const char *why) { o.refused = why; return *this; }
    opt &fio_prio(int p) { o.fio_prio = p; return *this; }
    operator option() const { return o; }
};

// The options ioplan accepts: the table's rows less the refused ones.  Both lists
// hold the options the engines bring, merged in at first use.
const std::vector<option> &options();

// Every row, refused fio options included (each name once).
const std::vector<option> &option_table();

// By name or alias, case-insensitively; nullptr when unknown.
const option *find_option(const std::string &name);

// Why a known fio option is not supported (non-empty), or "" when the name is
// not a known fio option.
std::string unsupported_reason(const std::string &name);

// An option fio 3.33 accepts and ignores with a note (soft-deprecated).
bool deprecated_option(const std::string &name);

// Where fio 3.33 would list each of a job file section's entries (from entry `from`
// on) in its "job options" and --showcmd: fio parses a section's options by .prio
// (fio_prio), highest first, and an engine's own ones after the rest, each kind
// as written.  at[i] is entry i's place; entries before `from` keep theirs, and an
// `at` left empty (nothing moves) or shorter than the entries means as written.
void fio_echo_places(const std::vector<entry> &entries, size_t from, std::vector<uint32_t> &at);

// Every name and alias, for "did you mean".
std::vector<std::string> option_names();

const char *opt_type_name(opt_type t);

// Whether a TOML/YAML list is a value of o (its items joined as INI writes the
// list): read,write,trim lists, bssplit, paths, percentiles and CPU lists.
// Any other option takes one value; the readers and the schema refuse a list.
bool takes_list(const option &o);

// Engine options several engines read from plan_job fields (the worker hands
// them to each engine that takes them; --showplan shows some): one row each, the
// engines that take it, in the order a refusal names them, and whether a job
// sets it.  option_table() gives each such option these engines (.engines); a
// job that sets one under another engine, in any section, is refused.
struct engine_field {
    const char *name;
    const char *engines; // space-separated
    bool (*set)(const job_spec &s);
};
const std::vector<engine_field> &engine_fields();

// The engine_fields() row of an option, or nullptr.
const engine_field *engine_field_of(const char *name);

// True when o is an engine's own option and engine is not one of its engines.
bool option_foreign_to(const option &o, const char *engine);

// A job_spec with every table default applied (an engine option's: engine_value_of).
job_spec default_spec();
// An engine option's value (engine_values, by canonical name): the one the job
// gave, else the option's default, else nullptr.  The defaults are kept once,
// not in every job_spec: a spec is copied for every section, and 20 defaults
// copied each time were a quarter of --parse-only's time on a big job file.
const engine_value *engine_value_of(const job_spec &s, const std::string &name);

} // namespace parser

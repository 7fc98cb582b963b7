// parser/apply.cpp - applies one entry (name=value) of a job section to a job:
// finds the option, checks the value is present when it must be, runs the
// option's applier and turns its value_error into a positioned diagnostic.
#include "parser/parser.hpp"

#include <algorithm>
#include <cstring>

#include "parser/options.hpp"
#include "parser/structured.hpp"
#include "parser/values.hpp"

namespace parser {

namespace {

bool takes_bare(const option &o)
{
    return o.type == opt_type::flag || o.type == opt_type::boolean;
}

[[noreturn]] void unknown_option(const entry &e)
{
    std::string reason = unsupported_reason(e.key);
    if (!reason.empty())
        fail(e.key_loc, "option '" + e.key + "' " + reason);
    std::string hint = closest(e.key, option_names());
    fail(e.key_loc, "unknown option '" + e.key + "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
}

} // namespace

void apply_entry(job_spec &j, const entry &e)
{
    const option *o = find_option(e.key);
    if (!o)
        unknown_option(e);
    if (!e.has_value && !takes_bare(*o))
        fail(e.key_loc, "option '" + e.key + "' needs a value (" + e.key + "=...)");
    if (e.has_value && e.value.empty() && std::string(o->name) != "description")
        fail(e.value_loc, "empty value for option '" + e.key + "'");
    try {
        o->apply(j, *o, e.value);
    } catch (const value_error &err) {
        loc at = e.value_loc;
        at.col += (int)std::min(err.offset, e.value.size());
        std::string msg = err.what();
        // Messages that already name the option read better without the prefix.
        bool named = msg.compare(0, strlen(o->name), o->name) == 0;
        fail(at, named ? msg : std::string("bad value for ") + o->name + ": " + msg);
    }
}

} // namespace parser

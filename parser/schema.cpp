// parser/schema.cpp - the job-file JSON Schema from the option table.
//
// Each option accepts what its TOML/YAML readers accept: native values where
// they fit (booleans, integers in range, enums) and the INI text form as a
// string (sizes with suffixes, times, lists), so the schema never rejects a
// file ioplan runs.  Strings are checked by pattern only where the syntax is
// simple enough to state exactly.
#include "parser/schema.hpp"

#include <cctype>

#include <nlohmann/json.hpp>

#include "parser/options.hpp"

namespace parser {

namespace {

using json = nlohmann::ordered_json;

#define SIZE_ITEM "(0x[0-9a-fA-F]+|[0-9.]+([kKmMgGtTpP]([iI]?[bB]?)?|[bB])?|\\$.*)"
const char *const SIZE_RE = "^" SIZE_ITEM "$";
// read,write,trim: up to three sizes, any of them empty (bs=,8k).
const char *const SIZE_LIST_RE = "^" SIZE_ITEM "?([,:]" SIZE_ITEM "?){0,2}$";
const char *const TIME_RE = "^[0-9.]+([a-zA-Z]+)?$";

json numeric(const option &o, bool integer)
{
    json n = {{"type", integer ? "integer" : "number"}};
    if (o.min <= o.max) {
        n["minimum"] = o.min;
        n["maximum"] = o.max;
    }
    return n;
}

json list_of(const json &item)
{
    return {{"type", "array"}, {"items", item}, {"minItems", 1}};
}

json type_schema(const option &o)
{
    json str = {{"type", "string"}};
    switch (o.type) {
    case opt_type::flag:
    case opt_type::boolean:
        return {{"anyOf", {{{"type", "boolean"}}, {{"enum", {0, 1, "0", "1"}}}}}};
    case opt_type::integer:
        return {{"anyOf", {numeric(o, true), str}}};
    case opt_type::size:
    case opt_type::size_pct: {
        json s = {{"type", "string"}, {"pattern", o.type == opt_type::size ? SIZE_RE : "^.*$"}};
        return {{"anyOf", {{{"type", "integer"}, {"minimum", 0}}, s}}};
    }
    case opt_type::time:
        return {{"anyOf", {numeric(o, false), {{"type", "string"}, {"pattern", TIME_RE}}}}};
    case opt_type::choice: {
        // rw=read:8k and random_distribution=zipf:1.2 carry a parameter after ':'.
        std::string alt;
        json numbers = json::array();
        for (const auto &c : o.choices) {
            alt += (alt.empty() ? "" : "|") + std::string(c.name);
            if (std::isdigit((unsigned char)c.name[0]))
                numbers.push_back(std::stoll(c.name));
        }
        json pat = {{"type", "string"}, {"pattern", "^(" + alt + ")(:.*)?$"}};
        return numbers.empty() ? pat : json{{"anyOf", {pat, {{"enum", numbers}}}}};
    }
    case opt_type::size_ddir: {
        json item = {{"anyOf", {{{"type", "integer"}, {"minimum", 0}}, {{"type", "string"}, {"pattern", SIZE_RE}}}}};
        return {{"anyOf", {{{"type", "integer"}, {"minimum", 0}}, {{"type", "string"}, {"pattern", SIZE_LIST_RE}},
                           list_of(item)}}};
    }
    case opt_type::int_ddir:
    case opt_type::path_list:
    case opt_type::float_list:
    case opt_type::size_range_ddir:
    case opt_type::bssplit:
    case opt_type::cpu_list: { // takes_list(o): the readers take these lists
        json item = {{"type", {"string", "number"}}};
        return {{"anyOf", {{{"type", {"string", "number"}}}, list_of(item)}}};
    }
    default:
        return str;
    }
}

json describe(const option &o)
{
    json s = type_schema(o);
    std::string d = o.help;
    if (*o.unit)
        d += " Unit: " + std::string(o.unit) + ".";
    if (o.def)
        d += " Default: " + std::string(*o.def ? o.def : "\"\"") + ".";
    if (o.ioplan_only)
        d += " (ioplan only)";
    s["description"] = d;
    return s;
}

json option_properties(bool job)
{
    json props = json::object();
    if (job) {
        props["section"] = {{"type", "string"}, {"description", "Section name when name= is the display name."}};
        props["global"] = {{"type", "boolean"}, {"description", "This entry is a [global] section, in job order."}};
    }
    props["include"] = {{"anyOf", {{{"type", "string"}}, list_of({{"type", "string"}})}},
                        {"description", "Files of the same syntax with more options for this section."}};
    for (const option &o : options()) {
        props[o.name] = describe(o);
        for (const char *a : o.aliases)
            props[a] = {{"$ref", std::string("#/$defs/options/properties/") + o.name}};
    }
    return props;
}

} // namespace

std::string options_json()
{
    json all = json::array();
    for (const option &o : options()) {
        json choices = json::array();
        for (const auto &c : o.choices)
            choices.push_back({{"name", c.name}, {"help", c.help}});
        json range = o.min <= o.max ? json{{"min", o.min}, {"max", o.max}} : json{{"min", nullptr}, {"max", nullptr}};
        all.push_back({{"name", o.name}, {"aliases", o.aliases}, {"type", opt_type_name(o.type)}, {"unit", o.unit},
                       {"default", o.def ? json(o.def) : json(nullptr)}, {"min", range["min"]}, {"max", range["max"]},
                       {"choices", choices}, {"category", o.category}, {"help", o.help}, {"ioplan_only", o.ioplan_only}});
    }
    return all.dump(2) + "\n";
}

std::string job_schema()
{
    json options_def = {{"type", "object"}, {"properties", option_properties(false)}, {"additionalProperties", false}};
    json job_def = {{"type", "object"}, {"properties", option_properties(true)}, {"additionalProperties", false},
                    {"anyOf", {{{"required", {"name"}}}, {{"required", {"section"}}}, {{"required", {"global"}}}}}};
    json schema = {
        {"$schema", "https://json-schema.org/draft/2020-12/schema"},
        {"$id", "https://ioplan.dev/schema/job.schema.json"},
        {"title", "ioplan job file (TOML or YAML)"},
        {"description", "Generated from ioplan's option table (ioplan --dump-job-schema); see ioplan-job(5)."},
        {"type", "object"},
        {"properties", {{"global", {{"$ref", "#/$defs/options"}}},
                        {"jobs", {{"type", "array"}, {"items", {{"$ref", "#/$defs/job"}}}}}}},
        {"additionalProperties", false},
        {"$defs", {{"options", options_def}, {"job", job_def}}},
    };
    return schema.dump(2) + "\n";
}

} // namespace parser

// parser/writers.cpp - document -> INI, TOML or YAML text (see writers.hpp).
//
// A key repeated in one section (legal in INI, where the last one wins), or an
// alias of one given before (blocksize after bs), is written once, at its first
// position and under its first name with its last value: exactly what the
// planner's option echo keeps, so the plans stay identical, and what TOML and
// YAML, where a table holds each option once, can read.  Two options do not
// replace but add, as fio's: each filename= adds its names, so repeats are
// written as one list (a:b; a section's directory= applies wherever it stands,
// so the order is all that counts), and each opendir= adds its directory's
// files, which no one value can say, so a repeat is refused at its position.
#include "parser/writers.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

#include "parser/diag.hpp"
#include "parser/options.hpp"
#include "parser/values.hpp"

namespace parser {

namespace {

bool same_option(const std::string &a, const std::string &b)
{
    const option *o = find_option(a);
    return a == b || (o && o == find_option(b));
}

// A repeat of an option that adds to the job's files: filename= joins the list
// (an empty value adds nothing); opendir= cannot be written once.
void add_repeat(entry &first, const entry &again, const option &o)
{
    if (std::strcmp(o.name, "opendir") == 0)
        fail(again.key_loc, "opendir= is given again in this section (first at line " +
                                std::to_string(first.key_loc.line) +
                                "): each adds its directory's files, and a TOML or YAML table holds an option "
                                "once; name the files with one filename=a:b, or keep the job file in INI");
    if (again.has_value && !trim(again.value).empty())
        first.value = trim(first.value).empty() ? again.value : first.value + ":" + again.value;
    first.has_value = first.has_value || again.has_value;
}

std::vector<entry> unique_entries(const std::vector<entry> &in)
{
    std::vector<entry> out;
    for (const entry &e : in) {
        auto it = std::find_if(out.begin(), out.end(), [&](const entry &o) { return same_option(o.key, e.key); });
        const option *o = find_option(e.key);
        if (it == out.end()) {
            out.push_back(e);
        } else if (o && (std::strcmp(o->name, "filename") == 0 || std::strcmp(o->name, "opendir") == 0)) {
            add_repeat(*it, e, *o);
        } else {
            it->value = e.value;
            it->has_value = e.has_value;
        }
    }
    return out;
}

bool is_integer_text(const std::string &v)
{
    if (v.empty() || v.size() > 18 || (v.size() > 1 && v[0] == '0'))
        return false;
    return std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit((unsigned char)c); });
}

bool is_boolean_option(const std::string &key)
{
    const option *o = find_option(key);
    return o && o->type == opt_type::boolean;
}

std::string quoted(const std::string &s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += (char)c;
        } else if (c < 0x20) {
            char buf[8];
            snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += (char)c;
        }
    }
    return out + "\"";
}

// Whether a bare key is an on/off switch (true reads back as it); the other
// options written bare, write_bw_log and its kin, read true as a boolean.
bool bare_is_switch(const std::string &key)
{
    const option *o = find_option(key);
    return !o || o->type == opt_type::flag || o->type == opt_type::boolean;
}

// Native TOML/YAML spelling of an entry's value, chosen so reading it back
// gives the same option text (see structured.hpp).  A bare write_bw_log (the
// log named after the job) is written as the empty string, which fio and
// ioplan read as the bare option.
std::string native_value(const entry &e)
{
    if (!e.has_value)
        return bare_is_switch(e.key) ? "true" : "\"\"";
    if (is_boolean_option(e.key) && (e.value == "1" || e.value == "0"))
        return e.value == "1" ? "true" : "false";
    if (is_integer_text(e.value))
        return e.value;
    return quoted(e.value);
}

void comments(std::string &out, const std::vector<std::string> &cs, const char *mark, const std::string &indent = "")
{
    for (const auto &c : cs)
        out += indent + mark + (c.empty() ? "" : " " + c) + "\n";
}

std::string trailing(const entry &e, const char *mark)
{
    return e.trailing_comment.empty() ? "" : std::string(" ") + mark + " " + e.trailing_comment;
}

// What INI cannot hold of text that came from TOML or YAML: a line break, a
// comment mark (the reader ends the text there), blanks at either end (it trims
// them); "" when t can be written as it is.
std::string ini_unwritable(const std::string &t)
{
    if (t.find_first_of("\n\r") != std::string::npos)
        return "a line break";
    if (t.find_first_of(";#") != std::string::npos)
        return "';' or '#' (INI reads a comment from there)";
    if (!t.empty() && (std::isspace((unsigned char)t.front()) || std::isspace((unsigned char)t.back())))
        return "blanks at its start or end (INI trims them)";
    return "";
}

} // namespace

void check_ini_writable(const document &doc)
{
    for (const section &s : doc.sections) {
        std::string why = s.name.find(']') != std::string::npos                  ? "']'"
                          : s.name.find_first_of("\n\r;#") != std::string::npos ? ini_unwritable(s.name)
                                                                                : "";
        if (!why.empty())
            fail(s.header_loc, "job '" + s.name + "' cannot be written as INI: its name holds " + why);
        if (!s.is_global && s.name.compare(0, 6, "global") == 0)
            fail(s.header_loc, "job '" + s.name + "' cannot be written as INI: a section whose name starts "
                               "with 'global' is a global section there");
        for (const entry &e : s.entries)
            if (e.has_value && !(why = ini_unwritable(e.value)).empty())
                fail(e.value_loc, "option " + e.key + " cannot be written as INI: its value holds " + why);
    }
}

namespace {

std::string write_ini(const document &doc)
{
    std::string out;
    for (const section &s : doc.sections) {
        comments(out, s.comments, ";");
        out += "[" + s.name + "]\n";
        for (const entry &e : s.entries) {
            comments(out, e.comments, ";");
            out += e.key + (e.has_value ? "=" + e.value : "") + trailing(e, ";") + "\n";
        }
    }
    comments(out, doc.trailing_comments, ";");
    return out;
}

bool has_key(const section &s, const char *key)
{
    return std::any_of(s.entries.begin(), s.entries.end(), [&](const entry &e) { return e.key == key; });
}

// Only a leading [global] can be the [global] table; any other global section
// keeps its place in the job list, marked global.
bool leading_global(const document &doc, size_t i)
{
    return i == 0 && doc.sections[0].is_global;
}

std::string write_toml(const document &doc)
{
    std::string out;
    for (size_t i = 0; i < doc.sections.size(); i++) {
        const section &s = doc.sections[i];
        comments(out, s.comments, "#");
        if (leading_global(doc, i)) {
            out += "[global]\n";
        } else {
            out += (i ? "\n" : "") + std::string("[[jobs]]\n");
            if (s.is_global)
                out += "global = true\nsection = " + quoted(s.name) + "\n";
            else
                out += std::string(has_key(s, "name") ? "section" : "name") + " = " + quoted(s.name) + "\n";
        }
        for (const entry &e : unique_entries(s.entries)) {
            comments(out, e.comments, "#");
            out += e.key + " = " + native_value(e) + trailing(e, "#") + "\n";
        }
    }
    comments(out, doc.trailing_comments, "#");
    return out;
}

// Whether a YAML 1.1 reader (PyYAML, many tools) takes plain s for a number
// (its int and float forms) where ioplan's reader (YAML 1.2) keeps the text:
// base 60 (runtime 1:30 is 90, percentile_list 1:50 is 110), octal (0755),
// hex (0x10: verify_pattern 0xdeadbeef would be 3735928559), underscores (1_000).
bool yaml11_number(const std::string &s)
{
    static const std::regex number("[-+]?(0[0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?|"
                                   "[0-9][0-9_]*_[0-9_]*|[0-9][0-9_]*\\.[0-9_]*_[0-9_]*)");
    return std::regex_match(s, number);
}

// A YAML plain scalar when it cannot be read as anything but this string.
std::string yaml_scalar(const std::string &native)
{
    if (native.size() < 2 || native[0] != '"')
        return native;
    std::string s = native.substr(1, native.size() - 2);
    static const char *const words[] = {"true", "false", "null", "yes", "no", "on", "off", "~", "True", "False",
                                        "Null", "NULL", "TRUE", "FALSE", "Yes", "No", "Y", "N", "y", "n"};
    for (const char *w : words)
        if (s == w)
            return native;
    bool safe = !s.empty() && (std::isalnum((unsigned char)s[0]) || s[0] == '/' || s[0] == '.' || s[0] == '_') &&
                std::all_of(s.begin(), s.end(), [](char c) {
                    return std::isalnum((unsigned char)c) || std::strchr("_./,:-+$", c);
                });
    return safe && s.find(": ") == std::string::npos && !yaml11_number(s) ? s : native;
}

std::string write_yaml(const document &doc)
{
    std::string out;
    bool jobs_open = false;
    for (size_t i = 0; i < doc.sections.size(); i++) {
        const section &s = doc.sections[i];
        std::string ind = "    ";
        if (leading_global(doc, i)) {
            comments(out, s.comments, "#");
            out += "global:\n";
            ind = "  ";
        } else {
            if (!jobs_open)
                out += "jobs:\n";
            jobs_open = true;
            comments(out, s.comments, "#", "  ");
            if (s.is_global)
                out += "  - global: true\n    section: " + quoted(s.name) + "\n";
            else
                out += std::string("  - ") + (has_key(s, "name") ? "section" : "name") + ": " +
                       yaml_scalar(quoted(s.name)) + "\n";
        }
        for (const entry &e : unique_entries(s.entries)) {
            comments(out, e.comments, "#", ind);
            out += ind + e.key + ": " + yaml_scalar(native_value(e)) + trailing(e, "#") + "\n";
        }
    }
    comments(out, doc.trailing_comments, "#");
    return out;
}

} // namespace

std::string write_document(const document &doc, syntax to)
{
    switch (to) {
    case syntax::toml:
        return write_toml(doc);
    case syntax::yaml:
        return write_yaml(doc);
    default:
        return write_ini(doc);
    }
}

} // namespace parser

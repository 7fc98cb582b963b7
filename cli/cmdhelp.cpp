// cli/cmdhelp.cpp - renders the option table for humans (see cmdhelp.hpp).
#include <algorithm>
#include <cstdio>
#include <vector>

#include "cli/cmdhelp.hpp"
#include "parser/diag.hpp"
#include "parser/options.hpp"

namespace cli {

namespace {

std::string range_text(const parser::option &o)
{
    if (o.min > o.max)
        return "";
    char buf[80];
    snprintf(buf, sizeof buf, "%.15g..%.15g", o.min, o.max);
    return buf;
}

std::string aliases_text(const parser::option &o)
{
    std::string s;
    for (const char *a : o.aliases)
        s += (s.empty() ? "" : ", ") + std::string(a);
    return s;
}

void print_one(const parser::option &o, FILE *out)
{
    fprintf(out, "%s%s\n", o.name, o.ioplan_only ? "  (ioplan only; not an fio option)" : "");
    if (!o.aliases.empty())
        fprintf(out, "  aliases:  %s\n", aliases_text(o).c_str());
    fprintf(out, "  type:     %s%s%s\n", parser::opt_type_name(o.type), *o.unit ? ", unit " : "", o.unit);
    fprintf(out, "  default:  %s\n", o.def ? o.def : "(none)");
    if (!range_text(o).empty())
        fprintf(out, "  range:    %s\n", range_text(o).c_str());
    fprintf(out, "  category: %s\n  %s\n", o.category, o.help);
    for (const auto &c : o.choices)
        fprintf(out, "    %-14s %s\n", c.name, c.help);
}

std::string roff_escape(const std::string &s)
{
    std::string out;
    for (char c : s) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\''))
        out = "\\&" + out;
    return out;
}

// Roff text wrapped at blanks so no source line passes 80 bytes.  A line
// that would start with '.' or '\'' (a word the wrap put first) would be read
// as a macro: \& keeps it text.
void print_wrapped(const std::string &text, FILE *out)
{
    size_t col = 0, start = 0;
    while (start < text.size()) {
        size_t sp = text.find(' ', start);
        std::string word = text.substr(start, sp == std::string::npos ? std::string::npos : sp - start);
        if (col && col + 1 + word.size() > 78) {
            fputc('\n', out);
            col = 0;
        }
        if (!col && !word.empty() && (word[0] == '.' || word[0] == '\''))
            word = "\\&" + word;
        fprintf(out, "%s%s", col ? " " : "", word.c_str());
        col += (col ? 1 : 0) + word.size();
        start = sp == std::string::npos ? text.size() : sp + 1;
    }
    fputc('\n', out);
}

// What fio says of a kind of value on its "type:" line, by the kind fio parses
// the option as (a flag is its "empty or boolean" kind, a size list an integer).
const char *fio_type_text(parser::opt_type t)
{
    using parser::opt_type;
    switch (t) {
    case opt_type::flag:
        return "empty or boolean value ([0|1])";
    case opt_type::boolean:
        return "boolean value (opt=1)";
    case opt_type::integer:
    case opt_type::size:
    case opt_type::size_ddir:
    case opt_type::int_ddir:
        return "integer value (opt=100)";
    case opt_type::size_range:
    case opt_type::size_range_ddir:
        return "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])";
    case opt_type::time:
        return "string with time postfix (opt=10s)";
    case opt_type::float_list:
        return "list of floating point values separated by ':' (opt=5.9:7.8)";
    default:
        return "string (opt=bla)";
    }
}

// One option as fio explains it: its name and help right-aligned on 20
// columns, then alias, type, default, range (options without choices; a
// boolean's is 0..1, as fio's) and the choices, closed by an empty line.
void print_one_fio(const parser::option &o, FILE *out)
{
    fprintf(out, "%20s: %s\n", o.name, o.help);
    if (!o.aliases.empty())
        fprintf(out, "%20s: %s\n", "alias", aliases_text(o).c_str());
    fprintf(out, "%20s: %s\n", "type", fio_type_text(o.type));
    fprintf(out, "%20s: %s\n", "default", o.def ? o.def : "no default");
    if (o.type == parser::opt_type::boolean)
        fprintf(out, "%20s: min=0, max=1\n", "range");
    else if (o.choices.empty() && o.min <= o.max && o.type == parser::opt_type::float_list)
        fprintf(out, "%20s: min=%f, max=%f\n", "range", o.min, o.max);
    else if (o.choices.empty() && o.min <= o.max)
        fprintf(out, "%20s: min=%.0f, max=%.0f\n", "range", o.min, o.max);
    for (size_t i = 0; i < o.choices.size(); i++)
        fprintf(out, "%20s: %-10s %s\n", i ? "" : "valid values", o.choices[i].name, o.choices[i].help);
    fputc('\n', out);
}

} // namespace

int print_cmdhelp_fio(const std::string &name, const std::vector<const parser::option *> &among, FILE *out,
                      FILE *err)
{
    if (name == "all") {
        for (const parser::option *o : among)
            fprintf(out, "%-24s: %s\n", o->name, o->help);
        return 0;
    }
    const parser::option *o = parser::find_option(name);
    if (o && std::find(among.begin(), among.end(), o) != among.end()) {
        print_one_fio(*o, out);
        return 0;
    }
    // fio writes the line without its newline: the closest match, or an empty
    // line, ends it on stdout.
    fprintf(err, "No such command: %s", name.c_str());
    fflush(err);
    const parser::option *near = nullptr;
    size_t best = (size_t)-1;
    for (const parser::option *c : among) {
        size_t d = parser::edit_distance(name, c->name);
        if (d < best) {
            best = d;
            near = c;
        }
    }
    if (near && best < 3) {
        fprintf(out, " - showing closest match\n");
        print_one_fio(*near, out);
    } else
        fputc('\n', out);
    return 1;
}

bool print_cmdhelp(const std::string &name, FILE *out)
{
    if (name != "all") {
        const parser::option *o = parser::find_option(name);
        if (!o)
            return false;
        print_one(*o, out);
        return true;
    }
    // Each category once, in the order it first appears in the table: the
    // table is ordered for reading its source, not by category.
    std::vector<std::string> cats;
    for (const auto &o : parser::options())
        if (std::find(cats.begin(), cats.end(), o.category) == cats.end())
            cats.push_back(o.category);
    for (size_t i = 0; i < cats.size(); i++) {
        fprintf(out, "%s%s:\n", i ? "\n" : "", cats[i].c_str());
        for (const auto &o : parser::options())
            if (cats[i] == o.category)
                fprintf(out, "  %-28s %s\n", o.name, o.help);
    }
    return true;
}

void print_man_options(FILE *out)
{
    for (const auto &o : parser::options()) {
        fprintf(out, ".TP\n.B %s\n", roff_escape(o.name).c_str());
        std::string meta = parser::opt_type_name(o.type);
        if (*o.unit)
            meta += ", " + std::string(o.unit);
        if (o.def)
            meta += "; default " + std::string(*o.def ? o.def : "\"\"");
        if (!range_text(o).empty())
            meta += "; range " + range_text(o);
        if (!o.aliases.empty())
            meta += "; alias " + aliases_text(o);
        if (o.ioplan_only)
            meta += "; ioplan only";
        print_wrapped("(" + roff_escape(meta) + ") " + roff_escape(o.help), out);
        for (const auto &c : o.choices) {
            fprintf(out, ".RS\n.TP\n.B %s\n", roff_escape(c.name).c_str());
            print_wrapped(roff_escape(c.help), out);
            fputs(".RE\n", out);
        }
    }
}

} // namespace cli

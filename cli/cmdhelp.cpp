// cli/cmdhelp.cpp - renders the option table for humans (see cmdhelp.hpp).
#include <algorithm>
#include <cstdio>
#include <vector>

#include "cli/cmdhelp.hpp"
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

} // namespace

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

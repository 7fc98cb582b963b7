// cli/flags.hpp - the one table of ioplan's own command-line flags.
//
// Each row is a flag: its name, whether it takes a value, the value's name,
// its category, the line of help and the function that applies it.  The
// argument parser (args.cpp), `--help` and the option list of ioplan(1)
// (`make generate` puts --dump-man-flags into man/ioplan.1) all read this
// table, so a flag cannot work without being documented, nor the reverse.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "cli/args.hpp"

namespace cli {

enum class flag_arg { none, required, optional };

// What a handler may change while the command line is read.
struct flag_ctx {
    args &a;
    parser::section *&current_job; // the --name job that job options now go to
    int at;                        // argv index, for positioned errors
    std::string text;              // the argument as given
    bool has_value;

    [[noreturn]] void fail(const std::string &msg) const;
};

struct flag {
    const char *name;
    flag_arg arg;
    const char *value_name;        // "FILE" in --output=FILE
    const char *category;
    const char *help;              // one sentence; @FORMATS@ becomes the --output-format names
    void (*apply)(flag_ctx &, const std::string &value);
    const char *man = "";          // more mdoc text for ioplan(1), after the help sentence
    const char *alias = nullptr;   // a short form (-h)
};

const std::vector<flag> &flags();

// The row for a flag name or alias, or null.
const flag *find_flag(const std::string &name);

// A row's help sentence with @FORMATS@ filled in.
std::string flag_help(const flag &f);

// --help's option list, by category.
void print_flag_help(FILE *out);

// ioplan(1)'s option list: the .It items of its OPTIONS .Bl list.
void print_man_flags(FILE *out);

} // namespace cli

// cli/cmdhelp.hpp - option documentation generated from the option table:
// `--cmdhelp`, `--cmdhelp=OPT` and the man page's option list.
#pragma once

#include <string>

namespace cli {

// Prints every option (name == "all") or one; returns false when name is unknown.
bool print_cmdhelp(const std::string &name, FILE *out);

// The OPTIONS list of ioplan-job(5) in roff, one .TP entry per option.
void print_man_options(FILE *out);

} // namespace cli

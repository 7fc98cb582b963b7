// cli/cmdhelp.hpp - option documentation generated from the option table:
// `--cmdhelp`, `--cmdhelp=OPT` and the man page's option list.
#pragma once

#include <string>
#include <vector>

#include "parser/options.hpp"

namespace cli {

// Prints every option (name == "all") or one; returns false when name is unknown.
bool print_cmdhelp(const std::string &name, FILE *out);

// The same help in fio's layout, for ioplan run as fio: scripts test fio for an
// option with `fio --cmdhelp=NAME | grep -q 'NAME:'` and read its "default:" and
// "valid values:" lines.  name "all" lists every option of `among`, one a line;
// an unknown name is "No such command: NAME" on err and, as fio, the closest name
// of `among` within two edits explained on out.  Returns 0, or 1 for an unknown
// name (fio's --enghelp=ENGINE,OPTION status; its --cmdhelp exits 0 whatever).
int print_cmdhelp_fio(const std::string &name, const std::vector<const parser::option *> &among, FILE *out,
                      FILE *err);

// The OPTIONS list of ioplan-job(5) in roff, one .TP entry per option.
void print_man_options(FILE *out);

} // namespace cli

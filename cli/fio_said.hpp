// cli/fio_said.hpp - what fio 3.33 prints as it reads the jobs, run as fio.
//
// fio prints some lines while it parses (an opendir's count, the banner of a
// command-line job it adds before a later --output-format or --output takes
// effect); they go where its output stood at that moment, so a client that
// reads fio's stdout finds them there.
#pragma once

#include <cstdint>
#include <vector>

#include "cli/args.hpp"
#include "parser/parser.hpp"

namespace cli {

// Sets a.fio_said from the parser's lines and the command line's order, and
// prints now what fio would have printed on stdout before opening --output.
// False when stdout would not take them.
bool say_as_fio(const std::vector<parser::fio_line> &said, const plan &p, args &a);

} // namespace cli

// parser/writers.hpp - a document back to text in any of the three syntaxes
// (`ioplan convert`).  Comments kept by the INI reader are written where the
// target syntax has comments; converting back gives the same plan.
#pragma once

#include <string>

#include "parser/doc.hpp"
#include "parser/parser.hpp"

namespace parser {

std::string write_document(const document &doc, syntax to);

// Fails at its position on what INI cannot hold as read from TOML or YAML (a
// line break, ';' or '#', blanks at a value's ends, ']' or a "global..." job
// name): written anyway, the INI would read as other options or sections.
void check_ini_writable(const document &doc);

} // namespace parser

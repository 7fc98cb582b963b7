// parser/writers.hpp - a document back to text in any of the three syntaxes
// (`ioplan convert`).  Comments kept by the INI reader are written where the
// target syntax has comments; converting back gives the same plan.
#pragma once

#include <string>

#include "parser/doc.hpp"
#include "parser/parser.hpp"

namespace parser {

std::string write_document(const document &doc, syntax to);

} // namespace parser

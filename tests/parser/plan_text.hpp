// tests/parser/plan_text.hpp - a plan from job-file text through the real parser,
// so tests check what a user's file produces, not a hand-built plan.
#pragma once

#include <string>

#include "parser/ini.hpp"
#include "parser/parser.hpp"

namespace t {

inline parser::plan_ptr plan_of_ini(const std::string &text)
{
    parser::request req;
    parser::diag_list notes;
    return parser::plan_documents({parser::read_ini_text(text, "t.fio")}, req, &notes);
}

} // namespace t

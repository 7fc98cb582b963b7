// parser/diag.hpp - diagnostics: `path:line:col: error: message`, source line, caret.
//
// Every reader and the planner report problems through this one type so users
// see the same shape whatever syntax they wrote.  Errors are thrown as
// parser::error (the first syntax error stops reading); notes and warnings are
// collected in a diag_list and printed before the run.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "parser/doc.hpp"

namespace parser {

enum class severity { error, warning, note };

struct diag {
    severity sev = severity::error;
    loc where;
    std::string message;
};

// Renders d as the compiler-style text users read: header line, then the source
// line and a caret when the position is known, then "included from" notes.
std::string format_diag(const diag &d);

class error : public std::runtime_error {
public:
    explicit error(diag d) : std::runtime_error(d.message), d_(std::move(d)) {}
    const diag &get() const { return d_; }
    std::string text() const { return format_diag(d_); }

private:
    diag d_;
};

[[noreturn]] void fail(const loc &where, const std::string &message);

using diag_list = std::vector<diag>;

// Closest candidate by edit distance, or "" when nothing is close enough to be
// a plausible typo (used for "did you mean").
std::string closest(const std::string &word, const std::vector<std::string> &candidates);

} // namespace parser

// parser/diag.hpp - diagnostics: `path:line:col: error: message`, source line, caret.
//
// Every reader and the planner report problems through this one type so users
// see the same shape whatever syntax they wrote.  Errors are thrown as
// parser::error; the INI reader and the option layering collect every error of
// the job files first (error_sink, up to ERRORS_MAX), so one error does not hide
// the next.  Notes and warnings are collected in a diag_list and printed before
// the run.
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
    explicit error(diag d) : std::runtime_error(d.message), all_{std::move(d)} {}
    // Several errors at once (non-empty), in the order they are printed.
    error(std::vector<diag> all, bool truncated);
    const diag &get() const { return all_.front(); }
    const std::vector<diag> &all() const { return all_; }
    // Every error as format_diag renders it, then a note when the list was cut short.
    std::string text() const;

private:
    std::vector<diag> all_;
    bool truncated_ = false;
};

// The most errors reported for one run of the parser: a file in the wrong
// syntax would otherwise print one per line.
constexpr size_t ERRORS_MAX = 20;

// Collects errors instead of stopping at the first.
class error_sink {
public:
    // Keeps e's errors; throws the whole list once ERRORS_MAX are kept.
    void add(const error &e);
    void add(const diag &d);
    bool empty() const { return list_.empty(); }
    // Throws every kept error, ordered by file (first seen first), line and column.
    void throw_if_any() const;

private:
    std::vector<diag> list_;
    std::vector<diag> sorted() const;
};

[[noreturn]] void fail(const loc &where, const std::string &message);

using diag_list = std::vector<diag>;

// Levenshtein distance, letters compared without case.
size_t edit_distance(const std::string &a, const std::string &b);

// Closest candidate by edit distance, or "" when nothing is close enough to be
// a plausible typo (used for "did you mean").
std::string closest(const std::string &word, const std::vector<std::string> &candidates);

} // namespace parser

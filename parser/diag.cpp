// parser/diag.cpp - renders diagnostics and finds "did you mean" candidates.
#include "parser/diag.hpp"

#include <algorithm>
#include <cctype>

namespace parser {

namespace {

const char *severity_name(severity s)
{
    switch (s) {
    case severity::error: return "error";
    case severity::warning: return "warning";
    case severity::note: return "note";
    }
    return "error";
}

// The caret sits under the column; tabs in the prefix are kept so it lines up.
std::string caret_line(const loc &l)
{
    std::string pad;
    int n = std::max((l.text_col ? l.text_col : l.col) - 1, 0);
    for (int i = 0; i < n && i < (int)l.line_text.size(); i++)
        pad += l.line_text[i] == '\t' ? '\t' : ' ';
    return pad + "^";
}

// Source lines may hold control bytes (binary input); show them escaped.
std::string printable(const std::string &s)
{
    std::string out;
    for (unsigned char c : s) {
        if (c == '\t' || c >= 0x20) {
            out += (char)c;
        } else {
            char buf[8];
            snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

} // namespace

std::string format_diag(const diag &d)
{
    std::string out;
    const loc &l = d.where;
    if (l.known())
        out = l.path + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": ";
    else if (!l.path.empty())
        out = l.path + ": ";
    out += std::string(severity_name(d.sev)) + ": " + d.message + "\n";
    if (l.known() && !l.line_text.empty() && l.line_text.size() <= 512) {
        out += " " + printable(l.line_text) + "\n";
        out += " " + caret_line(l) + "\n";
    }
    for (auto p = l.included_from; p; p = p->included_from)
        out += p->path + ":" + std::to_string(p->line) + ":" + std::to_string(p->col) +
               ": note: included from here\n";
    return out;
}

void fail(const loc &where, const std::string &message)
{
    throw error(diag{severity::error, where, message});
}

error::error(std::vector<diag> all, bool truncated)
    : std::runtime_error(all.front().message), all_(std::move(all)), truncated_(truncated)
{
}

std::string error::text() const
{
    std::string out;
    for (const diag &d : all_)
        out += format_diag(d);
    if (truncated_)
        out += "note: stopping after " + std::to_string(ERRORS_MAX) + " errors\n";
    return out;
}

void error_sink::add(const diag &d)
{
    list_.push_back(d);
    if (list_.size() >= ERRORS_MAX)
        throw error(sorted(), true);
}

void error_sink::add(const error &e)
{
    for (const diag &d : e.all())
        add(d);
}

void error_sink::throw_if_any() const
{
    if (!list_.empty())
        throw error(sorted(), false);
}

std::vector<diag> error_sink::sorted() const
{
    std::vector<std::string> files; // in the order first seen
    for (const diag &d : list_)
        if (std::find(files.begin(), files.end(), d.where.path) == files.end())
            files.push_back(d.where.path);
    auto rank = [&](const diag &d) { return std::find(files.begin(), files.end(), d.where.path) - files.begin(); };
    std::vector<diag> out = list_;
    std::stable_sort(out.begin(), out.end(), [&](const diag &a, const diag &b) {
        if (rank(a) != rank(b))
            return rank(a) < rank(b);
        return a.where.line != b.where.line ? a.where.line < b.where.line : a.where.col < b.where.col;
    });
    return out;
}

size_t edit_distance(const std::string &a, const std::string &b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); j++)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); i++) {
        size_t diag_prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); j++) {
            size_t up = row[j];
            bool same = std::tolower((unsigned char)a[i - 1]) == std::tolower((unsigned char)b[j - 1]);
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag_prev + (same ? 0 : 1)});
            diag_prev = up;
        }
    }
    return row[b.size()];
}

std::string closest(const std::string &word, const std::vector<std::string> &candidates)
{
    std::string best;
    size_t best_d = (size_t)-1;
    for (const auto &c : candidates) {
        size_t d = edit_distance(word, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    // A third of the word (at least 1, at most 3 edits) still reads as a typo.
    size_t limit = std::min<size_t>(3, std::max<size_t>(1, word.size() / 3));
    return best_d <= limit ? best : "";
}

} // namespace parser

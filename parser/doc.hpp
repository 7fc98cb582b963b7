// parser/doc.hpp - the format-neutral job document every reader produces.
//
// INI, TOML and YAML readers (and the DISKSPD front end, through INI text) all
// turn their input into this: ordered sections of ordered key/value entries,
// each carrying the position it came from.  Everything after reading -- option
// lookup, value parsing, planning, diagnostics -- works on this shape only, so
// the three syntaxes cannot drift apart.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace parser {

// A place in a source text: 1-based line and column, the line's text for the
// caret display, and the include chain that led there.
struct loc {
    std::string path;
    int line = 0;
    int col = 0;
    std::string line_text;
    std::shared_ptr<const loc> included_from;
    // The caret's column in line_text when it is not col: on the command line
    // col counts arguments ("<command line>:1:3" is argv[3]), and the caret
    // goes under the character within that argument.
    int text_col = 0;

    // Moves the place n characters on within its text.
    void advance(int n) { (text_col ? text_col : col) += n; }

    bool known() const { return line > 0; }
};

struct entry {
    std::string key;        // as written (after ${VAR} expansion), trimmed
    std::string value;      // "" for a bare flag
    bool has_value = false; // key=value rather than a bare key
    loc key_loc;
    loc value_loc;
    std::vector<std::string> comments; // whole-line comments just above, without the marker
    std::string trailing_comment;      // on the same line, without the marker
    // Written with ${VAR} (or read from an include named with one): may differ
    // from rank to rank by design (${IOPLAN_RANK}), so ranks do not compare it.
    bool substituted = false;
    // INI's key= value or the argument '--key= value': a blank between '=' and
    // the value, which fio 3.33 keeps in the value (apply_entry refuses it where
    // fio would read another value).  value has it on the command line only.
    bool blank_after_eq = false;
    // A blank at the value's end that fio 3.33 keeps there: an argument's
    // ('--rw=write '), or one a job file's ${VAR} brings (fio strips the line's
    // end before it expands it); apply_entry refuses it where fio would read
    // another value.  value has it on the command line only.
    bool blank_at_end = false;
};

struct section {
    std::string name;       // header text between [ and ], inner blanks kept
    bool is_global = false; // fio: any name starting with "global"
    loc header_loc;
    std::vector<entry> entries;
    std::vector<std::string> comments; // whole-line comments just above the header
};

struct document {
    std::string path;       // as given on the command line ("<cmdline>" etc.)
    std::vector<section> sections;
    std::vector<std::string> trailing_comments; // after the last entry
    std::vector<std::string> included; // files include lines read, as opened (no output may replace them)
};

} // namespace parser

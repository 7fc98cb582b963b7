// parser/ini.hpp - fio's INI job-file syntax, read into a parser::document.
//
// Follows fio 3.33's reader (reference/fio.md §1.1): cumulative [global]
// sections, ';'/'#' comments anywhere on a line, `include` spliced into the
// current section (relative to the including file), ${VAR} expansion in option
// lines, CRLF and a UTF-8 BOM.  Unlike fio it rejects a header without ']'
// with a positioned error; an undefined ${VAR} is "" as in fio, with a warning.
#pragma once

#include <functional>
#include <string>

#include "parser/diag.hpp"
#include "parser/doc.hpp"

namespace parser {

// Looks up ${VAR}; returns false when VAR is not set.  Defaults to getenv.
using env_lookup = std::function<bool(const std::string &name, std::string *value)>;

// The longest line accepted, as fio's 8 KiB line buffer.
constexpr size_t INI_MAX_LINE = 8191;

struct ini_options {
    env_lookup env;                 // empty: the process environment
    // ${VAR} in option values is kept as written, not looked up (convert: a
    // template stays one); names, keys and include paths are still expanded.
    bool vars_as_written = false;
    // The longest line accepted; 0: any (text ioplan wrote itself, such as a
    // DISKSPD command line's translation, whose filename= lists every target).
    size_t max_line = INI_MAX_LINE;
    // Where the reader puts the errors of the lines it skipped; nullptr: it
    // throws them all (parser::error) once the file is read.
    error_sink *errors = nullptr;
    // Where an unset ${VAR} is said (fio reads it as ""); nullptr: the
    // planner's notes (build_plan).
    diag_list *warnings = nullptr;
    // When set, each section is handed here once read (at the next header, or
    // the end of the file) and then dropped: the document keeps none of them
    // (--parse-only checks a file of many sections without holding it).
    std::function<void(const section &)> on_section;
};

// Reads the file at path: a line in error is skipped and reported with every
// other one (see ini_options::errors).
document read_ini_file(const std::string &path, const ini_options &opts = {});

// Reads INI text held in memory (DISKSPD translation, presets, tests);
// display_name is what diagnostics call it.  Includes resolve relative to base_dir.
document read_ini_text(const std::string &text, const std::string &display_name,
                       const std::string &base_dir = ".", const ini_options &opts = {});

// Replaces every ${VAR} in text (an option line's key or value starting at
// `at`); an unset variable is the empty string, as in fio, with a warning
// positioned at its '${' in opts.warnings.
std::string expand_vars(const std::string &text, loc at, const ini_options &opts);


} // namespace parser

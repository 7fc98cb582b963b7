// parser/structured.hpp - what the TOML and YAML readers share.
//
// Both forms are a `global` table of options and an ordered `jobs` list of
// tables.  In a job, `name` is the section name unless `section` is given (then
// `name` is fio's display-name option); `global: true` marks a job-list entry
// as a global section, for files whose globals sit between jobs.  `include`
// names files of the same syntax holding a flat table of options.  Native
// booleans, numbers and lists become the option text the INI form would have.
#pragma once

#include <string>
#include <vector>

#include "parser/doc.hpp"
#include "parser/ini.hpp"

namespace parser {

// The lines of a text, for carets under positions the structured parsers report.
struct source_text {
    std::string path;
    std::string dir;
    std::vector<std::string> lines;
    std::shared_ptr<const loc> included_from;

    source_text(std::string p, const std::string &text, std::shared_ptr<const loc> from = nullptr);
    loc at(int line, int col) const; // 1-based
};

// Separator that joins a list value for this option (':' for paths and
// percentile lists, ',' for read,write,trim lists).
char list_separator(const std::string &key);

// A native boolean as option text: true on a flag option is the bare flag.
void set_bool_value(entry &e, bool v);

// Reserved keys of a job table, which are not options.
bool is_reserved_job_key(const std::string &key);

document read_toml_text(const std::string &text, const std::string &display_name, const std::string &base_dir,
                        const ini_options &opts);
document read_yaml_text(const std::string &text, const std::string &display_name, const std::string &base_dir,
                        const ini_options &opts);

// Both throw parser::error for unreadable files.
document read_toml_file(const std::string &path, const ini_options &opts);
document read_yaml_file(const std::string &path, const ini_options &opts);

// Reads a whole file; false when it cannot be read (or is a directory).
bool slurp(const std::string &path, std::string *out);

// An included file named at `at`: looked up next to the including file, then
// as given; its text into *text.  Returns the path read; fails when missing or
// nested too deep.
std::string read_include(const std::string &name, const loc &at, int depth, std::string *text);

// A job file read whole and handed to one of the read_*_text functions.
using text_reader = document (*)(const std::string &, const std::string &, const std::string &, const ini_options &);
document read_file_with(const std::string &path, const ini_options &opts, text_reader read);

} // namespace parser

// parser/structured.hpp - what the TOML and YAML readers share.
//
// Both forms are a `global` table of options and an ordered `jobs` list of
// tables.  In a job, `name` is the section name unless `section` is given (then
// `name` is fio's display-name option); `global: true` marks a job-list entry
// as a global section, for files whose globals sit between jobs.  `include`
// names files of the same syntax holding a flat table of options.  Native
// booleans, numbers and lists become the option text the INI form would have.
#pragma once

#include <cstdint>
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

// A position in text that is not UTF-8 fails there (yaml-cpp takes any bytes;
// toml++ checks by itself).
void check_utf8(const std::string &text, const source_text &src);

// TOML and YAML strings may hold "\u0000", which C strings further on would cut
// short: a name, key or value holding one fails at its position.
void check_no_nul(const document &doc);

// Separator that joins a list value for this option (':' for paths and
// percentile lists, ',' for read,write,trim lists).
char list_separator(const std::string &key);

// A list given to an option that takes one value (iodepth = [1, 2]) fails at
// `at`; an unknown key is left to the unknown-option error.
void check_takes_list(const std::string &key, const loc &at);

// A list whose items cannot mean what they read as: a bssplit list is one split
// per direction (read, write, trim), so bssplit: [4k/80, 64k/20] gives the reads
// 4k/80 alone, every read 4 KiB.  checks_list_items says whether key's list is
// checked; check_list_items fails at the first of its first three items (at,
// one each) whose shares are all given and add up to less than 100%, naming the
// one split the items were likely meant to be.
bool checks_list_items(const std::string &key);
void check_list_items(const std::vector<std::string> &items, const std::vector<loc> &at);

// The option keys of one TOML table or YAML map.  Two keys naming one option
// (bs and blocksize) fail at the second, as one key written twice does: INI's
// last-one-wins has no place where a key is unique.
class option_keys {
public:
    void add(const std::string &key, const loc &at);

private:
    std::vector<std::pair<const void *, entry>> seen_; // the option, its key's name and place
};

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

// Job files are read a chunk at a time, so /dev/zero, /dev/urandom or an
// endless FIFO cannot make ioplan read without bound: reading stops at the first
// NUL byte or over-long line (which the reader then reports where it is), or
// past max_bytes.
constexpr size_t JOB_FILE_MAX = 16u << 20;

// What reading one job file may cost beyond its own text.  Each file read is
// bounded (JOB_FILE_MAX), but not how often an include is read again: nine
// files of ten lines, each including the next ten times, are 10^8 includes
// (ioplan grew without end reading them), and one YAML anchor of 1 MiB named
// 100 000 times in a list is a value of 100 GB.  One budget per job file, its
// includes and their values with it; past a limit it fails where it is.
constexpr size_t INCLUDES_MAX = 65536;
constexpr size_t VALUES_MAX = 4 * JOB_FILE_MAX;

class read_budget {
public:
    // Before an include is read: fails at `at` once INCLUDES_MAX were read.
    void include_opened(const loc &at);
    // After it is read: fails once the included text comes to more than JOB_FILE_MAX.
    void include_read(size_t bytes, const loc &at);
    // An option's value as made (YAML aliases and ${VAR} expanded): fails once
    // the values come to more than VALUES_MAX.
    void value_made(size_t bytes, const loc &at);
    // A limit was passed: the INI reader, which goes on past a line in error,
    // reads no further include (each would be refused again).
    bool spent() const { return spent_; }

private:
    size_t includes_ = 0, include_bytes_ = 0, value_bytes_ = 0;
    bool spent_ = false;
    [[noreturn]] void over(const loc &at, const std::string &what);
};

// What diagnostics call the job file read from stdin (`ioplan -`, as fio).
constexpr const char *STDIN_NAME = "<stdin>";

struct read_limits {
    size_t max_bytes = JOB_FILE_MAX;
    size_t max_line = 0;        // 0: lines of any length
    bool dash_is_stdin = false; // "-" reads standard input
};

enum class read_status { ok, unreadable, too_large };

// Reads the file at path (not a directory) within lim into *out; unreadable
// leaves errno saying why (EISDIR for a directory).
read_status read_bounded(const std::string &path, const read_limits &lim, std::string *out);

// A binary input's bytes (a trace, a compressed log): a directory or a device
// is refused ("a device, not a <what>": /dev/zero would never end), and a pipe
// past pipe_max bytes; a regular file is read whole.  False with why in *err.
bool read_file_bytes(const std::string &path, const char *what, size_t pipe_max, std::vector<uint8_t> *buf,
                     std::string *err);

// A job file's text (`what` names it in errors: "job file", "included file 'x'");
// ini applies INI's line limit while reading.  Fails at `at` when it cannot be
// read or is too large; a top-level (at.line == 0) "-" is standard input.
void read_job_text(const std::string &path, const loc &at, bool ini, const char *what, std::string *text);

// An included file named at `at`: looked up next to the including file, then
// as given; its text into *text.  Returns the path read; fails when missing or
// nested too deep, or past the budget of the job file that includes it.
std::string read_include(const std::string &name, const loc &at, int depth, read_budget &budget, std::string *text);

// A TOML or YAML file's include takes files of its own syntax (`own`: "TOML",
// "YAML"); one whose name says another (.fio, .ini; .toml; .yaml, .yml) fails at
// `at` saying so, where its text would have failed as a parse error of its first line.
void check_include_syntax(const std::string &name, const char *own, const loc &at);

// path with its links and dots resolved (as it is when it cannot be).
std::string real_path(const std::string &path);

// A job file read whole and handed to one of the read_*_text functions.
using text_reader = document (*)(const std::string &, const std::string &, const std::string &, const ini_options &);
document read_file_with(const std::string &path, const ini_options &opts, text_reader read);

} // namespace parser

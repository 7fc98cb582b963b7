// parser/structured.cpp - helpers shared by the TOML and YAML readers.
#include "parser/structured.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "parser/diag.hpp"
#include "parser/options.hpp"

namespace parser {

source_text::source_text(std::string p, const std::string &text, std::shared_ptr<const loc> from)
    : path(std::move(p)), included_from(std::move(from))
{
    size_t slash = path.rfind('/');
    dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(line);
    }
}

loc source_text::at(int line, int col) const
{
    std::string text = line >= 1 && line <= (int)lines.size() ? lines[line - 1] : "";
    return loc{path, line, col, text, included_from};
}

char list_separator(const std::string &key)
{
    const option *o = find_option(key);
    if (o && (o->type == opt_type::path_list || o->type == opt_type::float_list))
        return ':';
    return ',';
}

// iodepth = [1, 2] was iodepth=1,2, of which fio and ioplan read the 1 (with a
// note), and size = ["1m"] was size=1m: the schema refused both.
void check_takes_list(const std::string &key, const loc &at)
{
    const option *o = find_option(key);
    if (o && !takes_list(*o))
        fail(at, "option '" + key + "' takes one value, not a list");
}

namespace {

// The shares of a bssplit item ("4k/80:64k/20"), summed; -1 when one is left
// out (fio divides the rest among those) or the item is not plain text.
double split_shares(const std::string &item)
{
    if (item.find("${") != std::string::npos)
        return -1;
    double sum = 0;
    size_t at = 0;
    while (at <= item.size()) {
        size_t end = item.find(':', at);
        std::string part = item.substr(at, end == std::string::npos ? std::string::npos : end - at);
        size_t slash = part.find('/');
        if (slash == std::string::npos || slash + 1 == part.size())
            return -1;
        char *stop = nullptr;
        double pct = std::strtod(part.c_str() + slash + 1, &stop);
        if (stop == part.c_str() + slash + 1)
            return -1;
        sum += pct;
        if (end == std::string::npos)
            break;
        at = end + 1;
    }
    return sum;
}

const char *direction_word(size_t index)
{
    return index == 0 ? "reads'" : index == 1 ? "writes'" : "trims'";
}

} // namespace

bool checks_list_items(const std::string &key)
{
    const option *o = find_option(key);
    return o && std::string(o->name) == "bssplit";
}

void check_list_items(const std::vector<std::string> &items, const std::vector<loc> &at)
{
    for (size_t i = 0; i < items.size() && i < at.size(); i++) {
        double sum = split_shares(items[i]);
        if (sum < 0 || sum >= 100)
            continue;
        std::string one;
        for (const std::string &x : items)
            one += (one.empty() ? "" : ":") + x;
        char pct[32];
        std::snprintf(pct, sizeof(pct), "%g", sum);
        fail(at[i], "bssplit's list gives one split per direction (read, write, trim): '" + items[i] +
                        "' is the " + direction_word(i) + " whole split, and its shares add up to " + pct +
                        "%, not 100 (every one of those I/Os takes one of its sizes); for one split of "
                        "several sizes write them in one item, '" + one + "'");
    }
}

void option_keys::add(const std::string &key, const loc &at)
{
    const option *o = find_option(key);
    if (!o)
        return; // unknown: the option's own error says so
    for (const auto &[opt, e] : seen_)
        if (opt == o && e.key != key)
            fail(at, "duplicate key '" + key + "': it names the same option as '" + e.key + "' at line " +
                         std::to_string(e.key_loc.line) + " (" + o->name + ")");
    entry e;
    e.key = key;
    e.key_loc = at;
    seen_.emplace_back(o, std::move(e));
}

namespace {

// Whether true or false means something for o: a switch (flag, boolean), a
// number whose range ends at 1 (uncached, io_uring's nonvectored -1..1), or a
// choice named "1" or "0" (sync=1, fallocate=0).
bool takes_bool(const option &o, bool v)
{
    const char *text = v ? "1" : "0";
    switch (o.type) {
    case opt_type::flag:
    case opt_type::boolean:
        return true;
    case opt_type::integer:
        return o.min <= o.max && o.max <= 1 && o.min <= (v ? 1 : 0) && (v ? 1 : 0) <= o.max;
    case opt_type::choice:
        return std::any_of(o.choices.begin(), o.choices.end(),
                           [&](const opt_choice &c) { return std::strcmp(c.name, text) == 0; });
    default:
        return false;
    }
}

} // namespace

void set_bool_value(entry &e, bool v)
{
    const option *o = find_option(e.key);
    // bs = true was a block of one byte, and rw = true "'1' is not a valid rw".
    if (o && !takes_bool(*o, v))
        fail(e.value_loc, "bad value for " + e.key + ": " + (v ? "true" : "false") +
                              " is a boolean, and " + e.key + " is not an on/off option");
    if (v && o && o->type == opt_type::flag) {
        e.has_value = false;
        e.value.clear();
        return;
    }
    e.has_value = true;
    e.value = v ? "1" : "0";
}

bool is_reserved_job_key(const std::string &key)
{
    return key == "section" || key == "global" || key == "include";
}

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 (overlong forms, surrogates
// and code points past U+10FFFF are invalid).
size_t utf8_length(const std::string &s, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; k++)
        if (((unsigned char)s[i + k] & 0xC0) != 0x80)
            return 0;
    unsigned char c1 = (unsigned char)(n > 1 ? s[i + 1] : 0);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90))
        return 0;
    return n;
}

void no_nul(const std::string &text, const loc &at, const char *what)
{
    if (text.find('\0') != std::string::npos)
        fail(at, std::string("a NUL character (\\u0000) in ") + what + " '" + text.c_str() + "...': names and values are text");
}

} // namespace

void check_utf8(const std::string &text, const source_text &src)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < text.size();) {
        size_t n = utf8_length(text, i);
        if (!n) {
            char hex[8];
            snprintf(hex, sizeof hex, "0x%02x", (unsigned char)text[i]);
            fail(src.at(line, col), std::string("invalid UTF-8 (byte ") + hex + "): a job file is UTF-8 text");
        }
        line += text[i] == '\n';
        col = text[i] == '\n' ? 1 : col + 1;
        i += n;
    }
}

void check_no_nul(const document &doc)
{
    for (const section &s : doc.sections) {
        no_nul(s.name, s.header_loc, "the job name");
        for (const entry &e : s.entries) {
            no_nul(e.key, e.key_loc, "the key");
            no_nul(e.value, e.value_loc, "the value");
        }
    }
}

namespace {

// Whether the text read so far already shows it is not what we want: a NUL
// byte, or a line (from `from` on) longer than max_line.  The reader's own
// checks then report it at its position, so nothing more needs reading.
bool shows_garbage(const std::string &text, size_t from, size_t max_line)
{
    if (text.find('\0', from) != std::string::npos)
        return true;
    if (!max_line)
        return false;
    size_t bol = from ? text.rfind('\n', from - 1) : std::string::npos;
    bol = bol == std::string::npos ? 0 : bol + 1;
    for (size_t nl; (nl = text.find('\n', bol)) != std::string::npos; bol = nl + 1)
        if (nl - bol > max_line + 1) // + 1: a CRLF's '\r'
            return true;
    return text.size() - bol > max_line + 1;
}

read_status read_fd(int fd, const read_limits &lim, std::string *out)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return read_status::unreadable;
        if (n == 0)
            return read_status::ok;
        size_t from = out->size();
        out->append(buf, (size_t)n);
        if (shows_garbage(*out, from, lim.max_line))
            return read_status::ok;
        if (out->size() > lim.max_bytes)
            return read_status::too_large;
    }
}

} // namespace

read_status read_bounded(const std::string &path, const read_limits &lim, std::string *out)
{
    out->clear();
    if (lim.dash_is_stdin && path == "-")
        return read_fd(0, lim, out);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        return read_status::unreadable;
    bool dir = fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode);
    read_status st = dir ? read_status::unreadable : read_fd(fd, lim, out);
    int err = dir ? EISDIR : errno;
    close(fd);
    errno = err;  // why it was unreadable, for the caller's message
    return st;
}

namespace {

bool read_bytes_fd(int fd, size_t max, std::vector<uint8_t> *buf, std::string *err)
{
    uint8_t chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *err = std::strerror(errno);
            return false;
        }
        if (n == 0)
            return true;
        buf->insert(buf->end(), chunk, chunk + n);
        if (buf->size() > max) {
            *err = "more than " + std::to_string(max >> 20) + " MiB from a pipe";
            return false;
        }
    }
}

} // namespace

bool read_file_bytes(const std::string &path, const char *what, size_t pipe_max, std::vector<uint8_t> *buf,
                     std::string *err)
{
    buf->clear();
    err->clear();
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *err = std::strerror(errno);
        return false;
    }
    struct stat st;
    bool ok = fstat(fd, &st) == 0;
    if (!ok)
        *err = std::strerror(errno);
    else if (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        *err = std::string(S_ISDIR(st.st_mode) ? "a directory" : "a device") + ", not a " + what;
    ok = ok && err->empty() && read_bytes_fd(fd, S_ISREG(st.st_mode) ? SIZE_MAX : pipe_max, buf, err);
    close(fd);
    return ok;
}

void read_job_text(const std::string &path, const loc &at, bool ini, const char *what, std::string *text)
{
    read_limits lim;
    lim.max_line = ini ? INI_MAX_LINE : 0;
    lim.dash_is_stdin = at.line == 0; // the top-level file, not an include
    loc where = at;
    if (lim.dash_is_stdin && path == "-")
        where.path = STDIN_NAME;
    switch (read_bounded(path, lim, text)) {
    case read_status::ok:
        return;
    case read_status::too_large:
        fail(where, std::string(what) + " is larger than " + std::to_string(JOB_FILE_MAX >> 20) +
                     " MiB: this is not a job file");
    default:
        fail(where, "cannot read " + std::string(what) + ": " + std::strerror(errno));
    }
}

std::string real_path(const std::string &path)
{
    char buf[PATH_MAX];
    return realpath(path.c_str(), buf) ? std::string(buf) : path;
}

void read_budget::over(const loc &at, const std::string &what)
{
    spent_ = true;
    fail(at, what + ": this is not a job file");
}

void read_budget::include_opened(const loc &at)
{
    if (++includes_ > INCLUDES_MAX)
        over(at, "more than " + std::to_string(INCLUDES_MAX) +
                     " includes read for one job file (files that include each other again and again?)");
}

void read_budget::include_read(size_t bytes, const loc &at)
{
    include_bytes_ += bytes;
    if (include_bytes_ > JOB_FILE_MAX)
        over(at, "the files included come to more than " + std::to_string(JOB_FILE_MAX >> 20) + " MiB");
}

void read_budget::value_made(size_t bytes, const loc &at)
{
    value_bytes_ += bytes;
    if (value_bytes_ > VALUES_MAX)
        over(at, "the option values come to more than " + std::to_string(VALUES_MAX >> 20) +
                     " MiB (aliases or ${VAR}s repeated?)");
}

namespace {

// The syntax a file's name says by its extension; "" when it says none.
std::string named_syntax(const std::string &name)
{
    size_t dot = name.rfind('.'), slash = name.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return "";
    std::string ext = name.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return (char)std::tolower(c); });
    if (ext == "toml")
        return "TOML";
    if (ext == "yaml" || ext == "yml")
        return "YAML";
    if (ext == "fio" || ext == "ini")
        return "INI";
    return "";
}

} // namespace

void check_include_syntax(const std::string &name, const char *own, const loc &at)
{
    std::string named = named_syntax(name);
    if (!named.empty() && named != own)
        fail(at, "include '" + name + "': a " + own + " job file includes files of " + own +
                     " options, and this one is " + named + " by its name; write its options as " + own +
                     " or include it from an INI job file");
}

std::string read_include(const std::string &name, const loc &at, int depth, read_budget &budget, std::string *text)
{
    if (depth >= 16)
        fail(at, "includes nested more than 16 deep");
    std::string path = name[0] == '/' ? name : at.path.substr(0, at.path.rfind('/') + 1) + name;
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0 && stat(name.c_str(), &sb) == 0)
        path = name;
    // The files being read: the one naming the include, and those that included it.
    std::string real = real_path(path);
    for (const loc *l = &at; l; l = l->included_from.get())
        if (real_path(l->path) == real)
            fail(at, "include loop: '" + name + "' is already being read");
    budget.include_opened(at);
    read_job_text(path, at, false, ("included file '" + name + "'").c_str(), text);
    budget.include_read(text->size(), at);
    return path;
}

document read_file_with(const std::string &path, const ini_options &opts, text_reader read)
{
    std::string text;
    read_job_text(path, loc{path, 0, 0, "", nullptr}, false, "job file", &text);
    return read(text, path == "-" ? STDIN_NAME : path, ".", opts);
}

} // namespace parser

// parser/ini.cpp - the INI reader: the grammar of parser/ini_grammar.hpp
// applied line by line.
//
// fio reads job files a line at a time, so the grammar is one rule per line
// kind; every point where a line can go wrong is a named rule with its own
// message (PEGTL must_if), so errors read "expected ']' ..." rather than a rule
// name.  Lines, includes and sections are tracked here; values stay text.
#include "parser/ini.hpp"

#include <cctype>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include <tao/pegtl.hpp>

#include "parser/diag.hpp"
#include "parser/ini_grammar.hpp"
#include "parser/structured.hpp"
#include "parser/values.hpp"

namespace parser {

namespace {

// A job file value as fio 3.33 has it before it expands ${VAR}: its line's end
// stripped (strip_blank_end: blanks and control characters).
std::string strip_end(const std::string &s)
{
    size_t n = s.size();
    while (n > 0 && (std::isspace((unsigned char)s[n - 1]) || std::iscntrl((unsigned char)s[n - 1])))
        n--;
    return s.substr(0, n);
}

struct line_state {
    enum { blank, header, include, option } kind = blank;
    std::string text, value, comment;
    int col = 0, value_col = 0, eq_col = 0;
    bool has_value = false;
    bool has_comment = false;
};

template <typename Rule>
struct action : tao::pegtl::nothing<Rule> {};

template <>
struct action<g::comment> {
    template <typename In>
    static void apply(const In &in, line_state &s)
    {
        s.has_comment = true;
        s.comment = in.string().substr(1);
        if (!s.comment.empty() && s.comment[0] == ' ')
            s.comment.erase(0, 1);
    }
};

template <>
struct action<g::sec_name> {
    template <typename In>
    static void apply(const In &in, line_state &s)
    {
        s.kind = line_state::header;
        s.text = in.string();
        s.col = (int)in.position().column;
    }
};

template <>
struct action<g::inc_path> {
    template <typename In>
    static void apply(const In &in, line_state &s)
    {
        s.kind = line_state::include;
        s.text = trim(in.string());
        s.col = (int)in.position().column;
    }
};

template <>
struct action<g::key> {
    template <typename In>
    static void apply(const In &in, line_state &s)
    {
        s.kind = line_state::option;
        s.text = in.string();
        s.col = (int)in.position().column;
    }
};

template <>
struct action<g::value> {
    template <typename In>
    static void apply(const In &in, line_state &s)
    {
        s.has_value = true;
        s.value = trim(in.string());
        s.value_col = (int)in.position().column;
    }
};

template <>
struct action<g::assign> {
    template <typename In>
    static void apply(const In &in, line_state &s)
    {
        s.eq_col = (int)in.position().column;
    }
};

} // namespace
} // namespace parser

namespace parser {

namespace {

// A section header inside an included file: fio stops reading the includes
// there (an error it reports and runs on past), thrown up to the top file.
struct section_in_include {
    loc at;
    std::string header;
};

struct source {
    std::string path;     // as displayed
    std::string dir;      // for relative includes
    std::string real;     // for include-loop detection
    std::shared_ptr<const loc> included_from;
    bool substituted = false; // an include named with ${VAR}
};

class reader {
public:
    reader(document &doc, const ini_options &opts) : doc_(doc), opts_(opts) {}

    void read_text(const std::string &text, const source &src, int depth);
    // Hands the last section over (opts.on_section), then the errors of the
    // skipped lines (opts.errors), or throws them.
    void finish();

private:
    error_sink own_errors_;
    document &doc_;
    const ini_options &opts_;
    std::vector<std::string> chain_; // real paths of the files being read
    read_budget budget_;             // what this job file's includes and values may cost
    std::vector<std::string> pending_comments_; // kept for `ioplan convert`
    // The include that ended its section (it started one of its own): what
    // follows it before the next header has no section, as in fio.
    std::shared_ptr<const loc> section_ended_at_;

    void read_line(const std::string &line, int lineno, const source &src, int depth);
    void check_bytes(const std::string &text, const source &src);
    void add_option(const line_state &st, const loc &at, const source &src);
    void include(const line_state &st, const loc &at, const source &src, int depth);
    void read_include(const std::string &path, const std::string &name, const line_state &st, const loc &at,
                      const source &src, int depth);
    std::string expand(const std::string &text, loc at);
    void skipped(const std::string &line, const error &e);
    void hand_over(size_t keep);
};

// A header line the grammar refuses ("[bs=64K", "[a]]", "[a] x"), read as fio
// 3.33 reads it, since real job files carry such typos and fio runs them: its
// comment cut off at the first ';' or '#', trailing blanks too, then the text
// after '[' less its last character (whatever that is) names the section.
// Returns that text ("" when the line is no such header: fio refuses a lone
// "[" too).
std::string loose_header(const std::string &line, line_state *st)
{
    size_t open = line.find_first_not_of(" \t");
    if (open == std::string::npos || line[open] != '[')
        return "";
    size_t cut = line.find_first_of(";#", open);
    std::string text = line.substr(open + 1, cut == std::string::npos ? std::string::npos : cut - open - 1);
    size_t end = text.find_last_not_of(" \t\r\f\v");
    text.resize(end == std::string::npos ? 0 : end + 1);
    if (text.empty())
        return "";
    st->kind = line_state::header;
    st->text = text.substr(0, text.size() - 1);
    st->col = (int)open + 2;
    return text;
}

// What a loose header is read as, and how to write what was likely meant.
std::string loose_header_note(const std::string &why, const std::string &text, const std::string &name)
{
    std::string note = why + ": fio 3.33 reads the line as the job '" + name +
                       "' (the text after '[' less its last character), and so does ioplan";
    if (text.find(']') == std::string::npos)
        note += "; [" + text + "] names it '" + text + "' in both";
    return note;
}

// A bad header still opens a section, so its options are not each reported
// as "outside of a [section]" too.
void reader::skipped(const std::string &line, const error &e)
{
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '[')
        doc_.sections.push_back(section{line.substr(first + 1), false, e.get().where, {}, {}});
    (opts_.errors ? *opts_.errors : own_errors_).add(e);
}

void reader::finish()
{
    hand_over(0);
    own_errors_.throw_if_any();
}

// The sections read whole go to opts.on_section, outside the line's error
// handling: what the receiver throws is its own, not a line's error.
void reader::hand_over(size_t keep)
{
    if (!opts_.on_section)
        return;
    while (doc_.sections.size() > keep) {
        opts_.on_section(doc_.sections.front());
        doc_.sections.erase(doc_.sections.begin());
    }
}

std::string dir_of(const std::string &path)
{
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

loc make_loc(const source &src, int line, int col, const std::string &text)
{
    return loc{src.path, line, col, text, src.included_from};
}

void reader::check_bytes(const std::string &text, const source &src)
{
    size_t nul = text.find('\0');
    if (nul == std::string::npos)
        return;
    int line = 1 + (int)std::count(text.begin(), text.begin() + (long)nul, '\n');
    size_t bol = text.rfind('\n', nul);
    int col = (int)(nul - (bol == std::string::npos ? 0 : bol + 1)) + 1;
    fail(make_loc(src, line, col, ""), "binary data (a NUL byte): this is not a job file");
}

void reader::read_text(const std::string &text0, const source &src, int depth)
{
    check_bytes(text0, src);
    std::string text = text0;
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
        text.erase(0, 3);
    chain_.push_back(src.real);
    int lineno = 0;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        try {
            read_line(line, ++lineno, src, depth);
        } catch (const error &e) {
            skipped(line, e);
        }
        if (depth == 0) // the section being read stays: its options may follow
            hand_over(1);
        if (nl == std::string::npos)
            break;
        start = nl + 1;
    }
    chain_.pop_back();
    if (depth == 0)
        doc_.trailing_comments = std::move(pending_comments_);
}

void reader::read_line(const std::string &line, int lineno, const source &src, int depth)
{
    if (opts_.max_line && line.size() > opts_.max_line)
        fail(make_loc(src, lineno, (int)opts_.max_line + 1, ""),
             "line is longer than " + std::to_string(opts_.max_line) + " bytes");
    line_state st;
    try {
        tao::pegtl::memory_input<> in(line, src.path);
        tao::pegtl::parse<g::line, action, g::control>(in, st);
    } catch (const tao::pegtl::parse_error &e) {
        int col = e.positions().empty() ? 1 : (int)e.positions().front().column;
        std::string text = loose_header(line, &st);
        if (text.empty())
            fail(make_loc(src, lineno, col, line), std::string(e.message()));
        if (opts_.warnings)
            opts_.warnings->push_back(diag{severity::warning, make_loc(src, lineno, col, line),
                                           loose_header_note(std::string(e.message()), text, st.text)});
    }
    loc at = make_loc(src, lineno, st.col, line);
    if (depth > 0)
        st.has_comment = false; // an include's comments stay in the include
    switch (st.kind) {
    case line_state::blank:
        if (st.has_comment)
            pending_comments_.push_back(st.comment);
        return;
    case line_state::header:
        if (depth > 0)
            throw section_in_include{at, st.text};
        section_ended_at_.reset();
        doc_.sections.push_back(section{st.text, st.text.compare(0, 6, "global") == 0, at, {}, {}});
        doc_.sections.back().comments = std::move(pending_comments_);
        pending_comments_.clear();
        return;
    case line_state::include:
        include(st, at, src, depth);
        return;
    case line_state::option:
        add_option(st, at, src);
        return;
    }
}

std::string reader::expand(const std::string &text, loc at)
{
    return expand_vars(text, at, opts_);
}

void reader::add_option(const line_state &st, const loc &at, const source &src)
{
    if (doc_.sections.empty())
        fail(at, "option '" + st.text + "' outside of a [section]");
    if (section_ended_at_)
        fail(at, "option '" + st.text + "' outside of a [section]: the include at line " +
                     std::to_string(section_ended_at_->line) +
                     " started a section of its own, which ends this one there (fio 3.33 refuses the job file too)");
    entry e;
    e.key = expand(st.text, at);
    e.key_loc = at;
    e.has_value = st.has_value;
    e.value_loc = at;
    e.value_loc.col = st.has_value ? st.value_col : at.col + (int)st.text.size();
    // fio strips the line's end, then expands ${VAR}: blanks a variable brings
    // stay in the value (RW='write ' is an error there, BS=' 16k' 16 bytes).
    std::string value = !st.has_value ? "" : opts_.vars_as_written ? st.value : expand(strip_end(st.value), e.value_loc);
    // fio expands ${VAR} in the whole line before it splits it: a variable
    // may hold a whole name=value (OPTS="bs=8k" then a line ${OPTS}).
    size_t eq = st.has_value ? std::string::npos : e.key.find('=');
    if (eq != std::string::npos) {
        value = e.key.substr(eq + 1);
        e.key = trim(e.key.substr(0, eq));
        e.has_value = true;
    }
    e.value = trim(value);
    e.blank_after_eq = !e.value.empty() && ((st.has_value && st.value_col > st.eq_col + 1) ||
                                            std::isspace((unsigned char)value.front()));
    e.blank_at_end = !e.value.empty() && !opts_.vars_as_written && std::isspace((unsigned char)value.back());
    budget_.value_made(e.key.size() + e.value.size(), at);
    e.substituted = src.substituted || st.text.find("${") != std::string::npos ||
                    st.value.find("${") != std::string::npos;
    e.comments = std::move(pending_comments_);
    pending_comments_.clear();
    if (st.has_comment)
        e.trailing_comment = st.comment;
    doc_.sections.back().entries.push_back(std::move(e));
}

void reader::include(const line_state &st, const loc &at, const source &src, int depth)
{
    if (depth >= 16)
        fail(at, "includes nested more than 16 deep");
    if (doc_.sections.empty())
        fail(at, "include outside of a [section] (fio 3.33 refuses it there too)");
    if (budget_.spent()) // said once, where it was passed
        return;
    // ${VAR} in the name too, so ranks of one mpirun run can include
    // host-${IOPLAN_HOST}.fio (fio reads the name as written).
    std::string name = expand(st.text, at);
    std::string path = name;
    struct stat sb;
    if (path[0] != '/' && stat(path.c_str(), &sb) != 0)
        path = dir_of(at.path) + "/" + name;
    std::string real = real_path(path);
    for (const auto &r : chain_)
        if (r == real)
            fail(at, "include loop: '" + name + "' is already being read");
    doc_.included.push_back(path);
    read_include(path, name, st, at, source{path, dir_of(path), real, std::make_shared<const loc>(at),
                                               src.substituted || name != st.text}, depth);
}

// fio reads no section from an included file: at the first header it stops
// reading every include open, forgets all they gave (its options before the
// header too), ends the including section at the top file's include line and
// runs the jobs, saying "No new sections in included files".  Kept as a warning.
void reader::read_include(const std::string &path, const std::string &name, const line_state &st, const loc &at,
                          const source &inc, int depth)
{
    std::string text;
    budget_.include_opened(at);
    read_job_text(path, at, true, ("included file '" + name + "'").c_str(), &text);
    budget_.include_read(text.size(), at);
    if (depth > 0) {
        read_text(text, inc, depth + 1);
        return;
    }
    size_t kept = doc_.sections.empty() ? 0 : doc_.sections.back().entries.size();
    try {
        read_text(text, inc, depth + 1);
    } catch (const section_in_include &s) {
        chain_.resize(1);
        doc_.sections.back().entries.resize(kept);
        section_ended_at_ = std::make_shared<const loc>(at);
        if (opts_.warnings)
            opts_.warnings->push_back(diag{severity::warning, s.at,
                                           "included files cannot start sections ([" + s.header +
                                               "]): as fio 3.33, the include '" + st.text +
                                               "' is read no further, gives none of its options, and ends the "
                                               "section that includes it"});
    }
}

} // namespace

// ${VAR} from the environment; an unset one is "", as fio reads it (fio says
// nothing; ioplan warns, naming the variable and where it is used).
std::string expand_vars(const std::string &text, loc at, const ini_options &opts)
{
    std::string out;
    int base = at.col;
    for (size_t i = 0; i < text.size(); i++) {
        size_t open = text.find("${", i);
        if (open == std::string::npos) { // the rest is plain text, copied at once
            out.append(text, i, std::string::npos);
            break;
        }
        out.append(text, i, open - i);
        i = open;
        size_t close = text.find('}', i);
        at.col = base + (int)i;
        if (close == std::string::npos)
            fail(at, "'${' without a closing '}'");
        std::string name = text.substr(i + 2, close - i - 2), value;
        bool found = false;
        if (opts.env) {
            found = opts.env(name, &value);
        } else if (const char *v = getenv(name.c_str())) {
            found = true;
            value = v;
        }
        if (!found && opts.warnings)
            opts.warnings->push_back(diag{severity::warning, at,
                                          "environment variable '" + name + "' is not set: read as an empty string, as fio does"});
        out += value;
        i = close;
    }
    return out;
}

document read_ini_text(const std::string &text, const std::string &display_name, const std::string &base_dir,
                       const ini_options &opts)
{
    document doc;
    doc.path = display_name;
    reader r(doc, opts);
    r.read_text(text, source{display_name, base_dir, display_name, nullptr}, 0);
    r.finish();
    return doc;
}

document read_ini_file(const std::string &path, const ini_options &opts)
{
    std::string text;
    read_job_text(path, loc{path, 0, 0, "", nullptr}, true, "job file", &text);
    if (path == "-")
        return read_ini_text(text, STDIN_NAME, ".", opts);
    document doc;
    doc.path = path;
    reader r(doc, opts);
    r.read_text(text, source{path, dir_of(path), real_path(path), nullptr}, 0);
    r.finish();
    return doc;
}

} // namespace parser

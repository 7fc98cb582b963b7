// parser/toml_reader.cpp - TOML job files (toml++) into the common document.
//
// toml++ keeps tables sorted by key, so entries are put back in source order
// by their positions: option order is echoed in reports and must match the
// INI form of the same job.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include <toml++/toml.h>

#include "parser/diag.hpp"
#include "parser/options.hpp"
#include "parser/structured.hpp"
#include "parser/structured_walk.hpp"

namespace parser {

namespace {

class toml_reader {
public:
    toml_reader(document &doc, const ini_options &opts, read_budget &budget) : doc_(doc), opts_(opts), budget_(budget)
    {
    }
    void read(const std::string &text, const source_text &src, int depth);

private:
    document &doc_;
    const ini_options &opts_;
    read_budget &budget_; // the top file's, shared by its includes

    loc where(const toml::source_region &r, const source_text &src) const
    {
        return src.at((int)r.begin.line, (int)r.begin.column);
    }
    std::vector<std::pair<const toml::key *, const toml::node *>> ordered(const toml::table &t) const;
    void read_section(section &s, const toml::table &t, const source_text &src, bool job, int depth);
    void add_entry(section &s, const toml::key &k, const toml::node &v, const source_text &src);
    std::string scalar_text(const toml::node &v, const std::string &key, const loc &at) const;
    std::string expanded(entry &e, const toml::node &v, const std::string &text, const loc &at) const;
    void include(section &s, const toml::node &v, const loc &at, int depth);
    section job_section(const toml::table &t, const loc &at, const source_text &src);
    friend struct toml_syntax;
};

// What walk_job_file asks of a TOML file's nodes.
struct toml_syntax {
    toml_reader &r;
    using node = const toml::node *;
    using member = walk_member<node>;
    using item = walk_item<node>;
    static constexpr const char *GLOBAL_NOT_MAP = "'global' must be a table ([global])";
    static constexpr const char *JOBS_NOT_LIST = "'jobs' must be a list of tables ([[jobs]])";
    static constexpr const char *TOP_KEYS = "(a job file has [global] and [[jobs]])";

    std::vector<member> members(node root, const source_text &src) const
    {
        std::vector<member> out;
        for (auto &[k, v] : r.ordered(*root->as_table()))
            out.push_back({std::string(k->str()), r.where(k->source(), src), v});
        return out;
    }
    std::vector<item> items(node list, const source_text &src) const
    {
        std::vector<item> out;
        for (auto &v : *list->as_array())
            out.push_back({r.where(v.source(), src), &v});
        return out;
    }
    bool is_map(node v) const { return v->is_table(); }
    bool is_job_list(node v) const { return v->is_array_of_tables(); }
    section job_section(node v, const loc &at, const source_text &src) { return r.job_section(*v->as_table(), at, src); }
    void read_section(section &s, node v, const source_text &src, bool job, int depth)
    {
        r.read_section(s, *v->as_table(), src, job, depth);
    }
};

std::vector<std::pair<const toml::key *, const toml::node *>> toml_reader::ordered(const toml::table &t) const
{
    std::vector<std::pair<const toml::key *, const toml::node *>> out;
    for (auto &&[k, v] : t)
        out.emplace_back(&k, &v);
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) {
        const auto &x = a.first->source().begin, &y = b.first->source().begin;
        return x.line != y.line ? x.line < y.line : x.column < y.column;
    });
    return out;
}

// A pattern's hexadecimal integer as written at `at` (0x00ff stays 0x00ff, TOML's 0xdead_beef
// is 0xdeadbeef): fio reads a pattern written 0x... (buffer_pattern, verify_pattern)
// as those bytes, and a decimal number as an int of another size and byte order,
// so 255 would not do.  Its value in hex when the text is not at `at`.
static std::string hex_as_written(int64_t value, const loc &at)
{
    const std::string &t = at.line_text;
    size_t i = at.col > 0 ? (size_t)at.col - 1 : t.size();
    std::string out = "0x";
    if (i + 2 <= t.size() && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
        for (i += 2; i < t.size() && (std::isxdigit((unsigned char)t[i]) || t[i] == '_'); i++)
            if (t[i] != '_')
                out += t[i];
        if (out.size() > 2)
            return out;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)value);
    return buf;
}

// The options whose value fio reads as bytes when written 0x..., a number else.
static bool is_pattern_option(const std::string &key)
{
    const option *o = find_option(key);
    return o && (std::strcmp(o->name, "buffer_pattern") == 0 || std::strcmp(o->name, "verify_pattern") == 0);
}

std::string toml_reader::scalar_text(const toml::node &v, const std::string &key, const loc &at) const
{
    if (auto s = v.as_string())
        return s->get();
    if (auto i = v.as_integer())
        return i->flags() == toml::value_flags::format_as_hexadecimal && is_pattern_option(key)
                   ? hex_as_written(i->get(), at)
                   : std::to_string(i->get());
    if (auto f = v.as_floating_point()) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.15g", f->get());
        return buf;
    }
    if (auto b = v.as_boolean())
        return b->get() ? "1" : "0";
    fail(at, "option '" + key + "' must be a string, a number, a boolean or a list of those");
}

void toml_reader::add_entry(section &s, const toml::key &k, const toml::node &v, const source_text &src)
{
    entry e;
    e.key = std::string(k.str());
    e.key_loc = where(k.source(), src);
    e.value_loc = where(v.source(), src);
    e.has_value = true;
    if (auto b = v.as_boolean()) {
        set_bool_value(e, b->get());
    } else if (auto arr = v.as_array()) {
        check_takes_list(e.key, e.value_loc);
        char sep = list_separator(e.key);
        bool check = checks_list_items(e.key);
        std::vector<std::string> items;
        std::vector<loc> item_at;
        for (size_t i = 0; i < arr->size(); i++) {
            const toml::node &item = *arr->get(i);
            std::string text = scalar_text(item, e.key, where(item.source(), src));
            std::string value = expanded(e, item, text, where(item.source(), src));
            e.value += (i ? std::string(1, sep) : "") + value;
            if (check && i < 3) {
                items.push_back(value);
                item_at.push_back(where(item.source(), src));
            }
        }
        check_list_items(items, item_at);
    } else {
        e.value = expanded(e, v, scalar_text(v, e.key, e.value_loc), e.value_loc);
    }
    s.entries.push_back(std::move(e));
}

// A string's ${VAR}s, a list's items' too: INI expands the whole value, so
// cpus_allowed = ["${CPU}", "3"] is cpus_allowed=${CPU},3.
std::string toml_reader::expanded(entry &e, const toml::node &v, const std::string &text, const loc &at) const
{
    if (!v.is_string())
        return text;
    e.substituted = e.substituted || text.find("${") != std::string::npos;
    return opts_.vars_as_written ? text : expand_vars(text, at, opts_);
}

void toml_reader::include(section &s, const toml::node &v, const loc &at, int depth)
{
    std::vector<std::string> files;
    if (auto str = v.as_string())
        files.push_back(str->get());
    else if (auto arr = v.as_array())
        for (size_t i = 0; i < arr->size(); i++)
            files.push_back(scalar_text(*arr->get(i), "include", at));
    else
        fail(at, "include must be a file name or a list of file names");
    for (const auto &f : files) {
        check_include_syntax(f, "TOML", at);
        std::string text;
        std::string path = read_include(f, at, depth, budget_, &text);
        document inc;
        toml_reader r(inc, opts_, budget_);
        r.read(text, source_text(path, text, std::make_shared<const loc>(at)), depth + 1);
        for (auto &sec : inc.sections)
            for (auto &e : sec.entries)
                s.entries.push_back(std::move(e));
    }
}

void toml_reader::read_section(section &s, const toml::table &t, const source_text &src, bool job, int depth)
{
    option_keys keys;
    for (auto &[k, v] : ordered(t)) {
        std::string key(k->str());
        if (key == "include") {
            include(s, *v, where(k->source(), src), depth);
            continue;
        }
        if (job && is_reserved_job_key(key))
            continue;
        if (job && key == "name" && !t.contains("section"))
            continue;
        if (v->is_table())
            fail(where(k->source(), src), "option '" + key + "' must be a value, not a table");
        keys.add(key, where(k->source(), src));
        add_entry(s, *k, *v, src);
    }
}

section toml_reader::job_section(const toml::table &t, const loc &at, const source_text &src)
{
    section s;
    s.header_loc = at;
    const toml::node *sec = t.get("section");
    const toml::node *name = t.get("name");
    auto gl = t.get("global");
    s.is_global = gl && gl->as_boolean() && gl->as_boolean()->get();
    const toml::node *label = sec ? sec : name;
    if (label && !label->is_string())
        fail(where(label->source(), src), "a job's section name must be a string");
    if (label)
        s.name = label->as_string()->get();
    else if (s.is_global)
        s.name = "global";
    else
        fail(at, "a [[jobs]] entry needs name = \"...\" (or section = \"...\")");
    if (label)
        s.header_loc = where(label->source(), src);
    return s;
}

void toml_reader::read(const std::string &text, const source_text &src, int depth)
{
    toml::table root;
    try {
        root = toml::parse(text, src.path);
    } catch (const toml::parse_error &err) {
        fail(where(err.source(), src), std::string(err.description()));
    }
    toml_syntax syn{*this};
    walk_job_file(syn, doc_, toml_syntax::node(&root), src, depth);
}

} // namespace

document read_toml_text(const std::string &text, const std::string &display_name, const std::string &base_dir,
                        const ini_options &opts)
{
    (void)base_dir;
    document doc;
    doc.path = display_name;
    read_budget budget;
    toml_reader(doc, opts, budget).read(text, source_text(display_name, text), 0);
    check_no_nul(doc);
    return doc;
}

document read_toml_file(const std::string &path, const ini_options &opts)
{
    return read_file_with(path, opts, read_toml_text);
}

} // namespace parser

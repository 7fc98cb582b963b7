// parser/yaml_reader.cpp - YAML job files (yaml-cpp) into the common document.
//
// yaml-cpp keeps map order and positions but accepts duplicate keys silently,
// so duplicates are detected here: in a job file they are always a mistake.
// Plain scalars true/false are booleans; quoted ones are strings.
#include <cstring>
#include <set>
#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "parser/diag.hpp"
#include "parser/structured.hpp"
#include "parser/structured_walk.hpp"

namespace parser {

namespace {

class yaml_reader {
public:
    yaml_reader(document &doc, const ini_options &opts, read_budget &budget) : doc_(doc), opts_(opts), budget_(budget)
    {
    }
    void read(const std::string &text, const source_text &src, int depth);

private:
    document &doc_;
    const ini_options &opts_;
    read_budget &budget_; // the top file's, shared by its includes

    loc where(const YAML::Mark &m, const source_text &src) const { return src.at(m.line + 1, m.column + 1); }
    void check_unique(const YAML::Node &map, const source_text &src) const;
    void read_section(section &s, const YAML::Node &map, const source_text &src, bool job, int depth);
    void add_entry(section &s, const std::string &key, const YAML::Node &k, const YAML::Node &v, const source_text &src);
    std::string scalar_text(const YAML::Node &v, const std::string &key, const loc &at) const;
    std::string expanded(entry &e, const std::string &text, const loc &at) const;
    void include(section &s, const YAML::Node &v, const loc &at, int depth);
    section job_section(const YAML::Node &map, const loc &at, const source_text &src);
    YAML::Node load(const std::string &text, const source_text &src) const;
    friend struct yaml_syntax;
};

// What walk_job_file asks of a YAML file's nodes.
struct yaml_syntax {
    yaml_reader &r;
    using node = YAML::Node;
    using member = walk_member<node>;
    using item = walk_item<node>;
    static constexpr const char *GLOBAL_NOT_MAP = "'global' must be a map of options";
    static constexpr const char *JOBS_NOT_LIST = "'jobs' must be a list (each job starts with '- name: ...')";
    static constexpr const char *TOP_KEYS = "(a job file has 'global' and 'jobs')";

    std::vector<member> members(const node &root, const source_text &src) const
    {
        std::vector<member> out;
        for (auto it = root.begin(); it != root.end(); ++it)
            out.push_back({it->first.Scalar(), r.where(it->first.Mark(), src), it->second});
        return out;
    }
    std::vector<item> items(const node &list, const source_text &src) const
    {
        std::vector<item> out;
        for (size_t i = 0; i < list.size(); i++)
            out.push_back({r.where(list[i].Mark(), src), list[i]});
        return out;
    }
    bool is_map(const node &v) const { return v.IsMap(); }
    bool is_job_list(const node &v) const { return v.IsSequence(); }
    section job_section(const node &v, const loc &at, const source_text &src) { return r.job_section(v, at, src); }
    void read_section(section &s, const node &v, const source_text &src, bool job, int depth)
    {
        r.read_section(s, v, src, job, depth);
    }
};

bool is_plain_bool(const YAML::Node &v, bool *value)
{
    if (!v.IsScalar() || v.Tag() != "?")
        return false;
    const std::string &s = v.Scalar();
    if (s == "true" || s == "True" || s == "TRUE")
        *value = true;
    else if (s == "false" || s == "False" || s == "FALSE")
        *value = false;
    else
        return false;
    return true;
}

void yaml_reader::check_unique(const YAML::Node &map, const source_text &src) const
{
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
        std::string key = it->first.Scalar();
        if (!seen.insert(key).second)
            fail(where(it->first.Mark(), src), "duplicate key '" + key + "'");
    }
}

std::string yaml_reader::scalar_text(const YAML::Node &v, const std::string &key, const loc &at) const
{
    bool b = false;
    if (is_plain_bool(v, &b))
        return b ? "1" : "0";
    if (v.IsNull())
        fail(at, "option '" + key + "' has no value");
    if (!v.IsScalar())
        fail(at, "option '" + key + "' must be a string, a number, a boolean or a list of those");
    return v.Scalar();
}

// A plain null, Null, NULL or ~ written as an option's value: YAML reads it as
// no value at all, where a fio user converting ioengine=null meant the word.
bool written_null(const loc &at)
{
    size_t c = at.col > 0 ? (size_t)at.col - 1 : 0;
    for (const char *w : {"null", "Null", "NULL", "~"}) {
        size_t n = std::strlen(w);
        if (at.line_text.compare(c, n, w) == 0 &&
            (c + n == at.line_text.size() || std::strchr(" \t,]}", at.line_text[c + n])))
            return true;
    }
    return false;
}

void yaml_reader::add_entry(section &s, const std::string &key, const YAML::Node &k, const YAML::Node &v,
                            const source_text &src)
{
    loc at = where(v.Mark(), src);
    if (v.IsNull() && written_null(at))
        fail(at, "option '" + key + "': a plain null is YAML's null, no value at all; write \"null\" in "
                 "quotes for the word (ioengine: \"null\" is fio's null engine)");
    entry e;
    e.key = key;
    e.key_loc = where(k.Mark(), src);
    e.value_loc = v.IsNull() ? e.key_loc : at;
    e.has_value = true;
    bool b = false;
    if (is_plain_bool(v, &b)) {
        set_bool_value(e, b);
    } else if (v.IsSequence()) {
        check_takes_list(key, e.value_loc);
        char sep = list_separator(key);
        // Counted item by item: an alias repeated in the list must fail before
        // the value it would make is held.
        bool check = checks_list_items(key);
        std::vector<std::string> items;
        std::vector<loc> item_at;
        for (size_t i = 0; i < v.size(); i++) {
            std::string item = expanded(e, scalar_text(v[i], key, e.value_loc), where(v[i].Mark(), src));
            budget_.value_made(item.size() + 1, e.value_loc);
            e.value += (i ? std::string(1, sep) : "") + item;
            if (check && i < 3) {
                items.push_back(item);
                item_at.push_back(where(v[i].Mark(), src));
            }
        }
        check_list_items(items, item_at);
    } else {
        e.value = expanded(e, scalar_text(v, key, e.value_loc), e.value_loc);
        budget_.value_made(e.value.size(), e.value_loc);
    }
    s.entries.push_back(std::move(e));
}

// A value's ${VAR}s, a list's items' too: INI expands the whole value, so
// cpus_allowed: ["${CPU}", 3] is cpus_allowed=${CPU},3.
std::string yaml_reader::expanded(entry &e, const std::string &text, const loc &at) const
{
    e.substituted = e.substituted || text.find("${") != std::string::npos;
    return opts_.vars_as_written ? text : expand_vars(text, at, opts_);
}

void yaml_reader::include(section &s, const YAML::Node &v, const loc &at, int depth)
{
    std::vector<std::string> files;
    if (v.IsScalar())
        files.push_back(v.Scalar());
    else if (v.IsSequence())
        for (size_t i = 0; i < v.size(); i++)
            files.push_back(scalar_text(v[i], "include", at));
    else
        fail(at, "include must be a file name or a list of file names");
    for (const auto &f : files) {
        check_include_syntax(f, "YAML", at);
        std::string text;
        std::string path = read_include(f, at, depth, budget_, &text);
        document inc;
        yaml_reader(inc, opts_, budget_).read(text, source_text(path, text, std::make_shared<const loc>(at)), depth + 1);
        for (auto &sec : inc.sections)
            for (auto &e : sec.entries)
                s.entries.push_back(std::move(e));
    }
}

void yaml_reader::read_section(section &s, const YAML::Node &map, const source_text &src, bool job, int depth)
{
    check_unique(map, src);
    option_keys keys;
    for (auto it = map.begin(); it != map.end(); ++it) {
        std::string key = it->first.Scalar();
        if (key == "include") {
            include(s, it->second, where(it->first.Mark(), src), depth);
            continue;
        }
        if ((job && is_reserved_job_key(key)) || (job && key == "name" && !map["section"]))
            continue;
        // yaml-cpp reads a merge key as a key like any other; it was "option '<<' must
        // be a value, not a map".
        if (key == "<<" && it->first.Tag() == "?")
            fail(where(it->first.Mark(), src), "'<<' is a YAML merge key, which a job file does not take "
                                               "(YAML 1.2 has none): options shared by jobs go in 'global'");
        if (it->second.IsMap())
            fail(where(it->first.Mark(), src), "option '" + key + "' must be a value, not a map");
        keys.add(key, where(it->first.Mark(), src));
        add_entry(s, key, it->first, it->second, src);
    }
}

section yaml_reader::job_section(const YAML::Node &map, const loc &at, const source_text &src)
{
    section s;
    s.header_loc = at;
    YAML::Node label = map["section"] ? map["section"] : map["name"];
    bool global = false;
    s.is_global = map["global"] && is_plain_bool(map["global"], &global) && global;
    if (label && !label.IsScalar())
        fail(where(label.Mark(), src), "a job's section name must be a string");
    if (label) {
        s.name = label.Scalar();
        s.header_loc = where(label.Mark(), src);
    } else if (s.is_global) {
        s.name = "global";
    } else {
        fail(at, "a jobs entry needs name: ... (or section: ...)");
    }
    return s;
}

// Notes whether a document holds anything, and where it starts.
class content_probe : public YAML::EventHandler {
public:
    bool any = false;
    YAML::Mark at;

    void OnDocumentStart(const YAML::Mark &) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark &, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark &m, YAML::anchor_t) override { seen(m); }
    void OnScalar(const YAML::Mark &m, const std::string &, YAML::anchor_t, const std::string &) override { seen(m); }
    void OnSequenceStart(const YAML::Mark &m, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override
    {
        seen(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark &m, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override
    {
        seen(m);
    }
    void OnMapEnd() override {}

private:
    void seen(const YAML::Mark &m)
    {
        if (!any)
            at = m;
        any = true;
    }
};

// The one document of a YAML text: a later one ("---") would otherwise be
// dropped without a word.  Not YAML::LoadAll: yaml-cpp 0.7's loops forever,
// growing, on some malformed input (jbeder/yaml-cpp#1319); the parser is asked
// for exactly two documents instead.
YAML::Node yaml_reader::load(const std::string &text, const source_text &src) const
{
    YAML::Node root;
    check_utf8(text, src);
    try {
        root = YAML::Load(text);
        std::istringstream in(text);
        YAML::Parser parser(in);
        content_probe first, second;
        if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second) && second.any)
            fail(where(second.at, src), "a second YAML document: a job file holds one (its jobs go in one 'jobs' list)");
    } catch (const YAML::DeepRecursion &err) {
        fail(where(err.mark, src), "lists and maps nested too deeply (job options are values or flat lists)");
    } catch (const YAML::Exception &err) {
        fail(where(err.mark, src), err.msg);
    }
    return root;
}

void yaml_reader::read(const std::string &text, const source_text &src, int depth)
{
    YAML::Node root = load(text, src);
    if (root.IsNull() && depth == 0)
        fail(src.at(0, 0), "empty job file");
    if (!root.IsMap())
        fail(where(root.Mark(), src), depth ? "an included file must be a map of options"
                                            : "a job file is a map with 'global' and 'jobs'");
    if (depth == 0)
        check_unique(root, src);
    yaml_syntax syn{*this};
    walk_job_file(syn, doc_, root, src, depth);
}

} // namespace

document read_yaml_text(const std::string &text, const std::string &display_name, const std::string &base_dir,
                        const ini_options &opts)
{
    (void)base_dir;
    document doc;
    doc.path = display_name;
    read_budget budget;
    yaml_reader(doc, opts, budget).read(text, source_text(display_name, text), 0);
    check_no_nul(doc);
    return doc;
}

document read_yaml_file(const std::string &path, const ini_options &opts)
{
    return read_file_with(path, opts, read_yaml_text);
}

} // namespace parser

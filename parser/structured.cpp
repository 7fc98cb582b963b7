// parser/structured.cpp - helpers shared by the TOML and YAML readers.
#include "parser/structured.hpp"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

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

void set_bool_value(entry &e, bool v)
{
    const option *o = find_option(e.key);
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

bool slurp(const std::string &path, std::string *out)
{
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0 || S_ISDIR(sb.st_mode))
        return false;
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return false;
    std::ostringstream ss;
    ss << f.rdbuf();
    *out = ss.str();
    return true;
}

std::string read_include(const std::string &name, const loc &at, int depth, std::string *text)
{
    if (depth >= 16)
        fail(at, "includes nested more than 16 deep");
    std::string path = name[0] == '/' ? name : at.path.substr(0, at.path.rfind('/') + 1) + name;
    if (slurp(path, text))
        return path;
    if (slurp(name, text))
        return name;
    fail(at, "cannot read included file '" + name + "'");
}

document read_file_with(const std::string &path, const ini_options &opts, text_reader read)
{
    std::string text;
    if (!slurp(path, &text))
        fail(loc{path, 0, 0, "", nullptr}, "cannot read job file");
    return read(text, path, ".", opts);
}

} // namespace parser

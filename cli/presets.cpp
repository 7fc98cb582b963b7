// cli/presets.cpp - finding presets and reading their description lines.
#include "cli/presets.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <unistd.h>

namespace cli {

namespace {

std::string exe_dir()
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return "";
    std::string path(buf, (size_t)n);
    return path.substr(0, path.rfind('/'));
}

bool is_dir(const std::string &path)
{
    DIR *d = opendir(path.c_str());
    if (d)
        closedir(d);
    return d != nullptr;
}

// Description and output format from the opening comment block.
void read_header(preset_info *p)
{
    std::ifstream in(p->path);
    std::string line;
    const std::string fmt_tag = "; output-format:";
    while (std::getline(in, line) && !line.empty() && (line[0] == ';' || line[0] == '#')) {
        size_t dash = line.find(" - ");
        if (p->description.empty() && dash != std::string::npos)
            p->description = line.substr(dash + 3);
        if (line.compare(0, fmt_tag.size(), fmt_tag) == 0) {
            p->output_format = line.substr(fmt_tag.size());
            p->output_format.erase(0, p->output_format.find_first_not_of(' '));
        }
    }
}

} // namespace

std::vector<std::string> preset_dirs()
{
    std::vector<std::string> dirs;
    // IOPLAN_DATADIR, when set, is the only place: a relocated install or a
    // package says where its presets are, and nothing else is looked at.
    const char *env = getenv("IOPLAN_DATADIR");
    if (env && *env) {
        if (is_dir(std::string(env) + "/jobs"))
            dirs.push_back(std::string(env) + "/jobs");
        return dirs;
    }
    std::string here = exe_dir();
    // The source tree (ioplan, or build/<variant>/ioplan), then an installed tree
    // relative to the binary (PREFIX/bin -> PREFIX/share/ioplan, whatever PREFIX
    // was at build time), then the data directory compiled in.
    std::vector<std::string> candidates = {std::string(IOPLAN_DATADIR) + "/jobs"};
    if (!here.empty())
        candidates.insert(candidates.begin(), {here + "/jobs", here + "/../../jobs", here + "/../share/ioplan/jobs"});
    for (const std::string &d : candidates)
        if (is_dir(d) && std::find(dirs.begin(), dirs.end(), d) == dirs.end())
            dirs.push_back(d);
    return dirs;
}

std::vector<preset_info> list_presets()
{
    std::vector<preset_info> out;
    for (const std::string &dir : preset_dirs()) {
        DIR *d = opendir(dir.c_str());
        if (!d)
            continue;
        while (struct dirent *e = readdir(d)) {
            std::string file = e->d_name;
            if (file.size() < 5 || file.compare(file.size() - 4, 4, ".fio") != 0)
                continue;
            preset_info p{file.substr(0, file.size() - 4), dir + "/" + file, "", ""};
            auto same = [&](const preset_info &q) { return q.name == p.name; };
            if (std::none_of(out.begin(), out.end(), same)) {
                read_header(&p);
                out.push_back(p);
            }
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end(), [](const preset_info &a, const preset_info &b) { return a.name < b.name; });
    return out;
}

bool find_preset(const std::string &name, preset_info *out)
{
    for (const preset_info &p : list_presets())
        if (p.name == name) {
            *out = p;
            return true;
        }
    return false;
}

} // namespace cli

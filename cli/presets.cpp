// cli/presets.cpp - finding presets and reading their description lines.
#include "cli/presets.hpp"

#include <algorithm>
#include <map>
#include <climits>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <unistd.h>

#include "engine/engine.h"

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

preset_cost cost_of_preset(const preset_info &p, const parser::request &cli)
{
    parser::request req = cli;
    req.job_files = {p.path};
    req.cli_overrides = true;
    parser::diag_list notes;
    parser::plan_ptr plan = parser::build_plan(req, &notes);
    preset_cost c;
    c.ns = eng_plan_ns(plan.get());
    std::map<std::string, uint64_t> files;
    bool repeats = false, pauses = false, timed = false;
    for (uint32_t i = 0; i < plan->nr_jobs; i++) {
        const plan_job &j = *plan_job_at(plan.get(), i);
        repeats |= j.repeat > 1;
        pauses |= j.group_pause_ns || j.repeat_pause_ns;
        timed |= j.runtime_ns > 1000000000ull;
        for (uint32_t k = 0; k < j.nr_clones; k++)
            for (uint32_t f = 0; f < j.clones[k].nr_files; f++) {
                const plan_file &pf = j.clones[k].files[f];
                if (!pf.is_device)
                    files[pf.path] = std::max(files[pf.path], pf.size_bytes);
            }
    }
    uint64_t largest = 0;
    for (const auto &f : files) {
        c.bytes += f.second;
        c.files.push_back(f.first);
        largest = std::max(largest, f.second);
    }
    if (c.ns != UINT64_MAX && c.ns <= 10000000000ull && c.bytes <= (64ull << 20))
        return c;  // small already: nothing worth shrinking
    if (largest > (64ull << 20))
        c.shrink.push_back("--size=64m");
    if (timed)
        c.shrink.push_back("--runtime=1");
    if (repeats)
        c.shrink.push_back("--repeat=1");
    if (pauses)
        c.shrink.push_back("--group_pause=0");
    return c;
}

namespace {

std::string duration_text(uint64_t ns)
{
    uint64_t s = (ns + 500000000ull) / 1000000000ull;
    char buf[64];
    if (s >= 3600)
        snprintf(buf, sizeof buf, "%llu h %llu min", (unsigned long long)(s / 3600), (unsigned long long)(s % 3600 / 60));
    else if (s >= 60)
        snprintf(buf, sizeof buf, "%llu min %llu s", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
    else
        snprintf(buf, sizeof buf, "%g s", (double)ns / 1e9);
    return buf;
}

std::string bytes_text(uint64_t b)
{
    char buf[64];
    if (b >= (1ull << 30))
        snprintf(buf, sizeof buf, "%g GiB", (double)b / (double)(1ull << 30));
    else
        snprintf(buf, sizeof buf, "%g MiB", (double)b / (double)(1ull << 20));
    return buf;
}

} // namespace

std::string cost_text(const preset_cost &c)
{
    std::string s = c.ns == UINT64_MAX ? "until its I/O is done" : duration_text(c.ns);
    if (c.files.empty())
        s += ", no test file";
    else
        s += ", " + bytes_text(c.bytes) + " in " + std::to_string(c.files.size()) +
             (c.files.size() == 1 ? " file" : " files");
    if (!c.shrink.empty()) {
        s += "; smaller:";
        for (const std::string &o : c.shrink)
            s += " " + o;
    }
    return s;
}

} // namespace cli

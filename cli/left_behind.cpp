// cli/left_behind.cpp - the test files a run leaves for the next one
// (left_behind.hpp says why), apart from cli/run.cpp, which runs the plan.
#include "cli/left_behind.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>

#include "engine/engine.h"

namespace cli {

// The test files jobs make themselves, outside the layout (filecreate's), that
// do not exist yet.  The run's layout counts the files it makes (results.left),
// so a path a laid-out job names too is left to it.  The preflight's look at
// each (pf_seen_of) answers for most.  The paths are the plan's own, not copies.
std::vector<const char *> files_jobs_make(const plan &p, const pf_report &pf)
{
    std::vector<const char *> out;
    std::vector<bool> listed_seen(pf.nr_seen);
    std::unordered_set<std::string_view> listed, laid_out;  // listed: of the paths the preflight did not look at
    struct stat sb;
    auto note = [&](const char *path) {
        if (laid_out.count(path))
            return;
        if (const tgt_seen *s = pf_seen_of(&pf, path)) {
            if (!s->ino && !listed_seen[(size_t)(s - pf.seen)]) {
                listed_seen[(size_t)(s - pf.seen)] = true;
                out.push_back(path);
            }
        } else if (stat(path, &sb) && listed.insert(path).second) {
            out.push_back(path);
        }
    };
    auto each_file = [&p](bool lays_out, auto &&fn) {
        for (uint32_t i = 0; i < p.nr_jobs; i++) {
            const plan_job &j = *plan_job_at(&p, i);
            if (eng_ioengine_lays_out(j.ioengine) != lays_out)
                continue;
            for (uint32_t c = 0; c < j.nr_clones; c++)
                for (uint32_t f = 0; f < j.clones[c].nr_files; f++)
                    if (!j.clones[c].files[f].is_device)
                        fn(j.clones[c].files[f].path);
        }
    };
    bool others = false;
    each_file(false, [&](const char *) { others = true; });
    if (!others)
        return out;
    each_file(true, [&](const char *path) { laid_out.insert(path); });
    each_file(false, note);
    return out;
}

// What the run left behind and how to remove it (240 GiB of Azure's test files
// must not go unsaid); the files stay, as fio leaves them, for the next run.
// The layout's files come counted (laid); the files jobs made themselves are
// looked at here, each directory opened once and its files looked at by name.
std::string left_behind(const res_left &laid, const std::vector<const char *> &made)
{
    std::vector<const char *> named(laid.named, laid.named + std::min<uint64_t>(laid.nr, RES_LEFT_NAMED));
    uint64_t nr = laid.nr, bytes = laid.bytes;
    struct stat sb;
    std::string_view dir;
    int dfd = -1;
    for (const char *path : made) {
        const char *slash = std::strrchr(path, '/');
        std::string_view d(path, slash ? (size_t)(slash - path) + 1 : 0);
        if (d != dir || dfd < 0) {
            if (dfd >= 0)
                close(dfd);
            dir = d;
            dfd = open(d.empty() ? "." : std::string(d).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
        bool found = dfd >= 0 ? fstatat(dfd, path + d.size(), &sb, 0) == 0 : stat(path, &sb) == 0;
        if (found && S_ISREG(sb.st_mode)) {
            if (named.size() < RES_LEFT_NAMED)
                named.push_back(path);
            nr++;
            bytes += (uint64_t)sb.st_size;
        }
    }
    if (dfd >= 0)
        close(dfd);
    if (!nr)
        return "";
    char size[64];
    std::snprintf(size, sizeof size, "%.1f MiB", (double)bytes / (1 << 20));
    std::string s = "this run created " + std::to_string(nr) + " test file" + (nr == 1 ? "" : "s") + " (" +
                    size + "), left for the next run to reuse; remove with: rm --";
    for (const char *path : named)
        s += std::string(" '") + path + "'";
    return nr > named.size() ? s + " ... (" + std::to_string(nr - named.size()) + " more)" : s;
}

} // namespace cli

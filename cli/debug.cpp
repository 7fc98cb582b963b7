// cli/debug.cpp - fio's --debug classes and the lines ioplan prints (debug.hpp).
#include "cli/debug.hpp"

#include <algorithm>

namespace cli {

namespace {

// fio 3.33's classes, in its order (debug.h).
const char *const classes_all[] = {"process", "file", "io", "mem", "blktrace", "verify", "random",
                                   "parse", "diskutil", "job", "mutex", "profile", "time", "net",
                                   "rate", "compress", "steadystate", "helperthread", "zbd", "all"};

bool wants(const std::vector<std::string> &classes, const char *name)
{
    return std::find(classes.begin(), classes.end(), name) != classes.end() ||
           std::find(classes.begin(), classes.end(), "all") != classes.end();
}

// fio's layout: the class padded to 8, the pid, the event.
void line(FILE *out, const char *cls, long pid, const std::string &text)
{
    std::fprintf(out, "%-8s %ld %s\n", cls, pid, text.c_str());
}

template <typename Fn>
void each_file(const plan &p, Fn fn)
{
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++)
        for (uint32_t c = 0; c < job->nr_clones; c++)
            for (uint32_t f = 0; f < job->clones[c].nr_files; f++)
                fn(*job, job->clones[c].files[f]);
}

} // namespace

bool debug_class_known(const std::string &name)
{
    for (const char *c : classes_all)
        if (name == c)
            return true;
    return false;
}

void print_debug_classes(FILE *out)
{
    std::string list;
    for (const char *c : classes_all)
        list += (list.empty() ? "" : ",") + std::string(c);
    std::fprintf(out, "ioplan: debug classes: %s\n"
                      "ioplan prints lines for file and io (files and engines of every job) and parse (steady-state "
                      "thresholds); the others "
                      "are accepted and print nothing\n", list.c_str());
}

// fio's str_steadystate_cb dprint, per job that detects steady state.
void debug_parse(const std::vector<std::string> &classes, const plan &p, long pid, FILE *out)
{
    if (!wants(classes, "parse"))
        return;
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++) {
        if (!job->ss_dur_s)
            continue;
        char buf[128];
        if (job->ss_flags & PLAN_SS_PCT)
            std::snprintf(buf, sizeof(buf), "set steady state threshold to %f%%", job->ss_limit);
        else if (job->ss_flags & PLAN_SS_IOPS)
            std::snprintf(buf, sizeof(buf), "set steady state IOPS threshold to %f", job->ss_limit);
        else
            std::snprintf(buf, sizeof(buf), "set steady state BW threshold to %lld", (long long)job->ss_limit);
        line(out, "parse", pid, buf);
    }
}

void debug_before_run(const std::vector<std::string> &classes, const plan &p, long pid, FILE *out)
{
    debug_parse(classes, p, pid, out);
    for (const std::string &c : classes)
        if (c != "file" && c != "io" && c != "parse" && c != "all")
            std::fprintf(out, "ioplan: note: --debug=%s: ioplan prints nothing for this class\n", c.c_str());
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++)
        if (wants(classes, "io"))
            line(out, "io", pid, std::string("load ioengine ") + plan_ioengine_name(job->ioengine));
    if (wants(classes, "file"))
        each_file(p, [&](const plan_job &, const plan_file &f) { line(out, "file", pid, std::string("add file ") + f.path); });
    if (wants(classes, "file"))
        line(out, "file", pid, "setup files");
}

void debug_after_run(const std::vector<std::string> &classes, const plan &p, long pid, FILE *out)
{
    if (wants(classes, "file"))
        each_file(p, [&](const plan_job &, const plan_file &f) { line(out, "file", pid, std::string("close file ") + f.path); });
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++)
        if (wants(classes, "io"))
            line(out, "io", pid, std::string("close ioengine ") + plan_ioengine_name(job->ioengine));
}

} // namespace cli

// cli/run_checks.cpp - the --readonly and --aux-path checks before any I/O (run_checks.hpp).
#include "cli/run_checks.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <sys/stat.h>

#include "engine/engine.h"
#include "engine/safety/safety.h"

namespace cli {

namespace {

bool readonly_ok(const plan &p)
{
    for (uint32_t j = 0; const plan_job *job = plan_job_at(&p, j); j++)
        if ((plan_rw_has_ddir(job->rw, PLAN_DDIR_WRITE) || plan_rw_has_ddir(job->rw, PLAN_DDIR_TRIM)) &&
            !job->verify_only) {
            std::fprintf(stderr, "ioplan: error: --readonly: job '%s' writes or trims (rw=%s); nothing was run\n",
                         job->name, plan_rw_name(job->rw));
            return false;
        }
    char why[SAFETY_WHY_MAX];
    int ret = eng_layout_writes(&p, why, sizeof why);
    if (ret == -ENOMEM)
        throw std::bad_alloc();
    if (ret)
        std::fprintf(stderr, "ioplan: error: --readonly: %s; nothing was run\n", why);
    return ret == 0;
}

// --aux-path must name a directory now: a state file lost at the run's end cannot be had again.
bool aux_path_ok(const std::string &dir)
{
    struct stat sb;
    int r = dir.empty() ? 0 : stat(dir.c_str(), &sb);
    if (dir.empty() || (r == 0 && S_ISDIR(sb.st_mode)))
        return true;
    std::fprintf(stderr, "ioplan: error: --aux-path=%s: %s; nothing was run\n", dir.c_str(),
                 r ? std::strerror(errno) : "not a directory");
    return false;
}

} // namespace

bool check_run_flags(const args &a, const plan &p)
{
    return aux_path_ok(a.aux_path) && (!a.readonly || readonly_ok(p));
}

} // namespace cli

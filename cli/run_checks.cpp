// cli/run_checks.cpp - the --readonly check before any I/O (run_checks.hpp).
#include "cli/run_checks.hpp"

#include <cerrno>
#include <cstdio>
#include <new>

#include "engine/engine.h"

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
    char why[512];
    int ret = eng_layout_writes(&p, why, sizeof why);
    if (ret == -ENOMEM)
        throw std::bad_alloc();
    if (ret)
        std::fprintf(stderr, "ioplan: error: --readonly: %s; nothing was run\n", why);
    return ret == 0;
}

} // namespace

bool check_run_flags(const args &a, const plan &p)
{
    return !a.readonly || readonly_ok(p);
}

} // namespace cli

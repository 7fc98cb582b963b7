// cli/run.cpp - plan -> engine -> results -> reports.
//
// Until the engine's run loop is merged this says so plainly instead of
// pretending to run; --showplan and --parse-only work without it.
#include "cli/run.hpp"

#include <cstdio>

namespace cli {

int run_plan(const plan &p, const args &a)
{
    (void)p;
    (void)a;
    std::fprintf(stderr, "ioplan: error: this build cannot run jobs yet (no engine run loop); use --showplan\n");
    return 1;
}

} // namespace cli

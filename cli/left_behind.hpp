// cli/left_behind.hpp - the test files a run leaves for the next one, and
// how to remove them.
//
// ioplan, like fio, leaves the files it lays out for the next run to reuse;
// unlike fio it says so at the end (240 GiB of Azure's test files must not go
// unsaid).  The layout counts the files it made (results.left); the files jobs
// make themselves (filecreate's) are found here.
#pragma once

#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"
#include "engine/safety/preflight.h"

namespace cli {

// The test files jobs make themselves, outside the layout, that do not exist
// yet (the plan's own paths, not copies).
std::vector<const char *> files_jobs_make(const plan &p, const pf_report &pf);

// The note naming what the run left and the rm that removes it, or "".
std::string left_behind(const res_left &laid, const std::vector<const char *> &made);

} // namespace cli

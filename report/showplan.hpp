// report/showplan.hpp - the resolved plan as JSON (`ioplan --showplan`).
//
// The stable, machine-readable view of what a job file means: every group,
// job, clone and file with every value in base units.  Tests and users diff it;
// field names follow plan.h so the two never drift.
#pragma once

#include <ostream>

#include "engine/plan.h"

namespace report {

void write_showplan(const plan &p, std::ostream &out);

} // namespace report

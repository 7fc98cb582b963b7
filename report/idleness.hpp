// report/idleness.hpp - fio's "CPU idleness" report of --idle-prof
// (results.idle, measured by engine/idleprof.c): the normal output's block
// and the JSON "cpu_idleness" object, in fio 3.33's layout (stat.c,
// idletime.c's show_idle_prof_stats).
#pragma once

#include <ostream>

#include "engine/results.h"
#include "report/fio/json_util.hpp"

namespace report {

// "\nCPU idleness:\n  system: ..%\n[  percpu: ..%, ..%\n]  unit work: ..." or
// nothing when idleness was not measured.
void write_idleness(std::ostream &out, const res_idle &idle);

// {"system", ["cpu-N"...,] "unit_mean", "unit_stddev"}; call only when
// idle.mode != RES_IDLE_NONE.
ojson idleness_json(const res_idle &idle);

} // namespace report

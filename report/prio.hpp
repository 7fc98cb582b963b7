// report/prio.hpp - latency per I/O priority (fio's clat_prio, from cmdprio):
// the JSON "prios" array and the normal output's "clat prio C/L" lines.
#pragma once

#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"
#include "report/fio/json_util.hpp"

namespace report {

// fio shows priorities only when at least two of them have samples.
bool prios_shown(const res_ddir &dd);

// fio's "prios" array: {prioclass, prio, clat_ns or lat_ns} per priority with samples.
ojson prios_json(const res_ddir &dd, const plan_job *j, const std::vector<double> &pct, bool plus);

// Normal output: the per-priority latency lines (after slat/clat/lat) and
// percentile blocks (after the direction's own), as fio 3.33 prints them.
std::string normal_prio_lat_lines(const res_ddir &dd, const plan_job *j);
std::string normal_prio_percentiles(const res_ddir &dd, const plan_job *j, const std::vector<double> &list,
				    int precision);

} // namespace report

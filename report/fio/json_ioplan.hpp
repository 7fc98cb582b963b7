// report/fio/json_ioplan.hpp - the "ioplan" object of the JSON report: everything
// ioplan knows that fio's layout has no key for.
#pragma once

#include "engine/results.h"
#include "report/model.hpp"
#include "report/fio/json_util.hpp"

namespace report {

// {schema_version, version, host, kernel, clock_source, clock_cost_ns,
//  start_wall_ns, elapsed_ns, interrupted, error, jobs[], messages[],
//  warnings[], preflight{}};
// jobs[i] describes the top-level jobs[i].  See result_schema() for every key.
ojson ioplan_object(const model &m, const results &r, const plan &p);

} // namespace report

// report/fio/json_env.hpp - the run's environment and plan identity in the JSON report.
//
// ioplan.environment says where a result was measured (engine/environment.c
// reads it); plan_hash names the resolved plan so a comparison knows when two
// plans differ, and workload_hash its workload, so stored runs of the same
// workload on several hosts group together.
#pragma once

#include <string>

#include "engine/plan.h"
#include "engine/results.h"
#include "report/fio/json_util.hpp"

namespace report {

// {host, cpu{...}, memory_bytes, kernel, distribution{...}, virtualization{...},
//  system{...}, targets[{path, files, stack[...]}], disks[...]}; a fact that
// could not be read has no key; {} when the run read no environment
// (a fake-clock run).
ojson environment_json(const results &r);

// SHA-256 (hex) of the resolved plan as --showplan prints it.
std::string plan_hash(const plan &p);

// SHA-256 (hex) of the plan's workload alone (showplan_view::workload): the
// plan less the names of this host's targets, so runs of one job file on
// hosts whose devices or directories are named apart have one.
std::string workload_hash(const plan &p);

} // namespace report

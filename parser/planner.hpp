// parser/planner.hpp - internal: from layered job specs to plan memory.
//
// planner.cpp does fio's layering of options (command line, [global]s, job
// sections); planner_build.cpp turns the resulting job list into the plan:
// groups, clones, seeds and files.  Only parser/ includes this.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "parser/diag.hpp"
#include "parser/spec.hpp"

namespace parser {

struct job_def {
    job_spec spec;
    std::string section;     // header text (or --name for command-line jobs)
    loc header;
    uint32_t file_index = 0;
};

// A deque, not a vector: a job_def is about 8 KB, and a growing vector would
// copy every one on each reallocation (quadratic bytes moved for big job files).
using job_list = std::deque<job_def>;

// The job's display name, and where it set an option (its header when inherited).
std::string job_name(const job_def &d);
const loc &option_loc(const job_def &d, const char *key);

// net, netsplice, nbd (remote_engines.cpp): fio's refusals, checked before the
// run with the option's position; then the target copied into plan memory.
void check_remote_job(job_def &d);
void fill_remote(plan_job &j, const job_def &d);

// Fills plan memory from the job list, emptying it (each job is dropped once
// copied); echo is the union of global options.
plan *build_plan_memory(job_list &jobs, const std::vector<entry> &global_echo);

} // namespace parser

// parser/planner.hpp - internal: from layered job specs to plan memory.
//
// planner.cpp does fio's layering of options (command line, [global]s, job
// sections); planner_build.cpp turns the resulting job list into the plan:
// groups, clones, seeds and files.  Only parser/ includes this.
#pragma once

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

// Fills plan memory from the job list; echo is the union of global options.
plan *build_plan_memory(std::vector<job_def> &jobs, const std::vector<entry> &global_echo);

} // namespace parser

// cli/replay.hpp - read_iolog wiring: the merges the cli writes, then the
// parser's replay stage (parser/replay_stage.hpp), job by job, before anything runs.
#pragma once

#include "engine/plan.h"

namespace cli {

// False after printing why on stderr (exit 2).  A job with merge_blktrace_file
// first merges its read_iolog files into that file, which becomes its trace;
// merge_only (--merge-blktrace-only) does the merges and loads nothing.
bool load_replays(plan &p, bool merge_only = false);

// merge_blktrace_file for one job (cli/replay_merge.cpp): false after saying why.
bool merge_traces(plan_job &j);

} // namespace cli

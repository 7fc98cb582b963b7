// cli/replay.hpp - read_iolog: the traces a plan replays, loaded before anything runs.
//
// A job with read_iolog= gets its trace (engine/iolog.h) as its plan_replay,
// the trace's files (or replay_redirect) as its files, and the directions and
// largest block of the trace as its pattern, so preflight, the safety rules
// and --readonly judge the replay like any job.  A bad trace, or one naming
// offsets beyond an existing target, is refused here with the line or record
// at fault: nothing has run yet.
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

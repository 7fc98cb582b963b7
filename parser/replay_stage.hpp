// parser/replay_stage.hpp - the replay stage of planning: a read_iolog trace
// turned into the job it replays.
//
// The last planning step, run on a built plan before anything checks or runs it
// (cli wires it after build_plan).  A job with read_iolog= gets its trace
// (parser/iolog/iolog.h, read with the replay_* options: replay_redirect,
// replay_scale, replay_align, replay_skip) as its plan_replay, the trace's files
// (or the replay_redirect target) as every clone's files, and the directions and
// largest block of the trace as its pattern, so preflight, the safety rules and
// --readonly judge the replay like any job.  A bad trace, or one naming offsets
// beyond an existing target, is refused here with the line or record at fault:
// nothing has run yet.
#pragma once

#include <cstddef>

#include "engine/plan.h"

namespace parser {

// Bytes a trace read from a pipe may hold: a bound, so an endless stream is
// refused rather than read until memory runs out (a regular file's size is its own).
constexpr size_t TRACE_PIPE_MAX = size_t(1) << 30;


// Rewrites one job that names a read_iolog trace and has none loaded yet (a job
// without one is left as it is).  False after printing why on stderr (exit 2).
bool replay_stage(plan_job &j);

} // namespace parser

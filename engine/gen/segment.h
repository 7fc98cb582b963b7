/*
 * engine/gen/segment.h - one run of one segment, for the coordinator's plan loop.
 *
 * A segment is the run of jobs between two stonewalls (fio's full barrier).
 * engine.c decides which segment runs next and how often; segment.c runs it:
 * starts one worker per clone, watches them (stalls, exitall, steady state)
 * until the last one exits, and folds their results and errors into the
 * engine's results.  In step with other processes (eng_opts.sync) both ends
 * of a run are agreed with them here.
 */
#ifndef IOPLAN_ENGINE_SEGMENT_H
#define IOPLAN_ENGINE_SEGMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine_internal.h"

/*
 * Whether run `run` of the segment starting at job a may start; sets *ret to
 * the other processes' refusal when this one had no reason of its own to stop.
 */
bool segment_may_start(struct eng *e, uint32_t a, uint32_t run, int *ret);

/* One run of the jobs [a, b): all start, all end; 0 or -errno. */
int segment_run(struct eng *e, uint32_t a, uint32_t b, uint32_t run);

#endif /* IOPLAN_ENGINE_SEGMENT_H */

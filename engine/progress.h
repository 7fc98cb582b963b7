/*
 * engine/progress.h - how far a run is and how long it still needs (eng_status).
 *
 * A worker in its measured window knows its end two ways: a runtime bound (the
 * window's end time) and, for size-bound jobs, the bytes the window issues.
 * Its share done is the larger of the time share and the byte share (it ends
 * at whichever comes first), and its time left the smaller of the two
 * estimates (the byte one extrapolates the rate so far).  Segments still to
 * come add their planned durations when every job in them is bounded by time;
 * otherwise the estimate is unknown.
 */
#ifndef IOPLAN_ENGINE_PROGRESS_H
#define IOPLAN_ENGINE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/plan.h"
#include "engine/worker/worker.h"

/* One worker at time now: share done (< 0 unknown) and ns left (UINT64_MAX unknown). */
void prog_worker(const struct worker *w, uint64_t now, double *frac, uint64_t *left);

/* Planned ns of one run of the segment [a, b), or UINT64_MAX when bytes bound it. */
uint64_t prog_segment_ns(const struct plan *p, uint32_t a, uint32_t b);

#endif /* IOPLAN_ENGINE_PROGRESS_H */

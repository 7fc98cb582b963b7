/*
 * engine/steadystate.h - fio's steady-state detection (ss, ss_dur, ss_ramp).
 *
 * Once a second of its own (counted from its first clone's start) the
 * coordinator samples the IOPS and bandwidth of each unit (a clone, or with
 * group_reporting every clone of a reporting group summed) into a window of
 * ss_dur_s samples.  Once the window is full, each new sample
 * re-judges it: the least-squares slope (slope criteria) or the largest
 * distance of a sample from the mean (the others), absolute or as a percent of
 * the mean.  Below the limit the unit is steady and its clones stop as fio's
 * fio_mark_td_terminate stops them.  The arithmetic is fio 3.33's (integer
 * per-second rates, integer sums, the slope's percent over the integer mean) so
 * that the JSON criterion is the number fio would print for the same samples.
 */
#ifndef IOPLAN_ENGINE_STEADYSTATE_H
#define IOPLAN_ENGINE_STEADYSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rolling window of one unit and its last judgement. */
struct ss_window {
	uint32_t flags;			/* PLAN_SS_* | RES_SS_FULL | RES_SS_ATTAINED */
	double limit;
	uint32_t dur;			/* samples in the window */
	uint32_t pos;			/* where the next sample goes */
	uint64_t nr;			/* samples taken so far */
	uint64_t *iops, *bw;		/* ring of dur samples each */
	double slope, deviation, criterion;
};

/* 0 or -ENOMEM; dur >= 1. */
int ss_window_init(struct ss_window *w, uint32_t flags, double limit, uint32_t dur);
void ss_window_free(struct ss_window *w);

/*
 * Adds one second's IOPS and bytes/s; once the window is full judges it and
 * returns true when it meets the criterion (RES_SS_ATTAINED is then set).
 */
bool ss_window_add(struct ss_window *w, uint64_t iops, uint64_t bw);

/* The window's samples oldest first, as fio prints them (zeros where none yet). */
void ss_window_ordered(const struct ss_window *w, uint64_t *iops, uint64_t *bw);

struct worker;
struct ss_unit;

/* Steady-state units of one running segment. */
struct ss_run {
	struct ss_unit *units;
	uint32_t nr_units;
};

/*
 * Units from the segment's workers (cur[0..n)), none when no job asks, each
 * with an empty record in res_job.ss (under the lock eng_snapshot reads under).
 * 0 or -ENOMEM.
 */
int ss_run_init(struct ss_run *r, struct worker *const *cur, uint32_t n);

/*
 * Samples every unit when a second has passed; stops the clones of steady units
 * and updates each sampled unit's record in res_job.ss (the caller holds the
 * lock eng_snapshot reads the jobs under).
 */
void ss_run_tick(struct ss_run *r, struct worker *const *cur, uint64_t now);

/* Stores each unit's record in its last clone's res_job (res_job.ss) and frees r. 0 or -ENOMEM. */
int ss_run_finish(struct ss_run *r, struct worker *const *cur);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_STEADYSTATE_H */

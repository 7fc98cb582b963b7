/*
 * engine/rate.h - open-loop rate schedules: when each I/O of one direction is due.
 *
 * A schedule is a pure function of the I/Os issued so far: with rate_iops=R the
 * k-th I/O is due at t0 + k/R, with rate=B bytes/s it is due when the bytes issued
 * before it would take that long at B.  Issuing late never moves later I/Os (no
 * drift, no coordinated omission): latency is measured from the due time too
 * (sched_lat).  Poisson schedules add exponential gaps whose mean is one I/O's
 * time at the rate, as fio's (10^6 / IOPS us, a byte rate being counted in I/Os
 * of the smallest block); their sum, not the issue times, defines the schedule.
 */
#ifndef IOPLAN_ENGINE_RATE_H
#define IOPLAN_ENGINE_RATE_H

#include <stdbool.h>
#include <stdint.h>

struct rate {
	uint64_t iops;			/* 0 = not limited by I/O count */
	uint64_t bps;			/* 0 = not limited by bytes */
	bool poisson;
	uint64_t t0;			/* when the schedule starts */
	uint64_t ios;			/* I/Os issued so far */
	uint64_t bytes;			/* bytes issued so far */
	double poisson_ns;		/* poisson: sum of the gaps so far */
	double poisson_mean_ns;		/* poisson: the mean gap */
	uint64_t due_ns;		/* when the next I/O is due */
};

static inline bool rate_is_limited(const struct rate *r)
{
	return r->iops || r->bps;
}

/*
 * Sets up a schedule starting at t0; iops and bps 0 mean unlimited.  min_len is
 * the direction's smallest block: a poisson schedule's I/O at bps takes that long.
 */
void rate_init(struct rate *r, uint64_t iops, uint64_t bps, bool poisson, uint64_t min_len, uint64_t t0);

/* The time one I/O of len bytes takes in a linear schedule (the gap between two). */
uint64_t rate_gap_ns(const struct rate *r, uint64_t len);

/*
 * Records that the due I/O was issued with len bytes and computes the next due
 * time.  rng feeds the poisson gaps (of one mean whatever len is); unused for
 * linear schedules.
 */
void rate_advance(struct rate *r, uint64_t len, uint64_t *rng);

#endif /* IOPLAN_ENGINE_RATE_H */

/*
 * engine/stats.h - recording measurements into the results structs, per thread.
 *
 * lat_add() is called for every I/O, so it is inline and branch-light: exact
 * n/min/max/sum and a 128-bit sum of squares, plus one histogram bucket when the
 * latency type keeps one.  fio's coarse latency buckets (latency_ns/us/ms) come
 * from the histogram index through a small table, so they cost two loads.
 *
 * Per-interval samples come in two forms: fio's bandwidth/IOPS sample statistics
 * (struct sampler, exactly fio's arithmetic), and a bounded time series
 * (struct series) whose neighbouring samples merge pairwise when it is full.
 */
#ifndef IOPLAN_ENGINE_STATS_H
#define IOPLAN_ENGINE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/results.h"

static inline void lat_add(struct res_lat *l, uint64_t v)
{
	unsigned __int128 sq = (unsigned __int128)v * v;
	uint64_t lo = (uint64_t)sq;

	l->n++;
	if (v < l->min_ns)
		l->min_ns = v;
	if (v > l->max_ns)
		l->max_ns = v;
	l->sum_ns += v;
	l->sumsq_lo += lo;
	l->sumsq_hi += (uint64_t)(sq >> 64) + (l->sumsq_lo < lo);
	if (l->hist)
		l->hist[res_hist_index(v)]++;
}

/*
 * Coarse latency buckets: entry h gives the bucket of the smallest value of
 * histogram bucket h; LATBKT_SPLIT marks the few buckets that straddle a
 * threshold, where one compare with thr[] decides.
 */
#define LATBKT_SPLIT 0x80u

struct latbkt_table {
	uint8_t idx[RES_HIST_NR];
	uint64_t thr[RES_LATBKT_NR];	/* lower bound of bucket i+1 at thr[i] */
};

void latbkt_table_init(struct latbkt_table *t);

/* Bucket of v, exactly as fio's io_u_mark_latency() places it. */
uint32_t latbkt_of(uint64_t v);

static inline void latbkt_add(uint64_t *bkt, const struct latbkt_table *t, uint64_t v)
{
	uint32_t b = t->idx[res_hist_index(v)];

	if (b & LATBKT_SPLIT) {
		b &= ~LATBKT_SPLIT;
		b += v >= t->thr[b];
	}
	bkt[b]++;
}

/*
 * fio's depth map (io_u_mark_depth): 1, 2, 4, 8, 16, 32, >=64, for a depth of 1
 * or more.  Inline and without branches: once per I/O, at a depth that moves.
 */
static inline uint32_t depth_bucket(uint32_t depth)
{
	uint32_t b = 31u - (uint32_t)__builtin_clz(depth | 1u);

	return b < 6u ? b : 6u;
}

/* fio's submit/complete map (__io_u_mark_map): 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64. */
static inline uint32_t batch_bucket(uint32_t nr)
{
	if (nr == 0)
		return 0;
	if (nr <= 4)
		return 1;
	if (nr <= 8)
		return 2;
	if (nr <= 16)
		return 3;
	if (nr <= 32)
		return 4;
	return nr <= 64 ? 5 : 6;
}

/*
 * fio's per-interval bandwidth or IOPS samples.  A sample is taken when at least
 * avg - 1 ms (fio's slack) has passed since the last one, from what completed since
 * then: rate = delta * 1000 / spent_ms (/ kb for bandwidth), one per direction
 * that moved anything.
 */
struct sampler {
	uint64_t avg_ns;
	uint64_t last_ns;
	uint64_t last[PLAN_DDIR_NR];
	uint32_t div;			/* kb_base for bandwidth, 1 for IOPS */
};

void sampler_start(struct sampler *s, uint64_t avg_ns, uint32_t div, uint64_t now,
		   const uint64_t cur[PLAN_DDIR_NR]);

/* Takes a sample if one is due; returns when the next one is due. */
uint64_t sampler_tick(struct sampler *s, uint64_t now, const uint64_t cur[PLAN_DDIR_NR],
		      struct res_sample_stat *out, bool is_bw);

#define SERIES_CAP 512u		/* samples kept before neighbours merge */
#define SERIES_FIRST 16u		/* samples allocated at the start, doubled up to SERIES_CAP as needed */

/*
 * A time series of fixed-width intervals aligned to t0.  Totals are read from the
 * clone at each boundary, so only the per-interval maximum latency is tracked per
 * I/O (lat_max).
 */
struct series {
	struct res_series *out;
	uint64_t t0;
	uint64_t next_end;		/* end of the open interval */
	uint64_t last_bytes[PLAN_DDIR_NR];
	uint64_t last_ios[PLAN_DDIR_NR];
	uint64_t last_lat[PLAN_DDIR_NR];
	uint64_t lat_max[PLAN_DDIR_NR];
};

/* Allocates out->samples (SERIES_FIRST; they grow to SERIES_CAP) and opens the first interval.  0 or -ENOMEM. */
int series_start(struct series *s, struct res_series *out, uint64_t interval_ns, uint64_t t0);

/*
 * Closes every interval that ended at or before now.  bytes/ios/lat_sum are the
 * clone's running totals per direction.
 */
void series_close_until(struct series *s, uint64_t now, const uint64_t *bytes,
			const uint64_t *ios, const uint64_t *lat_sum);

/* Closes the open interval early at now (end of the window), if it holds anything. */
void series_finish(struct series *s, uint64_t now, const uint64_t *bytes,
		   const uint64_t *ios, const uint64_t *lat_sum);

#endif /* IOPLAN_ENGINE_STATS_H */

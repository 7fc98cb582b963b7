/*
 * engine/rate.c - computing due times for open-loop rate schedules (rate.h).
 *
 * Linear due times are computed from totals with 128-bit arithmetic rather than
 * by adding rounded gaps, so the millionth I/O is due exactly when it should be.
 */
#include <math.h>
#include <string.h>

#include "rate.h"
#include "engine/gen/rng.h"

#define NS_PER_S 1000000000ull

static uint64_t linear_due(const struct rate *r)
{
	uint64_t by_ios = 0, by_bytes = 0;

	if (r->iops)
		by_ios = (uint64_t)(((unsigned __int128)r->ios * NS_PER_S) / r->iops);
	if (r->bps)
		by_bytes = (uint64_t)(((unsigned __int128)r->bytes * NS_PER_S) / r->bps);
	return r->t0 + (by_ios > by_bytes ? by_ios : by_bytes);
}

void rate_init(struct rate *r, uint64_t iops, uint64_t bps, bool poisson, uint64_t min_len, uint64_t t0)
{
	memset(r, 0, sizeof(*r));
	r->iops = iops;
	r->bps = bps;
	r->poisson = poisson;
	r->t0 = t0;
	r->due_ns = t0;
	/*
	 * fio's usec_for_io: lambda is 10^6 / IOPS, the IOPS of a byte rate being
	 * rate / the smallest block, so each gap's mean is the same whatever the
	 * I/O's length (bsrange=4k-16k rate=1m: 256 I/Os a second, as fio's, where
	 * gaps by each I/O's bytes made 114).
	 */
	if (iops)
		r->poisson_mean_ns = (double)NS_PER_S / (double)iops;
	if (bps && min_len) {
		double m = (double)min_len * (double)NS_PER_S / (double)bps;

		if (m > r->poisson_mean_ns)
			r->poisson_mean_ns = m;
	}
}

uint64_t rate_gap_ns(const struct rate *r, uint64_t len)
{
	uint64_t by_ios = 0, by_bytes = 0;

	if (r->iops)
		by_ios = NS_PER_S / r->iops;
	if (r->bps)
		by_bytes = (uint64_t)(((unsigned __int128)len * NS_PER_S) / r->bps);
	return by_ios > by_bytes ? by_ios : by_bytes;
}

static double poisson_gap(const struct rate *r, uint64_t *rng)
{
	/* 1 - u is in (0, 1], so the log is finite. */
	return -log(1.0 - rng_unit(rng)) * r->poisson_mean_ns;
}

void rate_advance(struct rate *r, uint64_t len, uint64_t *rng)
{
	r->ios++;
	r->bytes += len;
	if (!rate_is_limited(r))
		return;
	if (r->poisson) {
		r->poisson_ns += poisson_gap(r, rng);
		r->due_ns = r->t0 + (uint64_t)llround(r->poisson_ns);
	} else {
		r->due_ns = linear_due(r);
	}
}

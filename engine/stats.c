/*
 * engine/stats.c - fio's distribution maps, bandwidth/IOPS samples and time series.
 *
 * Everything here runs at most once per interval or once per run; the per-I/O
 * parts are inline in stats.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define NS_PER_MS 1000000ull
#define SAMPLE_SLACK_MS 1		/* fio's LOG_MSEC_SLACK */

/* Lower bounds of fio's coarse latency buckets 1..31 (bucket 0 starts at 0). */
static const uint64_t latbkt_thr[RES_LATBKT_NR - 1] = {
	2, 4, 10, 20, 50, 100, 250, 500, 750,
	1000,
	2000, 4000, 10000, 20000, 50000, 100000, 250000, 500000, 750000,
	1000000,
	2000000, 4000000, 10000000, 20000000, 50000000, 100000000, 250000000,
	500000000, 750000000,
	1000000000ull, 2000000000ull,
};

uint32_t latbkt_of(uint64_t v)
{
	uint32_t b = 0;

	while (b < RES_LATBKT_NR - 1 && v >= latbkt_thr[b])
		b++;
	return b;
}

static void hist_bucket_range(uint32_t h, uint64_t *lo, uint64_t *hi)
{
	uint32_t e;

	if (h < 2u * RES_HIST_VAL) {
		*lo = *hi = h;
		return;
	}
	e = (h >> RES_HIST_BITS) - 1u;
	*lo = (uint64_t)(RES_HIST_VAL + (h & (RES_HIST_VAL - 1u))) << e;
	*hi = h == RES_HIST_NR - 1 ? UINT64_MAX : *lo + ((uint64_t)1 << e) - 1;
}

void latbkt_table_init(struct latbkt_table *t)
{
	uint64_t lo, hi;
	uint32_t b;

	for (uint32_t i = 0; i < RES_LATBKT_NR; i++)
		t->thr[i] = i < RES_LATBKT_NR - 1 ? latbkt_thr[i] : UINT64_MAX;
	for (uint32_t h = 0; h < RES_HIST_NR; h++) {
		hist_bucket_range(h, &lo, &hi);
		b = latbkt_of(lo);
		/* Thresholds are >= 4/3 apart and buckets < 1/64 wide: at most one inside. */
		if (b < RES_LATBKT_NR - 1 && latbkt_thr[b] <= hi)
			b |= LATBKT_SPLIT;
		t->idx[h] = (uint8_t)b;
	}
}

void sampler_start(struct sampler *s, uint64_t avg_ns, uint32_t div, uint64_t now,
		   const uint64_t cur[PLAN_DDIR_NR])
{
	s->avg_ns = avg_ns;
	s->div = div ? div : 1;
	s->last_ns = now;
	memcpy(s->last, cur, sizeof(s->last));
}

/*
 * fio's helper thread samples each interval whether or not an I/O completes;
 * the loop ticks only at completions, before counting the one at now.  So when
 * two intervals or more passed since the last sample, the helper's sample one
 * interval after it took what had completed by then (over that interval: 4 KiB
 * in 100 ms is 40 KiB/s, not 4 KiB over the whole gap), and those after it found
 * nothing and took none: the next sample is due an interval after the last of them.
 */
static uint64_t sample_time(const struct sampler *s, uint64_t now)
{
	return now - s->last_ns >= 2 * s->avg_ns ? s->last_ns + s->avg_ns : now;
}

uint64_t sampler_tick(struct sampler *s, uint64_t now, const uint64_t cur[PLAN_DDIR_NR],
		      struct res_sample_stat *out, bool is_bw)
{
	uint64_t at = sample_time(s, now);
	uint64_t spent = (at - s->last_ns) / NS_PER_MS;
	uint64_t avg = s->avg_ns / NS_PER_MS, delta, rate;

	if (spent < avg && avg - spent > SAMPLE_SLACK_MS)
		return s->last_ns + s->avg_ns;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		delta = cur[d] - s->last[d];
		if (!delta)
			continue;
		rate = 0;
		if (spent)
			rate = is_bw ? delta * 1000 / spent / s->div : delta * 1000 / spent;
		res_sample_stat_add(&out[d], (double)rate);
		s->last[d] = cur[d];
	}
	s->last_ns = at == now ? now : at + (now - at) / s->avg_ns * s->avg_ns;
	return s->last_ns + s->avg_ns;
}

int series_start(struct series *s, struct res_series *out, uint64_t interval_ns, uint64_t t0)
{
	memset(s, 0, sizeof(*s));
	out->samples = calloc(SERIES_FIRST, sizeof(*out->samples));
	if (!out->samples)
		return -ENOMEM;
	out->cap = SERIES_FIRST;
	out->nr = 0;
	out->interval_ns = interval_ns;
	s->out = out;
	s->t0 = t0;
	s->next_end = t0 + interval_ns;
	return 0;
}

/* Halves the number of samples by merging neighbours; the interval doubles. */
static void series_coalesce(struct res_series *o)
{
	for (uint32_t i = 0; i < o->nr / 2; i++) {
		struct res_sample *a = &o->samples[2 * i], *b = &o->samples[2 * i + 1];
		struct res_sample m = *a;

		m.t_end_ns = b->t_end_ns;
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			m.bytes[d] += b->bytes[d];
			m.ios[d] += b->ios[d];
			m.lat_sum_ns[d] += b->lat_sum_ns[d];
			if (b->lat_max_ns[d] > m.lat_max_ns[d])
				m.lat_max_ns[d] = b->lat_max_ns[d];
		}
		o->samples[i] = m;
	}
	o->nr /= 2;
	o->interval_ns *= 2;
}

/*
 * Doubles a full series' room while it is below SERIES_CAP: a run of a few
 * intervals (most, and every one of a file of thousands of jobs) keeps a few
 * samples' memory, not SERIES_CAP's.  False when it may not (or memory ran
 * out): its neighbours merge instead, as at the cap.
 */
static bool series_grow(struct res_series *o)
{
	uint32_t cap = o->cap * 2 < SERIES_CAP ? o->cap * 2 : SERIES_CAP;
	struct res_sample *more;

	if (o->cap >= SERIES_CAP || !(more = realloc(o->samples, cap * sizeof(*more))))
		return false;
	o->samples = more;
	o->cap = cap;
	return true;
}

static void series_push(struct series *s, uint64_t start, uint64_t end, const uint64_t *bytes,
			const uint64_t *ios, const uint64_t *lat_sum)
{
	struct res_series *o = s->out;
	struct res_sample *x = &o->samples[o->nr++];

	x->t_start_ns = start;
	x->t_end_ns = end;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		x->bytes[d] = bytes[d] - s->last_bytes[d];
		x->ios[d] = ios[d] - s->last_ios[d];
		x->lat_sum_ns[d] = lat_sum[d] - s->last_lat[d];
		x->lat_max_ns[d] = s->lat_max[d];
		s->last_bytes[d] = bytes[d];
		s->last_ios[d] = ios[d];
		s->last_lat[d] = lat_sum[d];
		s->lat_max[d] = 0;
	}
	if (o->nr == o->cap && !series_grow(o))
		series_coalesce(o);
}

void series_close_until(struct series *s, uint64_t now, const uint64_t *bytes,
			const uint64_t *ios, const uint64_t *lat_sum)
{
	while (now > s->next_end) {
		uint64_t end = s->next_end;

		series_push(s, end - s->out->interval_ns, end, bytes, ios, lat_sum);
		s->next_end = end + s->out->interval_ns;
	}
}

void series_finish(struct series *s, uint64_t now, const uint64_t *bytes,
		   const uint64_t *ios, const uint64_t *lat_sum)
{
	uint64_t start;
	bool any = false;

	series_close_until(s, now, bytes, ios, lat_sum);
	start = s->next_end - s->out->interval_ns;
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		any = any || ios[d] != s->last_ios[d];
	if (any && now > start)
		series_push(s, start, now, bytes, ios, lat_sum);
}

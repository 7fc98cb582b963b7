/*
 * engine/results.c - derived numbers, merging and messages for the results contract (results.h).
 *
 * Every report computes means, deviations, percentiles and group merges through
 * these functions, so terse, JSON, normal and DISKSPD output can never disagree
 * about a number.  Sums are exact integers; the 128-bit arithmetic stays here.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

typedef unsigned __int128 u128;

static u128 sumsq(const struct res_lat *l)
{
	return ((u128)l->sumsq_hi << 64) | l->sumsq_lo;
}

double res_lat_mean(const struct res_lat *l)
{
	return l->n ? (double)l->sum_ns / (double)l->n : 0.0;
}

/*
 * Sample variance from exact sums: (n*sumsq - sum^2) / (n*(n-1)).  The
 * numerator is computed in 128-bit integers, where it is exact as long as it
 * fits; long double takes over only when it would overflow.
 */
double res_lat_stddev(const struct res_lat *l)
{
	long double n, num;
	u128 s2, a;

	if (l->n < 2)
		return 0.0;
	s2 = (u128)l->sum_ns * l->sum_ns;
	a = sumsq(l);
	if (a <= ~(u128)0 / l->n) {
		a *= l->n;
		num = a > s2 ? (long double)(a - s2) : 0.0L;
	} else {
		num = (long double)a * l->n - (long double)s2;
	}
	n = (long double)l->n;
	return (double)sqrtl(num / (n * (n - 1.0L)));
}

uint64_t res_lat_percentile(const struct res_lat *l, double p)
{
	long double target;
	uint64_t cum = 0, v;

	if (!l->n || !l->hist)
		return 0;
	if (p >= 100.0)
		return l->max_ns;
	/*
	 * fio 3.33 writes p / 100.0 * N, but its amd64 build evaluates it as
	 * p * (N * 0.01L) (seen in its machine code).  The two differ in the
	 * last bit, which decides ties such as 60% of 400 samples; follow the
	 * binary so every percentile equals fio's on the same histogram.
	 */
	target = (long double)p * ((long double)l->n * 0.01L);
	for (uint32_t i = 0; i < RES_HIST_NR; i++) {
		cum += l->hist[i];
		if (cum > 0 && (long double)cum >= target) {
			v = res_hist_value(i);
			if (v < l->min_ns)
				v = l->min_ns;
			if (v > l->max_ns)
				v = l->max_ns;
			return v;
		}
	}
	return l->max_ns;
}

int res_lat_merge(struct res_lat *dst, const struct res_lat *src)
{
	u128 s;

	if (!src->n)
		return 0;
	if (src->hist && !dst->hist) {
		dst->hist = calloc(RES_HIST_NR, sizeof(*dst->hist));
		if (!dst->hist)
			return -ENOMEM;
	}
	if (src->hist)
		for (uint32_t i = 0; i < RES_HIST_NR; i++)
			dst->hist[i] += src->hist[i];
	if (!dst->n || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->n += src->n;
	dst->sum_ns += src->sum_ns;
	s = sumsq(dst) + sumsq(src);
	dst->sumsq_lo = (uint64_t)s;
	dst->sumsq_hi = (uint64_t)(s >> 64);
	return 0;
}

void res_sample_stat_add(struct res_sample_stat *s, double v)
{
	double delta;

	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->n++;
	delta = v - s->mean;
	s->mean += delta / (double)s->n;
	s->m2 += delta * (v - s->mean);
}

void res_sample_stat_merge_sum(struct res_sample_stat *dst, const struct res_sample_stat *src)
{
	if (!src->n)
		return;
	if (!dst->n) {
		*dst = *src;
		return;
	}
	dst->min += src->min;
	dst->max += src->max;
	dst->mean += src->mean;
	dst->m2 += src->m2;
	dst->n += src->n;
}

double res_sample_stat_mean(const struct res_sample_stat *s)
{
	return s->n ? s->mean : 0.0;
}

double res_sample_stat_stddev(const struct res_sample_stat *s)
{
	return s->n > 1 ? sqrt(s->m2 / (double)(s->n - 1)) : 0.0;
}

/* The entry of ioprio in d, appended (empty) on first use; NULL when d is full. */
static struct res_prio *prio_slot(struct res_ddir *d, uint32_t ioprio)
{
	struct res_prio *p;

	for (uint32_t i = 0; i < d->nr_prios; i++)
		if (d->prios[i].ioprio == ioprio)
			return &d->prios[i];
	if (d->nr_prios >= RES_PRIO_MAX)
		return NULL;
	p = &d->prios[d->nr_prios++];
	memset(p, 0, sizeof(*p));
	p->ioprio = ioprio;
	p->lat.min_ns = UINT64_MAX;
	return p;
}

/* fio's sum_clat_prio_stats: entries of the same priority add up, new ones follow in order. */
static int prios_merge(struct res_ddir *d, const struct res_ddir *s)
{
	struct res_prio *p;
	int ret = 0;

	for (uint32_t i = 0; i < s->nr_prios && !ret; i++) {
		p = prio_slot(d, s->prios[i].ioprio);
		if (p)
			ret = res_lat_merge(&p->lat, &s->prios[i].lat);
	}
	return ret;
}

int res_ddir_prio_single(struct res_ddir *d, uint32_t ioprio, bool lat_percentiles)
{
	const struct res_lat *all = lat_percentiles ? &d->lat : &d->clat;
	struct res_prio *p;

	if (d->nr_prios || !all->n)
		return 0;
	p = prio_slot(d, ioprio);
	return p ? res_lat_merge(&p->lat, all) : 0;
}

int res_ddir_merge(struct res_ddir *d, const struct res_ddir *s)
{
	int ret;

	d->bytes += s->bytes;
	d->ios += s->ios;
	d->short_ios += s->short_ios;
	d->drop_ios += s->drop_ios;
	if (s->runtime_ns > d->runtime_ns)
		d->runtime_ns = s->runtime_ns;
	ret = res_lat_merge(&d->slat, &s->slat);
	if (!ret)
		ret = res_lat_merge(&d->clat, &s->clat);
	if (!ret)
		ret = res_lat_merge(&d->lat, &s->lat);
	if (!ret)
		ret = res_lat_merge(&d->sched_lat, &s->sched_lat);
	res_sample_stat_merge_sum(&d->bw_kib_s, &s->bw_kib_s);
	res_sample_stat_merge_sum(&d->iops, &s->iops);
	d->target_bytes_per_s += s->target_bytes_per_s;
	d->target_iops += s->target_iops;
	if (!ret)
		ret = prios_merge(d, s);
	return ret;
}

static void add_u64(uint64_t *d, const uint64_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] += s[i];
}

int res_clone_merge(struct res_clone *dst, const struct res_clone *src)
{
	int ret = 0;

	for (int d = 0; d < PLAN_DDIR_NR && !ret; d++)
		ret = res_ddir_merge(&dst->ddir[d], &src->ddir[d]);
	if (!ret)
		ret = res_lat_merge(&dst->sync_lat, &src->sync_lat);
	dst->sync_ios += src->sync_ios;
	if (src->start_ns < dst->start_ns || !dst->end_ns)
		dst->start_ns = src->start_ns;
	if (src->end_ns > dst->end_ns)
		dst->end_ns = src->end_ns;
	if (src->after_ns > dst->after_ns)
		dst->after_ns = src->after_ns;
	dst->usr_ns += src->usr_ns;
	dst->sys_ns += src->sys_ns;
	dst->ctx += src->ctx;
	dst->majf += src->majf;
	dst->minf += src->minf;
	dst->cpu_bound = dst->cpu_bound || src->cpu_bound;
	add_u64(dst->depth, src->depth, RES_DEPTH_NR);
	add_u64(dst->submit, src->submit, RES_BATCH_NR);
	add_u64(dst->complete, src->complete, RES_BATCH_NR);
	add_u64(dst->latbkt, src->latbkt, RES_LATBKT_NR);
	if (src->lat_depth)
		dst->lat_depth = src->lat_depth;	/* fio reports the last member's */
	if (!dst->error)
		dst->error = src->error;
	dst->total_err += src->total_err;
	dst->verify_failures += src->verify_failures;
	dst->stalled = dst->stalled || src->stalled;
	dst->replay_ios += src->replay_ios;
	dst->replay_late += src->replay_late;
	if (src->replay_lag_max_ns > dst->replay_lag_max_ns)
		dst->replay_lag_max_ns = src->replay_lag_max_ns;
	if (!dst->tid)		/* fio: "first pid in group" */
		dst->tid = src->tid;
	if (!dst->ioprio)	/* fio: a group has its first member's priority */
		dst->ioprio = src->ioprio;
	if (!dst->file_bytes)
		dst->file_bytes = src->file_bytes;
	return ret;
}

static void lat_init(struct res_lat *l)
{
	memset(l, 0, sizeof(*l));
	l->min_ns = UINT64_MAX;
}

void res_clone_init(struct res_clone *c)
{
	memset(c, 0, sizeof(*c));
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		lat_init(&c->ddir[d].slat);
		lat_init(&c->ddir[d].clat);
		lat_init(&c->ddir[d].lat);
		lat_init(&c->ddir[d].sched_lat);
	}
	lat_init(&c->sync_lat);
}

static void lat_clear(struct res_lat *l)
{
	uint64_t *hist = l->hist;

	lat_init(l);
	l->hist = hist;
	if (hist)
		memset(hist, 0, RES_HIST_NR * sizeof(*hist));
}

void res_clone_clear_counts(struct res_clone *c)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		struct res_ddir *dd = &c->ddir[d];

		dd->bytes = dd->ios = dd->short_ios = dd->drop_ios = dd->runtime_ns = 0;
		lat_clear(&dd->slat);
		lat_clear(&dd->clat);
		lat_clear(&dd->lat);
		lat_clear(&dd->sched_lat);
		memset(&dd->bw_kib_s, 0, sizeof(dd->bw_kib_s));
		memset(&dd->iops, 0, sizeof(dd->iops));
	}
	lat_clear(&c->sync_lat);
	c->sync_ios = 0;
	memset(c->depth, 0, sizeof(c->depth));
	memset(c->submit, 0, sizeof(c->submit));
	memset(c->complete, 0, sizeof(c->complete));
	memset(c->latbkt, 0, sizeof(c->latbkt));
}

void res_clone_release(struct res_clone *c)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		free(c->ddir[d].slat.hist);
		free(c->ddir[d].clat.hist);
		free(c->ddir[d].lat.hist);
		free(c->ddir[d].sched_lat.hist);
		for (uint32_t i = 0; i < c->ddir[d].nr_prios; i++)
			free(c->ddir[d].prios[i].lat.hist);
	}
	free(c->sync_lat.hist);
	if (c->iops_series.samples != c->bw_series.samples)
		free(c->iops_series.samples);
	free(c->bw_series.samples);
	free(c->trace);
	free(c->zones);
	memset(c, 0, sizeof(*c));
}

static int dup_hist(uint64_t **h)
{
	uint64_t *copy;

	if (!*h)
		return 0;
	copy = malloc(RES_HIST_NR * sizeof(*copy));
	if (copy)
		memcpy(copy, *h, RES_HIST_NR * sizeof(*copy));
	*h = copy;
	return copy ? 0 : -ENOMEM;
}

/* A copy of the first n elements of p (NULL for none); *ret = -ENOMEM when it cannot. */
static void *dup_array(const void *p, size_t n, size_t size, int *ret)
{
	void *copy;

	if (!p || !n)
		return NULL;
	copy = malloc(n * size);
	if (!copy) {
		*ret = -ENOMEM;
		return NULL;
	}
	return memcpy(copy, p, n * size);
}

int res_clone_copy(struct res_clone *dst, const struct res_clone *src)
{
	bool shared = src->iops_series.samples == src->bw_series.samples;
	int ret = 0;

	*dst = *src;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		ret |= dup_hist(&dst->ddir[d].slat.hist);
		ret |= dup_hist(&dst->ddir[d].clat.hist);
		ret |= dup_hist(&dst->ddir[d].lat.hist);
		ret |= dup_hist(&dst->ddir[d].sched_lat.hist);
		for (uint32_t i = 0; i < dst->ddir[d].nr_prios; i++)
			ret |= dup_hist(&dst->ddir[d].prios[i].lat.hist);
	}
	ret |= dup_hist(&dst->sync_lat.hist);
	dst->bw_series.samples = dup_array(src->bw_series.samples, src->bw_series.nr,
					   sizeof(struct res_sample), &ret);
	dst->bw_series.cap = dst->bw_series.samples ? dst->bw_series.nr : 0;
	dst->iops_series.samples = shared ? dst->bw_series.samples
					  : dup_array(src->iops_series.samples, src->iops_series.nr,
						      sizeof(struct res_sample), &ret);
	dst->iops_series.cap = dst->iops_series.samples ? dst->iops_series.nr : 0;
	dst->trace = dup_array(src->trace, src->trace_nr, sizeof(*src->trace), &ret);
	dst->trace_cap = dst->trace ? dst->trace_nr : 0;
	dst->zones = dup_array(src->zones, src->nr_zones, sizeof(*src->zones), &ret);
	dst->nr_zones = dst->zones ? src->nr_zones : 0;
	if (ret) {
		res_clone_release(dst);
		return -ENOMEM;
	}
	return 0;
}

void res_job_span(struct res_job *rj)
{
	rj->start_ns = UINT64_MAX;
	rj->end_ns = 0;
	for (uint32_t c = 0; c < rj->nr_clones; c++) {
		if (rj->clones[c].thread_start_ns < rj->start_ns)
			rj->start_ns = rj->clones[c].thread_start_ns;
		if (rj->clones[c].thread_end_ns > rj->end_ns)
			rj->end_ns = rj->clones[c].thread_end_ns;
	}
	if (rj->start_ns == UINT64_MAX)
		rj->start_ns = 0;
}

int res_job_ss_copy(struct res_job *dst, const struct res_job *src)
{
	uint32_t n = src->nr_clones ? src->nr_clones : 1;

	if (!src->ss)
		return 0;
	dst->ss = calloc(n, sizeof(*dst->ss));
	if (!dst->ss)
		return -ENOMEM;
	for (uint32_t c = 0; c < n; c++) {
		const struct res_ss *s = &src->ss[c];
		struct res_ss *d = &dst->ss[c];

		if (!s->on || !s->iops || !s->bw)
			continue;
		*d = *s;
		d->iops = malloc(s->dur_s * sizeof(*d->iops));
		d->bw = malloc(s->dur_s * sizeof(*d->bw));
		if (!d->iops || !d->bw)
			return -ENOMEM;	/* results_free releases what dst holds */
		memcpy(d->iops, s->iops, s->dur_s * sizeof(*d->iops));
		memcpy(d->bw, s->bw, s->dur_s * sizeof(*d->bw));
	}
	return 0;
}

int res_msg_add(struct results *r, enum res_msg_level level, const char *code, int32_t job_id,
		const char *fmt, ...)
{
	struct res_msg *m;
	char *text = NULL;
	va_list ap;
	int n;

	m = realloc(r->msgs, (r->nr_msgs + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	r->msgs = m;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	m = &r->msgs[r->nr_msgs];
	m->level = level;
	m->code = strdup(code);
	m->text = text;
	m->job_id = job_id;
	if (!m->code) {
		free(text);
		return -ENOMEM;
	}
	r->nr_msgs++;
	return 0;
}

void res_rank_clones_free(struct res_rank_job *j)
{
	for (uint32_t c = 0; j->clones && c < j->nr_clones; c++) {
		struct res_rank_clone *k = &j->clones[c];
		for (uint32_t f = 0; f < k->nr_paths; f++)
			free(k->paths[f]);
		free(k->paths);
		free(k->series.samples);
		free(k->zones);
	}
	free(j->clones);
	j->clones = NULL;
	j->nr_clones = 0;
}

void results_free(struct results *r)
{
	if (!r)
		return;
	for (uint32_t j = 0; j < r->nr_jobs; j++) {
		for (uint32_t c = 0; c < r->jobs[j].nr_clones; c++) {
			res_clone_release(&r->jobs[j].clones[c]);
			if (r->jobs[j].ss) {
				free(r->jobs[j].ss[c].iops);
				free(r->jobs[j].ss[c].bw);
			}
		}
		free(r->jobs[j].ss);
		free(r->jobs[j].clones);
	}
	free(r->jobs);
	free(r->disks);
	for (uint32_t i = 0; i < r->nr_msgs; i++) {
		free(r->msgs[i].code);
		free(r->msgs[i].text);
	}
	free(r->msgs);
	free(r->cpus);
	free(r->idle.cpus);
	if (r->env) {
		free(r->env->targets);
		free(r->env->layers);
		free(r->env->disks);
		free(r->env);
	}
	free(r->job_text);
	free(r->run_uuid);
	if (r->world) {
		for (uint32_t i = 0; i < r->world->nranks; i++) {
			for (uint32_t j = 0; r->world->ranks[i].jobs && j < r->world->ranks[i].nr_jobs; j++)
				res_rank_clones_free(&r->world->ranks[i].jobs[j]);
			free(r->world->ranks[i].jobs);
		}
		free(r->world->ranks);
		for (uint32_t i = 0; r->world->hosts && i < r->world->nhosts; i++)
			free(r->world->hosts[i].jobs);
		free(r->world->hosts);
		for (uint32_t i = 0; i < r->world->nr_groups; i++)
			free(r->world->groups[i].slower_pct);
		free(r->world->groups);
		free(r->world);
	}
	free(r);
}

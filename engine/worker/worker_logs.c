/*
 * engine/worker/worker_logs.c - a worker's per-interval figures: the bw and
 * iops samples (bwavgtime, iopsavgtime), the time series behind the reports'
 * graphs, and fio's log files (write_bw_log and the others, engine/logs).
 *
 * They run with the measured window: begin starts them at its start, end
 * closes them at its end, tick closes the intervals that ended before a
 * completion (the loop calls it once the completion's clock passes
 * next_tick).  The per-I/O figures (latency sums and maxima, the log's I/O
 * lines) are added by the loop itself (worker_io.c account), which costs no
 * call per I/O.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/worker/worker.h"

#define AVG_DEFAULT_NS 500000000ull	/* bwavgtime and iopsavgtime when unset: fio's 500 ms */
#define EPOCH_TRIES 8			/* bracketed reads of the log's epoch clock */
#define EPOCH_TIGHT_NS 20000ull		/* a bracket this narrow is not bettered */

/*
 * The log's epoch clock (log_unix_epoch, log_alternate_epoch) at now, ns; 0
 * when it cannot be read.  Read between two reads of ours, and the pair with
 * the least between them kept: a clone preempted between two plain reads (256
 * clones on 2 CPUs) dated every entry of its log that much late, once 63 ms
 * past the end of the run.
 */
static uint64_t log_epoch_at(struct worker *w, uint64_t now)
{
	uint64_t best = UINT64_MAX, at = 0;

	for (int i = 0; i < EPOCH_TRIES && best > EPOCH_TIGHT_NS; i++) {
		/* A fake clock is read only by the I/Os it times: now stands for the epoch read. */
		uint64_t a = w->sh->fake ? now : clk_now(&w->clk), b, e;
		struct timespec ts;

		if (clock_gettime((clockid_t)w->lg.log->clock_id, &ts))
			return 0;
		b = w->sh->fake ? now : clk_now(&w->clk);
		e = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		if (b - a < best) {
			best = b - a;
			at = e - (a + (b - a) / 2 - now);	/* the epoch clock when ours read now */
		}
	}
	return at;
}

int worker_logs_begin(struct worker *w, uint64_t now)
{
	const struct plan_job *j = w->job;
	struct worker_logs *l = &w->lg;
	uint64_t zero[PLAN_DDIR_NR] = { 0 };
	int ret;

	/* KiB/s whatever kb_base says, as fio's __add_samples: kb_base=1000 changes only the labels. */
	sampler_start(&l->bw_s, j->bw_avg_time_ns ? j->bw_avg_time_ns : AVG_DEFAULT_NS, 1024, now, zero);
	sampler_start(&l->iops_s, j->iops_avg_time_ns ? j->iops_avg_time_ns : AVG_DEFAULT_NS, 1,
		      now, zero);
	/* fio's calc_log_samples takes no interval sample of what a per-I/O log samples per I/O. */
	l->bw_per_io = clone_log_has(l->log, LOG_BW) && !l->log->avg_ns;
	l->iops_per_io = clone_log_has(l->log, LOG_IOPS) && !l->log->avg_ns;
	l->next_bw = l->bw_per_io ? UINT64_MAX : now + l->bw_s.avg_ns;
	l->next_iops = l->iops_per_io ? UINT64_MAX : now + l->iops_s.avg_ns;
	ret = series_start(&l->bw_ser, &w->res.bw_series, l->bw_s.avg_ns, now);
	l->iops_ser_own = !ret && l->iops_s.avg_ns != l->bw_s.avg_ns;
	if (l->iops_ser_own)
		ret = series_start(&l->iops_ser, &w->res.iops_series, l->iops_s.avg_ns, now);
	else if (!ret)
		w->res.iops_series = w->res.bw_series;
	/* The first tick at the first of them all: sampler_tick counts on a tick at the
	 * first completion past each sample's due time. */
	l->next_tick = l->bw_ser.next_end;
	if (l->iops_ser_own && l->iops_ser.next_end < l->next_tick)
		l->next_tick = l->iops_ser.next_end;
	if (l->next_bw < l->next_tick)
		l->next_tick = l->next_bw;
	if (l->next_iops < l->next_tick)
		l->next_tick = l->next_iops;
	if (l->log)
		clone_log_begin(l->log, now, l->log->unix_epoch ? log_epoch_at(w, now) : 0, w->win_end);
	return ret;
}

void worker_logs_tick(struct worker *w, uint64_t now)
{
	struct worker_logs *l = &w->lg;
	uint64_t bytes[PLAN_DDIR_NR], ios[PLAN_DDIR_NR], n;
	struct res_sample_stat bw[PLAN_DDIR_NR], io[PLAN_DDIR_NR];

	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		bytes[d] = w->res.ddir[d].bytes;
		ios[d] = w->res.ddir[d].ios;
		bw[d] = w->res.ddir[d].bw_kib_s;
		io[d] = w->res.ddir[d].iops;
	}
	series_close_until(&l->bw_ser, now, bytes, ios, l->lat_sum);
	n = l->bw_ser.next_end;
	if (l->iops_ser_own) {
		series_close_until(&l->iops_ser, now, bytes, ios, l->lat_sum);
		if (l->iops_ser.next_end < n)
			n = l->iops_ser.next_end;
	}
	if (now >= l->next_bw)
		l->next_bw = sampler_tick(&l->bw_s, now, bytes, bw, true);
	if (now >= l->next_iops)
		l->next_iops = sampler_tick(&l->iops_s, now, ios, io, false);
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		w->res.ddir[d].bw_kib_s = bw[d];
		w->res.ddir[d].iops = io[d];
	}
	if (l->next_bw < n)
		n = l->next_bw;
	if (l->next_iops < n)
		n = l->next_iops;
	l->next_tick = n;
}

void worker_logs_end(struct worker *w)
{
	struct worker_logs *l = &w->lg;
	uint64_t bytes[PLAN_DDIR_NR], ios[PLAN_DDIR_NR];

	clone_log_end(l->log, w->now);
	worker_logs_fold(w, &w->res);
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		bytes[d] = w->res.ddir[d].bytes;
		ios[d] = w->res.ddir[d].ios;
	}
	if (w->res.bw_series.samples)
		series_finish(&l->bw_ser, w->now, bytes, ios, l->lat_sum);
	if (l->iops_ser_own && w->res.iops_series.samples)
		series_finish(&l->iops_ser, w->now, bytes, ios, l->lat_sum);
	else
		w->res.iops_series = w->res.bw_series;
}

void worker_logs_io_samples(struct worker *w, uint8_t ddir, uint32_t bytes, uint64_t clat)
{
	/* fio's add_bw_sample: bytes * 10^6 / clat in ns, the value its log line holds. */
	if (w->lg.bw_per_io && !w->lg.log->no_bw_per_io) {
		struct io_sums *s = &w->lg.bw_io[ddir];
		uint64_t v = clat ? (uint64_t)bytes * 1000000ull / clat : 0;

		if (!s->n || v < s->min)
			s->min = v;
		if (v > s->max)
			s->max = v;
		s->n++;
		s->sum += v;
		s->sumsq += (unsigned __int128)v * v;
	}
	if (w->lg.iops_per_io && !w->lg.log->no_iops_per_io)
		w->lg.iops_io[ddir]++;
}

/* The samples' mean and sum of squared deviations from their exact sums. */
static void sums_stat(const struct io_sums *s, struct res_sample_stat *st)
{
	long double mean = (long double)s->sum / (long double)s->n;
	long double m2 = (long double)s->sumsq - mean * (long double)s->sum;

	st->n = s->n;
	st->min = (double)s->min;
	st->max = (double)s->max;
	st->mean = (double)mean;
	st->m2 = m2 > 0 ? (double)m2 : 0.0;	/* rounding can leave equal samples a hair below 0 */
}

/* The per-I/O samples so far into c's statistics; the sums stay whole, so it can be asked again. */
void worker_logs_fold(const struct worker *w, struct res_clone *c)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		if (w->lg.bw_io[d].n)
			sums_stat(&w->lg.bw_io[d], &c->ddir[d].bw_kib_s);
		if (w->lg.iops_io[d])
			c->ddir[d].iops = (struct res_sample_stat){ .n = w->lg.iops_io[d], .min = 1.0,
								    .max = 1.0, .mean = 1.0 };
	}
}

void worker_logs_submitted(struct worker *w, struct io_u *const *us, uint32_t n, uint64_t now)
{
	struct clone_log *l = w->lg.log;

	if (!w->counting)
		return;	/* only the measured window is logged */
	for (uint32_t i = 0; i < n; i++)
		if (us[i]->counted)
			clone_log_slat(l, now, us[i]->ddir, us[i]->len, us[i]->offset, now - us[i]->start_ns,
				       w->prio ? us[i]->ioprio : l->ioprio);
}

void worker_logs_read_back(struct worker *w, uint64_t now, uint64_t offset, uint32_t bytes, uint64_t lat)
{
	if (!w->lg.log)
		return;
	clone_log_io(w->lg.log, now, PLAN_DDIR_READ, bytes, offset, lat, lat);
	worker_logs_io_samples(w, PLAN_DDIR_READ, bytes, lat);
}

void worker_logs_flush(struct worker *w, uint64_t now)
{
	clone_log_end(w->lg.log, now);
}

void worker_logs_restart(struct worker *w)
{
	struct res_clone *c = &w->res;

	memset(w->lg.lat_sum, 0, sizeof(w->lg.lat_sum));
	memset(w->lg.bw_io, 0, sizeof(w->lg.bw_io));
	memset(w->lg.iops_io, 0, sizeof(w->lg.iops_io));
	if (c->iops_series.samples != c->bw_series.samples)
		free(c->iops_series.samples);
	free(c->bw_series.samples);
	c->bw_series.samples = c->iops_series.samples = NULL;
}

void worker_logs_so_far(const struct worker *w, struct res_clone *s)
{
	/* A shared series is copied to iops_series only as the window ends (worker_logs_end). */
	if (!w->lg.iops_ser_own)
		s->iops_series = s->bw_series;
	worker_logs_fold(w, s);
}

void worker_logs_prio(struct worker *w, uint16_t ioprio)
{
	if (w->lg.log)
		w->lg.log->ioprio = ioprio;
}

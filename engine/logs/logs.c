/*
 * engine/logs/logs.c - what a clone puts in fio's log files, as fio 3.33 computes it.
 *
 * Without log_avg_msec, every completed I/O of the measured window is a line:
 * lat/clat in ns, bw as bytes * 10^6 / clat_ns (fio's per-I/O "KiB/s"),
 * iops as 1, kept as one record an I/O from which the writer makes each log's
 * line; the slat line is written as the I/O is submitted, dated then, as
 * fio's io_u_queued writes it (at completion it came a whole clat late).
 * With log_avg_msec, bw (KiB/s) and iops lines over each interval, a line per
 * direction that had I/O, written by the first I/O past the interval's end (fio's
 * helper thread samples them by the clock).  The latency logs keep a window per
 * direction, as fio's add_log_sample: a sample of that direction log_avg_msec or
 * more past its window's start writes the window's mean (or, log_max_value, its
 * largest), itself included, dated then; the window then starts at that time
 * rounded down to log_avg_msec.  So a direction with few I/Os gets its line when
 * its next I/O comes, not at the interval's end.  Averaged lines have bs 0; the
 * latency logs get a last line at the window's end, as fio's finalize_logs.
 *
 * A stats=0 job's files are made and stay empty, as fio takes no sample of it.
 *
 * The hist log (write_hist_log) counts each clat in fio's bucket scheme; when a
 * direction's window of log_hist_msec has passed, its I/O writes the window's
 * counts as one line (fio's add_clat_sample), formatted here since it is rare.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/logs/logs.h"
#include "engine/results.h"

#define NS_PER_MS 1000000ull

bool logs_wanted(const struct plan_job *j)
{
	return j->bw_log_prefix || j->iops_log_prefix || j->lat_log_prefix || j->hist_log_prefix;
}

static const char *kind_prefix(const struct plan_job *j, enum log_kind k)
{
	switch (k) {
	case LOG_BW:
		return j->bw_log_prefix;
	case LOG_IOPS:
		return j->iops_log_prefix;
	/* fio makes no file for a latency it does not measure (disable_*lat)... */
	case LOG_LAT:
		return j->disable_lat ? NULL : j->lat_log_prefix;
	case LOG_SLAT:
		return j->disable_slat ? NULL : j->lat_log_prefix;
	case LOG_CLAT:
		return j->disable_clat ? NULL : j->lat_log_prefix;
	default:
		/* ...but its hist log is made whatever disable_clat says, and stays empty (open_hist). */
		return j->hist_log_prefix;
	}
}

const char *log_option(enum log_kind k)
{
	static const char *const opt[LOG_KIND_NR] = { "write_bw_log", "write_iops_log", "write_lat_log",
						       "write_lat_log", "write_lat_log", "write_hist_log" };

	return opt[k];
}

/* The log_prefix_named bit of a kind: the three latency logs share write_lat_log's. */
static unsigned kind_bit(enum log_kind k)
{
	switch (k) {
	case LOG_BW:
		return 1u << 0;
	case LOG_IOPS:
		return 1u << 1;
	case LOG_HIST:
		return 1u << 3;
	default:
		return 1u << 2;
	}
}

/*
 * fio's gen_log_name: PREFIX_TYPE.N.log per thread, PREFIX_TYPE.log shared.
 * Without a prefix given, each clone's own name: name= names the first, the
 * others carry the section's (custom_bw.1.log, sec_bw.2.log, sec_bw.3.log);
 * then the rank's suffix under mpirun.
 */
int log_file_name(char *path, size_t n, const struct plan_job *j, const struct plan_clone *c,
		  enum log_kind k)
{
	static const char *const type[LOG_KIND_NR] = { "bw", "iops", "lat", "clat", "slat", "clat_hist" };
	/* fio stores hist samples as pointers, so a compressed hist log stays text. */
	const char *suf = j->log_store_compressed && k != LOG_HIST ? "log.fz" : "log";
	const char *prefix = kind_prefix(j, k);
	const char *tail = j->log_suffix ? j->log_suffix : "";

	if (!prefix)
		return 0;
	if ((j->log_prefix_named & kind_bit(k)) && c->clone_index && j->section && *j->section)
		prefix = j->section;
	if (j->per_job_logs)
		snprintf(path, n, "%s_%s.%u.%s%s", prefix, type[k], c->thread_number, suf, tail);
	else
		snprintf(path, n, "%s_%s.%s%s", prefix, type[k], suf, tail);
	return 1;
}

static int open_kind(struct clone_log *l, const struct plan_job *j, const struct plan_clone *c,
		     enum log_kind k)
{
	char path[4096];
	struct log_file *f;

	if (!log_file_name(path, sizeof(path), j, c, k))
		return 0;
	f = log_writer_file(l->lw, path, !j->per_job_logs, j->log_offset, j->log_prio);
	l->cur[k] = f ? log_writer_swap(l->lw, NULL) : NULL;
	if (!l->cur[k])
		return -ENOMEM;
	if (j->log_store_compressed && k != LOG_HIST)
		log_writer_file_gz(f, j->log_gz_bytes);
	l->cur[k]->file = f;
	l->cur[k]->raw = k == LOG_HIST;
	l->kinds |= 1u << k;
	return 0;
}

static void recs_init(const struct clone_log *l, struct log_chunk *c)
{
	c->recs = true;
	c->file = NULL;
	memcpy(c->fan, l->fan, sizeof(c->fan));
}

/*
 * Without log_avg_msec, an I/O's lat, clat, bw and iops lines go as one record
 * into one chunk for all their files: the first kind's chunk becomes it, the
 * others' are freed.
 */
static void recs_open(struct clone_log *l)
{
	struct log_chunk *c = NULL;
	bool any = false;

	for (int k = 0; k < LOG_REC_KINDS; k++) {
		if (!l->cur[k])
			continue;
		/* disable_bw_measurement (and gtod_reduce for iops): the file is made, its
		 * per-I/O lines are not (fio 3.33). */
		if ((k != LOG_BW || !l->no_bw_per_io) && (k != LOG_IOPS || !l->no_iops_per_io))
			l->fan[k] = l->cur[k]->file;
		any = any || l->fan[k];
		if (c)
			free(l->cur[k]);
		else
			c = l->cur[k];
		l->cur[k] = NULL;
	}
	if (c && !any) {
		free(c);
		c = NULL;
	}
	l->recs = c;
	if (c)
		recs_init(l, c);
}

static int open_hist(struct clone_log *l, const struct plan_job *j, const struct plan_clone *c)
{
	/* No clat measured (disable_clat): fio's hist log gets no sample, so no line. */
	l->hist_ms = j->disable_clat ? 0 : j->log_hist_ns / NS_PER_MS;
	l->hist_stride = 1u << (j->log_hist_coarseness > 10 ? 10 : j->log_hist_coarseness);
	l->hist = calloc(PLAN_DDIR_NR * LOG_HIST_BUCKETS, sizeof(*l->hist));
	if (!l->hist)
		return -ENOMEM;
	return open_kind(l, j, c, LOG_HIST);
}

struct clone_log *clone_log_open(struct log_writer *lw, const struct plan_job *j,
				 const struct plan_clone *c, int *err)
{
	struct clone_log *l;
	int ret = 0;

	*err = 0;
	if (!logs_wanted(j) || !lw)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		*err = -ENOMEM;
		return NULL;
	}
	l->lw = lw;
	l->avg_ns = j->log_avg_ns;
	/*
	 * fio's setup_log: a bw log averages over min(log_avg_msec, bwavgtime) when
	 * bwavgtime is given, and takes a sample every bwavgtime, so its lines come
	 * every bwavgtime (the planner makes it log_avg_msec when not given); so
	 * does an iops log with iopsavgtime.
	 */
	l->rate_ns[LOG_BW] = j->bw_avg_time_ns ? j->bw_avg_time_ns : j->log_avg_ns;
	l->rate_ns[LOG_IOPS] = j->iops_avg_time_ns ? j->iops_avg_time_ns : j->log_avg_ns;
	l->max_value = j->log_max_value;
	l->no_bw_per_io = j->disable_bw;	/* fio 3.33: averaged bw entries stay */
	/* fio's account_io_completion and io_u_queued take no sample of a stats=0 job. */
	l->mute = j->no_stats;
	/* fio's account_io_completion takes a per-I/O iops sample only when !gtod_reduce(td):
	 * gtod_reduce=1, or disable_clat, disable_slat and disable_bw_measurement all set. */
	l->no_iops_per_io = j->disable_clat && j->disable_slat && j->disable_bw;
	l->unix_epoch = j->log_unix_epoch || j->log_alternate_epoch;
	l->clock_id = j->log_epoch_clock_id;
	for (int k = 0; k < LOG_HIST && !ret; k++)
		ret = open_kind(l, j, c, (enum log_kind)k);
	if (!ret && kind_prefix(j, LOG_HIST))
		ret = open_hist(l, j, c);
	if (!ret && !l->avg_ns)
		recs_open(l);
	if (ret) {
		clone_log_close(l);
		*err = ret;
		return NULL;
	}
	return l;
}

void clone_log_begin(struct clone_log *l, uint64_t now, uint64_t epoch_ns, uint64_t end_ns)
{
	if (!l)
		return;
	l->start_ns = now;
	for (int k = LOG_BW; k <= LOG_IOPS; k++) {
		l->last_ns[k] = now;
		l->next_ns[k] = now + l->rate_ns[k];
	}
	l->end_ns = end_ns;
	memset(l->sum, 0, sizeof(l->sum));
	memset(l->n, 0, sizeof(l->n));
	memset(l->max, 0, sizeof(l->max));
	memset(l->avg_last_ms, 0, sizeof(l->avg_last_ms));
	memset(l->hist_last_ms, 0, sizeof(l->hist_last_ms));
	if (l->hist)
		memset(l->hist, 0, PLAN_DDIR_NR * LOG_HIST_BUCKETS * sizeof(*l->hist));
	l->base_ms = l->unix_epoch ? epoch_ns / NS_PER_MS : 0;
}

/*
 * Entries and records are ordinary stores of words made in registers, with the
 * line 256 bytes on asked for ahead, for writing: a chunk comes back for reuse
 * from the writer thread, which read it on another CPU.  Non-temporal stores,
 * which bypass the cache, stalled the loop on the first store of each entry:
 * about 0.85 of the IOPS of these with per-I/O lat and bw logs (null engine,
 * QD32; docs/performance.md).  The address may be past the chunk's end: a
 * prefetch does not fault.
 */
#define PREFETCH_AHEAD(dst) __builtin_prefetch((const void *)((uintptr_t)(dst) + 256), 1)

static inline void entry_put(struct log_entry *dst, uint64_t t_ms, uint64_t value, uint64_t offset,
			     uint32_t bs, uint8_t ddir, uint16_t ioprio)
{
	PREFETCH_AHEAD(dst);
	dst->t_ms = t_ms;
	dst->value = value;
	dst->offset = offset;
	dst->io = log_entry_io(bs, ddir, ioprio);
}

/* An entry of kind k with the priority column ioprio. */
static void append_prio(struct clone_log *l, enum log_kind k, uint64_t t_ms, uint64_t value,
			uint8_t ddir, uint32_t bs, uint64_t offset, uint16_t ioprio)
{
	struct log_chunk *c = l->cur[k];

	if (c->nr == LOG_CHUNK_ENTRIES) {
		struct log_file *f = c->file;

		c = log_writer_swap(l->lw, c);
		if (!c) {
			/* Out of memory: this kind stops logging rather than stop the I/O. */
			l->cur[k] = NULL;
			return;
		}
		c->file = f;
		l->cur[k] = c;
	}
	entry_put(&c->e[c->nr++], t_ms + l->base_ms, value, offset, bs, ddir, ioprio);
}

/* A per-I/O record (the writer makes its lines); out of memory, these logs stop. */
static void append_rec(struct clone_log *l, uint64_t t_ms, uint64_t io, uint64_t offset, uint64_t lat,
		       uint64_t clat)
{
	struct log_chunk *c = l->recs;
	struct log_rec *r;

	if (c->nr == LOG_CHUNK_RECS) {
		c = l->recs = log_writer_swap(l->lw, c);
		if (!c)
			return;
		recs_init(l, c);
	}
	r = &c->r[c->nr++];
	PREFETCH_AHEAD(r);
	r->t_ms = t_ms;
	r->offset = offset;
	r->io = io;
	r->lat = lat;
	r->clat = clat;
}

/* Whether kind k is a latency log, averaged per direction (not by the interval). */
static bool is_lat_kind(int k)
{
	return k == LOG_LAT || k == LOG_CLAT || k == LOG_SLAT;
}

/* The latency window of kind k, direction d as one line at t_ms, when it has samples. */
static void flush_lat(struct clone_log *l, int k, int d, uint64_t t_ms)
{
	uint64_t v;

	if (!l->cur[k] || !l->n[k][d])
		return;
	v = l->max_value ? l->max[k][d] : (l->sum[k][d] + l->n[k][d] / 2) / l->n[k][d];
	/* An averaged line has no size, offset or priority (0), as fio's. */
	append_prio(l, (enum log_kind)k, t_ms, v, (uint8_t)d, 0, 0, 0);
	l->sum[k][d] = l->n[k][d] = l->max[k][d] = 0;
}

/* A bw (k = LOG_BW) or iops line, dated at, per direction that had I/O since its last ones. */
static void emit_rate(struct clone_log *l, int k, uint64_t at)
{
	uint64_t t_ms = (at - l->start_ns) / NS_PER_MS;
	uint64_t spent_ms = (at - l->last_ns[k]) / NS_PER_MS;

	for (int d = 0; d < PLAN_DDIR_NR && l->cur[k]; d++) {
		uint64_t v;

		if (!l->n[k][d])
			continue;
		v = spent_ms ? l->sum[k][d] * 1000 / spent_ms / (k == LOG_BW ? 1024 : 1) : 0;
		append_prio(l, (enum log_kind)k, t_ms, v, (uint8_t)d, 0, 0, 0);
		l->sum[k][d] = l->n[k][d] = l->max[k][d] = 0;
	}
	l->last_ns[k] = at;
}

static void add_avg(struct clone_log *l, enum log_kind k, uint8_t d, uint64_t v)
{
	l->sum[k][d] += v;
	l->n[k][d]++;
	if (v > l->max[k][d])
		l->max[k][d] = v;
}

/*
 * A latency sample of kind k, direction d, into its direction's window; past the
 * window's log_avg_msec the window (with it) is a line dated now, as fio's
 * add_log_sample for its inline logs (no slack).
 */
static void lat_avg(struct clone_log *l, enum log_kind k, uint8_t d, uint64_t now, uint64_t v)
{
	uint64_t t_ms = (now - l->start_ns) / NS_PER_MS, w = l->avg_ns / NS_PER_MS;

	if (!l->cur[k])
		return;
	add_avg(l, k, d, v);
	if (!w)
		w = 1;
	if (t_ms < l->avg_last_ms[k][d] || t_ms - l->avg_last_ms[k][d] < w)
		return;
	flush_lat(l, k, d, t_ms);
	l->avg_last_ms[k][d] = t_ms - t_ms % w;
}

static void io_avg(struct clone_log *l, uint64_t now, uint8_t d, uint32_t bytes, uint64_t lat,
		   uint64_t clat)
{
	for (int k = LOG_BW; k <= LOG_IOPS; k++) {
		/* The I/O that ends a runtime= window closes no interval: fio's sampling has stopped. */
		if (now < l->next_ns[k] || (l->end_ns && now >= l->end_ns))
			continue;
		/*
		 * fio's helper thread samples each interval whether or not an I/O
		 * completes: an interval or more past the due time, the line was
		 * its sample at the due time, over what had completed by then, and
		 * the intervals after it, empty, made no line (sampler_tick's rule).
		 */
		emit_rate(l, k, now - l->next_ns[k] >= l->rate_ns[k] ? l->next_ns[k] : now);
		/* The next interval ends on the next multiple of the log's interval, as fio keeps it. */
		l->next_ns[k] = l->start_ns + ((now - l->start_ns) / l->rate_ns[k] + 1) * l->rate_ns[k];
		if (l->last_ns[k] < l->next_ns[k] - l->rate_ns[k])
			l->last_ns[k] = l->next_ns[k] - l->rate_ns[k];
	}
	add_avg(l, LOG_BW, d, bytes);
	add_avg(l, LOG_IOPS, d, 1);
	lat_avg(l, LOG_LAT, d, now, lat);
	lat_avg(l, LOG_CLAT, d, now, clat);
}

/* The longest hist line: time, ddir, bs and 1856 counts of up to 20 digits, ", " each. */
#define HIST_LINE_MAX (3u * 22u + LOG_HIST_BUCKETS * 22u + 2u)

/* Room in the hist chunk for a whole line, or NULL (out of memory: the hist log stops). */
static char *hist_room(struct clone_log *l)
{
	struct log_chunk *c = l->cur[LOG_HIST];

	if (c->nr + HIST_LINE_MAX > sizeof(c->e)) {
		struct log_file *f = c->file;

		c = log_writer_swap(l->lw, c);
		l->cur[LOG_HIST] = c;
		if (!c)
			return NULL;
		c->file = f;
		c->raw = true;
	}
	return (char *)c->e + c->nr;
}

/* The sum of the stride buckets from first on (first + stride <= LOG_HIST_BUCKETS). */
static uint64_t hist_column(const uint64_t *h, uint32_t first, uint32_t stride)
{
	uint64_t sum = 0;

	for (uint32_t k = 0; k < stride; k++)
		sum += h[first + k];
	return sum;
}

/*
 * fio's hist line: "time, ddir, bs, " and the window's counts, 2^coarseness
 * buckets a column, the last column the last 2^coarseness buckets.  Up to
 * coarseness 6 the stride divides the 1856 buckets and the columns tile them;
 * past it (7..10, fio's flush_hist_samples layout) the last column overlaps
 * the one before it, as in fio's files.
 */
static void hist_emit(struct clone_log *l, uint64_t t_ms, uint8_t d, uint32_t bs)
{
	uint64_t *h = l->hist + (size_t)d * LOG_HIST_BUCKETS;
	uint32_t stride = l->hist_stride;
	char *p = hist_room(l), *start = p;

	if (!p)
		return;
	p += sprintf(p, "%llu, %u, %u", (unsigned long long)(t_ms + l->base_ms), d, bs);
	for (uint32_t i = 0; i + stride < LOG_HIST_BUCKETS; i += stride)
		p += sprintf(p, ", %llu", (unsigned long long)hist_column(h, i, stride));
	p += sprintf(p, ", %llu", (unsigned long long)hist_column(h, LOG_HIST_BUCKETS - stride, stride));
	*p++ = '\n';
	l->cur[LOG_HIST]->nr += (uint32_t)(p - start);
	memset(h, 0, LOG_HIST_BUCKETS * sizeof(*h));
}

/*
 * fio's windows: a line each log_hist_msec, drift carried over, from a
 * direction's first I/O done 1 ms or more into the run (fio's hist_last of 0
 * means "not started": I/Os of the first millisecond leave it so), hence
 * lines at 1001, 2001, ... ms, none at a 2 s run's end.
 */
static void hist_io(struct clone_log *l, uint64_t now, uint8_t d, uint32_t bs, uint64_t clat)
{
	uint64_t t_ms = (now - l->start_ns) / NS_PER_MS, window;
	uint32_t idx = res_hist_index(clat);

	l->hist[(size_t)d * LOG_HIST_BUCKETS + (idx < LOG_HIST_BUCKETS ? idx : LOG_HIST_BUCKETS - 1)]++;
	if (!l->hist_last_ms[d])
		l->hist_last_ms[d] = t_ms;
	window = t_ms - l->hist_last_ms[d];
	if (!l->hist_ms || window < l->hist_ms)
		return;
	hist_emit(l, t_ms, d, bs);
	l->hist_last_ms[d] = t_ms - (window - l->hist_ms);
}

void clone_log_io(struct clone_log *l, uint64_t now, uint8_t ddir, uint32_t bytes,
		  uint64_t offset, uint64_t lat, uint64_t clat)
{
	uint64_t t_ms;

	if (l->mute)
		return;
	if (l->cur[LOG_HIST])
		hist_io(l, now, ddir, bytes, clat);

	if (l->avg_ns) {
		io_avg(l, now, ddir, bytes, lat, clat);
		return;
	}
	t_ms = (now - l->start_ns) / NS_PER_MS;
	if (l->recs)
		append_rec(l, t_ms + l->base_ms, log_entry_io(bytes, ddir, l->ioprio), offset, lat, clat);
}

void clone_log_slat(struct clone_log *l, uint64_t now, uint8_t ddir, uint32_t bytes, uint64_t offset,
		    uint64_t slat, uint16_t ioprio)
{
	if (l->mute)
		return;
	/* Averaged: into its direction's window, which it closes when past its end. */
	if (l->avg_ns)
		lat_avg(l, LOG_SLAT, ddir, now, slat);
	else
		append_prio(l, LOG_SLAT, (now - l->start_ns) / NS_PER_MS, slat, ddir, bytes, offset, ioprio);
}

void clone_log_end(struct clone_log *l, uint64_t now)
{
	if (!l)
		return;
	/* fio's finalize_logs: each latency window with samples, dated at the end. */
	for (int k = 0; k < LOG_HIST && l->avg_ns; k++)
		for (int d = 0; d < PLAN_DDIR_NR && is_lat_kind(k); d++)
			flush_lat(l, k, d, (now - l->start_ns) / NS_PER_MS);
	for (int k = 0; k < LOG_KIND_NR; k++) {
		struct log_file *f;

		if (!l->cur[k] || !l->cur[k]->nr)
			continue;
		f = l->cur[k]->file;
		l->cur[k] = log_writer_swap(l->lw, l->cur[k]);
		if (l->cur[k]) {
			l->cur[k]->file = f;
			l->cur[k]->raw = k == LOG_HIST;
		}
	}
	if (l->recs && l->recs->nr) {
		l->recs = log_writer_swap(l->lw, l->recs);
		if (l->recs)
			recs_init(l, l->recs);
	}
}

void clone_log_close(struct clone_log *l)
{
	if (!l)
		return;
	for (int k = 0; k < LOG_KIND_NR; k++)
		free(l->cur[k]);
	free(l->recs);
	free(l->hist);
	free(l);
}

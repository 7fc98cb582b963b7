/*
 * engine/steadystate.c - fio's steady-state detection: the window's arithmetic
 * and the coordinator's once-a-second sampling (steadystate.h).
 *
 * Written for ioplan from fio 3.33's documented behaviour (HOWTO "Steady state")
 * and its observable output; no library does this windowed judgement.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "steadystate.h"
#include "engine/worker/worker.h"

#define SS_TICK_NS 1000000000ull	/* fio's STEADYSTATE_MSEC */

int ss_window_init(struct ss_window *w, uint32_t flags, double limit, uint32_t dur)
{
	memset(w, 0, sizeof(*w));
	w->flags = flags;
	w->limit = limit;
	w->dur = dur ? dur : 1;
	w->iops = calloc(w->dur, sizeof(*w->iops));
	w->bw = calloc(w->dur, sizeof(*w->bw));
	if (!w->iops || !w->bw) {
		ss_window_free(w);
		return -ENOMEM;
	}
	return 0;
}

void ss_window_free(struct ss_window *w)
{
	free(w->iops);
	free(w->bw);
	w->iops = w->bw = NULL;
}

void ss_window_ordered(const struct ss_window *w, uint64_t *iops, uint64_t *bw)
{
	uint32_t from = w->nr >= w->dur ? w->pos : 0;

	for (uint32_t i = 0; i < w->dur; i++) {
		iops[i] = w->iops[(from + i) % w->dur];
		bw[i] = w->bw[(from + i) % w->dur];
	}
}

/*
 * Least squares over x = 0..n-1 in integer sums, as fio keeps them; the percent
 * is over the integer mean, as fio divides.
 */
static void judge_slope(struct ss_window *w, const uint64_t *y)
{
	uint64_t n = w->dur, sum_y = 0, sum_xy = 0;
	uint64_t sum_x = n * (n - 1) / 2, sum_x_sq = (n - 1) * n * (2 * n - 1) / 6;

	for (uint64_t i = 0; i < n; i++) {
		sum_y += y[i];
		sum_xy += i * y[i];
	}
	w->slope = ((double)sum_xy - (double)sum_x * (double)sum_y / (double)n) /
		   ((double)sum_x_sq - (double)sum_x * (double)sum_x / (double)n);
	w->criterion = w->flags & PLAN_SS_PCT ? 100.0 * w->slope / (double)(sum_y / n) : w->slope;
}

static void judge_deviation(struct ss_window *w, const uint64_t *y)
{
	uint64_t sum_y = 0;
	double mean, d;

	for (uint32_t i = 0; i < w->dur; i++)
		sum_y += y[i];
	mean = (double)sum_y / w->dur;
	w->deviation = 0.0;
	for (uint32_t i = 0; i < w->dur; i++) {
		d = (double)y[i] - mean;
		d = d < 0 ? -d : d;
		if (d > w->deviation)
			w->deviation = d;
	}
	w->criterion = w->flags & PLAN_SS_PCT ? 100.0 * w->deviation / mean : w->deviation;
}

bool ss_window_add(struct ss_window *w, uint64_t iops, uint64_t bw)
{
	uint64_t *ord, *unused;
	double c;

	w->iops[w->pos] = iops;
	w->bw[w->pos] = bw;
	w->pos = (w->pos + 1) % w->dur;
	w->nr++;
	if (w->nr < w->dur)
		return false;
	w->flags |= RES_SS_FULL;
	ord = malloc(2 * w->dur * sizeof(*ord));
	if (!ord)
		return false;	/* judged again next second */
	unused = ord + w->dur;
	if (w->flags & PLAN_SS_IOPS)
		ss_window_ordered(w, ord, unused);
	else
		ss_window_ordered(w, unused, ord);
	if (w->flags & PLAN_SS_SLOPE)
		judge_slope(w, ord);
	else
		judge_deviation(w, ord);
	free(ord);
	c = w->criterion < 0 ? -w->criterion : w->criterion;
	if (!(c < w->limit))	/* a NaN (a mean of 0) never attains, as in fio */
		return false;
	w->flags |= RES_SS_ATTAINED;
	return true;
}

/* ---- the coordinator's sampling ---- */

/* Per clone of a unit: its counters at the last sample (fio's prev_* per thread). */
struct ss_member {
	uint64_t prev_ns, prev_bytes, prev_ios;	/* prev_ns 0: its measured time not begun */
	bool ramp_over;
	bool gone;			/* ended, and its last I/O counted */
};

struct ss_unit {
	uint32_t first, last;		/* workers cur[first..last] */
	uint64_t next_ns;		/* its next sample is due (0 = its clones' start not settled yet) */
	uint64_t epoch_ns;		/* the last start of the clones that started with its first */
	uint64_t ramp_ns;
	struct ss_window win;
	struct ss_member *m;
	uint64_t last_sample_ns, attained_ns;
	bool done;
};

static int unit_record(struct ss_unit *u, struct worker *const *cur);

static bool same_unit(const struct worker *a, const struct worker *b)
{
	return a->job->group_reporting && b->job->group_reporting &&
	       a->job->groupid == b->job->groupid;
}

static int unit_init(struct ss_unit *u, struct worker *const *cur, uint32_t a, uint32_t b)
{
	const struct plan_job *j = cur[a]->job;

	u->first = a;
	u->last = b;
	u->ramp_ns = j->ss_ramp_ns;
	u->m = calloc(b - a + 1, sizeof(*u->m));
	if (!u->m)
		return -ENOMEM;
	for (uint32_t i = 0; i <= b - a; i++)
		u->m[i].ramp_over = !u->ramp_ns;
	return ss_window_init(&u->win, j->ss_flags, j->ss_limit, j->ss_dur_s);
}

static uint32_t count_units(struct worker *const *cur, uint32_t n)
{
	uint32_t nr = 0;

	for (uint32_t i = 0; i < n; i++)
		if (cur[i]->job->ss_dur_s && (!i || !same_unit(cur[i - 1], cur[i]) ||
					      !cur[i - 1]->job->ss_dur_s))
			nr++;
	return nr;
}

int ss_run_init(struct ss_run *r, struct worker *const *cur, uint32_t n)
{
	uint32_t k = 0, nr = count_units(cur, n);

	memset(r, 0, sizeof(*r));
	if (!nr)
		return 0;
	r->units = calloc(nr, sizeof(*r->units));
	if (!r->units)
		return -ENOMEM;
	r->nr_units = nr;
	for (uint32_t a = 0, b; a < n; a = b + 1) {
		b = a;
		if (!cur[a]->job->ss_dur_s)
			continue;
		while (b + 1 < n && cur[b + 1]->job->ss_dur_s && same_unit(cur[b], cur[b + 1]))
			b++;
		/* An empty record at once: interim reports show the section from the start, as fio's. */
		if (unit_init(&r->units[k], cur, a, b) || unit_record(&r->units[k], cur))
			return -ENOMEM;
		k++;
	}
	return 0;
}

/*
 * One clone's rates since its last sample (fio: per thread, integer per second).
 * A clone that ended since then counts once more, with the I/O it did before
 * its end: left out, the sample a time-based group takes as its clones end was
 * the sum of those still running (half the group's rate, judged and printed).
 */
static bool member_rates(struct ss_unit *u, struct worker *w, struct ss_member *m, uint64_t now,
			 uint64_t *iops, uint64_t *bw)
{
	uint64_t bytes = 0, ios = 0, ms, epoch;

	if (!w->started || m->gone)
		return false;
	/* acquire: its counters are final once it says it ended (worker.c's finish) */
	m->gone = !atomic_load_explicit(&w->pub.running, memory_order_acquire);
	/*
	 * Its measured time began at its gate's opening, or at its own start without
	 * a gate (a stream's, a startdelay range's): not when a tick first saw it
	 * running, up to a second later, which ended its ramp as late.  Before that
	 * (setting up, a start delay) it has nothing to count.
	 */
	epoch = atomic_load_explicit(&w->pub.epoch_ns, memory_order_relaxed);
	if (!epoch)
		return false;
	if (!m->prev_ns)	/* its first rate counts from its start (fio: prev_time = epoch) */
		m->prev_ns = epoch < now ? epoch : now;
	if (epoch <= u->epoch_ns)	/* started with the others: their ramps end at one sample */
		epoch = u->epoch_ns;
	if (!m->ramp_over && now >= epoch + u->ramp_ns + SS_TICK_NS)
		m->ramp_over = true;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		bytes += atomic_load_explicit(&w->pub.bytes[d], memory_order_relaxed);
		ios += atomic_load_explicit(&w->pub.ios[d], memory_order_relaxed);
	}
	ms = (now - m->prev_ns) / 1000000ull;
	m->prev_ns = now;
	if (m->ramp_over && ms) {
		*bw += 1000 * (bytes - m->prev_bytes) / ms;
		*iops += 1000 * (ios - m->prev_ios) / ms;
	}
	m->prev_bytes = bytes;
	m->prev_ios = ios;
	return m->ramp_over;
}

/* Asks every clone of the unit to stop as a signal would; their results are kept. */
static void unit_stop(struct ss_unit *u, struct worker *const *cur)
{
	for (uint32_t i = u->first; i <= u->last; i++)
		worker_ask_stop(cur[i], 1);
	worker_wake_gates(cur + u->first, u->last - u->first + 1);
}

static void unit_sample(struct ss_unit *u, struct worker *const *cur, uint64_t now)
{
	uint64_t iops = 0, bw = 0;
	bool any = false;

	for (uint32_t i = u->first; i <= u->last; i++)
		any |= member_rates(u, cur[i], &u->m[i - u->first], now, &iops, &bw);
	if (!any)
		return;
	u->last_sample_ns = now;
	if (ss_window_add(&u->win, iops, bw)) {
		u->done = true;
		u->attained_ns = now;
		unit_stop(u, cur);
	}
	/* The record so far, for eng_snapshot (--status-interval shows it, as fio's does). */
	unit_record(u, cur);
}

/*
 * A unit samples on its own seconds, counted from the start of its clones: not
 * on the coordinator's clock, where whether the sample at ramp + 1 s counted
 * depended on which came first, the clones' start or that clock.  Clones without
 * a start gate (a stream's) start a few microseconds apart: the seconds count
 * from the last of those that started within SS_TOGETHER_NS of the first, and
 * their ramps end together (each on its own, the first sample summed those whose
 * ramp had ended by a microsecond: half the group's rate).  0 until settled.
 */
#define SS_TOGETHER_NS (SS_TICK_NS / 2)

static uint64_t started_at(const struct worker *w)
{
	return w->started ? atomic_load_explicit(&w->pub.epoch_ns, memory_order_relaxed) : 0;
}

static uint64_t unit_first_due(struct ss_unit *u, struct worker *const *cur, uint64_t now)
{
	uint64_t first = 0, last = 0, e;

	for (uint32_t i = u->first; i <= u->last; i++)
		if ((e = started_at(cur[i])) && (!first || e < first))
			first = e;
	if (!first || now < first + SS_TOGETHER_NS)
		return 0;
	for (uint32_t i = u->first; i <= u->last; i++)
		if ((e = started_at(cur[i])) && e <= first + SS_TOGETHER_NS && e > last)
			last = e;
	u->epoch_ns = last;
	return last + SS_TICK_NS;
}

void ss_run_tick(struct ss_run *r, struct worker *const *cur, uint64_t now)
{
	for (uint32_t i = 0; i < r->nr_units; i++) {
		struct ss_unit *u = &r->units[i];

		if (u->done || (!u->next_ns && !(u->next_ns = unit_first_due(u, cur, now))) ||
		    now < u->next_ns)
			continue;
		u->next_ns += SS_TICK_NS;
		if (u->next_ns <= now)	/* a late tick does not make up the seconds it missed */
			u->next_ns = now + SS_TICK_NS;
		unit_sample(u, cur, now);
	}
}

/* Writes (or updates) the unit's record in its last clone's res_job. 0 or -ENOMEM. */
static int unit_record(struct ss_unit *u, struct worker *const *cur)
{
	struct worker *w = cur[u->last];
	struct res_job *rj = w->jr->res;
	struct res_ss *s;

	if (!rj->ss)
		rj->ss = calloc(rj->nr_clones ? rj->nr_clones : 1, sizeof(*rj->ss));
	if (!rj->ss)
		return -ENOMEM;
	s = &rj->ss[w->out - rj->clones];
	if (!s->iops)
		s->iops = malloc(u->win.dur * sizeof(*s->iops));
	if (!s->bw)
		s->bw = malloc(u->win.dur * sizeof(*s->bw));
	if (!s->iops || !s->bw)
		return -ENOMEM;
	ss_window_ordered(&u->win, s->iops, s->bw);
	s->on = true;
	s->flags = u->win.flags;
	s->limit = u->win.limit;
	s->dur_s = u->win.dur;
	s->ramp_ns = u->ramp_ns;
	s->criterion = u->win.criterion;
	s->slope = u->win.slope;
	s->deviation = u->win.deviation;
	s->nr_samples = u->win.nr;
	s->last_sample_ns = u->last_sample_ns;
	s->attained_ns = u->attained_ns;
	return 0;
}

int ss_run_finish(struct ss_run *r, struct worker *const *cur)
{
	int ret = 0;

	for (uint32_t i = 0; i < r->nr_units; i++) {
		struct ss_unit *u = &r->units[i];

		if (!ret && u->win.iops)
			ret = unit_record(u, cur);
		ss_window_free(&u->win);
		free(u->m);
	}
	free(r->units);
	memset(r, 0, sizeof(*r));
	return ret;
}

/*
 * engine/engine.c - the public engine API (engine.h) and the coordinator thread.
 *
 * eng_start() lays nothing out itself: it starts one coordinator thread that
 * checks and lays out the files, then runs the plan segment by segment.  A
 * segment is the run of jobs between two stonewalls (fio's full barrier); its
 * jobs start together, one thread per clone, and the next segment starts when
 * every thread of this one has exited.  A segment runs repeat_discard + repeat
 * times (taken from its first job), each run adding one res_job per job to the
 * results.  The coordinator also watches for stalls and forwards stop requests.
 * eng_snapshot (snapshot.h) reads the jobs so far from the caller's thread, under
 * mu, which is why the coordinator adds a job's results and frees a segment's
 * workers under mu too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpustat.h"
#include "idleprof.h"
#include "diskstats.h"
#include "engine.h"
#include "engine_internal.h"
#include "layout.h"
#include "logs.h"
#include "progress.h"
#include "scratch.h"
#include "snapshot.h"
#include "steadystate.h"
#include "worker.h"

#define TICK_NS 100000000ull		/* coordinator's watchdog and pause granularity */

static uint64_t mono_ns(void)
{
	return clk_mono_raw();
}

static void set_phase(struct eng *e, enum eng_phase p)
{
	atomic_store_explicit(&e->phase, (int)p, memory_order_relaxed);
}

static bool is_stopping(struct eng *e)
{
	return atomic_load_explicit(&e->stop, memory_order_relaxed) != 0;
}

/* Sleeps ns unless a stop request comes first (eng_stop signals cv). */
static void pause_for(struct eng *e, uint64_t ns)
{
	struct timespec ts;
	uint64_t until;

	if (!ns || e->opts.fake_clock)
		return;
	until = mono_ns() + ns;
	ts.tv_sec = (time_t)(until / 1000000000ull);
	ts.tv_nsec = (long)(until % 1000000000ull);
	pthread_mutex_lock(&e->mu);
	while (!is_stopping(e) && mono_ns() < until)
		if (pthread_cond_timedwait(&e->cv, &e->mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&e->mu);
}

/* First job index after the segment starting at a. */
static uint32_t segment_end(const struct plan *p, uint32_t a)
{
	uint32_t b = a + 1;

	while (b < p->nr_jobs && !plan_job_at(p, b)->stonewall)
		b++;
	return b;
}

static uint32_t runs_of(const struct plan_job *j)
{
	return j->repeat_discard + (j->repeat ? j->repeat : 1);
}

static uint32_t count_res_jobs(const struct plan *p)
{
	uint32_t n = 0;

	for (uint32_t a = 0, b; a < p->nr_jobs; a = b) {
		b = segment_end(p, a);
		n += (b - a) * runs_of(plan_job_at(p, a));
	}
	return n;
}

static void host_facts(struct eng *e)
{
	struct results *r = e->res;
	struct utsname u;
	struct timespec ts;

	r->abi_version = RESULTS_ABI_VERSION;
	r->plan = e->plan;
	if (e->opts.fake_clock) {
		strcpy(r->hostname, "fakehost");
		strcpy(r->kernel, "Linux fake");
		r->start_wall_ns = 1700000000000000000ull;
		r->start_mono_ns = 0;
	} else {
		gethostname(r->hostname, sizeof(r->hostname) - 1);
		if (!uname(&u))
			snprintf(r->kernel, sizeof(r->kernel), "%.30s %.90s", u.sysname, u.release);
		clock_gettime(CLOCK_REALTIME, &ts);
		r->start_wall_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		r->start_mono_ns = e->sh.clk.mono0;
		r->clock_cost_ns = clk_cost_ns(&e->sh.clk, 1000);
	}
	snprintf(r->clock_source, sizeof(r->clock_source), "%s", clk_name(&e->sh.clk));
}

static struct res_job *add_res_job(struct eng *e, const struct plan_job *j, uint32_t idx,
				   uint32_t run, bool discarded)
{
	struct res_job *rj = &e->res->jobs[e->res->nr_jobs];
	struct res_clone *clones;

	if (e->res->nr_jobs >= e->res_cap)
		return NULL;
	clones = calloc(j->nr_clones ? j->nr_clones : 1, sizeof(*clones));
	if (!clones)
		return NULL;
	for (uint32_t c = 0; c < j->nr_clones; c++)
		res_clone_init(&clones[c]);
	/* Under mu: eng_snapshot reads the jobs so far. */
	pthread_mutex_lock(&e->mu);
	rj->clones = clones;
	rj->job_id = idx;
	rj->groupid = j->groupid;
	rj->run = run;
	rj->discarded = discarded;
	rj->nr_clones = j->nr_clones;
	e->res->nr_jobs++;
	pthread_mutex_unlock(&e->mu);
	return rj;
}

static int32_t wait_index(const struct plan *p, uint32_t a, uint32_t b, const struct plan_job *j)
{
	for (uint32_t i = a; i < b; i++)
		if ((int32_t)plan_job_at(p, i)->job_id == j->wait_for_job_id &&
		    plan_job_at(p, i) != j)
			return (int32_t)(i - a);
	return -1;
}

/* A FIFO or character device: its open() may wait for another party (a writer). */
static bool has_stream(const struct plan_job *j)
{
	struct stat st;

	for (uint32_t c = 0; c < j->nr_clones; c++)
		for (uint32_t f = 0; f < j->clones[c].nr_files; f++)
			if (!stat(j->clones[c].files[f].path, &st) &&
			    (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
				return true;
	return false;
}

/*
 * Which start gate a job's clones pass (worker.h): as fio, every thread that
 * starts at a given moment is set up before any of them starts its I/O, so a
 * group's measured windows coincide however long 1000 clones take to set up.
 * A job on a stream starts alone: its open() must not hold the group (a
 * reader's writer may be a job that waits for this group to end).
 */
static void gate_of(struct seg_run *s, struct job_run *jr)
{
	const struct plan_job *j = jr->job;

	if (j->startdelay_max_ns > j->startdelay_min_ns || !j->nr_clones ||
	    (ioe_opens_files(j->ioengine) && has_stream(j))) {
		/* each clone draws its own delay, or may wait in open(): it starts alone */
		jr->gate = NULL;
	} else if (jr->waits_for < 0 && !j->startdelay_min_ns) {
		jr->gate = &s->gate;
		atomic_fetch_add(&s->gate.left, j->nr_clones);
	} else {
		jr->gate = &jr->own_gate;
		atomic_store(&jr->own_gate.left, j->nr_clones);
	}
}

static int job_runs_init(struct eng *e, struct seg_run *s, uint32_t a, uint32_t b, uint32_t run)
{
	const struct plan_job *first = plan_job_at(e->plan, a);

	for (uint32_t i = a; i < b; i++) {
		const struct plan_job *j = plan_job_at(e->plan, i);
		struct job_run *jr = &s->jobs[i - a];
		uint32_t nf = j->nr_clones ? j->clones[0].nr_files : 0;

		jr->job = j;
		jr->job_index = i;
		jr->waits_for = wait_index(e->plan, a, b, j);
		jr->clones_left = j->nr_clones;
		jr->done = !j->nr_clones;
		gate_of(s, jr);
		jr->res = add_res_job(e, j, i, run, run < first->repeat_discard);
		if (!jr->res)
			return -ENOMEM;
		if (j->interlocked && nf) {
			jr->il = aligned_alloc(64, nf * sizeof(*jr->il));
			if (!jr->il)
				return -ENOMEM;
			memset(jr->il, 0, nf * sizeof(*jr->il));
		}
		s->workers_left += j->nr_clones;
	}
	return 0;
}

static struct worker *worker_new(struct eng *e, struct seg_run *s, struct job_run *jr, uint32_t c)
{
	struct worker *w = aligned_alloc(64, (sizeof(*w) + 63) & ~(size_t)63);
	int err;

	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->log = wlog_open(e->logw, jr->job, &jr->job->clones[c], &err);
	if (err) {
		free(w);
		return NULL;
	}
	w->sh_own = e->sh;
	w->sh_own.stop = &w->stop;
	w->sh = &w->sh_own;
	w->seg = s;
	w->jr = jr;
	w->job = jr->job;
	w->clone = &jr->job->clones[c];
	w->out = &jr->res->clones[c];
	res_clone_init(&w->res);
	pthread_mutex_init(&w->snap_mu, NULL);
	atomic_store(&w->pub.running, true);
	return w;
}

static int spawn(struct eng *e, struct seg_run *s)
{
	uint32_t n = 0, k = 0;

	for (uint32_t i = 0; i < s->nr_jobs; i++)
		n += s->jobs[i].job->nr_clones;
	pthread_mutex_lock(&e->mu);
	e->cur = calloc(n ? n : 1, sizeof(*e->cur));
	pthread_mutex_unlock(&e->mu);
	if (!e->cur)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nr_jobs; i++)
		for (uint32_t c = 0; c < s->jobs[i].job->nr_clones; c++) {
			struct worker *w = worker_new(e, s, &s->jobs[i], c);

			if (!w)
				goto fail;
			pthread_mutex_lock(&e->mu);
			/* Under mu, so a concurrent eng_stop() reaches this worker either way. */
			atomic_store(&w->stop, atomic_load(&e->stop));
			e->cur[k++] = w;
			e->nr_cur = k;
			pthread_mutex_unlock(&e->mu);
			if (pthread_create(&w->tid, NULL, worker_main, w))
				goto fail;
			w->started = true;
		}
	return 0;
fail:
	/* Threads never started count as done so the wait below ends; the rest abort. */
	atomic_store(&e->stop, 2);
	pthread_mutex_lock(&e->mu);
	for (uint32_t i = 0; i < e->nr_cur; i++)
		atomic_store(&e->cur[i]->stop, 2);
	pthread_mutex_unlock(&e->mu);
	pthread_mutex_lock(&s->mu);
	for (uint32_t i = 0; i < n; i++)
		if (i >= k || !e->cur[i]->started)
			s->workers_left--;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return -EAGAIN;
}

static void check_stalls(struct eng *e, uint64_t now)
{
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		struct worker *w = e->cur[i];
		uint64_t last, limit = w->job->stall_timeout_ns;

		if (!limit || !w->started || atomic_load(&w->pub.stalled) ||
		    !atomic_load_explicit(&w->pub.running, memory_order_relaxed) ||
		    !atomic_load_explicit(&w->pub.inflight, memory_order_relaxed))
			continue;
		last = atomic_load_explicit(&w->pub.last_done_ns, memory_order_relaxed);
		if (now > last && now - last > limit) {
			atomic_store(&w->pub.stalled, true);
			res_msg_add(e->res, RES_MSG_WARNING, "stall", (int32_t)w->job->job_id,
				    "%s: thread %u: no I/O completed for %llu ms", w->job->name,
				    w->clone->thread_number,
				    (unsigned long long)((now - last) / 1000000ull));
		}
	}
}

/*
 * exitall: when every clone of such a job has ended (exitall_on_error: when one
 * has failed), the jobs exit_what names are asked to stop as a signal would
 * (their results are kept); the run is not marked interrupted.  exit_what=group
 * stops the job's group, stonewall every running job, all those and every
 * later one too.  Called with s->mu held.
 */
static bool exit_due(const struct job_run *jr)
{
	if (jr->exit_sent)
		return false;
	return (jr->done && jr->job->exitall) || (jr->failed && jr->job->exitall_on_error);
}

static void exit_groups(struct eng *e, struct seg_run *s)
{
	for (uint32_t i = 0; i < s->nr_jobs; i++) {
		struct job_run *jr = &s->jobs[i];
		uint32_t what = jr->job->exit_what ? jr->job->exit_what : PLAN_EXIT_GROUP;

		if (!exit_due(jr))
			continue;
		jr->exit_sent = true;
		if (what & PLAN_EXIT_ALL)
			e->exit_rest = true;
		for (uint32_t k = 0; k < e->nr_cur; k++) {
			struct worker *w = e->cur[k];
			int zero = 0;

			if (!(what & PLAN_EXIT_GROUP) || w->job->groupid == jr->job->groupid)
				atomic_compare_exchange_strong(&w->stop, &zero, 1);
		}
		pthread_cond_broadcast(&s->cv);
	}
}

/* Waits for every worker of the segment, watching for stalls and steady state meanwhile. */
static void watch(struct eng *e, struct seg_run *s, struct ss_run *ss)
{
	struct timespec ts;
	uint64_t t;

	pthread_mutex_lock(&s->mu);
	while (s->workers_left) {
		t = mono_ns() + TICK_NS;
		ts.tv_sec = (time_t)(t / 1000000000ull);
		ts.tv_nsec = (long)(t % 1000000000ull);
		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		exit_groups(e, s);
		/* Threads waiting for another job (wait_for) wake up to see a stop. */
		if (is_stopping(e))
			pthread_cond_broadcast(&s->cv);
		if (!e->opts.fake_clock) {
			pthread_mutex_unlock(&s->mu);
			check_stalls(e, clk_now(&e->sh.clk));
			pthread_mutex_lock(&e->mu);	/* eng_snapshot may be reading res_job.ss */
			ss_run_tick(ss, e->cur, clk_now(&e->sh.clk));
			pthread_mutex_unlock(&e->mu);
			pthread_mutex_lock(&s->mu);
		}
	}
	pthread_mutex_unlock(&s->mu);
}

static const char *file_path(const struct plan_job *j, const struct res_clone *rc, uint32_t f)
{
	const struct plan_clone *c = rc->clone_index < j->nr_clones ? &j->clones[rc->clone_index]
								    : NULL;

	return c && f < c->nr_files ? c->files[f].path : "?";
}

/* One message per recorded error: job, file, offset and errno, for every report. */
static void error_msgs(struct eng *e, const struct plan_job *j, const struct res_clone *rc)
{
	for (uint32_t i = 0; i < rc->nr_errors; i++) {
		const struct res_error *er = &rc->errors[i];
		const char *path = file_path(j, rc, er->file_index);

		if (er->err == EILSEQ)
			res_msg_add(e->res, RES_MSG_ERROR, "verify", (int32_t)j->job_id,
				    "job '%s': %s: offset %llu: %s", j->name, path,
				    (unsigned long long)er->offset, er->what);
		else if (!er->err)
			res_msg_add(e->res, RES_MSG_ERROR, "short-io", (int32_t)j->job_id,
				    "job '%s': %s: offset %llu: %s: %llu of %llu bytes", j->name, path,
				    (unsigned long long)er->offset, er->what,
				    (unsigned long long)er->done, (unsigned long long)er->len);
		else
			res_msg_add(e->res, RES_MSG_ERROR, "io-error", (int32_t)j->job_id,
				    "job '%s': %s: offset %llu: %s: %s (errno %d)", j->name, path,
				    (unsigned long long)er->offset, er->what, strerror(er->err),
				    er->err);
	}
	if (rc->total_err > rc->nr_errors)
		res_msg_add(e->res, RES_MSG_ERROR, "more-errors", (int32_t)j->job_id,
			    "job '%s': thread %u: %llu more errors not listed", j->name,
			    rc->thread_number,
			    (unsigned long long)(rc->total_err - rc->nr_errors));
}

/* A job's span from its clones; the run's first fatal error from theirs. */
static void job_span(struct eng *e, struct res_job *rj)
{
	res_job_span(rj);
	for (uint32_t c = 0; c < rj->nr_clones; c++) {
		struct res_clone *rc = &rj->clones[c];

		if (rc->error && !e->res->error)
			e->res->error = rc->error;
		error_msgs(e, plan_job_at(e->plan, rj->job_id), rc);
	}
}

static void seg_free(struct eng *e, struct seg_run *s)
{
	pthread_mutex_lock(&e->mu);
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		wlog_close(e->cur[i]->log);
		if (e->cur[i]->snap_valid)
			res_clone_release(&e->cur[i]->snap);
		pthread_mutex_destroy(&e->cur[i]->snap_mu);
		free(e->cur[i]);
	}
	free(e->cur);
	e->cur = NULL;
	e->nr_cur = 0;
	pthread_mutex_unlock(&e->mu);
	for (uint32_t i = 0; i < s->nr_jobs; i++)
		free(s->jobs[i].il);
	free(s->jobs);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
}

/* One run of the jobs [a, b): all start, all end. */
static int run_segment(struct eng *e, uint32_t a, uint32_t b, uint32_t run)
{
	struct seg_run s;
	struct ss_run ss;
	pthread_condattr_t ca;
	int ret, ss_ret;

	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.mu, NULL);
	/* watch() waits for CLOCK_MONOTONIC deadlines: a REALTIME cv would never sleep. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s.cv, &ca);
	pthread_condattr_destroy(&ca);
	s.nr_jobs = b - a;
	s.jobs = calloc(s.nr_jobs, sizeof(*s.jobs));
	ret = s.jobs ? job_runs_init(e, &s, a, b, run) : -ENOMEM;
	if (!ret)
		ret = spawn(e, &s);
	memset(&ss, 0, sizeof(ss));
	pthread_mutex_lock(&e->mu);
	if (!ret && !e->opts.fake_clock)
		ret = ss_run_init(&ss, e->cur, e->nr_cur, clk_now(&e->sh.clk));
	pthread_mutex_unlock(&e->mu);
	watch(e, &s, &ss);
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		struct worker *w = e->cur[i];

		if (!w->started)
			continue;
		pthread_join(w->tid, NULL);
		pthread_mutex_lock(&w->snap_mu);	/* eng_snapshot may be reading *out */
		w->out->stalled = atomic_load(&w->pub.stalled);
		pthread_mutex_unlock(&w->snap_mu);
		/* A fake clock is per thread: the next segment starts after this one. */
		if (e->sh.fake && w->out->thread_end_ns > e->sh.clk.fake_now)
			e->sh.clk.fake_now = w->out->thread_end_ns;
	}
	pthread_mutex_lock(&e->mu);	/* eng_snapshot may be reading the jobs */
	ss_ret = ss_run_finish(&ss, e->cur);
	pthread_mutex_unlock(&e->mu);
	if (!ret)
		ret = ss_ret;
	for (uint32_t i = 0; i < s.nr_jobs && s.jobs[i].res; i++)
		job_span(e, s.jobs[i].res);
	seg_free(e, &s);
	return ret;
}

/*
 * Whether the next run of segment a may start.  In step with other processes
 * (eng_opts.sync) the answer is theirs too, so every process starts or stops
 * at the same segment; a refusal from the others is this run's -ECANCELED.
 */
static bool may_start(struct eng *e, uint32_t a, uint32_t run, int *ret)
{
	const struct eng_sync *sy = e->opts.sync;
	bool stop = *ret || is_stopping(e) || e->exit_rest;
	int s;

	if (!sy)
		return !stop;
	s = sy->segment_start(sy->ctx, a, run, stop);
	if (s && !*ret && !is_stopping(e) && !e->exit_rest)
		*ret = s;
	return !s && !stop;
}

static int run_plan(struct eng *e)
{
	const struct plan *p = e->plan;
	bool stopped = false;
	int ret = 0;

	for (uint32_t a = 0, b; a < p->nr_jobs && (e->opts.sync || (!ret && !is_stopping(e) && !e->exit_rest)); a = b) {
		const struct plan_job *first = plan_job_at(p, a);

		b = segment_end(p, a);
		set_phase(e, ENG_PHASE_PAUSE);
		pause_for(e, first->group_pause_ns);
		for (uint32_t run = 0; run < runs_of(first); run++) {
			/* Alone, a stop skips the pause; in step, the others are asked after it. */
			if (!e->opts.sync && (ret || is_stopping(e) || e->exit_rest)) {
				stopped = true;
				break;
			}
			if (run)
				pause_for(e, first->repeat_pause_ns);
			if (!may_start(e, a, run, &ret)) {
				stopped = true;
				break;
			}
			set_phase(e, ENG_PHASE_RUN);
			pthread_mutex_lock(&e->mu);
			e->seg_a = a;
			e->seg_b = b;
			e->seg_runs_left = runs_of(first) - run - 1;
			pthread_mutex_unlock(&e->mu);
			ret = run_segment(e, a, b, run);
			if (e->opts.sync) {
				int s = e->opts.sync->segment_end(e->opts.sync->ctx, a, run);

				if (!ret)
					ret = s;
			}
			pthread_mutex_lock(&e->mu);
			e->segruns_done++;
			pthread_mutex_unlock(&e->mu);
		}
		for (uint32_t i = a; i < b; i++)
			layout_unlink_job(&e->lay, plan_job_at(p, i), i);
		if (stopped)
			break;
	}
	return ret;
}

/*
 * The log writer runs for the whole plan, so a file shared by several jobs or
 * repeats (per_job_logs=0) is opened once.  A log that could not be written is
 * an error naming the file; the results are still reported.
 */
static int logs_start(struct eng *e)
{
	for (uint32_t i = 0; i < e->plan->nr_jobs; i++)
		if (logs_wanted(plan_job_at(e->plan, i)))
			return logw_start(&e->logw);
	return 0;
}

static void log_failed(void *arg, const char *path, int err)
{
	struct eng *e = arg;

	res_msg_add(e->res, RES_MSG_ERROR, "log-write", -1, "log file %s: %s (errno %d)", path,
		    strerror(err), err);
	if (!e->res->error)
		e->res->error = err;
}

static void logs_stop(struct eng *e)
{
	logw_stop(e->logw, log_failed, e);
	e->logw = NULL;
}

/*
 * --idle-prof's threads, calibrated before the run starts; a failure to
 * start them costs the report its idleness figures, not the run.
 */
static struct idleprof *idle_start(struct eng *e)
{
	struct idleprof *ip = NULL;
	int ret;

	if (e->opts.idle_prof == RES_IDLE_NONE || e->sh.fake)
		return NULL;
	ret = idleprof_start(e->opts.idle_prof, &ip);
	if (ret)
		res_msg_add(e->res, RES_MSG_WARNING, "idle-prof", -1,
			    "--idle-prof: cannot start the idleness threads: %s", strerror(-ret));
	idleprof_go(ip);
	return ip;
}

static void *coordinator(void *arg)
{
	struct eng *e = arg;
	struct idleprof *idle;
	int ret;

	set_phase(e, ENG_PHASE_LAYOUT);
	ret = layout_prepare(&e->lay, e->plan, e->res, &e->stop);
	if (e->opts.sync) {
		int s = e->opts.sync->layout_done(e->opts.sync->ctx, ret);

		if (!ret)
			ret = s;
	}
	if (!ret) {
		diskstats_begin(&e->disks, &e->lay, e->sh.fake);
		cpustat_begin(&e->cpus, e->sh.fake);
		ret = logs_start(e);
		idle = idle_start(e);
		if (!ret)
			ret = run_plan(e);
		idleprof_stop(idle, e->res);
		logs_stop(e);
		layout_finish(&e->lay, e->res);
		cpustat_end(&e->cpus, e->res);
		diskstats_end(&e->disks, e->res);
	}
	if (ret && !e->res->error)
		e->res->error = -ret;
	e->res->end_mono_ns = e->res->start_mono_ns + clk_now(&e->sh.clk);
	e->res->interrupted = is_stopping(e);
	set_phase(e, ENG_PHASE_DONE);
	pthread_mutex_lock(&e->mu);
	e->done = true;
	e->ret = e->res->error ? -e->res->error : 0;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

static void eng_free(struct eng *e)
{
	layout_release(&e->lay);
	diskstats_release(&e->disks);
	free((void *)e->sh.states);
	flows_release(&e->flows);
	scratch_release(&e->scratch);
	pthread_cond_destroy(&e->cv);
	pthread_mutex_destroy(&e->mu);
	free(e);
}

static int eng_init(struct eng *e, const struct plan *p, const struct eng_opts *o)
{
	pthread_condattr_t ca;
	uint32_t n = p->nr_threads ? p->nr_threads : 1;

	e->plan = p;
	if (o)
		e->opts = *o;
	pthread_mutex_init(&e->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->cv, &ca);
	pthread_condattr_destroy(&ca);
	clk_init(&e->sh.clk, e->opts.fake_clock, e->opts.fake_clock_step_ns);
	latbkt_table_init(&e->lbt);
	e->sh.lbt = &e->lbt;
	e->sh.stop = &e->stop;
	e->sh.snap_req = &e->snap_req;
	e->sh.snapshots = e->opts.snapshots;
	e->sh.fake = e->opts.fake_clock;
	for (uint32_t i = 0; i < p->nr_jobs && !e->sh.sleep_gran_ns && !e->sh.fake; i++)
		if (plan_job_at(p, i)->thinktime_ns)
			e->sh.sleep_gran_ns = clk_sleep_granularity_ns(&e->sh.clk);
	e->sh.states = calloc(n, sizeof(*e->sh.states));
	e->res = calloc(1, sizeof(*e->res));
	e->res_cap = count_res_jobs(p);
	for (uint32_t a = 0, b; a < p->nr_jobs; a = b) {
		b = segment_end(p, a);
		e->segruns_total += runs_of(plan_job_at(p, a));
	}
	if (e->res)
		e->res->jobs = calloc(e->res_cap ? e->res_cap : 1, sizeof(*e->res->jobs));
	if (!e->sh.states || !e->res || !e->res->jobs)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		atomic_store(&e->sh.states[i], 'P');
	host_facts(e);
	if (flows_init(&e->flows, n))
		return -ENOMEM;
	e->sh.flows = &e->flows;
	if (scratch_init(&e->scratch))
		return -ENOMEM;
	e->sh.scratch = &e->scratch;
	return layout_init(&e->lay, p);
}

int eng_start(const struct plan *p, const struct eng_opts *o, struct eng **out)
{
	struct eng *e;
	int ret;

	*out = NULL;
	if (!p || p->abi_version != PLAN_ABI_VERSION)
		return -EINVAL;
	e = aligned_alloc(64, (sizeof(*e) + 63) & ~(size_t)63);
	if (!e)
		return -ENOMEM;
	memset(e, 0, sizeof(*e));
	ret = eng_init(e, p, o);
	if (!ret && pthread_create(&e->coord, NULL, coordinator, e))
		ret = -EAGAIN;
	if (ret) {
		results_free(e->res);
		eng_free(e);
		return ret;
	}
	*out = e;
	return 0;
}

/* Time the plan needs after the running segment's current run, UINT64_MAX if unknown. */
static uint64_t later_ns(struct eng *e)
{
	const struct plan *p = e->plan;
	uint64_t sum = 0, t = prog_segment_ns(p, e->seg_a, e->seg_b);

	if (e->seg_runs_left && t == UINT64_MAX)
		return UINT64_MAX;
	sum = t == UINT64_MAX ? 0 : t * e->seg_runs_left;
	for (uint32_t a = e->seg_b, b; a < p->nr_jobs; a = b) {
		const struct plan_job *j = plan_job_at(p, a);

		b = segment_end(p, a);
		t = prog_segment_ns(p, a, b);
		if (t == UINT64_MAX)
			return UINT64_MAX;
		sum += (t + j->repeat_pause_ns) * runs_of(j) + j->group_pause_ns;
	}
	return sum;
}

/* done_fraction and eta_ns over the whole plan (progress.h). */
static void estimate(struct eng *e, struct eng_status *st)
{
	uint64_t now, left = 0, wl, later;
	double sum = 0, f;
	uint32_t n = 0;
	bool known = true;

	st->done_fraction = -1.0;
	st->eta_ns = UINT64_MAX;
	if (e->opts.fake_clock)
		return;		/* a fake clock advances when read: leave it to the run */
	now = clk_now(&e->sh.clk);
	pthread_mutex_lock(&e->mu);
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		if (!atomic_load_explicit(&e->cur[i]->pub.running, memory_order_relaxed)) {
			sum += 1.0;
			n++;
			continue;
		}
		prog_worker(e->cur[i], now, &f, &wl);
		known = known && f >= 0 && wl != UINT64_MAX;
		sum += f > 0 ? f : 0;
		n++;
		if (wl != UINT64_MAX && wl > left)
			left = wl;
	}
	later = later_ns(e);
	if (e->segruns_total && n)
		st->done_fraction = ((double)e->segruns_done + sum / n) / e->segruns_total;
	pthread_mutex_unlock(&e->mu);
	if (known && n && later != UINT64_MAX)
		st->eta_ns = left + later;
}

int eng_get_status(struct eng *e, struct eng_status *st)
{
	const struct plan *p = e->plan;

	st->phase = (enum eng_phase)atomic_load_explicit(&e->phase, memory_order_relaxed);
	st->nr_running = 0;
	st->files_open = 0;
	memset(st->bytes, 0, sizeof(st->bytes));
	memset(st->ios, 0, sizeof(st->ios));
	pthread_mutex_lock(&e->mu);
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		struct worker *w = e->cur[i];

		if (!atomic_load_explicit(&w->pub.running, memory_order_relaxed))
			continue;
		st->nr_running++;
		/* At most openfiles of a thread's files are open at once (worker_files.c). */
		st->files_open += w->job->openfiles && w->job->openfiles < w->clone->nr_files
					  ? w->job->openfiles : w->clone->nr_files;
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			st->bytes[d] += atomic_load_explicit(&w->pub.bytes[d], memory_order_relaxed);
			st->ios[d] += atomic_load_explicit(&w->pub.ios[d], memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&e->mu);
	if (st->states)
		for (uint32_t i = 0; i < p->nr_threads; i++)
			st->states[i] = atomic_load_explicit(&e->sh.states[i], memory_order_relaxed);
	st->elapsed_ns = e->opts.fake_clock ? 0 : clk_mono_raw() - e->sh.clk.mono0;
	estimate(e, st);
	st->layout_done_bytes = atomic_load(&e->lay.done);
	st->layout_total_bytes = atomic_load(&e->lay.total);
	return 0;
}

int eng_snapshot(struct eng *e, uint64_t wait_ns, struct results **out)
{
	struct clk c;
	uint64_t seq;
	int ret;

	/* mu keeps the workers and the jobs so far in place while they are read. */
	pthread_mutex_lock(&e->mu);
	seq = atomic_fetch_add(&e->snap_req, 1) + 1;
	snap_await(e->cur, e->nr_cur, seq, wait_ns);
	c = e->sh.clk;		/* a fake clock advances as it is read: not the run's */
	ret = snap_collect(e->res, e->cur, e->nr_cur, clk_now(&c), out);
	pthread_mutex_unlock(&e->mu);
	return ret;
}

void eng_stop(struct eng *e)
{
	int s = atomic_load(&e->stop);

	while (s < 2 && !atomic_compare_exchange_weak(&e->stop, &s, s + 1))
		;
	pthread_mutex_lock(&e->mu);
	s = atomic_load(&e->stop);
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		int w = atomic_load(&e->cur[i]->stop);

		while (w < s && !atomic_compare_exchange_weak(&e->cur[i]->stop, &w, s))
			;
	}
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

int eng_wait(struct eng *e, uint64_t timeout_ns)
{
	struct timespec ts;
	uint64_t until = mono_ns() + timeout_ns;
	int ret = 0;

	if (timeout_ns > UINT64_MAX / 2)
		until = UINT64_MAX / 2;
	ts.tv_sec = (time_t)(until / 1000000000ull);
	ts.tv_nsec = (long)(until % 1000000000ull);
	pthread_mutex_lock(&e->mu);
	while (!e->done && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&e->cv, &e->mu, &ts);
	ret = e->done ? 0 : -ETIMEDOUT;
	pthread_mutex_unlock(&e->mu);
	return ret;
}

int eng_finish(struct eng *e, struct results **out)
{
	int ret;

	pthread_join(e->coord, NULL);
	ret = e->ret;
	*out = e->res;
	eng_free(e);
	return ret;
}

int eng_run(const struct plan *p, const struct eng_opts *o, struct results **out)
{
	struct eng *e;
	int ret;

	*out = NULL;
	ret = eng_start(p, o, &e);
	if (ret)
		return ret;
	return eng_finish(e, out);
}

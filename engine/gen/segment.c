/*
 * engine/gen/segment.c - one run of one segment: its workers, from start to join.
 *
 * A segment is the run of jobs between two stonewalls; its jobs start
 * together, one thread per clone, and the run ends when every thread has
 * exited.  Meanwhile the coordinator, in watch(), wakes every tick to stop
 * the groups an exitall job names, to flag stalled threads and to judge
 * steady state.  At the end each job's span, first error and error messages
 * (and the note of a thread that ran without its random map) go into the results.  Kept apart from engine.c, which walks the plan from
 * segment to segment and answers the public API, because this is where the
 * threads live: everything here happens between one spawn and its join.
 * eng_snapshot reads the jobs and workers from the caller's thread under
 * eng.mu, which is why a job's results are added and a segment's workers
 * freed under mu.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/engine_internal.h"
#include "engine/gen/segment.h"
#include "engine/steadystate.h"
#include "engine/verify/verify.h"

#define TICK_NS 100000000ull		/* how often watch() wakes: stalls, exitall, steady state */

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

/* Most jobs wait for none: asked of every job, the walk made a segment's set-up quadratic. */
static int32_t wait_index(const struct plan *p, uint32_t a, uint32_t b, const struct plan_job *j)
{
	if (j->wait_for_job_id < 0)
		return -1;
	for (uint32_t i = a; i < b; i++)
		if ((int32_t)plan_job_at(p, i)->job_id == j->wait_for_job_id &&
		    plan_job_at(p, i) != j)
			return (int32_t)(i - a);
	return -1;
}

/*
 * A FIFO or character device: its open() may wait for another party (a
 * writer).  The layout's record answers for the files it saw.
 */
static bool has_stream(const struct layout *l, const struct plan_job *j)
{
	struct stat st;

	for (uint32_t c = 0; c < j->nr_clones; c++)
		for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
			const char *path = j->clones[c].files[f].path;

			if (layout_waits_for_open(l, path))
				continue;	/* a regular file its job's open makes */
			if ((layout_seen(l, path, &st) || !stat(path, &st)) &&
			    (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
				return true;
		}
	return false;
}

/*
 * Which start gate a job's clones pass (worker.h): as fio, every thread that
 * starts at a given moment is set up before any of them starts its I/O, so a
 * group's measured windows coincide however long 1000 clones take to set up.
 * A job on a stream starts alone: its open() must not hold the group (a
 * reader's writer may be a job that waits for this group to end).
 */
static void gate_of(struct seg_run *s, struct job_run *jr, const struct layout *l)
{
	const struct plan_job *j = jr->job;

	if (j->startdelay_max_ns > j->startdelay_min_ns || !j->nr_clones ||
	    (ioe_opens_files(j->ioengine) && has_stream(l, j))) {
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
		gate_of(s, jr, &e->lay);
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
		if (!ioe_does_no_io(j->ioengine))
			s->io_left += j->nr_clones;
	}
	return 0;
}

/*
 * For cpuio's exit_on_io_done: whether a job that does I/O runs after this
 * segment (a later segment, or another run of this one), or none is in the
 * plan at all.  fio counts the jobs of later groups as pending.
 */
static int8_t io_after(const struct eng *e, uint32_t a, uint32_t b)
{
	bool any = false;

	for (uint32_t i = 0; i < e->plan->nr_jobs; i++) {
		if (ioe_does_no_io(plan_job_at(e->plan, i)->ioengine))
			continue;
		if (i >= b || (i >= a && e->seg_runs_left))
			return 1;
		any = true;
	}
	return any ? 0 : -1;
}

static struct worker *worker_new(struct eng *e, struct seg_run *s, struct job_run *jr, uint32_t c, int *err)
{
	struct worker *w = aligned_alloc(64, (sizeof(*w) + 63) & ~(size_t)63);

	*err = -ENOMEM;
	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->lg.log = clone_log_open(e->log_writer, jr->job, &jr->job->clones[c], err);
	if (*err) {
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
	pthread_mutex_init(&w->snap.mu, NULL);
	atomic_store(&w->pub.running, true);
	return w;
}

/*
 * A clone that could not be set going (its thread refused: a limit on threads
 * such as ulimit -u or a cgroup's pids.max, or on memory) is its job's error and
 * said so; the run stops, and the clones already going end as on a signal.
 */
static void spawn_failed(struct eng *e, struct job_run *jr, uint32_t c, int err)
{
	const struct plan_job *j = jr->job;
	char hint[192];

	jr->res->clones[c].error = -err;
	res_msg_add(e->res, RES_MSG_ERROR, "thread-start", (int32_t)j->job_id,
		    "job '%s': cannot start clone %u of %u: %s%s; the run stops", j->name, c + 1, j->nr_clones,
		    strerror(-err), eng_thread_refusal_hint(err, hint, sizeof(hint)));
}

static int spawn(struct eng *e, struct seg_run *s)
{
	uint32_t n = 0, k = 0;
	int err = 0;

	for (uint32_t i = 0; i < s->nr_jobs; i++)
		n += s->jobs[i].job->nr_clones;
	pthread_mutex_lock(&e->mu);
	e->cur = calloc(n ? n : 1, sizeof(*e->cur));
	pthread_mutex_unlock(&e->mu);
	if (!e->cur) {
		s->workers_left = 0;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->nr_jobs; i++)
		for (uint32_t c = 0; c < s->jobs[i].job->nr_clones; c++) {
			struct worker *w = worker_new(e, s, &s->jobs[i], c, &err);

			if (!w) {
				spawn_failed(e, &s->jobs[i], c, err);
				goto fail;
			}
			pthread_mutex_lock(&e->mu);
			/* Under mu, so a concurrent eng_stop() reaches this worker either way. */
			atomic_store(&w->stop, atomic_load(&e->stop));
			e->cur[k++] = w;
			e->nr_cur = k;
			pthread_mutex_unlock(&e->mu);
			if ((err = -pthread_create(&w->tid, NULL, worker_main, w))) {
				spawn_failed(e, &s->jobs[i], c, err);
				goto fail;
			}
			w->started = true;
		}
	return 0;
fail:
	/* Threads never started count as done so the wait below ends; the rest abort. */
	atomic_store(&e->stop, 2);
	pthread_mutex_lock(&e->mu);
	for (uint32_t i = 0; i < e->nr_cur; i++)
		worker_ask_stop(e->cur[i], 2);
	worker_wake_gates(e->cur, e->nr_cur);
	pthread_mutex_unlock(&e->mu);
	pthread_mutex_lock(&s->mu);
	for (uint32_t i = 0; i < n; i++)
		if (i >= k || !e->cur[i]->started)
			s->workers_left--;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return err;
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
 * exitall: when a clone of such a job has ended, as fio acts when one of its
 * threads ends (exitall_on_error: when one has failed), the jobs exit_what names
 * are asked to stop as a signal would (their results are kept); the run is not
 * marked interrupted.  fio's exitall is global, so the parser sets it on every
 * job once one has it.  exit_what=group
 * stops the job's group, stonewall every running job, all those and every
 * later one too.  Called with s->mu held.
 */
static bool exit_due(const struct job_run *jr)
{
	if (jr->exit_sent)
		return false;
	return (jr->ended && jr->job->exitall) || (jr->failed && jr->job->exitall_on_error);
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

			if (!(what & PLAN_EXIT_GROUP) || w->job->groupid == jr->job->groupid)
				worker_ask_stop(w, 1);
		}
		worker_wake_gates(e->cur, e->nr_cur);
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
		t = clk_mono_raw() + TICK_NS;
		ts.tv_sec = (time_t)(t / 1000000000ull);
		ts.tv_nsec = (long)(t % 1000000000ull);
		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		exit_groups(e, s);
		/* Threads waiting for another job (wait_for) wake up to see a stop. */
		if (eng_is_stopping(e))
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

/* NULL for an error that is about no file of the job (a side file's write names its own path). */
static const char *file_path(const struct plan_job *j, const struct res_clone *rc, uint32_t f)
{
	const struct plan_clone *c = rc->clone_index < j->nr_clones ? &j->clones[rc->clone_index]
								    : NULL;

	return c && f < c->nr_files ? c->files[f].path : NULL;
}

/* One message per recorded error: job, file, offset and errno, for every report. */
static void error_msgs(struct eng *e, const struct plan_job *j, const struct res_clone *rc)
{
	for (uint32_t i = 0; i < rc->nr_errors; i++) {
		const struct res_error *er = &rc->errors[i];
		const char *file = file_path(j, rc, er->file_index), *path = file ? file : "?";

		if (er->err == EILSEQ)
			res_msg_add(e->res, RES_MSG_ERROR, "verify", (int32_t)j->job_id,
				    "job '%s': %s: offset %llu: %s", j->name, path,
				    (unsigned long long)er->offset, er->what);
		else if (!er->err)
			res_msg_add(e->res, RES_MSG_ERROR, "short-io", (int32_t)j->job_id,
				    "job '%s': %s: offset %llu: %s: %llu of %llu bytes", j->name, path,
				    (unsigned long long)er->offset, er->what,
				    (unsigned long long)er->done, (unsigned long long)er->len);
		else if (ioe_does_no_io(j->ioengine) || !file)	/* cpuio, exec, a side file: no offset */
			res_msg_add(e->res, RES_MSG_ERROR, "io-error", (int32_t)j->job_id,
				    "job '%s': %s: %s (errno %d)", j->name, er->what, strerror(er->err), er->err);
		else if (!er->len)	/* no I/O: an open, a sync, a set-up step has no offset */
			res_msg_add(e->res, RES_MSG_ERROR, "io-error", (int32_t)j->job_id,
				    "job '%s': %s: %s: %s (errno %d)", j->name, path, er->what,
				    strerror(er->err), er->err);
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

/* verify_state_save by default found a user's file that came during the run: kept, and said. */
static void state_kept_msg(struct eng *e, const struct plan_job *j, const struct res_clone *rc)
{
	char path[4096];

	vstate_name(path, sizeof(path), e->sh.aux_path, j->name, rc->thread_number - 1, j->log_suffix);
	res_msg_add(e->res, RES_MSG_WARNING, "side-file", (int32_t)j->job_id,
		    "job '%s': verify_state_save (on by default, as fio's): %s appeared during the run and "
		    "ioplan did not write it: this run's state is not saved over it", j->name, path);
}

/* verify_state_save by default could not write its file: the run stands, its state is not saved. */
static void state_lost_msg(struct eng *e, const struct plan_job *j, const struct res_clone *rc)
{
	char path[4096];

	vstate_name(path, sizeof(path), e->sh.aux_path, j->name, rc->thread_number - 1, j->log_suffix);
	res_msg_add(e->res, RES_MSG_WARNING, "side-file", (int32_t)j->job_id,
		    "job '%s': verify_state_save (on by default, as fio's): writing %s: %s: this run's state is "
		    "not saved (set verify_state_save=0, or --aux-path=DIR where it can be written)", j->name, path,
		    strerror(rc->state_lost));
}

/* A job's span from its clones; the run's first fatal error from theirs. */
static void job_span(struct eng *e, struct res_job *rj)
{
	const struct plan_job *j = plan_job_at(e->plan, rj->job_id);

	res_job_span(rj);
	for (uint32_t c = 0; c < rj->nr_clones; c++) {
		struct res_clone *rc = &rj->clones[c];

		if (rc->error && !e->res->error)
			e->res->error = rc->error;
		error_msgs(e, j, rc);
		if (rc->state_kept)
			state_kept_msg(e, j, rc);
		if (rc->state_lost)
			state_lost_msg(e, j, rc);
	}
}

static void seg_free(struct eng *e, struct seg_run *s)
{
	pthread_mutex_lock(&e->mu);
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			e->past_bytes[d] += atomic_load_explicit(&e->cur[i]->pub.bytes[d], memory_order_relaxed);
			e->past_ios[d] += atomic_load_explicit(&e->cur[i]->pub.ios[d], memory_order_relaxed);
		}
		clone_log_close(e->cur[i]->lg.log);
		if (e->cur[i]->snap.valid)
			res_clone_release(&e->cur[i]->snap.res);
		pthread_mutex_destroy(&e->cur[i]->snap.mu);
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

/* softrandommap: fio's note as a file runs without its random map ("Running job without."). */
static void map_dropped_note(struct eng *e, const struct worker *w)
{
	if (!w->map_dropped || w->map_file >= w->clone->nr_files)
		return;
	res_msg_add(e->res, RES_MSG_NOTE, "softrandommap", (int32_t)w->job->job_id,
		    "job '%s': %s: no memory for its random map: thread %u runs without one "
		    "(softrandommap=1), its offsets drawn as with norandommap", w->job->name,
		    w->clone->files[w->map_file].path, w->clone->thread_number);
}

/* One run of the jobs [a, b) in this process: all start, all end. */
static int run_local(struct eng *e, uint32_t a, uint32_t b, uint32_t run)
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
	s.jobs = calloc(b - a, sizeof(*s.jobs));
	s.nr_jobs = s.jobs ? b - a : 0;
	ret = s.jobs ? job_runs_init(e, &s, a, b, run) : -ENOMEM;
	s.io_after = io_after(e, a, b);
	s.t0 = clk_now(&e->sh.clk);
	if (!ret)
		ret = spawn(e, &s);
	else	/* no thread started: watch() has none to wait for */
		s.workers_left = 0;
	memset(&ss, 0, sizeof(ss));
	pthread_mutex_lock(&e->mu);
	if (!ret && !e->opts.fake_clock)
		ret = ss_run_init(&ss, e->cur, e->nr_cur);
	pthread_mutex_unlock(&e->mu);
	watch(e, &s, &ss);
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		struct worker *w = e->cur[i];

		if (!w->started)
			continue;
		pthread_join(w->tid, NULL);
		map_dropped_note(e, w);
		pthread_mutex_lock(&w->snap.mu);	/* eng_snapshot may be reading *out */
		w->out->stalled = atomic_load(&w->pub.stalled);
		pthread_mutex_unlock(&w->snap.mu);
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
bool segment_may_start(struct eng *e, uint32_t a, uint32_t run, int *ret)
{
	const struct eng_sync *sy = e->opts.sync;
	bool stop = *ret || eng_is_stopping(e) || e->exit_rest;
	int s;

	if (!sy)
		return !stop;
	s = sy->segment_start(sy->ctx, a, run, stop);
	if (s && !*ret && !eng_is_stopping(e) && !e->exit_rest)
		*ret = s;
	return !s && !stop;
}

int segment_run(struct eng *e, uint32_t a, uint32_t b, uint32_t run)
{
	const struct eng_sync *sy = e->opts.sync;
	int ret = run_local(e, a, b, run);

	if (sy) {
		int s = sy->segment_end(sy->ctx, a, run);

		if (!ret)
			ret = s;
	}
	return ret;
}

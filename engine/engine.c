/*
 * engine/engine.c - the public engine API (engine.h) and the coordinator thread.
 *
 * eng_start() lays nothing out itself: it starts one coordinator thread that
 * checks and lays out the files, then runs the plan segment by segment.  A
 * segment is the run of jobs between two stonewalls (fio's full barrier); the
 * next segment starts when every thread of this one has exited.  A segment
 * runs repeat_discard + repeat times (taken from its first job), each run
 * adding one res_job per job to the results.  This file walks the plan: the
 * pauses between segments and runs, the stop requests, the progress estimate;
 * segment.c runs one segment's threads and watches them meanwhile.
 * eng_snapshot (snapshot.h) reads the jobs so far from the caller's thread,
 * under mu, which is why the coordinator adds a job's results and frees a
 * segment's workers under mu too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpustat.h"
#include "idleprof.h"
#include "ioengine.h"
#include "diskstats.h"
#include "environment.h"
#include "engine.h"
#include "engine_internal.h"
#include "engine/layout/layout.h"
#include "engine/logs/logs.h"
#include "engine/safety/preflight.h"
#include "progress.h"
#include "scratch.h"
#include "engine/gen/segment.h"
#include "snapshot.h"
#include "engine/worker/worker.h"

static uint64_t mono_ns(void)
{
	return clk_mono_raw();
}

static void set_phase(struct eng *e, enum eng_phase p)
{
	atomic_store_explicit(&e->phase, (int)p, memory_order_relaxed);
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
	while (!eng_is_stopping(e) && mono_ns() < until)
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

/*
 * The wall time when CLOCK_MONOTONIC read mono0: a REALTIME read bracketed
 * by two MONOTONIC ones, the tightest of a few pairs, moved back to mono0.
 * Reading REALTIME "now" instead dated the run by the clock's calibration
 * later (5 ms and more with the TSC), which put ranks' times that far off
 * when they are moved onto rank 0's clock.
 */
static uint64_t wall_at(uint64_t mono0)
{
	uint64_t best = UINT64_MAX, wall = 0, mono = mono0;
	struct timespec ts;

	for (int i = 0; i < 8; i++) {
		uint64_t m1 = clk_mono_raw(), m2;

		clock_gettime(CLOCK_REALTIME, &ts);
		m2 = clk_mono_raw();
		if (m2 - m1 < best) {
			best = m2 - m1;
			wall = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
			mono = m1 + (m2 - m1) / 2;
		}
	}
	return wall - (mono - mono0);
}

static void host_facts(struct eng *e)
{
	struct results *r = e->res;
	struct utsname u;

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
		r->start_wall_ns = wall_at(e->sh.clk.mono0);
		r->start_mono_ns = e->sh.clk.mono0;
		r->clock_cost_ns = clk_cost_ns(&e->sh.clk, 1000);
	}
	snprintf(r->clock_source, sizeof(r->clock_source), "%s", clk_name(&e->sh.clk));
}

static int run_plan(struct eng *e)
{
	const struct plan *p = e->plan;
	bool stopped = false;
	int ret = 0;

	for (uint32_t a = 0, b; a < p->nr_jobs &&
	     (e->opts.sync || (!ret && !eng_is_stopping(e) && !e->exit_rest)); a = b) {
		const struct plan_job *first = plan_job_at(p, a);

		b = segment_end(p, a);
		set_phase(e, ENG_PHASE_PAUSE);
		pause_for(e, first->group_pause_ns);
		for (uint32_t run = 0; run < runs_of(first); run++) {
			/* Alone, a stop skips the pause; in step, the others are asked after it. */
			if (!e->opts.sync && (ret || eng_is_stopping(e) || e->exit_rest)) {
				stopped = true;
				break;
			}
			if (run)
				pause_for(e, first->repeat_pause_ns);
			if (!segment_may_start(e, a, run, &ret)) {
				stopped = true;
				break;
			}
			set_phase(e, ENG_PHASE_RUN);
			pthread_mutex_lock(&e->mu);
			e->seg_a = a;
			e->seg_b = b;
			e->seg_runs_left = runs_of(first) - run - 1;
			pthread_mutex_unlock(&e->mu);
			ret = segment_run(e, a, b, run);
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
	struct plan_cpus cpus;
	bool wanted = false;
	char hint[192];
	int ret;

	/* One thread writes every job's logs: it runs where all the jobs' log_compression_cpus say. */
	memset(&cpus, 0, sizeof(cpus));
	for (uint32_t i = 0; i < e->plan->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(e->plan, i);

		wanted |= logs_wanted(j);
		for (unsigned int w = 0; w < PLAN_CPUS_MAX / 64; w++)
			cpus.word[w] |= j->log_gz_cpus.word[w];
	}
	ret = wanted ? log_writer_start(&e->log_writer, &cpus) : 0;
	if (ret && e->log_writer)
		res_msg_add(e->res, RES_MSG_ERROR, "cpus", -1,
			    "log_compression_cpus: the log writer could not be pinned: %s", strerror(-ret));
	else if (ret)
		res_msg_add(e->res, RES_MSG_ERROR, "thread-start", -1, "cannot start the thread that writes the logs: %s%s",
			    strerror(-ret), eng_thread_refusal_hint(ret, hint, sizeof(hint)));
	return ret;
}

static void log_failed(void *arg, const char *path, int err, enum log_fail how, const char *why)
{
	struct eng *e = arg;

	if (how == LOG_FAIL_REMOVED)
		res_msg_add(e->res, RES_MSG_ERROR, "log-write", -1,
			    "log file %s: removed during the run, and what was written went with it", path);
	else if (how == LOG_FAIL_OPEN && err == EEXIST)	/* safety_open_output's refusal of a user's file */
		res_msg_add(e->res, RES_MSG_ERROR, "log-write", -1,
			    "log file %s: it exists and ioplan did not write it (it appeared or changed after the "
			    "checks before the run): it is kept, and this log is not written", path);
	else if (how == LOG_FAIL_OPEN && err == EACCES && *why)	/* a link planted on its way since the checks */
		res_msg_add(e->res, RES_MSG_ERROR, "log-write", -1, "log file %s: %s; this log is not written", path, why);
	else
		res_msg_add(e->res, RES_MSG_ERROR, "log-write", -1, "log file %s: %s (errno %d)%s", path,
			    strerror(err), err, how == LOG_FAIL_WRITE ? "; it ends at the last whole entry written before it" : "");
	if (!e->res->error)
		e->res->error = err;
}

static void logs_stop(struct eng *e)
{
	log_writer_stop(e->log_writer, log_failed, e);
	e->log_writer = NULL;
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

/* The engine's own line of that stage (ioe_ops.fio_line) as a fio-note of job i, if it has one. */
static void engine_line(struct eng *e, const struct plan_job *j, uint32_t i, int stage)
{
	const struct ioe_ops *o = ioe_find(j->ioengine);
	char line[1024];

	if (o && o->fio_line && o->fio_line(j, stage, line, sizeof(line)) > 0)
		res_msg_add(e->res, RES_MSG_NOTE, "fio-note", (int)i, "%s", line);
}

/* fio's line for an exec_prerun or exec_postrun command (mode): where its output goes. */
static void env_line(struct eng *e, const struct plan_job *j, uint32_t i, const char *mode)
{
	char path[4096], ext[16];

	snprintf(ext, sizeof(ext), "%s.txt", mode);
	plan_job_output_name(path, sizeof(path), j, ext);
	res_msg_add(e->res, RES_MSG_NOTE, "fio-note", (int)i, "%s : Saving output of %s in %s", j->name, mode,
		    path);
}

/* The exec_postrun lines of jobs a..b-1, a segment's: its clones end after they all started. */
static void postrun_lines(struct eng *e, uint32_t a, uint32_t b)
{
	for (uint32_t i = a; i < b; i++) {
		const struct plan_job *j = plan_job_at(e->plan, i);

		for (uint32_t c = 0; j && j->exec_postrun && c < j->nr_clones; c++)
			env_line(e, j, i, "postrun");
	}
}

/*
 * fio's notes as each thread starts, clone by clone in fio's order: what the
 * engine says as it sets up (cpuio, exec), that a synchronous engine with
 * iodepth above 1 runs at depth 1, where exec_prerun's output goes, then what
 * the engine says as it starts its work (exec); and where exec_postrun's goes,
 * each stonewall segment's once its clones have all started.  The normal
 * output prints them where fio does, after the Starting line; the cli sends
 * them to stderr when stdout carries JSON or terse output (run as fio, ahead
 * of the document, as fio's).
 */
static void fio_notes(struct eng *e)
{
	uint32_t seg = 0;

	for (uint32_t i = 0; i < e->plan->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(e->plan, i);

		if (!j)
			continue;
		if (j->stonewall && i > seg) {
			postrun_lines(e, seg, i);
			seg = i;
		}
		for (uint32_t c = 0; c < j->nr_clones; c++) {
			engine_line(e, j, i, IOE_FIO_LINE_INIT);
			if (j->iodepth > 1 && ioe_is_fio_syncio(j->ioengine))
				res_msg_add(e->res, RES_MSG_NOTE, "fio-note", (int)i,
					    "note: both iodepth >= 1 and synchronous I/O engine are selected, "
					    "queue depth will be capped at 1");
			if (j->exec_prerun)
				env_line(e, j, i, "prerun");
			engine_line(e, j, i, IOE_FIO_LINE_START);
		}
	}
	postrun_lines(e, seg, e->plan->nr_jobs);
}

/* The ranks' agreement on shared files (eng_sync.layout_share) applied to the layout. */
static int share_files(struct eng *e)
{
	struct layout *l = &e->lay;
	struct eng_shared_file *v = calloc(l->nr ? l->nr : 1, sizeof(*v));
	int ret;

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < l->nr; i++)
		v[i] = (struct eng_shared_file){ .path = l->files[i].path, .need = l->files[i].need,
						 .fill = l->files[i].fill };
	ret = e->opts.sync->layout_share(e->opts.sync->ctx, v, l->nr);
	for (uint32_t i = 0; !ret && i < l->nr; i++) {
		l->files[i].need = v[i].need;
		l->files[i].fill = v[i].fill;
		l->files[i].round = v[i].round;
		l->files[i].shared |= v[i].shared;
	}
	free(v);
	return ret;
}

/*
 * The layout, in rounds when processes share files: every process takes part
 * in every round's agreement (it is collective), even after its own failure.
 */
static int lay_out(struct eng *e)
{
	const struct eng_sync *s = e->opts.sync;
	int ret, first;

	if (!s || !s->layout_share) {
		/* Said before the writing, as fio does: a layout of minutes is not silent. */
		if (layout_announce(&e->lay, e->plan, e->res, LAYOUT_ALL_ROUNDS) && e->opts.opening)
			e->opts.opening(e->opts.opening_arg, e->res);
		return layout_prepare(&e->lay, e->plan, e->res, &e->stop, LAYOUT_ALL_ROUNDS);
	}
	first = share_files(e);
	for (uint32_t round = 0; round < ENG_LAYOUT_ROUNDS; round++) {
		ret = first ? first : layout_prepare(&e->lay, e->plan, e->res, &e->stop, round);
		first = first ? first : ret;
		ret = s->layout_round_done(s->ctx, round, ret);
		if (ret) {
			first = first ? first : ret;
			break;
		}
	}
	return first;
}

/* Published under mu: eng_snapshot reads the counters so far from the caller's thread. */
static void begin_disks(struct eng *e)
{
	struct diskstats ds;

	diskstats_begin(&ds, e->plan, &e->lay, e->sh.fake);
	pthread_mutex_lock(&e->mu);
	e->disks = ds;
	pthread_mutex_unlock(&e->mu);
}

/* The run's clock now, read from a copy: a fake clock advances as it is read, and the run's is left alone. */
static uint64_t eng_clock_now(const struct eng *e)
{
	struct clk c = e->sh.clk;

	return clk_now(&c);
}

static void *coordinator(void *arg)
{
	struct eng *e = arg;
	struct idleprof *idle;
	int ret;

	set_phase(e, ENG_PHASE_LAYOUT);
	ret = lay_out(e);
	if (e->opts.sync) {
		int s = e->opts.sync->layout_done(e->opts.sync->ctx, ret);

		if (!ret)
			ret = s;
	}
	/* A failed layout runs no job: its notes so far are all the opening there is. */
	if (ret && e->opts.opening)
		e->opts.opening(e->opts.opening_arg, e->res);
	if (!ret) {
		/* fio sets its genesis here, its serialized layout done: its elapsed leaves it out. */
		if (!e->sh.fake)
			e->res->jobs_start_ns = eng_clock_now(e);
		begin_disks(e);
		if (!e->sh.fake)
			env_begin(e->res, &e->lay);
		cpustat_begin(&e->cpus, e->sh.fake);
		layout_note_ignored(e->plan, e->res);
		fio_notes(e);
		if (e->opts.opening)
			e->opts.opening(e->opts.opening_arg, e->res);
		layout_note_kept(&e->lay, e->plan, e->res);
		ret = logs_start(e);
		idle = idle_start(e);
		if (!ret)
			ret = run_plan(e);
		/* Every worker has ended, however the run did: the devices get their schedulers back. */
		iosched_end(&e->iosched, e->res);
		idleprof_stop(idle, e->res);
		logs_stop(e);
		layout_finish(&e->lay, e->res);
		cpustat_end(&e->cpus, e->res);
		diskstats_end(&e->disks, e->sh.started, eng_clock_now(e), e->res);
		env_end(e->res);
	} else if ((ret == -EINTR || ret == -ECANCELED) && eng_is_stopping(e)) {
		/*
		 * A stop, not a failure: said as one, as a stop during the jobs is.  In
		 * step with other processes (eng_opts.sync), a process stopped while
		 * another lays out hears of that one's stop as -ECANCELED: a stop too.
		 */
		res_msg_add(e->res, RES_MSG_WARNING, "layout-interrupted", -1,
			    "stopped while laying out the files, before any job ran: nothing was measured; a file "
			    "laid out in part is kept marked unfinished, and the next run finishes it");
		ret = 0;
	}
	(void)layout_left(&e->lay, e->plan, &e->res->left);	/* without memory, only the note is lost */
	if (ret && !e->res->error)
		e->res->error = -ret;
	e->res->end_mono_ns = e->res->start_mono_ns + clk_now(&e->sh.clk);
	e->res->interrupted = eng_is_stopping(e);
	set_phase(e, ENG_PHASE_DONE);
	pthread_mutex_lock(&e->mu);
	e->done = true;
	e->ret = e->res->error ? -e->res->error : 0;
	pthread_cond_broadcast(&e->cv);
	if (e->done_fd >= 0)
		(void)!eventfd_write(e->done_fd, 1);
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

static void eng_free(struct eng *e)
{
	layout_release(&e->lay);
	diskstats_release(&e->disks);
	free((void *)e->sh.states);
	free((void *)e->sh.started);
	flows_release(&e->flows);
	scratch_release(&e->scratch);
	iosched_release(&e->iosched);
	pthread_cond_destroy(&e->cv);
	pthread_mutex_destroy(&e->mu);
	if (e->done_fd >= 0)
		close(e->done_fd);
	free(e);
}

static int eng_init(struct eng *e, const struct plan *p, const struct eng_opts *o)
{
	pthread_condattr_t ca;
	uint32_t n = p->nr_threads ? p->nr_threads : 1;
	int ret;

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
	e->sh.aux_path = p->aux_path;
	for (uint32_t i = 0; i < p->nr_jobs && !e->sh.sleep_gran_ns && !e->sh.fake; i++)
		if (plan_job_at(p, i)->thinktime_ns)
			e->sh.sleep_gran_ns = clk_sleep_granularity_ns(&e->sh.clk);
	e->sh.states = calloc(n, sizeof(*e->sh.states));
	e->sh.started = calloc(n, sizeof(*e->sh.started));
	e->res = calloc(1, sizeof(*e->res));
	e->res_cap = count_res_jobs(p);
	for (uint32_t a = 0, b; a < p->nr_jobs; a = b) {
		b = segment_end(p, a);
		e->segruns_total += runs_of(plan_job_at(p, a));
	}
	if (e->res)
		e->res->jobs = calloc(e->res_cap ? e->res_cap : 1, sizeof(*e->res->jobs));
	if (!e->sh.states || !e->sh.started || !e->res || !e->res->jobs)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		atomic_store(&e->sh.states[i], 'P');
		atomic_store(&e->sh.started[i], UINT64_MAX);
	}
	host_facts(e);
	if (flows_init(&e->flows, n))
		return -ENOMEM;
	e->sh.flows = &e->flows;
	if (scratch_init(&e->scratch))
		return -ENOMEM;
	e->sh.scratch = &e->scratch;
	e->sh.iosched = &e->iosched;
	e->sh.lay = &e->lay;
	ret = layout_init(&e->lay, p);
	if (!ret && e->opts.preflight)
		layout_expect(&e->lay, e->opts.preflight->seen, e->opts.preflight->nr_seen);
	/* Before the ranks of a shared run agree on each file's need (share_files). */
	return ret ? ret : layout_resolve(&e->lay, p);
}

const char *eng_thread_refusal_hint(int err, char *buf, size_t len)
{
	struct rlimit as;

	if (err != -EAGAIN)
		return "";
	if (getrlimit(RLIMIT_AS, &as) || as.rlim_cur == RLIM_INFINITY)
		return " (threads or processes at a limit: ulimit -u, a cgroup's pids.max)";
	snprintf(buf, len, " (threads or processes at a limit: ulimit -u, a cgroup's pids.max; or no room "
		 "for its stack in the %llu MiB of address space ulimit -v allows)",
		 (unsigned long long)(as.rlim_cur >> 20));
	return buf;
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
	/* Without it the caller polls eng_wait(): one fd more is no reason to refuse a run. */
	e->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
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

/* Time the segments from job `from` on need, every run and pause; UINT64_MAX if unknown. */
static uint64_t segments_ns(const struct plan *p, uint32_t from)
{
	uint64_t sum = 0, t;

	for (uint32_t a = from, b; a < p->nr_jobs; a = b) {
		const struct plan_job *j = plan_job_at(p, a);

		b = segment_end(p, a);
		t = prog_segment_ns(p, a, b);
		if (t == UINT64_MAX)
			return UINT64_MAX;
		sum += (t + j->repeat_pause_ns) * runs_of(j) + j->group_pause_ns;
	}
	return sum;
}

uint64_t eng_plan_ns(const struct plan *p)
{
	return segments_ns(p, 0);
}

/* Time the plan needs after the running segment's current run, UINT64_MAX if unknown. */
static uint64_t later_ns(struct eng *e)
{
	const struct plan *p = e->plan;
	uint64_t t = prog_segment_ns(p, e->seg_a, e->seg_b), rest;

	if (e->seg_runs_left && t == UINT64_MAX)
		return UINT64_MAX;
	rest = segments_ns(p, e->seg_b);
	if (rest == UINT64_MAX)
		return UINT64_MAX;
	return (t == UINT64_MAX ? 0 : t * e->seg_runs_left) + rest;
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
	pthread_mutex_lock(&e->mu);
	memcpy(st->bytes, e->past_bytes, sizeof(st->bytes));
	memcpy(st->ios, e->past_ios, sizeof(st->ios));
	for (uint32_t i = 0; i < e->nr_cur; i++) {
		struct worker *w = e->cur[i];

		/* An ended thread's I/O still counts: left out, the totals fell as it
		 * ended and a rate taken across that (the progress line's, the
		 * --bandwidth-log lines) counted the other threads' I/O again. */
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			st->bytes[d] += atomic_load_explicit(&w->pub.bytes[d], memory_order_relaxed);
			st->ios[d] += atomic_load_explicit(&w->pub.ios[d], memory_order_relaxed);
		}
		if (!atomic_load_explicit(&w->pub.running, memory_order_relaxed))
			continue;
		st->nr_running++;
		/* At most openfiles of a thread's files are open at once (worker_files.c). */
		st->files_open += w->job->openfiles && w->job->openfiles < w->clone->nr_files
					  ? w->job->openfiles : w->clone->nr_files;
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
	/* Taken once a stop was asked for, what it holds may be cut short: said so, as eng_finish says it. */
	if (!ret && *out)
		(*out)->interrupted = (*out)->interrupted || eng_is_stopping(e);
	/* fio's interim reports carry the disks' counters as they stand. */
	if (!ret && *out)
		diskstats_end(&e->disks, e->sh.started, clk_now(&c), *out);
	pthread_mutex_unlock(&e->mu);
	/* The run's time left as the progress line has it: fio's reports so far print
	 * theirs (its eta), where a finished run's is 0.  Taken after mu is let go:
	 * estimate() takes it. */
	if (!ret && *out) {
		struct eng_status st = {0};

		estimate(e, &st);
		(*out)->eta_ns = st.eta_ns;
	}
	return ret;
}

void eng_stop(struct eng *e)
{
	int s = atomic_load(&e->stop);

	while (s < 2 && !atomic_compare_exchange_weak(&e->stop, &s, s + 1))
		;
	pthread_mutex_lock(&e->mu);
	s = atomic_load(&e->stop);
	for (uint32_t i = 0; i < e->nr_cur; i++)
		worker_ask_stop(e->cur[i], s);
	worker_wake_gates(e->cur, e->nr_cur);
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

int eng_done_fd(const struct eng *e)
{
	return e->done_fd;
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

/*
 * engine/worker/worker.c - a worker thread's life: wait its turn, set up, run, report.
 *
 * Everything a worker allocates is allocated here, before the first I/O, and
 * released here after the last; worker_io.c only uses it.  The worker's results
 * are private until it ends, then moved (histograms and all) into the results
 * slot the coordinator gave it; while it runs, reports of the results so far
 * read the copies it makes on request (snapshot.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/cpus.h"
#include "engine/layout/layout.h"
#include "engine/gen/rng.h"
#include "engine/dioalign.h"
#include "engine/snapshot.h"
#include "engine/numa.h"
#include "engine/worker/worker.h"

#define SLEEP_SLICE_NS 100000000ull

/* wait_for: blocks until the waited-for job of this run has ended.  False on stop. */
static bool wait_turn(struct worker *w)
{
	struct job_run *dep;

	if (w->jr->waits_for < 0)
		return true;
	dep = &w->seg->jobs[w->jr->waits_for];
	pthread_mutex_lock(&w->seg->mu);
	while (!dep->done && !worker_stopping(w))
		pthread_cond_wait(&w->seg->cv, &w->seg->mu);
	pthread_mutex_unlock(&w->seg->mu);
	return !worker_stopping(w);
}

/*
 * When fio would create this thread (diskstats.h: started), its first run's: the
 * segment's start and its delay, or its waited-for job's end and its delay.  A
 * reckoned time, not a measured one, so that threads that start together keep
 * fio's thread order.
 */
static void note_started(struct worker *w, uint64_t delay)
{
	_Atomic uint64_t *at = &w->sh->started[w->clone->thread_number - 1];
	uint64_t from = w->jr->waits_for < 0 ? w->seg->t0 : clk_now(&w->clk);

	if (atomic_load(at) == UINT64_MAX)
		atomic_store(at, from + delay);
}

static bool start_delay(struct worker *w)
{
	const struct plan_job *j = w->job;
	uint64_t d = j->startdelay_min_ns, end;

	if (j->startdelay_max_ns > d)
		d += rng_below(&w->rng_misc, j->startdelay_max_ns - d + 1);
	if (w->sh->started)
		note_started(w, d);
	if (!d || w->sh->fake)
		return !worker_stopping(w);
	end = clk_now(&w->clk) + d;
	while (clk_now(&w->clk) < end && !worker_stopping(w))
		clk_sleep_until(&w->clk, end, SLEEP_SLICE_NS);
	return !worker_stopping(w);
}

/*
 * The start gate (segment.c chooses it): this clone is set up (or failed to be);
 * waits until every clone starting with it is too.  False on stop.  A futex,
 * not the segment's mutex: 1000 clones woken by a condition variable each
 * retake the mutex in turn, one scheduler slice apiece behind the clones
 * already running, and so started over 6 s instead of at once.  The wait has
 * no timeout (a stop changes the word, worker_wake_gates): 10 000 clones each
 * waking every 100 ms to look for a stop took most of the CPU that spawning
 * the last of them needed.
 */
static bool start_together(struct worker *w)
{
	struct start_gate *g = w->jr->gate;
	uint32_t v;

	if (!g)
		return !worker_stopping(w);
	if (atomic_fetch_sub(&g->left, 1) == 1) {
		/* Not read on a fake clock: each read advances it, and which clone opens varies. */
		if (!w->sh->fake)
			g->open_ns = clk_now(&w->clk);
		atomic_fetch_or(&g->open, START_GATE_OPEN);
		syscall(SYS_futex, &g->open, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
	/* The word is read before the stop (both seq_cst) and a stop is stored before the
	 * word changes: a stop that comes after the read makes the wait return at once. */
	while (!((v = atomic_load(&g->open)) & START_GATE_OPEN) && !atomic_load(w->sh->stop))
		syscall(SYS_futex, &g->open, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
	/* The windows start when the gate opened: a clone scheduled late loses time, not the group. */
	if ((atomic_load(&g->open) & START_GATE_OPEN) && !w->sh->fake)
		atomic_store_explicit(&w->pub.gate_open_ns, g->open_ns, memory_order_relaxed);
	return !worker_stopping(w);
}

void worker_ask_stop(struct worker *w, int level)
{
	int s = atomic_load(&w->stop);

	while (s < level && !atomic_compare_exchange_weak(&w->stop, &s, level))
		;
}

/*
 * Each gate once however many of its clones were asked: woken one by one, the
 * 10 000 clones of one gate would each wake the others again.
 */
void worker_wake_gates(struct worker *const *cur, uint32_t n)
{
	const struct start_gate *last = NULL;

	for (uint32_t i = 0; i < n; i++) {
		struct start_gate *g = cur[i]->jr->gate;

		if (!g || g == last)
			continue;
		last = g;
		atomic_fetch_add(&g->open, 2);
		syscall(SYS_futex, &g->open, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
}

/*
 * cpus_allowed and nice for the thread.  Under cpus_allowed_policy=split the
 * run's k-th thread (thread_number - 1, counted across every job, as fio's split
 * counts) takes the k-th allowed CPU, so two jobs that split the same CPUs do not
 * both start on the first.
 */
static int placement(const struct plan_job *j, const struct plan_clone *c)
{
	int ret = cpus_pin(pthread_self(), &j->cpus_allowed, j->cpus_allowed_split, c->thread_number - 1);

	if (j->nice)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), j->nice);
	return ret;
}

/* The size of the file open on fd, whose fstat (made since it was opened) is st. */
static int file_size(int fd, const struct stat *st, uint64_t *size)
{
	if (S_ISBLK(st->st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	/* Streams (FIFOs, character devices) have no size: the job's size= bounds the region. */
	*size = S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode) ? UINT64_MAX : (uint64_t)st->st_size;
	return 0;
}

/*
 * How far a sequential pass of a local fileless target may reach from start
 * (region_room's for a file): fio's real_file_size, which no such engine
 * sizes, is size= over nrfiles when size= is given, raised to the region's
 * end, and else none (-1), so filesize=100k bs=8k rw=write writes 13 blocks,
 * the last one past the region, where size=100k writes 12.
 */
static uint64_t fileless_room(const struct worker *w, uint64_t start, uint64_t len)
{
	const struct plan_job *j = w->job;
	uint64_t real;

	if (!plan_io_uses_file_size(j))
		return len;
	if (!j->size_bytes)
		return UINT64_MAX - start;
	real = j->size_bytes / (j->nrfiles ? j->nrfiles : 1);
	return real > start + len ? real - start : len;
}

/*
 * The region of a local fileless target (the null engine's file, say): fio
 * takes its size as size= over nrfiles (its real_file_size of -1 set so), its
 * percentage offsets as shares of that, and then extends it to the region's end
 * (FAKEIO), so offset=50% size=1m moves 1 MiB from 512 KiB.  Without size=
 * (filesize= alone) there is no size to take a share of: fio's offset is then
 * past any end and the job fails, as here.
 */
static int fileless_local_region(struct worker *w, const struct plan_file *pf, uint64_t size, uint64_t *start,
				 uint64_t *len)
{
	const struct plan_job *j = w->job;
	uint64_t found = j->size_bytes ? j->size_bytes / (j->nrfiles ? j->nrfiles : 1) : size;

	if ((pf->offset_ppm || j->offset_increment_ppm) && !j->size_bytes && !j->file_append) {
		worker_error(w, .err = EINVAL, .file = (uint32_t)(pf - w->clone->files),
			     .what = "offset=N% with no size= to take it of (the engine has no file to size)");
		return -EINVAL;
	}
	layout_region_found(j, w->clone, pf, j->file_append ? 0 : found, 0, start, len);
	return 0;
}

/*
 * Engines without a local file (null, metadata, cpuio, exec, net, nbd) open nothing here; the region
 * is the planned size, or the remote target's own size (nbd without size=).  *room is
 * region_room's for them: fio sets the others' real_file_size to the region's end, but
 * leaves a remote target's as it found it, the export's size, or for a socket none
 * (-1), so a sequential pass reaches past size= there (size=10k bs=4k moves 12 KiB).
 */
static int fileless_region(struct worker *w, uint32_t f, uint64_t *start, uint64_t *len, uint64_t *room)
{
	const struct plan_file *pf = &w->clone->files[f];
	const struct ioe_ops *o = ioe_find(w->job->ioengine);
	uint64_t size = pf->size_bytes;
	int ret;

	w->fds[f] = -1;
	w->nr_fds = f + 1;
	if (o && o->target_size) {	/* the export is the "file": its size, as fio asks the server */
		ret = o->target_size(w->job, &size);
		if (ret) {
			worker_error(w, .err = -ret, .file = f, .what = "sizing the remote target");
			return ret;
		}
	}
	if (o && o->target_size) {
		layout_region(w->job, w->clone, pf, size, start, len);
	} else {
		ret = fileless_local_region(w, pf, size, start, len);
		if (ret)
			return ret;
	}
	if (!*len || (o && o->target_size && *start + *len > size)) {
		/* an empty region of a filesize= file: its offset=N% is at or past the file's end
		 * (fio: "you need to specify valid offset="), not a missing size= */
		worker_error(w, .err = EINVAL, .file = f, .offset = *start, .len = *len,
			     .what = *len ? "region beyond the end of the target"
			     : w->job->filesize_min_bytes && pf->offset_ppm ? "offset=N% is at or past the end of filesize="
									    : "the engine needs size=");
		return -EINVAL;
	}
	*room = o && o->target_size ? *len : fileless_room(w, *start, *len);
	if (o && o->remote && plan_seq_uses_file_size(w->job))
		*room = o->target_size ? size - *start : UINT64_MAX - *start;
	return 0;
}

/*
 * create_only: no I/O follows, so a regular file the layout saw is sized from
 * its record, not opened (as fio, which opens none once they are laid out).
 * True with *size; false when the file must be opened to be sized.
 */
static bool size_without_open(struct worker *w, uint32_t f, uint64_t *size)
{
	struct stat st;

	/* A file its first I/O's open makes (create_on_open) is empty until then. */
	if (layout_waits_for_open(w->sh->lay, w->clone->files[f].path)) {
		w->fds[f] = -1;
		*size = 0;
		return true;
	}
	if (!w->job->create_only || !layout_seen(w->sh->lay, w->clone->files[f].path, &st) ||
	    !S_ISREG(st.st_mode))
		return false;
	w->fds[f] = -1;
	*size = (uint64_t)st.st_size;
	return true;
}

/* Opens the clone's files and finds each one's I/O region. */
/*
 * fill_device without size=: fio sets size= to infinity and writes until
 * ENOSPC.  A file's region is twice what it and its file system's free space
 * hold, so its writes meet ENOSPC before the region's end (and the write that
 * does is counted as fio counts it); a device keeps its own size.
 */
static uint64_t fill_size(int fd, uint64_t size)
{
	struct statvfs sv;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fstatvfs(fd, &sv))
		return size;
	return 2 * ((uint64_t)st.st_size + (uint64_t)sv.f_bavail * sv.f_frsize);
}

/*
 * The size pf had when fio would have set up the job's files, which its
 * percentage offsets and file_append's end are of (layout_resolve).  A
 * stream has none: file_append starts it at 0.
 */
static uint64_t size_at_setup(const struct worker *w, const struct plan_file *pf, uint64_t size)
{
	bool append = w->job->file_append && !pf->is_device;

	if (!pf->offset_ppm && !w->job->offset_increment_ppm && !append)
		return size;
	if (size == UINT64_MAX)
		return append ? 0 : size;
	return layout_size_found(w->sh->lay, pf, size);
}

/*
 * Bytes a sequential pass may reach from the region's start, a holed one wraps
 * at and strided zones walk to (gen_init): fio's real_file_size, the file's size
 * when fio set the job up (one laid out then ends at the region's end), within
 * what it holds now.
 */
static uint64_t region_room(const struct worker *w, const struct plan_file *pf, uint64_t size,
			    uint64_t start, uint64_t len)
{
	uint64_t setup;

	if (size == UINT64_MAX || size <= start + len || !plan_io_uses_file_size(w->job))
		return len;
	setup = layout_size_found(w->sh->lay, pf, size);
	if (setup > size)
		setup = size;
	return setup > start + len ? setup - start : len;
}

/*
 * A file the job takes as found that holds nothing past its offset gets no
 * I/O, as fio's setup runs past it ("may be ignored", layout_ignored.c).
 */
static bool file_ignored(const struct worker *w, const struct plan_file *pf, uint64_t start, uint64_t len,
			 uint64_t size)
{
	return !len && start == size && plan_file_sized_as_found(w->job, pf);
}

/*
 * Every file of the clone ignored: fio's job has nothing to do and fails, the
 * files all empty before it notes any, else when it finds its size under a block.
 */
static int all_ignored(struct worker *w, uint64_t total)
{
	worker_error(w, .err = EINVAL,
		     .what = total ? "no file holds data past offset= and the job has no size= (fio: \"blocksize is "
				     "larger than data set range\")"
				   : "every file is empty and the job has no size= (fio: \"you need to specify size=\")");
	return -EINVAL;
}

static int open_files(struct worker *w, uint64_t *start, uint64_t *len, uint64_t *room)
{
	const struct plan_clone *c = w->clone;
	struct stat st;
	uint64_t size, total = 0;
	uint32_t ignored = 0;
	bool only_writes, grows;
	int ret;

	for (uint32_t f = 0; f < c->nr_files; f++) {
		const struct plan_file *pf = &c->files[f];

		if (!ioe_opens_files(w->job->ioengine)) {
			ret = fileless_region(w, f, &start[f], &len[f], &room[f]);
			if (ret)
				return ret;
			continue;
		}
		ret = size_without_open(w, f, &size) ? 0 : worker_open_file(w, f, &st);
		if (ret)
			return ret;
		w->nr_fds = f + 1;
		ret = w->fds[f] < 0 ? 0 : file_size(w->fds[f], &st, &size);
		if (ret)
			return ret;
		/*
		 * A job that only writes extends a file as it writes, as fio's: one shrunk
		 * since the layout (fio's ftruncate example truncates it in one job and
		 * writes in the next), or a regular one the layout did not size (under
		 * fallocate=none or keep: file_append past its end, offset= past that of a
		 * new file), unless its engine cannot (mmap: the layout sizes its files).
		 */
		only_writes = !plan_rw_has_ddir(w->job->rw, PLAN_DDIR_READ) && size != UINT64_MAX;
		if (size < pf->size_bytes && only_writes)
			size = pf->size_bytes;
		grows = only_writes && !pf->is_device && !ioe_cannot_extend(w->job->ioengine);
		if (plan_fills_device(w->job) && !pf->size_bytes && !pf->region_bytes && !pf->size_ppm &&
		    w->fds[f] >= 0)
			size = fill_size(w->fds[f], size);
		layout_region_found(w->job, c, pf, size_at_setup(w, pf, size), size, &start[f], &len[f]);
		/* A file of no length drawn from a filesize= range gets no I/O, as in fio; so does
		 * one taken as found with nothing past its offset. */
		ignored += file_ignored(w, pf, start[f], len[f], size);
		total += size == UINT64_MAX ? 0 : size;
		if ((!len[f] && !plan_file_drawn_empty(w->job, pf) && !file_ignored(w, pf, start[f], len[f], size)) ||
		    (start[f] + len[f] > size && !grows)) {
			worker_error(w, .err = EINVAL, .file = f, .offset = start[f], .len = len[f],
				     .what = !len[f] && pf->size_ppm ? "size=N% of the file is less than one block"
								      : "region beyond the end of the file");
			return -EINVAL;
		}
		room[f] = region_room(w, pf, size, start[f], len[f]);
		if (!f && size != UINT64_MAX)
			w->res.file_bytes = size;
		worker_size_done(w, f);
	}
	return c->nr_files && ignored == c->nr_files ? all_ignored(w, total) : 0;
}

/* Buffer address alignment: a page, or more where a direct job's files ask for it. */
static uint64_t buf_align(const struct worker *w)
{
	uint64_t a = 4096;
	uint32_t mem, off;

	for (uint32_t i = 0; w->job->direct && i < w->clone->nr_files; i++)
		if (!dio_align(w->clone->files[i].path, &mem, &off) && mem > a && !(mem & (mem - 1)))
			a = mem;
	return a;
}

static int alloc_slots(struct worker *w)
{
	uint64_t len = bufpool_len(w->job);
	char what[64];
	int ret = bufpool_alloc(&w->bufs, w->depth, len, buf_align(w));

	if (!ret) {
		w->ios = calloc(w->depth, sizeof(*w->ios));
		w->free_slot = calloc(w->depth, sizeof(*w->free_slot));
		w->pending = calloc(w->depth, sizeof(*w->pending));
		if (!w->ios || !w->free_slot || !w->pending)
			ret = -ENOMEM;
	}
	if (ret) {
		snprintf(what, sizeof(what), "allocating %u I/O buffers of %llu bytes", w->depth,
			 (unsigned long long)len);
		worker_error(w, .err = -ret, .what = what);
		return ret;
	}
	for (uint32_t i = 0; i < w->depth; i++) {
		w->ios[i].slot = i;
		w->ios[i].buf = bufpool_at(&w->bufs, i);
		buf_fill(w->ios[i].buf, w->bufs.stride, &w->fill, &w->rng_misc);
		w->free_slot[w->depth - 1 - i] = i;
	}
	w->nr_free = w->depth;
	return 0;
}

static int alloc_hists(struct worker *w)
{
	const struct plan_job *j = w->job;
	bool rated = false, no_io = ioe_does_no_io(j->ioengine);

	for (int d = 0; d < PLAN_DDIR_NR; d++)
		rated = rated || j->rate_iops[d] || j->rate_bytes_per_s[d];
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		struct res_ddir *r = &w->res.ddir[d];

		/* cpuio and exec count every op as a read (setup_gen) */
		if (no_io ? d != PLAN_DDIR_READ : !plan_rw_has_ddir(j->rw, (enum plan_ddir)d))
			continue;
		if (j->clat_percentiles && !j->disable_clat &&
		    !(r->clat.hist = calloc(RES_HIST_NR, sizeof(uint64_t))))
			return -ENOMEM;
		if (j->lat_percentiles && !j->disable_lat &&
		    !(r->lat.hist = calloc(RES_HIST_NR, sizeof(uint64_t))))
			return -ENOMEM;
		if (j->slat_percentiles && !j->disable_slat &&
		    !(r->slat.hist = calloc(RES_HIST_NR, sizeof(uint64_t))))
			return -ENOMEM;
		if (rated && !(r->sched_lat.hist = calloc(RES_HIST_NR, sizeof(uint64_t))))
			return -ENOMEM;
	}
	if (j->io_trace_max) {
		w->res.trace = calloc(j->io_trace_max, sizeof(*w->res.trace));
		if (!w->res.trace)
			return -ENOMEM;
		w->res.trace_cap = j->io_trace_max;
	}
	return 0;
}

static void queue_shape(struct worker *w)
{
	const struct plan_job *j = w->job;

	w->depth = bufpool_depth(j);
	w->batch_submit = j->iodepth_batch_submit ? j->iodepth_batch_submit : w->depth;
	if (w->batch_submit > w->depth)
		w->batch_submit = w->depth;
	/* The plan's values are resolved (plan_job_resolve_queue); a sync engine's depth caps them. */
	w->cmin = j->iodepth_batch_complete_min < w->depth ? j->iodepth_batch_complete_min : w->depth;
	w->cmax = j->iodepth_batch_complete_max < w->depth ? j->iodepth_batch_complete_max : w->depth;
	if (!w->cmax)
		w->cmax = 1;	/* a reap takes at least one completion */
	w->low = j->iodepth_low < w->depth ? j->iodepth_low : w->depth;
}

/* A blocking connect or accept of a remote engine gives up on a stop, or when runtime has passed. */
static int engine_stopping(void *arg)
{
	struct worker *w = arg;

	if (atomic_load_explicit(w->sh->stop, memory_order_relaxed))
		return -EINTR;
	return w->remote_deadline && clk_now(&w->clk) >= w->remote_deadline ? -ETIMEDOUT : 0;
}

static int io_jobs_left(void *arg)
{
	struct worker *w = arg;
	int left;

	pthread_mutex_lock(&w->seg->mu);
	left = w->seg->io_after ? w->seg->io_after : w->seg->io_left > 0;
	pthread_mutex_unlock(&w->seg->mu);
	return left;
}

static int open_engine(struct worker *w)
{
	struct ioe_cfg cfg;
	uint64_t *lens;
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.depth = w->depth;
	cfg.hipri = w->job->uring_hipri;
	cfg.hipri_percentage = w->job->hipri_percentage;
	cfg.rwf_flags = ioe_rwf_flags(w->job->rwf_uncached, w->job->rwf_nowait, w->job->direct);
	cfg.fds = w->fds;
	/* Files that open and close under openfiles cannot be registered once for the run. */
	cfg.nr_fds = w->max_open ? 0 : w->nr_fds;
	cfg.bufs = &w->bufs;
	cfg.files = w->clone->files;
	cfg.nr_files = w->clone->nr_files;
	/* One per file whether or not the generator holds them (create_only: 0, no I/O follows). */
	lens = calloc(w->clone->nr_files ? w->clone->nr_files : 1, sizeof(*lens));
	for (uint32_t f = 0; lens && f < w->gen.nr_files; f++)
		lens[f] = w->gen.files[f].len;
	cfg.region_len = lens;
	cfg.job = w->job;
	cfg.clone_index = w->clone->clone_index;
	cfg.scratch = w->sh->scratch;
	cfg.stopping = engine_stopping;
	cfg.stop_arg = w;
	cfg.io_jobs_left = io_jobs_left;
	if (w->job->runtime_ns)
		w->remote_deadline = clk_now(&w->clk) + w->job->ramp_time_ns + w->job->runtime_ns +
				     w->job->cooldown_ns;
	ret = lens ? ioe_open(&w->ioe, w->job->ioengine, &cfg) : -ENOMEM;
	free(lens);
	if (ret == -EINTR)
		return ret;	/* stopped while waiting for a peer: no failure */
	if (ret) {
		char what[64];

		if (ret == -ETIMEDOUT && ioe_is_remote(w->job->ioengine))
			snprintf(what, sizeof(what), "%s: no peer within runtime",
				 plan_ioengine_name(w->job->ioengine));
		else
			snprintf(what, sizeof(what), "%s init (iodepth=%u)",
				 plan_ioengine_name(w->job->ioengine), w->depth);
		worker_error(w, .err = -ret, .what = what);
		return ret;
	}
	w->ioe_open = true;
	w->is_sync = w->ioe.is_sync;
	w->clat_at_queue = w->ioe.ops->clat_at_queue;
	w->reap_all = w->ioe.ops->reaps_all;
	w->stamp_each = w->is_sync && !w->ioe.ops->instant;
	return 0;
}

/* prio/prioclass for the thread, cmdprio's per-I/O state; each slot starts at the thread's priority. */
static int setup_prio(struct worker *w)
{
	int ret = prio_set_thread(w->job);

	if (ret) {
		worker_error(w, .err = -ret, .what = "ioprio_set (prio/prioclass)");
		return ret;
	}
	ret = prio_pick_new(w->job, w->clone->seed, &w->res, &w->prio);
	for (uint32_t i = 0; i < w->depth; i++)
		w->ios[i].ioprio = (uint16_t)w->res.ioprio;
	worker_logs_prio(w, (uint16_t)w->res.ioprio);
	return ret;
}

/* DISKSPD's effective distributions, for its report: what the generator drew from, file by file. */
static int keep_zones(struct worker *w)
{
	size_t n = w->gen.nr_files;

	if (!w->gen.dz || !n)
		return 0;
	w->res.zones = malloc(n * sizeof(*w->res.zones));
	if (!w->res.zones) {
		worker_error(w, .err = ENOMEM, .what = "keeping the effective distribution of random_distribution");
		return -ENOMEM;
	}
	memcpy(w->res.zones, w->gen.dz, n * sizeof(*w->res.zones));
	w->res.nr_zones = (uint32_t)n;
	return 0;
}

/* A job whose writes verify fills them as fio's verify does (buffill_for_verify): null's are plain. */
static bool verify_fills(const struct plan_job *j)
{
	return j->verify != PLAN_VERIFY_NONE && j->verify != PLAN_VERIFY_NULL;
}

/*
 * The offsets' generator over the files' regions.  create_only issues no I/O:
 * the generator's state (440 bytes a file, a random map) would be the largest
 * part of a 100 000-file layout's memory.
 */
static int setup_gen(struct worker *w, const uint64_t *start, const uint64_t *len, const uint64_t *room)
{
	int ret;

	/* create_only issues no I/O: the generator's state (448 bytes a file, a random
	 * map) would be the largest part of a 100 000-file layout's memory. */
	if (w->job->create_only)
		return 0;
	ret = gen_init(&w->gen, w->job, w->clone, start, len, room, w->clone->nr_files, w->jr->il);
	if (ret == -EINVAL)
		worker_error(w, .err = EINVAL,
			     .what = w->job->interlocked ? "interlocked needs a sequential job "
							   "without offset_increment"
							 : "I/O region holds no whole block");
	/* DISKSPD's rule dropped every range with I/O: each began past the region (-rdabs). */
	if (ret == -ERANGE)
		worker_error(w, .err = ERANGE,
			     .what = "no range of random_distribution (zoned_ranges=diskspd) lies in the I/O region");
	/* fio's advice with its refusal: the two ways to run without the map. */
	if (ret == -ENOMEM && w->gen.map_failed)
		worker_error(w, .err = ENOMEM, .file = w->gen.map_file,
			     .what = "allocating its random map (norandommap=1 or softrandommap=1 run without one)");
	if (!ret)
		ret = keep_zones(w);
	if (!ret)
		gen_limit_open(&w->gen, w->max_open);
	if (!ret)
		worker_iolog_track(w);
	/* cpuio, exec: fio's FIO_NOIO jobs draw no direction, and count every op under read. */
	if (!ret && ioe_does_no_io(w->job->ioengine))
		gen_count_as_reads(&w->gen);
	w->map_dropped = w->gen.map_dropped;
	w->map_file = w->gen.map_file;
	return ret;
}

static int setup(struct worker *w)
{
	const struct plan_clone *c = w->clone;
	uint64_t *start, *len, *room;
	int ret;

	queue_shape(w);
	worker_limit_open(w);
	w->fds = calloc(c->nr_files ? c->nr_files : 1, sizeof(*w->fds));
	w->dirty = calloc(c->nr_files ? c->nr_files : 1, sizeof(*w->dirty));
	w->file_inflight = calloc(c->nr_files ? c->nr_files : 1, sizeof(*w->file_inflight));
	start = calloc(c->nr_files ? c->nr_files : 1, sizeof(*start));
	len = calloc(c->nr_files ? c->nr_files : 1, sizeof(*len));
	room = calloc(c->nr_files ? c->nr_files : 1, sizeof(*room));
	ret = !w->fds || !w->dirty || !w->file_inflight || !start || !len || !room ? -ENOMEM : 0;
	if (!ret)
		ret = worker_env_iosched(w);
	if (!ret)
		ret = open_files(w, start, len, room);
	if (!ret)
		ret = worker_iolog_open(w);
	if (!ret)
		ret = worker_sync_setup(w);
	if (!ret)
		ret = setup_gen(w, start, len, room);
	free(start);
	free(len);
	free(room);
	if (!ret)
		ret = buffill_from_job(&w->fill, w->job);
	if (!ret && verify_fills(w->job))
		buffill_for_verify(&w->fill);
	w->vary_writes = w->fill.kind == PLAN_BUF_RANDOM && !w->fill.compress_pct &&
			 w->job->scramble_buffers && !verify_fills(w->job);
	if (w->fill.kind == PLAN_BUF_RANDOM && !verify_fills(w->job))
		dedupe_init(&w->dedupe, w->job, w->clone->seed, gen_pass_bytes(&w->gen), bufpool_len(w->job));
	if (!ret)
		ret = worker_verify_setup(w, &w->fill);
	if (!ret)
		ret = alloc_slots(w);
	if (!ret)
		ret = alloc_hists(w);
	if (!ret)
		ret = setup_prio(w);
	if (!ret)
		ret = open_engine(w);
	if (!ret)
		ret = worker_flow_setup(w);
	/* Every failed step is named: no job fails with an error and no words. */
	if (ret && ret != -EINTR && !w->res.total_err)
		worker_error(w, .err = -ret, .what = "setting up the worker");
	return ret;
}

static void teardown(struct worker *w)
{
	worker_iolog_close(w);
	worker_env_end(w);
	worker_flow_release(w);
	if (w->ioe_open)
		ioe_close(&w->ioe);
	for (uint32_t f = 0; f < w->nr_fds; f++)
		if (w->fds[f] >= 0)
			close(w->fds[f]);
	worker_verify_release(w);
	gen_release(&w->gen);
	bufpool_free(&w->bufs);
	buffill_release(&w->fill);
	free(w->ios);
	free(w->free_slot);
	free(w->pending);
	free(w->fds);
	free(w->dirty);
	worker_sync_release(w);
	free(w->file_inflight);
	free(w->prio);
}

/*
 * After the write phase (do_verify=1), or instead of the workload
 * (verify_only).  fio's job_runtime and CPU figures run to the end of its
 * read-back: its time and CPU are added to the window's (after_ns).
 */
static void verify(struct worker *w)
{
	struct rusage r0, r1;
	uint64_t t0;
	bool cpu;

	if (w->fatal || worker_stopping(w) || !worker_verify_reads_back(w))
		return;
	cpu = !w->sh->fake && !getrusage(RUSAGE_THREAD, &r0);
	t0 = clk_now(&w->clk);
	worker_verify_phase(w);	/* verify_only, or the writes do_verify mapped */
	w->res.after_ns = clk_now(&w->clk) - t0;
	if (cpu && !getrusage(RUSAGE_THREAD, &r1))
		worker_add_cpu(&w->res, &r0, &r1);
}

static void run(struct worker *w)
{
	const struct plan_job *j = w->job;
	uint64_t gate = atomic_load_explicit(&w->pub.gate_open_ns, memory_order_relaxed);

	w->now = clk_now(&w->clk);
	if (gate && gate < w->now) {
		/* The window counts the wait, so the report must be able to say it happened. */
		w->res.late_start_ns = w->now - gate;
		w->now = gate;
	}
	w->res.thread_start_ns = w->now;
	if (!w->sh->fake)
		atomic_store_explicit(&w->pub.epoch_ns, w->now, memory_order_relaxed);
	atomic_store_explicit(&w->pub.last_done_ns, w->now, memory_order_relaxed);
	if (j->verify_only) {
		/* fio runs a verify_only job that does not write through its I/O loop, which
		 * sets its latency_depth (a writer's dry run does not). */
		if (!plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE))
			w->res.lat_depth = j->lat_target_ns ? 1 : j->iodepth;
		verify(w);
		worker_verify_verdict(w);
		return;
	}
	if (j->ramp_time_ns)
		worker_begin_ramp(w);
	else
		worker_begin_window(w);
	worker_loop(w);
	worker_end_window(w);
	/* Reports of the results so far show the whole window from here on (snapshot.h). */
	if (w->sh->snapshots || atomic_load_explicit(w->sh->snap_req, memory_order_relaxed))
		worker_snapshot(w);
	atomic_store_explicit(&w->pub.in_loop, false, memory_order_release);
	/* A second stop request (abort) skips the final flush too. */
	/*
	 * end_fsync for a job whose window never began (size= ran out inside its
	 * ramp): the sync no round's end made, outside any window.
	 */
	if (!w->fatal && atomic_load_explicit(w->sh->stop, memory_order_relaxed) < 2 && !w->end_synced)
		worker_sync_end(w);
	verify(w);
	worker_verify_verdict(w);
}

static void finish(struct worker *w)
{
	struct job_run *jr = w->jr;

	w->res.thread_end_ns = clk_now(&w->clk);
	w->res.clone_index = w->clone->clone_index;
	w->res.thread_number = w->clone->thread_number;
	worker_logs_fold(w, &w->res);	/* with any read-back the window's end left */
	*w->out = w->res;
	memset(&w->res, 0, sizeof(w->res));
	pthread_mutex_lock(&w->snap.mu);
	w->snap.final = true;
	pthread_mutex_unlock(&w->snap.mu);
	worker_set_state(w, w->out->error ? 'X' : '_');
	pthread_mutex_lock(&w->seg->mu);
	if (!--jr->clones_left)
		jr->done = true;
	jr->ended = true;
	if (!ioe_does_no_io(w->job->ioengine))
		w->seg->io_left--;
	if (w->out->error)
		jr->failed = true;
	w->seg->workers_left--;
	/* release: steady state reads its final counters once it reads this (steadystate.c) */
	atomic_store_explicit(&w->pub.running, false, memory_order_release);
	pthread_cond_broadcast(&w->seg->cv);
	pthread_mutex_unlock(&w->seg->mu);
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	const char *what = "";
	int ret;

	w->clk = w->sh->clk;
	w->res.tid = (int32_t)syscall(SYS_gettid);
	w->rng_misc = rng_seed(w->clone->seed, RNG_MISC);
	what = "cpus_allowed";
	ret = placement(w->job, w->clone);
	if (!ret)
		ret = numa_place_thread(w->job, &what);
	if (ret) {
		worker_error(w, .err = -ret, .what = what);
		worker_set_error(w, -ret);
		if (w->sh->started)
			note_started(w, 0);	/* fio fails it once created: its disks are listed */
		start_together(w);
	} else if (!w->clone->nr_files && !w->job->replay) {
		/*
		 * No file (nrfiles=0 without filename=, or fio's clone whose generated
		 * names its first clone took, plan.h): it starts with its group, moves
		 * nothing, reports no error.
		 * fio still enters its I/O loop, which sets its latency_depth.  Without
		 * size= it has nothing to size itself by (filesize= sizes files, and it
		 * has none): fio fails it with EINVAL, "you need to specify size=".
		 */
		w->res.lat_depth = w->job->iodepth;
		if (!w->job->size_bytes && !w->job->size_ppm) {
			worker_error(w, .err = EINVAL, .what = w->job->nrfiles ?
							       "no file is left to this clone (its name is the "
							       "first clone's) and the job has no size= (fio: "
							       "\"you need to specify size=\")" :
							       "the job has no file (nrfiles=0, or an empty opendir=) and "
							       "no size= (fio: \"you need to specify size=\")");
			worker_set_error(w, EINVAL);
		}
		if (wait_turn(w))
			start_delay(w);
		start_together(w);
	} else if (wait_turn(w) && start_delay(w)) {
		worker_set_state(w, 'I');
		ret = setup(w);
		/* create_only: the files are laid out (and opened); no I/O. */
		if (!ret && !w->job->create_only)
			ret = worker_prepare_cache(w);
		if (!ret && !w->job->create_only)
			ret = worker_env_start(w);
		if (start_together(w) && !ret && !w->job->create_only)
			run(w);
		else if (ret && ret != -EINTR)	/* -EINTR: stopped while setting up */
			worker_set_error(w, -ret);
	} else {
		start_together(w);	/* stopped before setup: no clone waits for this one */
	}
	teardown(w);
	finish(w);
	return NULL;
}

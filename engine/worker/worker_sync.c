/*
 * engine/worker/worker_sync.c - the syncs a job asks for: fsync=N, fdatasync=N,
 * sync_file_range=FLAGS:N and a trace's flush, which the loop (worker_io.c)
 * makes in the place of an I/O, and end_fsync / fsync_on_close's at the end of
 * each round.
 *
 * Its own file because the loop's file is the hot path and already long; a
 * sync runs once per N writes or per round, not per I/O.  The loop calls in
 * only for jobs that sync (its extras): sync_file_range='s bookkeeping of the
 * bytes each write completed costs nothing to the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/stats.h"
#include "engine/worker/worker.h"

_Static_assert(PLAN_SFR_WAIT_BEFORE == SYNC_FILE_RANGE_WAIT_BEFORE && PLAN_SFR_WRITE == SYNC_FILE_RANGE_WRITE &&
		       PLAN_SFR_WAIT_AFTER == SYNC_FILE_RANGE_WAIT_AFTER,
	       "the plan's sync_file_range flags are the kernel's");

/* Nothing written since the last sync: fio's first_write and last_write reset to -1. */
static const struct worker_written NONE_WRITTEN = { UINT64_MAX, UINT64_MAX };

/*
 * sync_file_range= tracks each file's bytes from zero, as fio's zeroed
 * fio_file does: a file's first range starts at offset 0 whatever was written.
 */
int worker_sync_setup(struct worker *w)
{
	const struct plan_job *j = w->job;

	w->syncs_every = j->fsync_every || j->fdatasync_every || j->sync_file_range_every;
	w->sync_rounds = 0;	/* the generator, set up next, has started none */
	if (!j->sync_file_range_every)
		return 0;
	w->written = calloc(w->clone->nr_files ? w->clone->nr_files : 1, sizeof(*w->written));
	return w->written ? 0 : -ENOMEM;
}

void worker_sync_release(struct worker *w)
{
	free(w->written);
	w->written = NULL;
}

/*
 * fio's get_rw_ddir: when the writes issued come to a multiple of fsync='s N,
 * the next I/O is an fsync; else of fdatasync='s, an fdatasync; else of
 * sync_file_range='s, a sync_file_range.  trimwrite never syncs: fio's
 * set_rw_ddir puts its trim-then-write turn over whatever get_rw_ddir chose.
 */
static bool sync_due(struct worker *w)
{
	const struct plan_job *j = w->job;
	const uint32_t every[WSYNC_KINDS] = { j->fsync_every, j->fdatasync_every, j->sync_file_range_every };
	uint64_t n = w->writes_issued;

	if (w->gen.trimwrite || !n)
		return false;
	for (uint8_t k = 0; k < WSYNC_KINDS; k++)
		if (every[k] && !(n % every[k])) {
			w->sync_kind = k;
			return true;
		}
	return false;
}

/*
 * fio asks for the sync before each I/O, while the writes issued are a
 * multiple of N, unless nothing but a sync completed since the last one (its
 * last_was_sync).  So a read or a trim that completes after the sync leaves
 * the count where it was and the sync comes again: in a mix at fsync=N that is
 * W S R S R S W from the Nth write to the next (randrw fsync=4 over 256k: 18
 * syncs in both; counting writes alone made 8).  At depth an I/O issued before
 * any completion after the sync does not repeat it: fio's libaio makes 57
 * syncs for 64 writes at fsync=1 iodepth=8, as ioplan now does.
 */
bool worker_sync_count(struct worker *w, uint8_t ddir)
{
	if (ddir == PLAN_DDIR_WRITE)
		w->writes_issued++;
	return !w->last_was_sync && sync_due(w);
}

bool worker_sync_completed(struct worker *w)
{
	w->last_was_sync = false;
	return sync_due(w);
}

/*
 * fio's rounds (do_io, clear_io_state) move the count's syncs.  A pass that
 * ends where the files run out makes the sync still due before the round
 * ends, as fio's get_rw_ddir picks the sync before the fill finds no room; a
 * round the amount ends does not (fio's loop stops before it asks).  Each
 * round fio starts forgets its last sync, so it begins with one while the
 * writes issued are still a multiple of N: randwrite fsync=1 loops=3 over 16
 * blocks makes 16 + 17 + 16 syncs in fio.  Called by draw() after each
 * generator call of a job that syncs every N writes (drawn: it gave an I/O).
 * The generator's own amount may end the job at a pass's end where fio's
 * loop would go on (gen_fio_loop_goes_on), so that counts as running out.
 * A round begun where nothing fits (file_append's next) makes its sync now.
 */
void worker_sync_rounds(struct worker *w, bool drawn)
{
	bool ended = (w->gen.ran_out || !drawn) && gen_fio_loop_goes_on(&w->gen);

	if (w->need_sync && ended)
		worker_sync_files(w);
	w->gen.ran_out = false;
	if (w->fatal || w->gen.rounds == w->sync_rounds)
		return;	/* a failed sync ends the job: no next round's sync after it */
	w->sync_rounds = w->gen.rounds;
	w->last_was_sync = false;	/* fio's clear_io_state */
	if (!sync_due(w))
		return;
	if (drawn)
		w->need_sync = true;
	else
		worker_sync_files(w);	/* a round begun where nothing fits (file_append) syncs all the same */
}

/* fio's file_log_write_comp: the range grows as writes complete, not as they are issued. */
void worker_sync_written(struct worker *w, const struct io_u *u)
{
	struct worker_written *r = &w->written[u->file];
	uint64_t end = u->offset + (uint64_t)u->result;

	if (r->lo == UINT64_MAX || u->offset < r->lo)
		r->lo = u->offset;
	if (r->hi == UINT64_MAX || end > r->hi)
		r->hi = end;
}

/*
 * Every file written to since its last sync: its descriptor's sync through the
 * engine (which may refuse it, as fio's ftruncate does), or a remote target's
 * flush.  A local file closed since was synced as it closed.  As fio's, any
 * sync starts sync_file_range='s range over.  0 or -errno.
 */
static int sync_file(struct worker *w, uint32_t f, bool data, bool at_end, const char *what)
{
	const struct ioe_ops *o = w->ioe.ops;
	int r;

	if (w->fds[f] >= 0)
		r = o && o->sync_fd ? o->sync_fd(&w->ioe, w->fds[f], data, at_end) : ioe_fsync(w->fds[f], data);
	else if (o && o->flush_sync)
		r = o->flush_sync(&w->ioe);
	else
		return 0;
	w->dirty[f] = false;
	if (w->written)
		w->written[f] = NONE_WRITTEN;
	worker_iolog_sync(w, f, data);
	if (r)
		worker_sync_failed(w, f, -r, what);
	return r;
}

/* One file's range, through the engine's sync when it has one (fio hands it the sync as an I/O). */
static int sync_range(struct worker *w, uint32_t f, struct worker_written r)
{
	const struct ioe_ops *o = w->ioe.ops;

	if (w->fds[f] < 0)
		return o && o->flush_sync ? o->flush_sync(&w->ioe) : 0;
	if (o && o->sync_fd)
		return o->sync_fd(&w->ioe, w->fds[f], true, false);
	return sync_file_range(w->fds[f], (off_t)r.lo, (off_t)(r.hi - r.lo), w->job->sync_file_range_flags) ?
		       -errno : 0;
}

/*
 * sync_file_range=: each file's range written since its last sync, as fio's
 * do_sync_file_range takes it (nothing for an empty one), with the job's
 * flags; a remote target's flush stands for it, as for fdatasync=.  fio syncs
 * the one file its next I/O would go to; ioplan, as for fsync=N, every file.
 * write_iolog has no line for it: fio's "sync_file_range" line is one its
 * own replay skips as unknown, and ioplan's refuses.  The first error, or 0.
 */
static int sync_ranges(struct worker *w)
{
	int err = 0;

	for (uint32_t f = 0; f < w->nr_fds; f++) {
		struct worker_written r = w->written[f];
		int ret;

		w->written[f] = NONE_WRITTEN;
		if (r.hi == r.lo)
			continue;
		if ((ret = sync_range(w, f, r))) {
			worker_sync_failed(w, f, -ret, "sync_file_range");
			if (!err)
				err = ret;
		}
	}
	return err;
}

/* Nothing written since the last sync: fio's sync then goes to the next I/O's file all the same. */
static bool any_dirty(const struct worker *w)
{
	for (uint32_t f = 0; f < w->nr_fds; f++)
		if (w->dirty[f])
			return true;
	return false;
}

/* The first error, or 0: every file is synced even after one fails, as fio's end_fsync. */
static int sync_dirty(struct worker *w, bool data, bool at_end, const char *what)
{
	int err = 0, r;

	for (uint32_t f = 0; f < w->nr_fds; f++)
		if (w->dirty[f] && (r = sync_file(w, f, data, at_end, what)) && !err)
			err = r;
	return err;
}

/*
 * fio's sync latency histogram, made at the first sync (most jobs never make
 * one) when the JSON "sync" block reports percentiles under the clat/lat ones.
 */
static bool sync_hist(struct worker *w)
{
	if (w->res.sync_lat.hist || !(w->job->clat_percentiles || w->job->lat_percentiles))
		return true;
	w->res.sync_lat.hist = calloc(RES_HIST_NR, sizeof(uint64_t));
	if (w->res.sync_lat.hist)
		return true;
	worker_error(w, .err = ENOMEM, .what = "sync latency histogram");
	worker_fail(w, ENOMEM);
	return false;
}

/*
 * fsync=N / fdatasync=N: sync every file written to; sync_file_range=: every
 * file's range; a trace's flush: the file its line names, by the line's kind
 * (sync or datasync).  As fio's, the writes still in flight stay in flight
 * (fio's libaio syncs once nothing is left uncommitted; its io_uring queues
 * the sync beside them), and the sync takes a place in the queue, counted at
 * that depth.  A failed sync is counted without a latency, as fio counts the
 * I/O its engine failed.
 */
void worker_sync_files(struct worker *w)
{
	bool data = w->rp.sync_due ? w->rp.sync_data : w->sync_kind == WSYNC_FDATASYNC;
	const char *what = data ? "fdatasync" : "fsync";
	uint64_t t0 = clk_now(&w->clk);
	int r;

	/* A trace's flush syncs the file its line names, written to or not (fio's). */
	if (w->rp.sync_due && w->rp.sync_file < w->nr_fds)
		r = sync_file(w, w->rp.sync_file, data, false, what);
	else if (!w->rp.sync_due && w->sync_kind == WSYNC_RANGE)
		r = sync_ranges(w);
	else if (!any_dirty(w))	/* a round's first sync (worker_sync_rounds): the next I/O's file */
		r = sync_file(w, w->have_held ? w->held.file : w->gen.cur < w->nr_fds ? w->gen.cur : 0, data,
			      false, what);
	else
		r = sync_dirty(w, data, false, what);
	w->rp.sync_due = false;
	w->now = clk_now(&w->clk);
	if (w->counting) {
		if (!r && !sync_hist(w))
			return;
		if (!r)	/* fio drops a failed I/O's latency, its count stays */
			lat_add(&w->res.sync_lat, w->now - t0);
		w->res.sync_ios++;
		w->res.depth[depth_bucket(w->inflight + 1)]++;
	} else if (worker_in_ramp(w)) {
		w->ramp_syncs++;	/* a job that ends in its ramp reports them, without a latency (fio's) */
	}
	w->need_sync = false;
	w->last_was_sync = true;
}

bool worker_sync_at_end(const struct worker *w)
{
	return w->job->end_fsync || w->job->fsync_on_close;
}

/*
 * end_fsync / fsync_on_close: as fio's do_io ends each round, every file
 * written to is fsynced once its I/Os have completed.  The caller times it in
 * the window, so the writes' runtime and bandwidth include the flush, as
 * fio's do; fio does not count it among the syncs.  fio also fsyncs again as
 * fsync_on_close closes the files between rounds; ioplan keeps them open,
 * and that second sync would find nothing written since the first.
 */
void worker_sync_end(struct worker *w)
{
	_Atomic char *state = &w->sh->states[w->clone->thread_number - 1];
	char was;

	if (!worker_sync_at_end(w))
		return;
	was = atomic_exchange_explicit(state, 'F', memory_order_relaxed);
	sync_dirty(w, false, true, "end_fsync");
	atomic_store_explicit(state, was, memory_order_relaxed);
}

/* A failed fsync loses written data as surely as a failed write: an error, fatal unless allowed. */
void worker_sync_failed(struct worker *w, uint32_t file, int err, const char *what)
{
	char why[96];

	/* A remote engine's ETIMEDOUT is its own: the target left the flush unanswered (ioengine.h). */
	if (err == ETIMEDOUT && w->ioe.ops && w->ioe.ops->remote) {
		snprintf(why, sizeof(why), "%s: the target did not answer the flush", what);
		what = why;
	}
	worker_error(w, .err = err, .ddir = PLAN_DDIR_WRITE, .file = file, .what = what);
	if (worker_may_continue(w, PLAN_DDIR_WRITE, err))
		return;
	worker_fail(w, err);
}

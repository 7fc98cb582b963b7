/*
 * engine/worker/worker_io.c - the hot loop of a worker: issue, commit, reap, account.
 *
 * One loop serves every engine.  Sync engines complete inside queue(); async
 * ones keep up to iodepth I/Os in flight, submit once iodepth_batch_submit are
 * queued, and reap between iodepth_batch_complete_min and _max at a time.  A
 * loop trip checks the phase and snapshot requests once, then issues and reaps;
 * completions already fetched from the engine turn into new I/Os within the
 * trip (turn_again), as a sync engine's I/Os go out in bursts.  The trip is
 * compiled four times: a job with none of the per-I/O extras (rates, verify,
 * logs, priorities, ...) runs a copy in which their tests are gone, one for a
 * sync engine and one for an async one; an async job whose only extras are in
 * a completion's accounting (fio's logs, max_latency) runs a third (HOT below).
 * Nothing here locks or allocates, except a copy of the results so far when
 * eng_snapshot asks for one (snapshot.h; one relaxed load per loop trip).
 *
 * Clock reads (engine/clock.h has their cost): once per commit (clat starts
 * there), once per reap or sync completion (but not for a fetch that follows a
 * commit on an engine whose getevents() never waits: null), and once per
 * prepared I/O (lat and slat start there) unless the last read was taken at most one I/O's
 * bookkeeping ago -- a sync completion, a commit, or a reap of one I/O, with
 * no buffer fill and no statistics interval in between (stamp_ok).  Then that
 * read stamps the new I/O too: a back-to-back stream costs one read per I/O
 * instead of two, and its latencies include the ~10-20 ns the tool spends
 * between two I/Os (measured, README "Performance"), as fio's do.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/snapshot.h"
#include "engine/worker/worker.h"

#define SYNC_BURST 16			/* sync I/Os per issue() call: fewer trips round the loop */

/*
 * The per-I/O functions take the kind of loop they are compiled into.  A job
 * with none of the extras (io_has_extras, account_has_extras) runs a copy in
 * which each IO_X/ACCT_X test is a constant false that the compiler folds away,
 * with the code behind it; that copy comes twice, for a sync engine and an
 * async one, so the tests of is_sync fold too (IS_SYNC).  An async job whose
 * extras are all in account() (account_has_extras, not io_has_extras) runs a
 * copy in which only the IO_X tests fold: a per-I/O log's job, most often.
 * Always inlined, so each copy is one function.
 */
enum loop_kind {
	LOOP_ANY,		/* every test asked of the worker */
	LOOP_PLAIN_SYNC,	/* no extras, the engine completes inside queue() */
	LOOP_PLAIN_ASYNC,	/* no extras, queue, commit and reap */
	LOOP_ACCT_ASYNC,	/* as LOOP_PLAIN_ASYNC, but a completion has extras to account (fio's logs) */
};

#define HOT static inline __attribute__((always_inline))
#define IO_X(w, k) ((k) == LOOP_ANY && (w)->io_extras)
#define ACCT_X(w, k) (((k) == LOOP_ANY || (k) == LOOP_ACCT_ASYNC) && (w)->acct_extras)
/* fsync=N (fdatasync=, sync_file_range=) and a trace's flushes ask for a sync: neither is in a plain job. */
#define NEED_SYNC(w, k) ((k) == LOOP_ANY && (w)->need_sync)
#define IS_SYNC(w, k) ((k) == LOOP_ANY ? (w)->is_sync : (k) == LOOP_PLAIN_SYNC)
/*
 * The plain async loop publishes what others read (progress counts, the stall
 * watchdog's in-flight count and last completion) once per trip and before a
 * wait for completions, not per I/O: a trip holds at most iodepth completions
 * already fetched, a few microseconds, and its stores were 4% of a null I/O.
 */
#define PUB_PER_TRIP(k) ((k) == LOOP_PLAIN_ASYNC || (k) == LOOP_ACCT_ASYNC)

static void publish(struct worker *w, uint8_t d, uint64_t bytes)
{
	atomic_store_explicit(&w->pub.bytes[d],
			      atomic_load_explicit(&w->pub.bytes[d], memory_order_relaxed) + bytes,
			      memory_order_relaxed);
	atomic_store_explicit(&w->pub.ios[d],
			      atomic_load_explicit(&w->pub.ios[d], memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/*
 * The stall watchdog's view, published at once: a completion since the last
 * publication moves its clock, and a queue that was idle starts it now.
 */
static void publish_watch(struct worker *w)
{
	uint64_t last = atomic_load_explicit(&w->pub.last_done_ns, memory_order_relaxed);

	if (w->reaped_ns > last)
		last = w->reaped_ns;
	else if (!atomic_load_explicit(&w->pub.inflight, memory_order_relaxed))
		last = w->now;
	atomic_store_explicit(&w->pub.last_done_ns, last, memory_order_relaxed);
	atomic_store_explicit(&w->pub.inflight, w->inflight, memory_order_relaxed);
}

/* PUB_PER_TRIP: the counts are the results' own (account() adds to both alike). */
static void publish_trip(struct worker *w)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		atomic_store_explicit(&w->pub.bytes[d], w->res.ddir[d].bytes, memory_order_relaxed);
		atomic_store_explicit(&w->pub.ios[d], w->res.ddir[d].ios, memory_order_relaxed);
	}
	publish_watch(w);
}

/*
 * Whether an I/O has more to account than its counts and latencies: a rate's
 * schedule, priorities, max_latency, latency_target, a separate IOPS series,
 * the I/O trace, fio's log files.  Asked once, when the loop starts.
 */
static bool account_has_extras(const struct worker *w)
{
	const struct plan_job *j = w->job;
	bool max_lat = false;

	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
		max_lat = max_lat || j->max_latency_ns[d];
	/* The IOPS series is its own when the averaging times differ (worker_logs.c),
	 * which a window decides when it starts, later than this: asked of the job. */
	return max_lat || j->lat_target_ns || w->prio || w->rated ||
	       j->iops_avg_time_ns != j->bw_avg_time_ns || w->res.trace_cap || w->lg.log;
}

HOT void account(struct worker *w, struct io_u *u, uint64_t now, const enum loop_kind k)
{
	struct res_ddir *d = &w->res.ddir[u->ddir];
	uint64_t lat = now - u->start_ns, clat = now - u->issue_ns;
	uint64_t bytes = u->nostat & IOE_NOSTAT_BYTES ? 0 : (uint64_t)u->result;

	/* The intervals that ended before this I/O close without it (worker_logs.c). */
	if (now >= w->lg.next_tick) {
		worker_logs_tick(w, now);
		w->stamp_ok = false;
	}

	d->bytes += bytes;
	d->ios++;
	if (u->nostat & IOE_NOSTAT_LAT) {
		if (!PUB_PER_TRIP(k))
			publish(w, u->ddir, bytes);
		return;	/* the engine timed nothing: counted, without a latency (fio's FIO_NOSTATS) */
	}
	if (!w->job->disable_clat) {
		lat_add(&d->clat, clat);
		latbkt_add(w->res.latbkt, w->sh->lbt, clat);
	}
	if (w->rec_lat)
		lat_add(&d->lat, lat);
	if (!IS_SYNC(w, k) && w->rec_slat)
		lat_add(&d->slat, u->issue_ns - u->start_ns);
	w->lg.lat_sum[u->ddir] += lat;
	if (lat > w->lg.bw_ser.lat_max[u->ddir])
		w->lg.bw_ser.lat_max[u->ddir] = lat;
	if (ACCT_X(w, k))
		worker_account_extras(w, u, d, now, lat, clat);
	if (!PUB_PER_TRIP(k))
		publish(w, u->ddir, bytes);
}

HOT void complete(struct worker *w, struct io_u *u, uint64_t now, const enum loop_kind k)
{
	w->free_slot[w->nr_free++] = u->slot;
	w->completed++;
	if (IO_X(w, k) && w->slot_busy)
		w->slot_busy[u->slot] = false;
	if (u->result < (int64_t)u->len && !worker_io_failed(w, u))
		;
	else if (u->counted && w->counting)
		account(w, u, now, k);
	else if (worker_in_ramp(w) && !(u->nostat & IOE_NOSTAT_BYTES))
		worker_ramp_count(w, u->ddir, (uint64_t)u->result);
	if (w->ioe.dropped) {
		/* net over UDP: datagrams the peer sent that never came (fio's dropped=). */
		if (u->counted && w->counting)
			w->res.ddir[u->ddir].drop_ios += w->ioe.dropped;
		w->ioe.dropped = 0;
	}
	if (IO_X(w, k))
		worker_complete_extras(w, u);
}

/*
 * Whether an I/O has more to do on its way out and back than the plain path:
 * a write's buffer refilled (dedupe, refill_buffers), priorities, rates,
 * overlap and openfiles bookkeeping, fsync=N and its kin, thinktime,
 * trims, verify, a trace to replay or write.  Asked once, when the loop starts:
 * all of it is set up by then.
 */
static bool io_has_extras(const struct worker *w)
{
	const struct plan_job *j = w->job;
	/* Varying a write's buffer (fio's scramble_buffers, on by default) is no extra: prepare() does it. */
	bool fills = plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) && (w->dedupe.pct || j->refill_buffers);

	return fills || w->prio || w->rated || w->slot_busy || w->flow || w->max_open || w->vf.trim ||
	       w->vf.vfy || w->rp.log || j->replay || j->fsync_every || j->fdatasync_every ||
	       j->sync_file_range_every || j->thinktime_ns;
}

HOT void prepare(struct worker *w, struct io_u *u, const struct gen_io *io, const enum loop_kind k)
{
	u->offset = io->offset;
	u->len = io->len;
	u->file = (uint16_t)io->file;
	u->fd = w->fds[io->file];
	u->ddir = io->ddir;
	u->nostat = 0;
	u->counted = w->phase == WP_RUN;
	if (IO_X(w, k)) {
		worker_prepare_extras(w, u);
	} else if (u->ddir == PLAN_DDIR_WRITE && w->vary_writes) {
		buf_vary(u->buf, u->len, &w->rng_misc);
		w->stamp_ok = false;
	}
	if (!w->stamp_ok && !w->stamp_each)	/* stamp_each: read in submit_one, next to queue() */
		w->now = clk_now(&w->clk);
	w->stamp_ok = false;
	u->start_ns = w->now;
}

/*
 * Bookkeeping once the engine took u: the file written, its rate slot, fsync=N.
 * The depth map counts an I/O that completed in queue() here, at the depth with
 * it; a queued one when it is submitted (commit_queued), as fio's.
 */
HOT void taken(struct worker *w, struct io_u *u, bool done, const enum loop_kind k)
{
	u->due_ns = 0;
	/* Written to once issued: fsync=N's sync may come before this write completes. */
	if (u->ddir == PLAN_DDIR_WRITE)
		w->dirty[u->file] = true;
	if (done && (w->counting || w->ramp_tally))
		w->res.depth[depth_bucket(w->inflight + 1)]++;
	if (IO_X(w, k))
		worker_taken_extras(w, u);
}

/* False when the held I/O must wait for its due time (rate limit). */
HOT bool is_due(struct worker *w, const enum loop_kind k)
{
	const struct rate *r = &w->rate[w->held.ddir];

	if (!IO_X(w, k))
		return true;
	if (w->job->replay)
		return worker_replay_due(w);
	if (!w->rated || !rate_is_limited(r) || r->due_ns <= w->now)
		return true;
	w->now = clk_now(&w->clk);
	if (r->due_ns <= w->now)
		return true;
	w->wait_until = r->due_ns;
	return false;
}

/* The engine refused a commit: the job fails (out of line, to keep the trips small). */
__attribute__((noinline)) static void commit_failed(struct worker *w, int err)
{
	worker_error(w, .err = err, .what = "submit");
	worker_fail(w, err);
}

/* Submits what is queued.  Inline in the trips: it runs once per I/O at iodepth_batch_submit=1. */
HOT void commit_queued(struct worker *w, const enum loop_kind k)
{
	int r = w->ioe.ops->commit(&w->ioe);
	uint64_t t;

	if (r <= 0) {
		if (r < 0)
			commit_failed(w, -r);
		return;
	}
	w->now = t = clk_now(&w->clk);
	w->stamp_ok = true;
	for (int i = 0; i < r; i++)
		w->pending[i]->issue_ns = w->clat_at_queue ? w->pending[i]->start_ns : t;
	if (ACCT_X(w, k) && w->rec_slat && clone_log_wants_slat(w->lg.log))
		worker_logs_submitted(w, w->pending, (uint32_t)r, t);
	w->nr_pending -= (uint32_t)r;
	if (w->nr_pending)
		memmove(w->pending, w->pending + r, w->nr_pending * sizeof(*w->pending));
	/* fio's td_io_commit: the I/Os submitted count at the depth they make, all in flight. */
	if (w->counting || w->ramp_tally) {
		w->res.submit[batch_bucket((uint32_t)r)]++;
		w->res.depth[depth_bucket(w->inflight)] += (uint64_t)r;
	}
	if (PUB_PER_TRIP(k))
		return;
	/* A queue that was idle starts the watchdog's clock now, not at the last completion. */
	if (!atomic_load_explicit(&w->pub.inflight, memory_order_relaxed))
		atomic_store_explicit(&w->pub.last_done_ns, t, memory_order_relaxed);
	atomic_store_explicit(&w->pub.inflight, w->inflight, memory_order_relaxed);
}

static void commit(struct worker *w)
{
	commit_queued(w, LOOP_ANY);
}

static bool ddir_is_due(struct worker *w, uint8_t d)
{
	return !rate_is_limited(&w->rate[d]) || w->rate[d].due_ns <= w->now;
}

/* Of two directions both ahead of their schedules, the one due first; d on a tie. */
static uint8_t ddir_due_first(const struct worker *w, uint8_t d, uint8_t o)
{
	return w->rate[o].due_ns < w->rate[d].due_ns ? o : d;
}

/*
 * The direction of the next I/O, as fio's rate_ddir steers the mix's pick: the
 * pick if it is due, else the other direction if that one is due, else the one
 * of the two due first (the wait is the shortest).  Waiting for the pick instead
 * let the other direction fall behind and the pick's I/Os come early: 8m at
 * rwmixread=25 rate=1m,3m read 2112 KiB, fio 2048.  A direction the mix never
 * picks (rwmix 0) is never taken.  The clock is read again before the pick is
 * judged ahead: the last reading may be older than its due time.
 */
__attribute__((noinline)) static uint8_t next_mixed_ddir(struct worker *w)
{
	uint8_t d = gen_pick_ddir(&w->gen), o;

	if (!w->rated || !w->gen.mixed || ddir_is_due(w, d))
		return d;
	o = gen_other_ddir(&w->gen, d);
	if (!gen_mix_share(&w->gen, o))
		return d;
	w->now = clk_now(&w->clk);
	if (ddir_is_due(w, d))
		return d;
	if (ddir_is_due(w, o))
		return o;
	return ddir_due_first(w, d, o);
}

/* Inline for a job of one direction, which has nothing to decide (a mix or trimwrite has). */
static inline uint8_t next_ddir(struct worker *w)
{
	return w->gen.mixed || w->gen.trimwrite ? next_mixed_ddir(w) : w->gen.only_ddir;
}

/* Hands one prepared I/O to the engine.  False when the engine is full. */
HOT bool submit_one(struct worker *w, const enum loop_kind k)
{
	uint32_t slot = w->free_slot[--w->nr_free];
	struct io_u *u = &w->ios[slot];
	int r;

	prepare(w, u, &w->held, k);
	if (IO_X(w, k) && w->rp.log)	/* no call per I/O without write_iolog */
		worker_iolog_io(w, u);
	/* A sync I/O's clock reads come next to queue(), with nothing of ioplan's between
	 * but the two stores that tell the watchdog when it started. */
	if (IS_SYNC(w, k) && w->stamp_each)
		u->start_ns = w->now = clk_now(&w->clk);
	if (IS_SYNC(w, k)) {
		/* The stall watchdog sees a sync I/O in flight while queue() runs it. */
		atomic_store_explicit(&w->pub.last_done_ns, u->start_ns, memory_order_relaxed);
		atomic_store_explicit(&w->pub.inflight, 1, memory_order_relaxed);
	}
	if (IO_X(w, k) && w->job->replay)
		worker_replay_issued(w, u->start_ns);
	r = w->ioe.ops->queue(&w->ioe, u);
	if (r == IOE_Q_COMPLETED)
		w->now = clk_now(&w->clk);
	if (IS_SYNC(w, k))
		atomic_store_explicit(&w->pub.inflight, 0, memory_order_relaxed);
	if (r == IOE_Q_BUSY) {
		w->nr_free++;
		return false;
	}
	w->have_held = false;
	taken(w, u, r == IOE_Q_COMPLETED, k);
	if (r == IOE_Q_COMPLETED) {
		u->issue_ns = u->start_ns;
		w->stamp_ok = true;
		/*
		 * fio's td_io_queue counts a submit and a complete of one only for an engine
		 * without a commit hook: null at iodepth=1 (its I/Os complete in queue(),
		 * but it has one) shows fio's "submit: 4=0.0%" rows.
		 */
		if ((w->counting || w->ramp_tally) && !w->ioe.ops->commit) {
			w->res.submit[1]++;	/* batch_bucket(1) */
			w->res.complete[1]++;
		}
		complete(w, u, w->now, k);
	} else {
		w->inflight++;
		w->pending[w->nr_pending++] = u;
		if (w->nr_pending >= w->batch_submit)
			commit_queued(w, k);
	}
	if (IO_X(w, k) && w->job->thinktime_ns)
		worker_think(w);
	return true;
}

/*
 * Whether another I/O may go in flight.  (Asking a plain job only inflight <
 * depth ran 5% slower at qd32 on this machine's Zen 5, for fewer instructions.)
 */
static bool has_room(struct worker *w)
{
	if (w->inflight >= w->lt.qd_cap) {
		w->refill_wait = w->low < w->lt.qd_cap;
		return false;
	}
	if (w->refill_wait && w->inflight > w->low)
		return false;
	w->refill_wait = false;
	return true;
}

/* The next I/O: a trim trim_backlog asks for, else the workload's (or the trace's). */
HOT bool draw(struct worker *w, const enum loop_kind k)
{
	bool extras = IO_X(w, k);

	if (extras && w->vf.backlog_due) {
		worker_verify_backlog(w);
		if (w->fatal)
			return false;	/* a mismatch ends the job before another write */
	}
	if (extras && w->vf.trim && worker_trim_next(w, &w->held, false))
		return true;
	/* One call of the generator: inlined, it is most of a plain job's draw. */
	if ((extras && w->job->replay) ? worker_replay_next(w) : gen_next_ddir(&w->gen, next_ddir(w), &w->held)) {
		if (extras && w->syncs_every)
			worker_sync_rounds(w, true);
		return true;
	}
	if (extras && w->syncs_every)
		worker_sync_rounds(w, false);	/* fsync=N's sync due as the files ran out goes first */
	/* A pass ended: its round ends (sync, read-back) before the next one begins.  Any
	 * job's loop asks, plain ones too: only a pass's end has work, so loops=N and an
	 * io_size= past size= keep the plain path for every other I/O. */
	if (w->gen.round_due) {
		worker_rounds_end(w);
		if (!w->gen.round_due && !w->fatal && gen_next_ddir(&w->gen, next_ddir(w), &w->held)) {
			if (extras && w->syncs_every)
				worker_sync_rounds(w, true);
			return true;
		}
		if (extras && w->syncs_every)
			worker_sync_rounds(w, false);
	}
	/* The workload is done: the blocks still listed are trimmed now, as fio does. */
	return extras && w->vf.trim && !w->gen.busy && worker_trim_next(w, &w->held, true);
}

/*
 * fio's fsync=N sync is the I/O it takes instead of the next one: a job whose
 * last write completes the count ends without it (64 writes with fsync=1 make
 * 63 syncs in fio).  So the next I/O is drawn first; none left, no sync.
 */
static bool sync_is_due(struct worker *w)
{
	if (w->have_held || w->job->replay || w->flow)
		return true;
	/* The draw may have made the sync itself, where the files ran out (worker_sync_rounds). */
	if (draw(w, LOOP_ANY)) {
		w->have_held = true;
		return w->need_sync;
	}
	if (w->gen.busy || w->vf.trim)
		return w->need_sync;	/* files still to open or blocks to trim: more I/O follows */
	w->need_sync = false;
	w->gen_done = true;
	worker_drain_begin(w);
	return false;
}

/* openfiles and serialize_overlap: whether the held I/O may go now. */
static bool held_may_go(struct worker *w)
{
	if (w->max_open && !worker_file_ready(w, w->held.file))
		return false;
	if (w->slot_busy && worker_overlaps_inflight(w, &w->held)) {
		w->blocked = true;	/* reaped below; retried after */
		return false;
	}
	return true;
}

HOT void issue(struct worker *w, const enum loop_kind k)
{
	w->blocked = false;
	if (k == LOOP_ANY)
		w->wait_until = 0;	/* only rates, flow and replays set it: none in a plain job */
	if (w->ioe.peer_done) {
		w->gen_done = true;	/* a closed stream has nothing more to give */
		worker_drain_begin(w);
		return;
	}
	if (NEED_SYNC(w, k)) {
		if (!has_room(w))
			return;	/* the sync waits for a place in the queue, as fio's io_u */
		if (w->nr_pending)
			commit(w);
		if (!sync_is_due(w))
			return;
		worker_sync_files(w);
	}
	/* A full queue is the usual way out (once per I/O at depth): asked first. */
	for (uint32_t n = 0; has_room(w) && n < w->burst && !w->fatal && !w->ioe.peer_done; n++) {
		if (!w->have_held) {
			if (IO_X(w, k) && w->flow && !worker_flow_turn(w))
				return;
			if (!draw(w, k)) {
				if (NEED_SYNC(w, k))
					return;	/* a trace's flush: sync, then draw again */
				/* busy: every file left waits for an open one to close (openfiles);
				 * one that ran out with nothing in flight closes now, and the draw
				 * is made again, as it is at once after a fill that ran out. */
				if (w->gen.busy && (worker_close_idle(w) || w->gen.retry))
					continue;
				/* trim_percentage: a write still in flight may be listed as it completes,
				 * and the list is trimmed once the workload is done: wait for it. */
				w->blocked = w->gen.busy || (IO_X(w, k) && w->vf.trim && w->inflight);
				w->gen_done = !w->blocked;
				if (w->gen_done)
					worker_drain_begin(w);
				return;
			}
			w->have_held = true;
			if (NEED_SYNC(w, k))
				return;	/* a round that starts with fsync=N's sync (worker_sync_rounds) */
		}
		if (IO_X(w, k) && !held_may_go(w))
			return;
		if (!is_due(w, k) || !submit_one(w, k)) {
			w->blocked = true;
			return;
		}
		if (NEED_SYNC(w, k) || w->now >= w->deadline ||
		    atomic_load_explicit(w->sh->stop, memory_order_relaxed))
			return;
	}
}

static uint64_t reap_timeout(const struct worker *w)
{
	uint64_t t = WORKER_WAIT_SLICE_NS;

	if (w->wait_until && w->wait_until > w->now && w->wait_until - w->now < t)
		t = w->wait_until - w->now;
	if (w->win_end && w->win_end > w->now && w->win_end - w->now < t)
		t = w->win_end - w->now;
	return t;
}

/*
 * Takes every completion the engine holds, in one call, into the ready list
 * (the engine's events array, untouched until the list is empty).
 */
static int fetch(struct worker *w, uint32_t min, uint32_t submitted, bool per_trip)
{
	int n;

	if (min > submitted)
		min = submitted;
	/* The watchdog must see this trip's submissions before a wait that may not end. */
	if (per_trip && min && !w->ioe.ops->instant)
		publish_watch(w);
	n = w->ioe.ops->getevents(&w->ioe, min, submitted, reap_timeout(w));
	/* An instant engine's getevents() never waits: the commit's read just taken still holds. */
	if (!w->stamp_ok || !w->ioe.ops->instant)
		w->now = clk_now(&w->clk);
	if (n < 0) {
		if (n == -EINTR || n == -ETIME || n == -EAGAIN)
			return 0;
		worker_error(w, .err = -n, .what = "getevents");
		worker_fail(w, -n);
		w->inflight = w->nr_pending;	/* what was in flight is abandoned */
		return 0;
	}
	w->ready_head = 0;
	w->ready_nr = (uint32_t)n;
	w->stamp_ok = true;
	return n;
}

/*
 * As fio: reap only when nothing more can be issued now, and hand back at most
 * iodepth_batch_complete_max completions per trip (1 by default), so a
 * completion is followed by a new submission before the next one is counted:
 * that is what holds the queue depth (all of them for an engine that reaps_all,
 * whose fio counterpart ignores the max: vsync).  Completions the engine already had come
 * out of the ready list without another engine call.  Each is timed when it is
 * handed back, as fio times a completion when it reaps it (a completion waiting
 * to be reaped is still in flight for the job): by the clock read of the
 * submission just made when only bookkeeping came since, else by a new read.
 */
HOT void reap(struct worker *w, const enum loop_kind k)
{
	uint32_t submitted = w->inflight - w->nr_pending, take;
	bool must_wait = !has_room(w) || w->blocked || w->gen_done || w->phase == WP_DRAIN ||
			 w->quiescing;
	struct io_u **ev;

	if (!submitted || !must_wait)
		return;
	if (!w->ready_nr) {
		if (!fetch(w, w->cmin || !w->wait_until ? w->cmin : 1, submitted, PUB_PER_TRIP(k)))
			return;
	} else if (!w->stamp_ok || w->now == w->reaped_ns) {
		w->now = clk_now(&w->clk);
	}
	w->reaped_ns = w->now;
	take = w->reap_all || w->ready_nr < w->cmax ? w->ready_nr : w->cmax;
	ev = w->ioe.events + w->ready_head;
	w->ready_head += take;
	w->ready_nr -= take;
	w->inflight -= take;
	if (take > 1)
		w->stamp_ok = false;
	for (uint32_t i = 0; i < take; i++)
		complete(w, ev[i], w->now, k);
	if (w->counting || w->ramp_tally)
		w->res.complete[batch_bucket(take)]++;
	if (PUB_PER_TRIP(k))
		return;
	atomic_store_explicit(&w->pub.inflight, w->inflight, memory_order_relaxed);
	atomic_store_explicit(&w->pub.last_done_ns, w->now, memory_order_relaxed);
}

bool worker_failed_in_flight(struct worker *w)
{
	return w->fatal && w->inflight > w->nr_pending && (!w->win_end || w->now < w->win_end) &&
	       !atomic_load_explicit(w->sh->stop, memory_order_relaxed) && !worker_remote_gave_up(w);
}

/*
 * As fio's cleanup: first what the engine holds already, up to
 * iodepth_batch_complete_max, then all the rest at once, waited for; a
 * completion that failed is recorded and counted without bytes, one that
 * succeeded counts as any.  What was queued and never submitted is not sent.
 */
void worker_reap_failed(struct worker *w)
{
	uint32_t submitted = w->inflight - w->nr_pending, take;
	bool first = !w->failed_reaps;

	w->failed_reaps++;
	if (!w->ready_nr && !fetch(w, first ? 0 : submitted, submitted, false))
		return;	/* none ready yet: the next call waits for them all */
	take = first && w->ready_nr > w->cmax ? w->cmax : w->ready_nr;
	w->reaped_ns = w->now;
	for (uint32_t i = 0; i < take; i++)
		complete(w, w->ioe.events[w->ready_head + i], w->now, LOOP_ANY);
	w->ready_head += take;
	w->ready_nr -= take;
	w->inflight -= take;
	if (w->counting)
		w->res.complete[batch_bucket(take)]++;
	atomic_store_explicit(&w->pub.inflight, w->inflight, memory_order_relaxed);
	atomic_store_explicit(&w->pub.last_done_ns, w->now, memory_order_relaxed);
}

void worker_quiesce(struct worker *w)
{
	if (w->nr_pending && !w->fatal)
		commit(w);
	w->quiescing = true;
	while (w->inflight > w->nr_pending && !w->fatal &&
	       !atomic_load_explicit(w->sh->stop, memory_order_relaxed))
		reap(w, LOOP_ANY);
	w->quiescing = false;
}

void worker_drain_begin(struct worker *w)
{
	if (w->drain_on)
		return;
	w->drain_on = true;
	w->drain_n = w->inflight;	/* the queued ones too: fio's cur_depth, committed first */
	memcpy(w->complete_saved, w->res.complete, sizeof(w->complete_saved));
}

void worker_drain_end(struct worker *w)
{
	if (!w->drain_on)
		return;
	w->drain_on = false;
	/* A failed job's reaps count as fio's cleanup_pending_aio counts them (worker_reap_failed). */
	if (w->fatal || !(w->counting || w->ramp_tally) || !w->drain_n)
		return;
	memcpy(w->res.complete, w->complete_saved, sizeof(w->complete_saved));
	w->res.complete[batch_bucket(w->drain_n)]++;
}

void worker_drain(struct worker *w)
{
	worker_drain_begin(w);
	worker_quiesce(w);
	if (w->inflight <= w->nr_pending)
		worker_drain_end(w);	/* else a stop cut it: the window's end ends it */
}

/* Sync engines: lat was not recorded per I/O because it equals clat. */
void worker_lat_from_clat(const struct worker *w, struct res_clone *c)
{
	if (!w->lat_is_clat || !w->counting)
		return;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		struct res_lat *lat = &c->ddir[d].lat, *clat = &c->ddir[d].clat;
		uint64_t *hist = lat->hist;

		*lat = *clat;
		lat->hist = hist;
		if (hist)
			memcpy(hist, clat->hist, RES_HIST_NR * sizeof(*hist));
	}
}

static bool clat_only(const struct worker *w)
{
	return w->ioe.ops && w->ioe.ops->clat_only;
}

/*
 * lat can be taken from clat when every I/O completes inside queue() (issue ==
 * start) and clat keeps whatever lat must keep.
 */
static bool lat_may_be_clat(const struct worker *w)
{
	const struct plan_job *j = w->job;

	if (!w->is_sync || j->disable_clat || j->disable_lat || clat_only(w))
		return false;
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (w->res.ddir[d].lat.hist && !w->res.ddir[d].clat.hist)
			return false;
	return true;
}

/*
 * Whether the loop turns again at once, without the snapshot poll and the
 * phase update: an async engine at depth whose completions are already
 * fetched turns each one into a new I/O, up to max_turns (its depth, as
 * issue() bursts a sync engine's I/Os) while the phase lasts (the deadline
 * is 0 once it drains).  A snapshot or a stop request waits at most those
 * turns, a few microseconds.
 */
static bool turn_again(const struct worker *w, uint32_t turn)
{
	return w->ready_nr && turn < w->max_turns && !w->fatal && w->now < w->deadline;
}

/* A trip's issue, commit and reap, then again while turn_again() says so. */
HOT void turns(struct worker *w, const enum loop_kind k)
{
	for (uint32_t turn = 1;; turn++) {
		if (w->phase != WP_DRAIN)
			issue(w, k);
		if (w->nr_pending && !w->fatal)
			commit_queued(w, k);
		if (w->inflight > w->nr_pending)
			reap(w, k);
		else if (w->blocked && w->wait_until)
			worker_idle(w);
		if (!turn_again(w, turn))
			break;
	}
	if (PUB_PER_TRIP(k))
		publish_trip(w);
}

/* The copies of the trip (HOT, above): plain jobs' two, logged async jobs', one for the rest. */
__attribute__((noinline)) static void turns_plain_sync(struct worker *w)
{
	turns(w, LOOP_PLAIN_SYNC);
}

__attribute__((noinline)) static void turns_plain_async(struct worker *w)
{
	turns(w, LOOP_PLAIN_ASYNC);
}

__attribute__((noinline)) static void turns_acct_async(struct worker *w)
{
	turns(w, LOOP_ACCT_ASYNC);
}

__attribute__((noinline)) static void turns_any(struct worker *w)
{
	turns(w, LOOP_ANY);
}

void worker_loop(struct worker *w)
{
	bool plain, acct_only;

	/* latency_target judges its window after each submission, as fio's do_io does. */
	w->burst = w->job->lat_target_ns ? 1 : w->is_sync ? SYNC_BURST : w->depth;
	w->lat_is_clat = lat_may_be_clat(w);
	/* fio's metadata engines time one operation and record it as clat only. */
	w->rec_lat = !w->job->disable_lat && !w->lat_is_clat && !clat_only(w);
	w->rec_slat = !w->is_sync && !w->clat_at_queue && !w->job->disable_slat;
	w->deadline = worker_phase_deadline(w);
	w->stamp_ok = false;
	w->acct_extras = account_has_extras(w);
	w->io_extras = io_has_extras(w);
	plain = !w->acct_extras && !w->io_extras;
	/* Not with latency_target: its final window clears the counts that a per-trip
	 * publication copies (publish_trip), and the watchers' counts must not go back. */
	acct_only = !plain && !w->io_extras && !w->is_sync && !w->job->lat_target_ns;
	worker_lat_target_start(w);
	atomic_store_explicit(&w->pub.in_loop, true, memory_order_release);
	/* What else a trip checks (rates, rate_min, latency targets) keeps one trip per I/O. */
	w->max_turns = w->is_sync || w->io_extras || w->job->lat_target_ns || worker_rate_min_wanted(w) ?
			       1 : w->depth;
	for (;;) {
		worker_snapshot_poll(w);
		worker_phase_update(w);
		if (w->phase == WP_DRAIN &&
		    (!w->inflight || w->fatal || atomic_load_explicit(w->sh->stop, memory_order_relaxed) > 1 ||
		     worker_remote_gave_up(w)))
			break;
		if (w->phase == WP_DRAIN)
			worker_cancel_stalled(w);
		if (w->fatal && w->phase == WP_RUN) {
			worker_reap_failed(w);
			continue;
		}
		if (plain && w->is_sync)
			turns_plain_sync(w);
		else if (plain)
			turns_plain_async(w);
		else if (acct_only)
			turns_acct_async(w);
		else
			turns_any(w);
		if (w->job->lat_target_ns)
			worker_lat_target_check(w);
	}
	worker_lat_from_clat(w, &w->res);
	w->have_held = false;
}

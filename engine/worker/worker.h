/*
 * engine/worker/worker.h - one thread per clone: what it owns and what it shares.
 *
 * A worker owns everything it touches per I/O (generator, engine instance,
 * buffers, io_u slots, its own res_clone) and copies its results out when it
 * ends.  What others read while it runs (progress counters, in-flight count,
 * last completion time) sits in worker_pub on its own cache line and is written
 * with relaxed atomics, so the status line and the stall watchdog cost the
 * worker nothing but plain stores (a plain async loop makes them once per trip,
 * worker_io.c's PUB_PER_TRIP).
 */
#ifndef IOPLAN_ENGINE_WORKER_H
#define IOPLAN_ENGINE_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "engine/buffers.h"
#include "engine/clock.h"
#include "engine/flow.h"
#include "engine/ioengine.h"
#include "engine/gen/iogen.h"
#include "engine/logs/logs.h"
#include "engine/plan.h"
#include "engine/prio.h"
#include "engine/rate.h"
#include "engine/results.h"
#include "engine/stats.h"
#include "engine/verify/verify.h"

struct layout;
struct iosched;

/* What every worker of a run reads; set up before the first worker starts. */
struct eng_shared {
	const _Atomic int *stop;	/* 0 run, 1 stop gracefully, 2 abort */
	struct clk clk;			/* copied by each worker */
	const struct latbkt_table *lbt;
	_Atomic char *states;		/* fio state letters, by thread_number - 1 */
	/* When each thread passed its startdelay= and wait_for=, as fio's run_threads would
	 * create it (diskstats.h), by thread_number - 1: UINT64_MAX until then. */
	_Atomic uint64_t *started;
	bool fake;			/* eng_opts.fake_clock: no rusage, no sleeps */
	const _Atomic uint64_t *snap_req;	/* eng_snapshot's request number (snapshot.h) */
	bool snapshots;			/* eng_opts.snapshots */
	uint64_t sleep_gran_ns;		/* clk_sleep_granularity_ns(), if a job thinks */
	struct flows *flows;		/* flow=/flow_id= groups of the whole run (flow.h) */
	struct scratch_files *scratch;	/* scratch files the run created (scratch.h) */
	const struct layout *lay;	/* the files as the layout checked them (layout_open) */
	const char *aux_path;		/* plan.aux_path: side files go there (NULL = cwd) */
	struct iosched *iosched;	/* ioscheduler='s devices switched, put back at the end (iosched.h) */
};

/* The syncs writes ask for, in the order fio's get_rw_ddir tries them (worker_sync.c). */
enum worker_sync_kind {
	WSYNC_FSYNC,		/* fsync=N */
	WSYNC_FDATASYNC,	/* fdatasync=N */
	WSYNC_RANGE,		/* sync_file_range=FLAGS:N */
	WSYNC_KINDS
};

/* sync_file_range=: a file's bytes written since its last sync (fio's first_write, last_write). */
struct worker_written {
	uint64_t lo, hi;
};

/* Where clones that start together meet once set up (worker.c start_together). */
struct start_gate {
	_Atomic uint32_t left;		/* clones not yet set up */
	/*
	 * The futex its clones wait on: bit 0 set once left reached 0; each wake
	 * after a stop adds 2 (worker_wake_gates), so a clone about to wait sees
	 * the word change and does not sleep through the stop.
	 */
	_Atomic uint32_t open;
	uint64_t open_ns;		/* clock time it opened, written before open */
};
#define START_GATE_OPEN 1u

/* One plan job in one run of its segment. */
struct job_run {
	const struct plan_job *job;
	uint32_t job_index;		/* flattened plan index */
	struct res_job *res;
	struct interlock *il;		/* per file of clone 0, interlocked jobs only */
	int32_t waits_for;		/* index in seg_run.jobs, or -1 */
	/*
	 * The start gate this job's clones pass together once set up (seg_run's for
	 * the jobs that start with the segment, own_gate for a job that waits
	 * or has a fixed startdelay), NULL when each clone draws its own delay.
	 */
	struct start_gate *gate;
	struct start_gate own_gate;
	uint32_t clones_left;		/* guarded by seg_run.mu */
	bool done;			/* guarded by seg_run.mu */
	bool ended;			/* a clone has ended (exitall: fio's is per thread); seg_run.mu */
	bool exit_sent;			/* exitall handled (coordinator, under seg_run.mu) */
	bool failed;			/* a clone ended with an error (guarded by seg_run.mu) */
};

/* Jobs that run together (between two stonewalls), in one run. */
struct seg_run {
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a job finished, or a worker exited */
	struct job_run *jobs;
	uint32_t nr_jobs;
	uint32_t workers_left;		/* guarded by mu */
	uint32_t io_left;		/* of them, clones of jobs that do I/O (not cpuio); guarded by mu */
	int8_t io_after;		/* 1: such a job runs after this segment; -1: the plan has none */
	struct start_gate gate;		/* of the jobs that start with the segment */
	uint64_t t0;			/* clock time its threads were started */
};

struct worker_pub {
	_Alignas(64) _Atomic uint64_t bytes[PLAN_DDIR_NR];
	_Atomic uint64_t ios[PLAN_DDIR_NR];
	_Atomic uint64_t last_done_ns;	/* last completion (or start), clock time */
	_Atomic uint32_t inflight;
	_Atomic bool running;
	_Atomic bool stalled;		/* set by the watchdog */
	/* For the progress line's estimate, set when the measured window starts. */
	_Atomic uint64_t win_start_ns;	/* 0 = not in the window yet */
	_Atomic uint64_t win_end_ns;	/* 0 = no runtime bound */
	_Atomic uint64_t win_bytes;	/* bytes the window issues, 0 = time-bound or unknown */
	_Atomic uint64_t ramp_end_ns;	/* when ramp_time ends, set as it starts (0 = no ramp) */
	/* eng_snapshot (snapshot.h): the last request answered, and whether it still answers. */
	_Atomic uint64_t snap_ack;
	_Atomic bool in_loop;
	/* Its start gate opened, clock time (0 = none, or a fake clock). */
	_Atomic uint64_t gate_open_ns;
	/* Its measured time began (its gate's opening, or its own start without a gate; 0 = not
	 * yet, or a fake clock): steady state's ramp counts from it. */
	_Atomic uint64_t epoch_ns;
};

enum wphase {
	WP_RAMP = 0,
	WP_RUN,
	WP_COOL,
	WP_DRAIN
};

/*
 * latency_target's search (worker_lat_target.c), fio's td->latency_* fields.
 * The loop (worker_io.c) reads qd_cap before each I/O and done after each
 * trip: the depth it may fill, and whether the search ended the job.
 */
struct worker_lat_target {
	uint32_t qd_cap;		/* most I/Os in flight: depth, or the search's depth */
	uint32_t qd, low, high;		/* depth in use, last met, first missed (or iodepth) */
	uint32_t stable;		/* windows met one below high in a row */
	uint64_t cycle_ns, cycle_ios;	/* when the current window began, I/Os by then */
	uint64_t failed;		/* I/Os over the target in this window (percentile < 100) */
	bool over;			/* percentile 100: an I/O was over the target */
	bool end_run;			/* the depth settled: the final window is running */
	bool done;			/* the final window passed: the job ends */
};

/*
 * The parts of a worker one file owns: the rest of the engine reads and writes
 * the core fields of struct worker, the owner its part.
 */

/* thinktime's blocks and iotime (worker_think.c). */
struct worker_think {
	uint64_t issued;		/* I/Os issued, towards thinktime_blocks (thinktime_on_issue) */
	uint64_t last_blocks;		/* the count when the last think began */
	uint64_t last_ns;		/* thinktime_iotime: when the last think was found due; 0 = not yet */
};

/* rate_min and rate_iops_min: the current cycle (worker_rate_min.c). */
struct worker_rate_min {
	uint64_t check_at;		/* next check; UINT64_MAX = none */
	uint64_t cycle_bytes[PLAN_DDIR_NR], cycle_ios[PLAN_DDIR_NR];
	uint64_t cycle_from;		/* when cycle_* were taken; 0 = not yet */
	uint64_t seen_ios;		/* completions at the last look, to look only after new ones */
};

/* Capture (write_iolog) and replay (read_iolog), worker_replay.c. */
struct worker_replay {
	/* write_iolog: lines not yet written, NULL unless the job records; written whole
	 * lines at a time, so clones appending to one log never cut into each other's */
	char *log;
	size_t log_len;
	int log_fd;
	uint64_t log_t0;		/* the clock when the log began (fio: at set-up) */
	int log_err;			/* errno of the first failed write to it, or 0 */
	uint64_t *last_write;		/* write_iolog: per file, the last write's offset (a sync's line names it) */
	bool *open_due;			/* write_iolog: per file, open with its "open" line held for its next I/O */
	bool *held;			/* write_iolog, openfiles, an engine that opens no file: open in fio's log */
	uint32_t rounds;		/* write_iolog: gen.rounds at the last I/O line (a new loop closes the files) */
	uint64_t next;			/* read_iolog: the next trace I/O */
	uint64_t t0;			/* when trace time 0 is due */
	uint64_t due;			/* the held I/O's due time */
	uint32_t sync_file;		/* a trace's flush due (sync_due): the file it names */
	bool sync_due;
	bool sync_data;			/* a datasync line (fdatasync), not a sync (fsync) */
};

/* The results so far, for eng_snapshot (snapshot.c); mu guards res, valid and final. */
struct worker_snap {
	pthread_mutex_t mu;
	struct res_clone res;
	bool valid;			/* res holds a copy */
	bool final;			/* the worker's *out holds the thread's final results */
	uint64_t seen;			/* the last request this worker answered (its own) */
};

/*
 * The per-interval figures: bw and iops samples, the series, fio's log files
 * (worker_logs.c).  The loop (worker_io.c account) adds each I/O to lat_sum,
 * the series' lat_max and the log, and compares next_tick, without a call per
 * I/O; segment.c opens the log with the worker and closes it after the run.
 */
struct worker_logs {
	struct clone_log *log;	/* NULL unless the job writes fio's log files */
	struct sampler bw_s, iops_s;
	uint64_t next_bw, next_iops, next_tick;
	struct series bw_ser, iops_ser;
	bool iops_ser_own;		/* iops series differs from the bw series */
	/* A bw (iops) log without log_avg_msec: each I/O is a bw (iops) sample, as fio's per-unit logs. */
	bool bw_per_io, iops_per_io;
	uint64_t lat_sum[PLAN_DDIR_NR];	/* lat of the I/Os so far, for the series' means */
	/*
	 * Those samples as exact sums, made into res_sample_stat when the results
	 * are read (worker_logs_fold): a running mean, as fio keeps, divides by
	 * the count at every I/O.
	 */
	struct io_sums {
		uint64_t n, min, max;
		unsigned __int128 sum, sumsq;
	} bw_io[PLAN_DDIR_NR];
	uint64_t iops_io[PLAN_DDIR_NR];	/* each sample is 1 */
};

/*
 * Verification (worker_verify.c) and the trims among verified writes
 * (worker_trim.c, which works on maps and vfy and owns trim).  The loop
 * (worker_io.c) reads vfy and trim to know whether a completion is checked and
 * whether trims may be due, without a call per I/O.
 */
/*
 * The written I/Os in the order they were made, from head on: fio's read-back
 * order with a random map.  Each is its file << VFY_ORDER_FILE_SHIFT | its
 * first chunk (worker_verify_order.c).
 */
#define VFY_ORDER_FILE_SHIFT 40
struct vfy_order {
	uint64_t *v;
	uint64_t n, cap, head;
	bool on;			/* fio keeps a list (gen_keeps_random_map): the read-back follows it */
	bool lost;			/* out of memory: the rest are read back by offset */
};

struct worker_verify {
	struct vfy *vfy;		/* NULL unless the job verifies */
	struct vfy_map *maps;		/* per file: chunks written, for the read-back */
	struct vfy_map *starts;		/* per file: chunks a write read back whole starts at */
	struct vfy_order order;		/* with a random map, the order of the writes (fio's list) */
	uint16_t **nio;			/* per file: each written chunk's write number, for fio's header
					   check (worker_verify_numberio); NULL where fio checks none */
	bool reads;			/* check every block read */
	bool fake;			/* the engine moves no data (null): reads counted, nothing checked */
	struct vstate *state;		/* verify_state_save: writes issued, the last completions */
	bool state_taken;		/* by default, a user's file held its name at the start (the preflight said so) */
	struct vstate *load;		/* verify_state_load: the earlier run's state */
	uint64_t load_budget;		/* verify_state_load: chunks verify_only checks */
	uint8_t *buf;			/* verify_backlog: the read-back buffer, worker_verify_run_chunks */
	uint64_t hist;			/* verify_backlog: fio's io_hist_len, the writes issued not read back yet (less those a later one replaced) */
	uint64_t batch_left;		/* verify_backlog: the written I/Os the check begun has still to read back */
	bool backlog_due;		/* verify_backlog: the check is due before the next I/O (worker_verify_hist) */
	uint64_t loop_ns;		/* loops=N: the rounds' read-backs' time, out of the window's other runtimes */
	uint64_t pace_t0, pace_chunks;	/* verify_only under rate=: its start, chunks read since */
	struct vasync *async;		/* verify_async: the checker threads; NULL = check here */
	struct vtrim *trim;		/* trim_percentage: blocks to trim, trimmed chunks, or NULL */
	struct frand seeds;		/* fio's verify_state: each write's header seed */
	uint32_t seeds_round;		/* the generator's round seeds started in (fio reseeds each loop) */
};

struct worker {
	struct worker_pub pub;
	/*
	 * This worker's own stop flag (0 run, 1 stop gracefully, 2 abort) and its
	 * copy of the run's shared settings pointing at it: eng_stop() sets every
	 * worker's flag, exitall only those of one group.
	 */
	_Alignas(64) _Atomic int stop;
	struct eng_shared sh_own;
	const struct eng_shared *sh;
	struct seg_run *seg;
	struct job_run *jr;
	const struct plan_job *job;
	const struct plan_clone *clone;
	struct res_clone *out;		/* where the results go when the thread ends */
	pthread_t tid;
	bool started;

	struct clk clk;
	struct res_clone res;
	struct gen gen;
	struct ioe ioe;
	bool ioe_open;
	bool is_sync;
	bool clat_at_queue;		/* the engine's clat_at_queue (vsync): commit() leaves issue_ns at start_ns */
	/*
	 * A sync I/O's start is a clock read made just before queue() (and its end
	 * one made just after), so its latency is the engine's alone (fio's
	 * issue_time); a stamp left from the last completion would add ioplan's
	 * own work between the two I/Os.
	 */
	bool stamp_each;
	struct bufpool bufs;
	struct buffill fill;
	bool vary_writes;		/* random content: vary each write cheaply */
	struct dedupe dedupe;		/* dedupe_percentage: each write from a seed */
	bool env_started;		/* exec_prerun ran (or was due): postrun runs too */
	void *lockmem;			/* lockmem: the pinned mapping, or NULL */
	struct io_u *ios;
	uint32_t *free_slot;
	uint32_t nr_free;
	struct io_u **pending;		/* queued, not yet committed */
	uint32_t nr_pending;
	int *fds;			/* -1 = closed (openfiles) or not opened */
	uint32_t nr_fds;
	uint32_t max_open;		/* openfiles in force, 0 = every file stays open */
	uint32_t *file_inflight;	/* I/Os in flight per file: a closing file waits for 0 */
	bool *dirty;			/* written since the last sync, per file */
	bool end_synced;		/* end_fsync / fsync_on_close made the last round's sync */

	uint32_t depth, batch_submit, cmin, cmax, low;
	bool reap_all;			/* the engine's reaps_all: a reap takes every fetched completion */
	uint32_t burst;			/* most I/Os one issue() call starts */
	uint64_t deadline;		/* the current phase ends by time here */
	uint64_t drain_start;		/* remote engines: the drain began (0 = not yet); see worker_remote_gave_up */
	bool cancelled;			/* worker_cancel_stalled asked the engine to cancel what is in flight */
	uint32_t inflight;		/* queued or submitted, not completed */
	uint32_t ready_head, ready_nr;	/* fetched completions not handed back yet (ioe.events) */
	uint64_t reaped_ns;		/* now when it last timed a completion (worker_io.c) */
	bool refill_wait;		/* reached the full depth: wait for iodepth_low */
	bool blocked;			/* a drawn I/O waits (rate or engine busy) */
	bool have_held;
	struct gen_io held;		/* drawn, not issued yet */
	bool gen_done;
	bool need_sync;
	bool fatal;
	uint32_t failed_reaps;		/* reaps since the job failed (worker_reap_failed) */
	uint64_t remote_deadline;	/* remote engines stop waiting for a peer here; 0 = never */
	enum wphase phase;
	bool counting;
	uint64_t now;			/* the last clock read */
	bool stamp_ok;			/* now may stamp the next I/O's start (worker_io.c) */
	bool lat_is_clat;		/* sync engine: lat == clat, recorded once */
	bool rec_lat;			/* lat is recorded per I/O (not disabled, not lat_is_clat, not clat_only) */
	bool rec_slat;			/* slat is recorded per I/O (not disabled, not a sync engine) */
	bool acct_extras;		/* an I/O has more to account than counts and latencies (worker_io.c) */
	bool io_extras;			/* an I/O has more to do on its way than the plain path (worker_io.c) */
	uint32_t max_turns;		/* issue-reap turns per loop trip (turn_again, worker_io.c) */
	uint64_t ramp_end, win_end, cool_end;	/* 0 = none */
	/*
	 * A ramp that counts toward size= (not time_based): its I/O (and its
	 * depths, kept in res), which the report shows only when size= runs out
	 * inside the ramp, as fio's.
	 */
	bool ramp_counts;
	/*
	 * Inside any ramp: its I/O, syncs and depths are tallied (ramp_bytes,
	 * ramp_ios, ramp_syncs, res's depth maps), which a report of the results
	 * so far shows as fio's interim reports do (snapshot.c); the window
	 * starts them over.
	 */
	bool ramp_tally;
	uint64_t ramp_start;
	uint64_t ramp_bytes[PLAN_DDIR_NR], ramp_ios[PLAN_DDIR_NR];
	uint64_t ramp_syncs;		/* fsync=N's syncs in that ramp: counted if the job ends in it */
	uint64_t wait_until;		/* rate: when the held I/O is due */

	struct rate rate[PLAN_DDIR_NR];
	bool rated;
	uint64_t rng_misc;
	uint64_t writes_issued;		/* fsync=, fdatasync=, sync_file_range= count them (fio's io_issues) */
	uint8_t sync_kind;		/* the sync need_sync asks for (enum worker_sync_kind) */
	bool last_was_sync;		/* fio's: nothing but a sync completed since the last sync (worker_sync.c) */
	bool syncs_every;		/* fsync=N, fdatasync=N or sync_file_range=: worker_sync_rounds watches rounds */
	uint32_t sync_rounds;		/* gen.rounds when worker_sync_rounds last looked */
	struct worker_written *written;	/* sync_file_range=, per file; NULL without (worker_sync.c) */
	bool map_dropped;		/* softrandommap: file map_file's random map could not be had */
	uint32_t map_file;
	uint64_t completed;		/* I/Os completed, every phase (thinktime_blocks counts them) */
	struct worker_think think;	/* worker_think.c only */
	bool quiescing;			/* thinktime: reap everything in flight first */
	/*
	 * fio's do_io ends by reaping all in flight in one call: from the drain's
	 * start (drain_on) its reaps are counted one by one as any, then put back
	 * to complete_saved plus one reap of drain_n (worker_io.c worker_drain_end).
	 */
	bool drain_on;
	uint32_t drain_n;
	uint64_t complete_saved[RES_BATCH_NR];
	struct flow *flow;		/* NULL unless the job has flow= (flow.h) */
	uint64_t flow_count;		/* I/Os this worker counted in its flow */
	bool *slot_busy;		/* serialize_overlap: ios[i] is in flight; else NULL */
	struct prio_pick *prio;		/* cmdprio: per-I/O priorities; NULL without (engine/prio.h) */
	struct worker_lat_target lt;	/* worker_lat_target.c */

	struct worker_logs lg;		/* worker_logs.c; worker_io.c adds each I/O */
	struct rusage ru0;

	struct worker_rate_min rm;	/* worker_rate_min.c only */

	struct worker_verify vf;	/* worker_verify.c, worker_trim.c */
	uint64_t busy0_ns;		/* worker_busy_ns() at the window's start */

	struct worker_replay rp;	/* worker_replay.c only */
	struct worker_snap snap;	/* snapshot.c; segment.c sets it up and tears it down */
};

/* The thread body (pthread start routine); arg is a struct worker. */
void *worker_main(void *arg);

/* The I/O loop of worker.c's thread, in worker_io.c.  Returns when the worker is done. */
void worker_loop(struct worker *w);

/* worker_extras.c: the out-of-line parts of the loop's prepare, taken, account and complete. */
void worker_prepare_extras(struct worker *w, struct io_u *u);
void worker_taken_extras(struct worker *w, struct io_u *u);
void worker_account_extras(struct worker *w, struct io_u *u, struct res_ddir *d, uint64_t now,
			   uint64_t lat, uint64_t clat);
void worker_complete_extras(struct worker *w, struct io_u *u);

/* The thread's state letter in the status line (fio's: 'r', 'W', 'f', ...). */
static inline void worker_set_state(struct worker *w, char c)
{
	atomic_store_explicit(&w->sh->states[w->clone->thread_number - 1], c, memory_order_relaxed);
}

/* The longest blind wait of the loop: a stop request is seen this fast. */
#define WORKER_WAIT_SLICE_NS 100000000ull

/*
 * Phases (worker_phase.c), asked by the loop once per trip.  update moves to the
 * next phase when the current one is over; deadline is when the current one
 * ends by time (0 once draining); idle sleeps towards the held I/O's due time;
 * remote_gave_up is true once a remote target stayed silent too long while
 * draining (the job's error says so).  begin and end are the window's bounds.
 */
void worker_phase_update(struct worker *w);
uint64_t worker_phase_deadline(const struct worker *w);
void worker_idle(struct worker *w);
bool worker_remote_gave_up(struct worker *w);
/* Under a stop, asks the engine to cancel I/Os in flight that have been silent a while (once). */
void worker_cancel_stalled(struct worker *w);
void worker_begin_ramp(struct worker *w);
void worker_begin_window(struct worker *w);
void worker_end_window(struct worker *w);

/*
 * size= ran out inside the ramp: the report holds the ramp's bytes and I/Os,
 * timed from its start, and no latency or bandwidth sample (fio takes none in
 * a ramp and never resets the counters then).
 */
void worker_end_in_ramp(struct worker *w);
/*
 * The ramp's tallies as c's results up to now (its span, bytes, I/Os, runtime,
 * syncs and the thread's CPU; no latency, as fio's): a report during the ramp
 * (snapshot.c) or of a job that ends in it.
 */
void worker_ramp_so_far(const struct worker *w, struct res_clone *c, uint64_t now);

/*
 * The per-interval figures (worker_logs.c).  begin starts them with the window
 * (0, or -ENOMEM when the series has no memory); tick closes the intervals
 * that ended by now, once now passes lg.next_tick; end closes them with the
 * window; restart drops the latency sums and series when latency_target
 * measures its window again; so_far completes a copy of the results taken
 * mid-window (snapshot.c); prio sets the logs' priority column.  read_back
 * logs a verify read (fio's logs hold them, so fio-plot shows their series);
 * flush hands what the read-back after the window logged to the writer.
 */
int worker_logs_begin(struct worker *w, uint64_t now);
void worker_logs_tick(struct worker *w, uint64_t now);
void worker_logs_end(struct worker *w);
void worker_logs_restart(struct worker *w);
void worker_logs_so_far(const struct worker *w, struct res_clone *s);
void worker_logs_prio(struct worker *w, uint16_t ioprio);
void worker_logs_read_back(struct worker *w, uint64_t now, uint64_t offset, uint32_t bytes, uint64_t lat);
/* A bw or iops log without log_avg_msec: this I/O's samples (worker_io.c account's extras). */
void worker_logs_io_samples(struct worker *w, uint8_t ddir, uint32_t bytes, uint64_t clat);
void worker_logs_fold(const struct worker *w, struct res_clone *c);
/* The slat log's lines of n I/Os an async engine took at now (worker_io.c commit), as fio dates them. */
void worker_logs_submitted(struct worker *w, struct io_u *const *us, uint32_t n, uint64_t now);
void worker_logs_flush(struct worker *w, uint64_t now);

/* CPU this thread used since its window began, into c (worker_phase.c).  False when unknown. */
bool worker_cpu_usage(const struct worker *w, struct res_clone *c);
/* Adds the thread's CPU between two getrusage readings to c's (worker_phase.c). */
void worker_add_cpu(struct res_clone *c, const struct rusage *a, const struct rusage *b);

/* Sync engines record lat only as clat: c's lat becomes a copy of its clat (worker_io.c). */
void worker_lat_from_clat(const struct worker *w, struct res_clone *c);

/*
 * Verification: setup and release (worker_verify_setup.c; run_chunks: chunks a
 * read-back run holds); a write's stamp as it is prepared, the completion
 * hook, the read-back, the final verdict (worker_verify.c).
 */
int worker_verify_setup(struct worker *w, const struct buffill *fill);
void worker_verify_release(struct worker *w);
uint64_t worker_verify_run_chunks(const struct worker *w);
void worker_verify_stamp(struct worker *w, struct io_u *u);
void worker_verify_done(struct worker *w, const struct io_u *u);
bool worker_verify_reads_back(const struct worker *w);
void worker_verify_phase(struct worker *w);
void worker_verify_verdict(struct worker *w);
/* verify_backlog: the check the count asked for while writes were in flight. */
void worker_verify_backlog(struct worker *w);
/* fio's list of written I/Os (worker_verify_order.c): on for a job with a random map; a write made; the end of a walk; freed. */
void worker_verify_order_setup(struct worker *w);
void worker_verify_order_add(struct worker *w, uint32_t f, uint64_t chunk);
void worker_verify_order_taken(struct worker *w);
uint64_t worker_verify_order_stop(const struct worker *w);
void worker_verify_order_release(struct worker *w);
/* fio's write-number check (worker_verify_numberio.c): set up where fio makes it, a write completed, the number a read-back run must find, freed. */
void worker_verify_numberio_setup(struct worker *w);
void worker_verify_numberio_note(struct worker *w, uint32_t f, uint64_t first, uint64_t n, uint16_t numberio);
int32_t worker_verify_numberio_want(const struct worker *w, uint32_t f, uint64_t chunk, bool zero);
void worker_verify_numberio_release(struct worker *w);
/* verify_backlog: a write issued (+1) or one that failed (-1), and whether a check is due now. */
void worker_verify_hist(struct worker *w, int64_t delta);
/* loops=N: a round's read-back as it ends (worker_rounds.c), the window's runtimes after them. */
void worker_verify_loop(struct worker *w);
void worker_verify_end_window(struct worker *w);
void worker_verify_log_write(struct worker *w, uint32_t f, uint64_t offset, uint64_t len);

/*
 * verify_only (worker_verify_only.c): whether the job's writes are drawn again
 * to check only those, a round of them drawn (true: more rounds follow), its
 * read size and its pace under rate=.
 */
bool worker_verify_only_replays(const struct plan_job *j);
bool worker_verify_only_draw(struct worker *w);
uint64_t worker_verify_only_block(const struct worker *w);
void worker_verify_only_pace(struct worker *w, uint64_t n);
#define VFY_BAD_MAX 8	/* mismatches described per block */
/*
 * Records up to VFY_BAD_MAX of n mismatches of the chunks in buf (read from
 * buf_off of file f), verify_dump's files with them (worker_verify_report.c);
 * true when verify_fatal stops the job.
 */
bool worker_verify_report_bad(struct worker *w, uint32_t f, uint32_t n, const struct vfy_bad *bad,
			      const uint8_t *buf, uint64_t buf_off);
/*
 * trim_percentage with trim_backlog (worker_trim.c).  worker_trim_next gives
 * the next trim due (every one listed once gen_ended); worker_trim_done takes
 * a completed write or trim at rel in its file region (true: it stays on the
 * written map, trimmed); worker_trim_zeroed says a written chunk was trimmed.
 */
int worker_trim_setup(struct worker *w);
void worker_trim_release(struct worker *w);
bool worker_trim_next(struct worker *w, struct gen_io *io, bool gen_ended);
bool worker_trim_done(struct worker *w, const struct io_u *u, uint64_t rel);
bool worker_trim_zeroed(const struct worker *w, uint32_t f, uint64_t chunk);

/*
 * rate_min / rate_iops_min (worker_rate_min.c): start arms the check when the
 * job has a minimum; check, at each completion, ends the job with an error
 * once a rate_cycle falls below it.
 */
bool worker_rate_min_wanted(const struct worker *w);
void worker_rate_min_start(struct worker *w);
void worker_rate_min_check(struct worker *w);

/* The page cache (worker_cache.c): pre_read / invalidate before the first I/O.  0 or -errno. */
int worker_prepare_cache(struct worker *w);
/* Drops file f's cached pages, its region's (what fio's file_invalidate_cache drops). */
void worker_cache_drop(const struct worker *w, uint32_t f);
/* invalidate=1: the page cache is dropped before each verify read-back, as fio's reopen does. */
void worker_cache_read_back(struct worker *w);

/*
 * Raises the clone's stop request to level (1 as a signal or exitall asks, 2
 * at once).  Then worker_wake_gates() wakes the clones of cur[0, n) that wait
 * at their start gate, to see it; called with the clones known to the engine
 * (e->cur), so their gates are still there.
 */
void worker_ask_stop(struct worker *w, int level);
void worker_wake_gates(struct worker *const *cur, uint32_t n);

/* Whether the run was asked to stop (gracefully or not): a long wait or read-back ends early. */
static inline bool worker_stopping(const struct worker *w)
{
	return atomic_load_explicit(w->sh->stop, memory_order_relaxed) != 0;
}

/* Inside a ramp that counts toward size=: I/O done now is the ramp's (ramp_bytes, ramp_ios). */
static inline bool worker_in_counted_ramp(const struct worker *w)
{
	return w->ramp_counts && w->phase == WP_RAMP;
}

/* Inside any ramp: I/O done now is tallied as the ramp's (ramp_tally). */
static inline bool worker_in_ramp(const struct worker *w)
{
	return w->ramp_tally && w->phase == WP_RAMP;
}

static inline void worker_ramp_count(struct worker *w, uint8_t ddir, uint64_t bytes)
{
	w->ramp_bytes[ddir] += bytes;
	w->ramp_ios[ddir]++;
}

/* Completes a short read or write (worker_short.c): true once all of u->len moved. */
bool worker_finish_short(struct worker *w, struct io_u *u);
/*
 * A completion that moved less than u->len (worker_errors.c): finished if it
 * was short, else recorded, and fatal unless allowed.  True when the I/O
 * counts as done after all.
 */
bool worker_io_failed(struct worker *w, struct io_u *u);
/*
 * True when, for at least CPU_BOUND_PCT of a window of at least
 * CPU_BOUND_MIN_NS, the thread ran or waited for a CPU (schedstat; its CPU time
 * cpu_ns where schedstat is missing): it never waited for the device, so the
 * tool set the pace.  A neighbour's load does not hide it (worker_phase.c).
 */
#define CPU_BOUND_PCT 90u
#define CPU_BOUND_MIN_NS 100000000ull
bool worker_was_cpu_bound(const struct worker *w, uint64_t cpu_ns);

/* This thread's time on a CPU plus waiting for one, in ns; 0 if unknown. */
uint64_t worker_busy_ns(void);

/* fio's io_u_quiesce: submit what is queued, reap all in flight (worker_io.c). */
void worker_quiesce(struct worker *w);

/*
 * The end of fio's do_io, io_u_queued_complete(td, cur_depth): what is in flight
 * comes back in one reap, one entry of that many in the complete row (io_uring
 * --iodepth=16 --size=64m: 'complete: 4=99.9%, 16=0.1%').  worker_drain_begin
 * as the workload runs out (gen_done) or a loop's or a window's end drains the
 * queue; worker_drain_end once it has (or the window ends): the reaps counted
 * since become one.  Off the per-I/O path (worker_io.c).
 */
void worker_drain_begin(struct worker *w);
void worker_drain_end(struct worker *w);
/* A loop's end: worker_quiesce as one reap (ended at once unless a stop cut it short). */
void worker_drain(struct worker *w);

/*
 * fio's cleanup_pending_aio: a job that failed reaps the I/Os it had submitted
 * before its window ends, each counted as fio counts every I/O it issued
 * (worker_io.c).  worker_failed_in_flight: whether some are still out and the
 * window waits for them (not past runtime=, under a stop, nor once a remote
 * target is silent).
 */
bool worker_failed_in_flight(struct worker *w);
void worker_reap_failed(struct worker *w);

/*
 * exec_prerun, lockmem (start: 0 or -errno, the error recorded) and
 * exec_postrun, unpinning (end) around a clone's I/O (worker_env.c).
 */
int worker_env_start(struct worker *w);
/* ioscheduler=: the clone's devices switched before its files open (0 or -errno, the error recorded). */
int worker_env_iosched(struct worker *w);
void worker_env_end(struct worker *w);

/*
 * Flow control and serialize_overlap (worker_flow.c).  setup joins the job's
 * flow (0 or -errno), release leaves it; turn is false (and the worker blocked
 * until wait_until) while the job is ahead of its flow share; overlaps_inflight
 * is true while io overlaps an I/O of this worker in flight.
 */
int worker_flow_setup(struct worker *w);
void worker_flow_release(struct worker *w);
bool worker_flow_turn(struct worker *w);
bool worker_overlaps_inflight(const struct worker *w, const struct gen_io *io);
/* max_latency: false (the job failed with ETIMEDOUT) when lat exceeds the job's maximum. */
bool worker_latency_ok(struct worker *w, const struct io_u *u, uint64_t lat);

/*
 * latency_target (worker_lat_target.c): start sets the depth (1 with a target,
 * else the whole queue) at the loop's start; over records an I/O whose lat
 * exceeded the target (at depth 1 with percentile 100: the job fails with
 * ETIMEDOUT); check, after each reap in the window, moves the depth once a
 * window is judged, and sets lt.done when the search has ended.
 */
void worker_lat_target_start(struct worker *w);
void worker_lat_target_over(struct worker *w, const struct io_u *u, uint64_t lat);
void worker_lat_target_check(struct worker *w);

/* thinktime after an I/O is issued (worker_think.c). */
void worker_think(struct worker *w);
/* The rate schedules move on by ns that the job spent on something else (worker_think.c). */
void worker_rate_skip(struct worker *w, uint64_t ns);

/*
 * Opens file f of the clone into w->fds[f] (worker_files.c) without blocking in
 * open(): a FIFO waits for its writer only until runtime or a stop (-EINTR).
 * 0, or -errno with the error recorded.
 */
int worker_open_file(struct worker *w, uint32_t f, struct stat *st);

/*
 * openfiles (worker_files.c): worker_limit_open sets w->max_open; set-up calls
 * worker_size_done once it has sized file f (closing it under openfiles);
 * worker_file_ready opens a file the generator chose (false, fatal and
 * recorded, when it cannot); worker_close_file closes one whose pass is done,
 * worker_close_idle those that ran out with nothing in flight.
 */
void worker_limit_open(struct worker *w);
void worker_size_done(struct worker *w, uint32_t f);
bool worker_file_ready(struct worker *w, uint32_t f);
void worker_close_file(struct worker *w, uint32_t f);
bool worker_close_idle(struct worker *w);

/*
 * unlink_each_loop, before a loop after the first (worker_files.c): the files
 * are closed, removed and made again as fio's (layout_renew), then opened.
 * False, fatal and recorded, when one cannot be (a job that only reads: ENOENT).
 */
bool worker_files_renew(struct worker *w);

/*
 * Capture and replay (worker_replay.c).  write_iolog: iolog_open after the
 * files are open (header, "add" lines; "open" as fio opens each), iolog_file as a
 * file opens or closes later (openfiles, unlink_each_loop), iolog_io as each
 * I/O is handed to the engine, iolog_sync as a file is synced, iolog_read_back
 * as a verify read-back begins, iolog_read as it reads (it goes beside the
 * engine), iolog_close at teardown
 * ("close" for those still open).  read_iolog:
 * replay_start at the window's start; replay_next draws the next trace I/O into
 * w->held (false at the trace's end); replay_due says whether it may go now
 * (else w->wait_until is set); replay_issued counts its lag.
 */
int worker_iolog_open(struct worker *w);
void worker_iolog_file(struct worker *w, uint32_t f, const char *act);
void worker_iolog_held(struct worker *w, uint32_t f, bool open);
void worker_iolog_track(struct worker *w);
void worker_iolog_io(struct worker *w, const struct io_u *u);
void worker_iolog_sync(struct worker *w, uint32_t file, bool data);
void worker_iolog_read(struct worker *w, uint32_t file, uint64_t offset, uint64_t len);
void worker_iolog_read_back(struct worker *w);
void worker_iolog_close(struct worker *w);
void worker_replay_start(struct worker *w, uint64_t now);
bool worker_replay_next(struct worker *w);
bool worker_replay_due(struct worker *w);
void worker_replay_issued(struct worker *w, uint64_t start_ns);

/* continue_on_error (fio's td_non_fatal_error): whether the job survives err in ddir (worker_errors.c). */
bool worker_may_continue(const struct worker *w, uint8_t ddir, int err);
/* Records a failed fsync/fdatasync of file: the job's error, fatal unless continue_on_error=write (worker_sync.c). */
void worker_sync_failed(struct worker *w, uint32_t file, int err, const char *what);
/* A verify read failed: fatal unless continue_on_error allows read errors (worker_verify.c). */
void worker_read_back_failed(struct worker *w, int err);
/*
 * fsync=N, fdatasync=N, sync_file_range=, a trace's flush (worker_sync.c):
 * sync_setup allocates what sync_file_range= tracks (0 or -ENOMEM; released by
 * sync_release); sync_count counts an I/O issued (the writes), true when a sync is due;
 * sync_completed: an I/O completed, true when a sync is due again;
 * sync_written notes a write's bytes as it completes; sync_files makes the
 * sync due, of every file written to since its last one.
 */
int worker_sync_setup(struct worker *w);
void worker_sync_release(struct worker *w);
bool worker_sync_count(struct worker *w, uint8_t ddir);
bool worker_sync_completed(struct worker *w);
void worker_sync_rounds(struct worker *w, bool drawn);
void worker_sync_written(struct worker *w, const struct io_u *u);
void worker_sync_files(struct worker *w);
/* end_fsync / fsync_on_close: fsync every file written to, as a round of the workload ends. */
bool worker_sync_at_end(const struct worker *w);
void worker_sync_end(struct worker *w);
/*
 * loops=N and io_size= as fio's rounds (worker_rounds.c): a round ends where
 * a pass over the files ends; once its I/Os complete it is fsynced (end_fsync)
 * and read back (do_verify) before the next round writes.
 */
bool worker_rounds_wanted(const struct worker *w);
void worker_rounds_window(struct worker *w);
void worker_rounds_end(struct worker *w);
void worker_rounds_last(struct worker *w);

/*
 * An error at an I/O, a file or the worker's set-up, as res_error records it.
 * Callers name only what they know (worker_error below); the rest is zero:
 * file 0, no offset, ddir PLAN_DDIR_READ for an error that has no direction.
 */
struct worker_fault {
	int err;			/* positive errno; 0 = a short transfer */
	uint8_t ddir;
	uint32_t file;			/* index in the clone's files */
	uint64_t offset;
	uint64_t len;			/* requested bytes */
	uint64_t done;			/* bytes actually transferred */
	const char *what;		/* "read", "open", "submit", ...: copied */
};

/* Records f as one of the worker's errors (worker_errors.c). */
void worker_record_error(struct worker *w, const struct worker_fault *f);

/* worker_error(w, .err = -ret, .file = f, .what = "open"): designated fields of a worker_fault. */
#define worker_error(w, ...) worker_record_error((w), &(struct worker_fault){ __VA_ARGS__ })

/*
 * The job's error, as res_clone.error holds it: the first one is the job's (fio
 * reports the first, not the last).  worker_set_error names err unless an
 * earlier error was named; worker_fail also stops the job on an error it may
 * not continue past (err 0 stops without naming one).
 */
void worker_set_error(struct worker *w, int err);
void worker_fail(struct worker *w, int err);

#endif /* IOPLAN_ENGINE_WORKER_H */

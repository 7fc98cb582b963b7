/*
 * engine/engine.h - the engine's whole public surface: run a plan, watch it, stop it.
 *
 * cli/ starts a run with eng_start(), polls eng_get_status() for the progress line,
 * takes eng_snapshot() for reports of the results so far, forwards SIGINT/SIGTERM
 * as eng_stop(), and collects the results with eng_finish().  The engine never
 * prints, never exits and keeps no global state; every function returns 0 or
 * -errno.
 */
#ifndef IOPLAN_ENGINE_H
#define IOPLAN_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "results.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Scale-out: a run kept in step with other processes running the same plan
 * (cli/mpi/mpi.hpp implements it on MPI; the engine knows nothing of MPI).  The
 * coordinator thread calls these at fixed points that every process reaches
 * the same number of times in the same order, so they may be collective:
 * - layout_share(files, n): before the layout, the files this process lays
 *   out (paths as the plan names them, the bytes it needs, whether it reads
 *   them): the hook may raise need and set fill to what every process naming
 *   the same file needs, and sets each file's round (0 .. ENG_LAYOUT_ROUNDS-1),
 *   so that one process lays a shared file out and the others find it done,
 *   and shared when another process names it too (unlink_each_loop keeps it).
 *   0 or -errno.  NULL: every file in round 0.
 * - layout_round_done(round, status): this process laid out its files of that
 *   round (status 0) or could not (-errno); returns 0 when every process may
 *   go on to the next round, else -errno (the layout stops everywhere).
 * - layout_done(status): files are laid out (status 0) or could not be
 *   (-errno); returns 0 when every process may start, else -errno and the
 *   engine runs nothing.
 * - segment_start(first_job, run, stop_wanted): before the threads of one run
 *   of the segment starting at first_job start; stop_wanted is true when this
 *   process would end the run here (a signal, an error, exitall).  Returns 0
 *   at the common start time when every process goes on, else -errno (some
 *   process stops: all stop here, together).
 * - segment_end(first_job, run): every thread of that run has exited (a
 *   size-bound group ends at this barrier).  0 or -errno.
 */
#define ENG_LAYOUT_ROUNDS 3

struct eng_shared_file {
	const char *path;
	uint64_t need;
	bool fill;
	uint32_t round;
	bool shared;
};

struct eng_sync {
	void *ctx;
	int (*layout_share)(void *ctx, struct eng_shared_file *files, uint32_t n);
	int (*layout_round_done)(void *ctx, uint32_t round, int status);
	int (*layout_done)(void *ctx, int status);
	int (*segment_start)(void *ctx, uint32_t first_job, uint32_t run, bool stop_wanted);
	int (*segment_end)(void *ctx, uint32_t first_job, uint32_t run);
};

struct pf_report;

struct eng_opts {
	/*
	 * Deterministic time for golden tests: every timestamp the engine takes
	 * advances a counter by fake_clock_step_ns instead of reading a clock, and
	 * CPU usage, host and kernel are reported as fixed values.
	 */
	bool fake_clock;
	uint64_t fake_clock_step_ns;
	/*
	 * eng_snapshot will be asked for (--status-interval): each thread keeps a
	 * copy of its window's results as the window ends, so a report while it
	 * syncs or verifies still shows them.  Without it, a thread that has left
	 * its I/O loop is shown as of the last request it answered.
	 */
	bool snapshots;
	/* --idle-prof: CPU idleness over the run (engine/idleprof.h), or RES_IDLE_NONE. */
	enum res_idle_mode idle_prof;
	/* Other processes to keep in step with (--rank-output, mpirun), or NULL. */
	const struct eng_sync *sync;
	/*
	 * The preflight of this plan, or NULL: the layout refuses a target or
	 * directory swapped since it was checked.  Kept by the caller until
	 * eng_finish.
	 */
	const struct pf_report *preflight;
	/*
	 * Called on the engine's thread when the run's opening notes grow (the
	 * layout lines, fio's "may be ignored" and iodepth notes), so a caller
	 * that printed the banner as the run began can print them where fio
	 * does: ahead of the progress line and the reports of the results so far.
	 * Before the layout writes, when it has files to make (their lines);
	 * then once they are all in r, after the layout and before any job
	 * starts, or after a layout that failed.  A later call's notes hold the
	 * earlier call's, in the same order, among others.  r may be read only
	 * during the call.
	 */
	void (*opening)(void *arg, const struct results *r);
	void *opening_arg;
};

/* Where a run is, for the progress line. */
enum eng_phase {
	ENG_PHASE_SETUP = 0,		/* preflight, opening files */
	ENG_PHASE_LAYOUT,		/* laying out files */
	ENG_PHASE_RAMP,			/* warm-up of the current group */
	ENG_PHASE_RUN,			/* measured window */
	ENG_PHASE_COOLDOWN,
	ENG_PHASE_PAUSE,		/* between groups or repeats */
	ENG_PHASE_DONE
};

/*
 * A snapshot of a running plan.  The caller provides `states` with room for
 * nr_threads characters (plan->nr_threads); each gets fio's state letter for
 * that thread: P not started, I setting up, / ramp, R/r sequential/random read,
 * W/w write, M/m mixed, F fsync, V verify, f finishing, _ exited, X error.
 */
struct eng_status {
	enum eng_phase phase;
	uint32_t nr_running;
	uint32_t files_open;
	char *states;
	uint64_t elapsed_ns;		/* since eng_start */
	/* Completed so far by every thread of the run, ended ones and those of
	 * earlier stonewall groups too, so a rate taken between two statuses is
	 * the I/O done between them (the ramp_time of a time_based job counts none). */
	uint64_t bytes[PLAN_DDIR_NR];
	uint64_t ios[PLAN_DDIR_NR];
	double done_fraction;		/* 0..1, or < 0 when unknown */
	uint64_t eta_ns;		/* UINT64_MAX when unknown */
	uint64_t layout_done_bytes;
	uint64_t layout_total_bytes;
};

struct eng;

/*
 * Starts running plan p in background threads; the plan must outlive the run.
 * Returns 0 and the handle in *out, or -errno (nothing is left running).
 */
int eng_start(const struct plan *p, const struct eng_opts *o, struct eng **out);

/*
 * What to add to a thread's refusal (err, -errno) so the limit behind it can be
 * found: "" unless -EAGAIN, which pthread_create returns both for a limit on
 * threads and for a stack the address space has no room for (ulimit -v).
 */
const char *eng_thread_refusal_hint(int err, char *buf, size_t len);

/* Fills *st with a consistent-enough snapshot; cheap, safe while running. */
int eng_get_status(struct eng *e, struct eng_status *st);

/*
 * The results so far of the running plan (fio's --status-interval and SIGUSR1
 * reports), in *out to be freed with results_free: every job so far, each
 * running thread's figures as of its next trip round its I/O loop (a window
 * so far: bytes, runtime, latency, samples and CPU up to now).  A thread that
 * does not get there within wait_ns (a long sync I/O, a think) is shown as of
 * its previous copy.  Messages, disk and per-CPU figures come with the final
 * results only.  Taken after eng_stop, it is marked interrupted, as the final
 * results are.  Safe while running and after; 0 or -ENOMEM.
 */
int eng_snapshot(struct eng *e, uint64_t wait_ns, struct results **out);

/*
 * Asks every worker to stop within a second; the results keep what was measured
 * and are marked interrupted.  A second call aborts at once (in-flight I/O is
 * abandoned, not waited for).  Safe to call from any thread, any number of times.
 */
void eng_stop(struct eng *e);

/* Waits up to timeout_ns for the run to end: 0 when it has, -ETIMEDOUT otherwise. */
int eng_wait(struct eng *e, uint64_t timeout_ns);

/*
 * A descriptor that polls readable once the run has ended (eng_wait then
 * returns 0), for a caller that waits on other events too; -1 when none could
 * be had, and the caller must poll eng_wait() instead.  Owned by the handle.
 */
int eng_done_fd(const struct eng *e);

/*
 * Waits for the run to end, hands over the results (*out, to be freed with
 * results_free) and frees the handle.  Returns 0, or the run's fatal -errno with
 * *out still set to whatever was measured.
 */
int eng_finish(struct eng *e, struct results **out);

/* Convenience: start, wait and finish. */
int eng_run(const struct plan *p, const struct eng_opts *o, struct results **out);

/*
 * For --readonly, before any I/O: 0 when running p would write no file (no
 * creation, extension or new layout, no engine that creates, deletes or
 * allocates whatever rw= says), -EROFS with the path or job and the reason in
 * why, or -ENOMEM.  Jobs that write or trim are the caller's to refuse.
 */
int eng_layout_writes(const struct plan *p, char *why, size_t n);

/*
 * The time a plan takes when every job runs to its runtime: startdelay, ramp,
 * runtime and cooldown of each stonewall segment's longest job, times its runs,
 * with the pauses between them.  UINT64_MAX when a job has no runtime (it ends
 * when its I/O is done, which only the device decides).
 */
uint64_t eng_plan_ns(const struct plan *p);

/* For --idle-prof=calibrate: the unit of idle work per CPU, mean and stddev (us). */
int eng_idle_calibrate(double *mean_us, double *stddev_us);

/*
 * For --crctest: MiB/s of a verify checksum ("md5", "crc32c", ...), timed as
 * fio's --crctest times it (a 128 KiB buffer of random bytes digested 2048
 * times); -EINVAL for a name that is no checksum.
 */
int eng_checksum_speed(const char *name, double *mib_per_s);

/* The checksums --crctest knows, in fio's order; NULL past the last. */
const char *eng_checksum_name(unsigned i);

/*
 * For --enghelp: why this build cannot run the engine (its library was missing
 * at build time), "not built in" for an id with no engine, NULL when it can run.
 */
const char *eng_ioengine_unavailable(enum plan_ioengine e);

/*
 * Each file plan p's jobs write besides their targets (logs, verify state,
 * write_iolog, exec_prerun/postrun output, std_redirect), to fn with the option
 * that names it: a report's file must not be one of them.
 */
void eng_each_side_file(const struct plan *p,
			void (*fn)(void *arg, const struct plan_job *j, const char *option, const char *path),
			void *arg);

/* Whether the engine opens its job's files (null, cpuio and the network engines do not). */
bool eng_ioengine_opens_files(enum plan_ioengine e);

/* Whether the run's layout lays out the engine's files (not null's, not filecreate's, which makes its own). */
bool eng_ioengine_lays_out(enum plan_ioengine e);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_H */

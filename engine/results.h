/*
 * engine/results.h - what a run measured: the contract between engine/ and report/.
 *
 * The engine fills a struct results while it runs a plan; reports only read it.
 * Everything here is raw and mergeable: counters, exact sums, log-linear latency
 * histograms, per-interval samples.  Derived numbers (percentiles, bandwidth,
 * group aggregates) are computed by the res_* functions declared at the end, so
 * every report derives them the same way.
 *
 * Shape:  results -> jobs[] (one per plan job per run; a job with repeat=N runs
 * repeat_discard+N times) -> clones[] (one per thread) -> per-direction stats.
 *
 * Times are ns.  Timestamps named *_ns without "wall" are relative to
 * results.start_mono_ns (CLOCK_MONOTONIC when the run started).
 *
 * Compiles as C11 and as C++17.
 */
#ifndef IOPLAN_RESULTS_H
#define IOPLAN_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RESULTS_ABI_VERSION 1

/*
 * Latency histogram: fio's log-linear bucketing (FIO_IO_U_PLAT_BITS = 6), so the
 * relative error is at most 1/128 and bucket values equal fio's json+ bin keys.
 * Values below 128 ns are exact; above, each power of two is split into 64 buckets.
 * fio stops at 29 groups (~17 s); we keep going to 2^42 ns (~73 min) so slow
 * devices and stalls keep a real value.  Larger values land in the last bucket.
 */
#define RES_HIST_BITS 6
#define RES_HIST_VAL (1u << RES_HIST_BITS)		/* 64 */
#define RES_HIST_GROUPS 37
#define RES_HIST_NR (RES_HIST_GROUPS * RES_HIST_VAL)	/* 2368 buckets */

/* Bucket index of a value in ns. */
static inline uint32_t res_hist_index(uint64_t v)
{
	uint32_t msb, error_bits, base, offset, idx;

	if (v < 2u * RES_HIST_VAL)
		return (uint32_t)v;
	msb = 63u - (uint32_t)__builtin_clzll(v);
	error_bits = msb - RES_HIST_BITS;
	base = (error_bits + 1u) << RES_HIST_BITS;
	offset = (uint32_t)(v >> error_bits) & (RES_HIST_VAL - 1u);
	idx = base + offset;
	return idx < RES_HIST_NR ? idx : RES_HIST_NR - 1u;
}

/* Representative value (ns) of bucket idx: exact below 128, else the midpoint. */
static inline uint64_t res_hist_value(uint32_t idx)
{
	uint32_t error_bits, k;
	uint64_t base;

	if (idx < 2u * RES_HIST_VAL)
		return idx;
	error_bits = (idx >> RES_HIST_BITS) - 1u;
	k = idx & (RES_HIST_VAL - 1u);
	base = (uint64_t)1 << (error_bits + RES_HIST_BITS);
	return base + ((((uint64_t)k << 1) + 1u) << error_bits) / 2u;
}

/*
 * One latency statistic.  Sums are exact integers (sum of squares is 128-bit, kept
 * as two words to stay -pedantic), so mean and stddev are exact and merging is
 * addition.  hist is NULL when this latency type keeps no histogram.
 */
struct res_lat {
	uint64_t n;
	uint64_t min_ns;		/* UINT64_MAX when n == 0 */
	uint64_t max_ns;
	uint64_t sum_ns;
	uint64_t sumsq_lo;		/* sum of squares, low 64 bits */
	uint64_t sumsq_hi;		/* sum of squares, high 64 bits */
	uint64_t *hist;			/* RES_HIST_NR counts, or NULL */
};

/*
 * Running statistics of per-interval samples (bandwidth or IOPS), in fio's own
 * form (Welford mean and M2) because group_reporting merges them by adding
 * min, max, mean and M2 - a rule that exact sums could not express.
 */
struct res_sample_stat {
	uint64_t n;
	double min;
	double max;
	double mean;
	double m2;
};

/* fio's distribution buckets (IO depths, submit/complete batch sizes). */
#define RES_DEPTH_NR 7			/* 1,2,4,8,16,32,>=64 */
#define RES_BATCH_NR 7			/* 0,4,8,16,32,64,>=64 */
/* Completion-latency buckets: ns 2..1000, us 2..1000, ms 2..2000,>=2000 */
#define RES_LATBKT_NS 10
#define RES_LATBKT_US 10
#define RES_LATBKT_MS 12
#define RES_LATBKT_NR (RES_LATBKT_NS + RES_LATBKT_US + RES_LATBKT_MS)

/*
 * Latency of the I/Os issued at one priority (fio's clat_prio): total latency
 * when the job has lat_percentiles, completion latency otherwise, as fio.  A
 * direction keeps them only while several priorities are in use (cmdprio);
 * entry 0 is the thread's own priority, the others follow in first use.
 * 25 is every distinct value: the thread's (or none) and 3 classes x 8 levels.
 */
#define RES_PRIO_MAX 25
struct res_prio {
	uint32_t ioprio;		/* class << 13 | level, as Linux's ioprio_set() */
	struct res_lat lat;
};

/* Per-direction results of one clone. */
struct res_ddir {
	uint64_t bytes;
	uint64_t ios;
	uint64_t short_ios;
	uint64_t drop_ios;
	uint64_t runtime_ns;		/* measured window if any byte moved in this direction, else 0 */
	struct res_lat slat;		/* start -> submitted (async engines) */
	struct res_lat clat;		/* submitted -> completed */
	struct res_lat lat;		/* start -> completed */
	struct res_lat sched_lat;	/* intended issue time -> completed (rate-limited jobs) */
	struct res_sample_stat bw_kib_s;	/* fio's bw samples, KiB/s (kb_base=1000 too, as fio's) */
	struct res_sample_stat iops;	/* fio's iops samples */
	uint64_t target_bytes_per_s;	/* rate limit in force, 0 = none */
	uint64_t target_iops;
	uint32_t nr_prios;		/* 0: every I/O went at the clone's ioprio */
	struct res_prio prios[RES_PRIO_MAX];
};

/* One per-interval sample: what completed in (t_start_ns, t_end_ns]. */
struct res_sample {
	uint64_t t_start_ns;
	uint64_t t_end_ns;
	uint64_t bytes[PLAN_DDIR_NR];
	uint64_t ios[PLAN_DDIR_NR];
	uint64_t lat_sum_ns[PLAN_DDIR_NR];
	uint64_t lat_max_ns[PLAN_DDIR_NR];
};

/*
 * A bounded series of samples.  Its room doubles as it fills, up to SERIES_CAP
 * (engine/stats.h); full at the cap, neighbouring samples are merged pairwise and
 * interval_ns doubles, so memory stops growing there whatever the run's length;
 * the sample statistics in res_ddir are kept exactly, before any merging.
 */
struct res_series {
	uint64_t interval_ns;		/* current width of one sample */
	uint32_t nr;
	uint32_t cap;
	struct res_sample *samples;
};

/*
 * One range of DISKSPD's effective distribution (zoned_ranges=diskspd): the
 * I/O shares [io_first, io_first + io_pct) of io_span go to the bytes
 * [offset, offset + bytes) of a file's region, counted from the region's start
 * (DISKSPD counts from -B).  bytes 0 is a range with one offset (see
 * engine/gen/diskspd_zones.h).
 */
struct res_zone {
	uint32_t io_first;
	uint32_t io_pct;
	uint64_t offset;
	uint64_t bytes;
};

/* The ranges the run drew a file's offsets from: its zones applied to its region. */
struct res_zones {
	uint32_t nr;
	uint32_t io_span;		/* 100, less when -rdabs ranges past the region were dropped */
	struct res_zone zone[PLAN_RAND_ZONES_MAX];
};

/* One recorded I/O (plan_job io_trace; for tests, sweeps and charts). */
struct res_io_rec {
	uint64_t t_ns;			/* completion time */
	uint64_t offset;
	uint64_t lat_ns;
	uint32_t bytes;
	uint16_t file_index;
	uint8_t ddir;
	uint8_t pad;
};

/* An error seen during the run, with where it happened. */
struct res_error {
	int err;			/* positive errno; 0 = a short transfer or verify failure */
	uint8_t ddir;
	uint32_t file_index;
	uint64_t offset;
	uint64_t len;			/* requested bytes */
	uint64_t done;			/* bytes actually transferred */
	char what[320];		/* "read", "write", "verify md5: want .. got ..", "open", ... */
};

#define RES_ERRORS_MAX 32

/* One thread's results. */
/* A replayed I/O issued more than this behind its trace time counts as late (read_iolog). */
#define RES_REPLAY_LATE_NS 1000000ull

struct res_clone {
	uint32_t clone_index;
	uint32_t thread_number;
	int32_t tid;			/* the worker thread's id: fio's pid= (fio --thread shows its gettid) */
	struct res_ddir ddir[PLAN_DDIR_NR];
	struct res_lat sync_lat;	/* fsync/fdatasync latencies */
	uint64_t sync_ios;

	uint64_t start_ns;		/* measured window */
	uint64_t end_ns;
	uint64_t thread_start_ns;	/* thread began (before ramp) */
	uint64_t late_start_ns;		/* first ran this long after its start gate opened */
	uint64_t thread_end_ns;
	uint64_t after_ns;		/* the verify read-back after the window (or verify_only's
					 * pass): in the job's runtime and CPU, as in fio's */

	uint64_t ranks_run_ns;		/* merged over ranks (cli/mpi): the sum of the ranks' windows
					 * and after_ns, which the per-job CPU shares divide by, as
					 * fio's client divides its servers' summed CPU time by their
					 * summed runtimes (0: one process's clone, its own) */

	uint64_t usr_ns;		/* CPU of this thread during the window and after_ns */
	uint64_t sys_ns;
	uint64_t ctx;
	uint64_t majf;
	uint64_t minf;
	bool cpu_bound;			/* the thread, not the device, was the limit */

	uint64_t depth[RES_DEPTH_NR];	/* in-flight count seen at each submit */
	uint64_t submit[RES_BATCH_NR];	/* I/Os per submit call */
	uint64_t complete[RES_BATCH_NR];	/* I/Os per reap call */
	uint64_t latbkt[RES_LATBKT_NR];	/* clat distribution */

	struct res_series bw_series;	/* samples at bw_avg_time_ns */
	struct res_series iops_series;	/* samples at iops_avg_time_ns (== bw_series if same) */

	struct res_io_rec *trace;	/* NULL unless the job asked for an I/O trace */
	uint64_t trace_nr;
	uint64_t trace_cap;

	/* zoned_ranges=diskspd: the ranges its offsets were drawn from, one per file of the
	 * clone (plan_clone.files' order), for DISKSPD's "Effective IO Distributions";
	 * NULL for every other job (rank files carry them; a merge keeps the first rank's) */
	struct res_zones *zones;
	uint32_t nr_zones;

	int error;			/* first fatal error as positive errno, 0 = none */
	uint64_t total_err;		/* errors counted under continue_on_error */
	uint32_t nr_errors;
	struct res_error errors[RES_ERRORS_MAX];	/* first RES_ERRORS_MAX errors */
	uint64_t verify_failures;
	bool stalled;			/* watchdog fired */
	bool state_kept;		/* verify_state_save by default: a user's file took its name during the run */
	int state_lost;			/* verify_state_save by default: why its save failed (errno), 0 = none */

	/* read_iolog replay: I/Os issued, how many later than RES_REPLAY_LATE_NS behind the trace, the worst lag. */
	uint64_t replay_ios;
	uint64_t replay_late;
	uint64_t replay_lag_max_ns;

	uint32_t ioprio;		/* the thread's priority (prio/prioclass), 0 = none set */
	uint32_t lat_depth;		/* queue depth at the end (latency_target's search; else iodepth); 0: no I/O loop ran */
	uint64_t file_bytes;		/* the size of its first file as it opened it (DISKSPD's row shows a
					 * target's size); 0: not opened, or no size (a fileless engine) */
};

/*
 * Steady-state detection's record of one unit (engine/steadystate.h), kept by
 * its last clone as fio keeps it in its group's last thread.
 */
enum res_ss_state {
	RES_SS_ATTAINED = 1u << 3,	/* fio's FIO_SS_ATTAINED */
	RES_SS_FULL = 1u << 7		/* the window filled at least once (FIO_SS_BUFFER_FULL) */
};

struct res_ss {
	bool on;			/* this clone holds a record */
	uint32_t flags;			/* PLAN_SS_* | RES_SS_* */
	double limit;
	uint32_t dur_s;
	uint64_t ramp_ns;
	double criterion, slope, deviation;
	uint64_t *iops, *bw;		/* dur_s samples each, oldest first (fio's order) */
	uint64_t nr_samples;		/* taken in all */
	uint64_t last_sample_ns;	/* clock time of the window's newest sample; 0 = none */
	uint64_t attained_ns;		/* clock time it was attained; 0 = not */
};

/* One job of the plan in one run. */
struct res_job {
	uint32_t job_id;		/* plan job index (plan_job_at) */
	uint32_t groupid;
	uint32_t run;			/* 0-based, including discarded runs */
	bool discarded;
	uint64_t start_ns;
	uint64_t end_ns;
	struct res_clone *clones;
	uint32_t nr_clones;
	struct res_ss *ss;		/* per clone when the job has ss_dur, else NULL */
};

/* Block-device counters from /sys/block/<dev>/stat over the run (deltas). */
struct res_disk {
	char name[32];
	uint64_t read_ios;
	uint64_t write_ios;
	uint64_t read_merges;
	uint64_t write_merges;
	uint64_t read_sectors;
	uint64_t write_sectors;
	uint64_t read_ticks_ms;
	uint64_t write_ticks_ms;
	uint64_t in_queue_ms;
	uint64_t io_ticks_ms;
	uint64_t elapsed_ns;		/* wall time the deltas cover */
};

/*
 * One online CPU's time over the measured window (/proc/stat deltas, ns), for
 * reports that show system-wide CPU use per CPU (DISKSPD's CPU table).
 */
struct res_cpu {
	uint32_t id;			/* Linux CPU number */
	uint64_t user_ns;		/* user + nice */
	uint64_t system_ns;		/* system + irq + softirq + steal */
	uint64_t idle_ns;		/* idle + iowait */
};

/*
 * CPU idleness over the measured run (fio's --idle-prof; engine/idleprof.h):
 * per CPU, the share of it that a lowest-priority thread pinned there got.
 */
enum res_idle_mode {
	RES_IDLE_NONE = 0,
	RES_IDLE_SYSTEM,		/* report the mean over CPUs */
	RES_IDLE_PERCPU			/* and each CPU's own */
};

struct res_idle_cpu {
	uint32_t id;			/* Linux CPU number */
	double pct;			/* 0..100 (a little over 100 is timing noise) */
};

struct res_idle {
	enum res_idle_mode mode;	/* RES_IDLE_NONE: not measured */
	double system_pct;		/* mean of cpus[].pct */
	struct res_idle_cpu *cpus;	/* the CPUs ioplan may run on */
	uint32_t nr_cpus;
	double unit_mean_us;		/* calibrated unit of work, over the CPUs */
	double unit_stddev_us;
};

enum res_msg_level {
	RES_MSG_NOTE = 0,
	RES_MSG_WARNING,
	RES_MSG_ERROR
};

/* A preflight finding or run-time notice, kept for normal output and JSON. */
struct res_msg {
	enum res_msg_level level;
	char *code;			/* stable identifier, e.g. "direct-unsupported" */
	char *text;
	int32_t job_id;			/* -1 = not about one job */
};

/*
 * Scale-out (mpirun): the results of several processes ("ranks") merged into
 * one, and what each rank measured on its own, so a straggler shows.  The
 * engine never fills this; cli/ does when it merges ranks.
 */
/*
 * One thread of one rank as that rank measured it, for a report that lists the
 * world's threads (DISKSPD's rows and <Thread>s): kept only when such a report
 * is asked for (cli/mpi/rank_merge.hpp), NULL otherwise.  The latencies are the
 * ones reports show (total, else completion) without a histogram: a thread's
 * mean and deviation come from the sums, the percentiles from the merged clones.
 */
struct res_rank_clone {
	uint32_t clone_index;
	uint64_t bytes[PLAN_DDIR_NR];
	uint64_t ios[PLAN_DDIR_NR];
	struct res_lat lat[PLAN_DDIR_NR];	/* hist NULL */
	uint64_t file_bytes;		/* its first file's size as it opened it (res_clone.file_bytes) */
	int error;			/* res_clone.error */
	uint32_t nr_errors;		/* 0 or 1: its first error, named on its rank's files */
	struct res_error first_error;
	char **paths;			/* its files as its rank planned them (nr_paths; 0: not known) */
	uint32_t nr_paths;
	struct res_series series;	/* its IOPS samples (iops_series), times on its rank's clock */
	struct res_zones *zones;	/* its DISKSPD effective distributions (res_clone.zones), or NULL */
	uint32_t nr_zones;
};

struct res_rank_job {
	uint64_t bytes[PLAN_DDIR_NR];
	uint64_t ios[PLAN_DDIR_NR];
	uint64_t runtime_ns;		/* longest clone window of the job on this rank */
	uint64_t first_io_ns;		/* earliest clone window start, on the merged clock (0: none) */
	uint64_t end_ns;		/* latest clone window end, on the merged clock */
	uint64_t lat_n;			/* total latency over the job's directions */
	uint64_t lat_min_ns;
	uint64_t lat_max_ns;
	double lat_mean_ns;
	uint64_t lat_p50_ns;
	uint64_t lat_p99_ns;
	struct res_rank_clone *clones;	/* its threads, or NULL (see res_rank_clone) */
	uint32_t nr_clones;
};

struct res_rank {
	uint32_t rank;
	char host[64];
	int error;			/* positive errno, 0 = none, ENODATA: no result came */
	int64_t clock_offset_ns;	/* rank 0's clock minus this rank's */
	uint64_t start_late_max_ns;	/* latest start behind the common start time */
	struct res_rank_job *jobs;	/* one per results.jobs[]; NULL when no result came */
	uint32_t nr_jobs;
};

/*
 * The ranks of one host together, per job: bytes and I/Os summed, first I/O
 * and last completion over them (runtime_ns: that window), latency from
 * their histograms merged, so a host's p99 is the p99 of its every sample.
 */
struct res_host {
	char host[64];
	uint32_t nranks;
	struct res_rank_job *jobs;	/* one per results.jobs[] */
	uint32_t nr_jobs;
};

/*
 * One group (stonewall) over the ranks, on rank 0's clock.  A rank's time in
 * the group is its first I/O to its last completion; a rank is "done" at
 * that last completion.
 */
struct res_world_group {
	uint32_t groupid;
	uint32_t nranks;		/* ranks that moved data in it */
	uint64_t start_ns;		/* the first I/O of any rank */
	uint64_t first_done_ns;		/* the earliest rank to finish */
	uint32_t first_done_rank;
	uint64_t last_done_ns;		/* the latest */
	uint32_t last_done_rank;
	uint64_t bytes;			/* every rank's, all directions */
	uint64_t bytes_first_done;	/* moved by every rank until first_done_ns (per-interval series) */
	double *slower_pct;		/* by rank: its time per byte over the median's, % (NAN: no data) */
	uint32_t nr_stragglers;		/* ranks with slower_pct above the world's threshold */
};

struct res_world {
	uint32_t nranks;
	uint32_t nhosts;
	uint64_t start_skew_ns;		/* worst spread of group starts over ranks */
	uint64_t first_io_spread_ns;	/* worst spread of a job's first I/O over ranks */
	uint64_t merge_ns;		/* rank 0's time to receive and merge every rank */
	struct res_rank *ranks;		/* nranks, by rank */
	struct res_host *hosts;		/* nhosts, in order of their first rank */
	struct res_world_group *groups;	/* nr_groups, in the order they ran */
	uint32_t nr_groups;
	double straggler_pct;		/* threshold: slower than the median by more (0: none flagged) */
};

/*
 * The machine a run ran on and the storage stack under each of its targets
 * (engine/environment.c).  Read from procfs, sysfs, DMI and statx only: a
 * string that could not be read is "" and a number -1, never a guess.
 */
#define RES_ENV_PATH 4096
#define RES_ENV_TEXT 256

/* One layer under a target, outermost first; depth orders a tree (dm/md over several disks). */
struct res_env_layer {
	uint32_t depth;			/* 0 = what the target's file or device sits on directly */
	char kind[16];			/* filesystem, partition, dm, md, loop, stacked, disk */
	char name[64];			/* block device kernel name; the type of a filesystem */
	char path[RES_ENV_PATH];	/* filesystem: mount point; loop: backing file */
	char source[RES_ENV_TEXT];	/* filesystem: the device or source mounted */
	char options[RES_ENV_TEXT * 2];	/* filesystem: mount options; dm: its name; md: its level */
	char super_options[RES_ENV_TEXT * 2];	/* filesystem: the superblock's options */
};

/* The plan's files on one device (or file system), and the layers under them. */
struct res_env_target {
	char path[RES_ENV_PATH];	/* the first of them, as the plan names it */
	uint32_t nr_files;
	uint32_t first_layer;		/* into res_env.layers */
	uint32_t nr_layers;
};

/* A disk at the bottom of some target's stack, and its counters over the run. */
struct res_env_disk {
	char name[32];
	char vendor[64];
	char model[128];
	char firmware[64];
	int64_t size_bytes;
	int32_t rotational;		/* 0/1, -1 = not known */
	int64_t logical_block_size;
	int64_t physical_block_size;
	char scheduler[32];		/* the one in force */
	int64_t nr_requests;
	char write_cache[32];		/* "write back" / "write through" */
	bool counted;			/* the counters below were read before and after */
	uint64_t ios;			/* read + write I/Os the disk completed during the run */
	uint64_t bytes;			/* read + write bytes the disk transferred during the run */
	uint64_t run_bytes;		/* bytes the run's jobs moved (all jobs: an upper bound) */
	uint64_t other_bytes;		/* bytes beyond the run's own: someone else's I/O */
	bool other_io;			/* other_bytes above the tolerance (environment.c) */
	uint64_t stat0[11];		/* /sys/block/<disk>/stat at the start */
};

struct res_env {
	char cpu_model[RES_ENV_TEXT];
	int32_t sockets;		/* -1 = not known, as for every number here */
	int32_t cores;
	int32_t threads;
	int64_t memory_bytes;
	char os_id[64];			/* /etc/os-release */
	char os_version_id[64];
	char os_pretty_name[RES_ENV_TEXT];
	char virtualization[32];	/* as systemd-detect-virt says: "none", "kvm", "docker" */
	char vm[32];			/* the hypervisor, "none", or "" when unknown */
	char container[32];		/* the container manager, "none" */
	char sys_vendor[RES_ENV_TEXT];	/* DMI */
	char product_name[RES_ENV_TEXT];
	char instance_type[64];		/* where the DMI states it (EC2's product name) */
	struct res_env_target *targets;
	uint32_t nr_targets;
	struct res_env_layer *layers;
	uint32_t nr_layers;
	struct res_env_disk *disks;
	uint32_t nr_disks;
};

/*
 * The test files the run made that are still there at its end, as its layout
 * knows them (engine/layout: layout_left), for the note that names them.
 */
#define RES_LEFT_NAMED 8
struct res_left {
	uint64_t nr;
	uint64_t bytes;				/* their sizes at the end */
	const char *named[RES_LEFT_NAMED];	/* the first ones, in the plan's order: its strings */
};

struct results {
	uint32_t abi_version;		/* RESULTS_ABI_VERSION */
	const struct plan *plan;	/* the plan that ran (not owned) */

	uint64_t start_wall_ns;		/* CLOCK_REALTIME at start */
	uint64_t start_mono_ns;		/* CLOCK_MONOTONIC at start */
	uint64_t end_mono_ns;
	bool interrupted;		/* stopped by a signal before the plan finished */
	int error;			/* first fatal error (positive errno), 0 = none */

	char hostname[64];
	char kernel[128];
	char clock_source[32];		/* how timestamps were taken */
	double clock_cost_ns;		/* measured cost of one timestamp */

	struct res_job *jobs;
	uint32_t nr_jobs;
	struct res_disk *disks;
	uint32_t nr_disks;
	struct res_msg *msgs;
	uint32_t nr_msgs;
	struct res_cpu *cpus;		/* per online CPU; NULL when not measured */
	uint32_t nr_cpus;
	struct res_idle idle;		/* --idle-prof */
	struct res_world *world;	/* several ranks merged (mpirun), or NULL */
	struct res_env *env;		/* the machine and stacks, NULL when not read (fake runs) */
	struct res_left left;		/* files laid out for the run and left (ioplan's note) */
	char *job_text;			/* the job text as given (cli/ fills it), or NULL */
	char *run_uuid;			/* the run's id in the results store (cli/ fills it), or NULL */
	/* A snapshot's (eng_snapshot) estimate of the time the run has left, as the
	 * progress line's (eng_status.eta_ns); UINT64_MAX when unknown, 0 in the
	 * final results.  fio's reports so far print it as the jobs' "eta". */
	uint64_t eta_ns;
	/* When the layout was done and the first jobs began, ns after start_mono_ns:
	 * fio's genesis, from which its reports count a run's "elapsed" (0 when not
	 * known: a fake clock, a run that laid nothing out before it). */
	uint64_t jobs_start_ns;
};

/* ---- derived numbers, shared by every report (engine/results.c) ---- */

/* Mean and sample standard deviation (n-1), exact from the sums; 0 when n < 2. */
double res_lat_mean(const struct res_lat *l);
double res_lat_stddev(const struct res_lat *l);

/*
 * Percentile p (0 < p <= 100) as fio computes it: the first bucket whose cumulative
 * count reaches p/100 * n, reported as that bucket's value.  This is nearest-rank
 * (DISKSPD's rule) on bucketed values.  p == 100 gives the exact max, and the
 * result is clamped to [min, max] so a bucket midpoint never exceeds what was seen.
 * 0 when n == 0 or there is no histogram.
 */
uint64_t res_lat_percentile(const struct res_lat *l, double p);

/* dst += src. Histograms are merged only when both have one (dst gets one if needed). Returns 0 or -ENOMEM. */
int res_lat_merge(struct res_lat *dst, const struct res_lat *src);

/* Adds one sample (Welford). */
void res_sample_stat_add(struct res_sample_stat *s, double v);

/* fio's group_reporting merge of sample stats: min, max, mean, M2 and n are added. */
void res_sample_stat_merge_sum(struct res_sample_stat *dst, const struct res_sample_stat *src);
double res_sample_stat_mean(const struct res_sample_stat *s);
double res_sample_stat_stddev(const struct res_sample_stat *s);

/*
 * Merges clone src into dst as fio's group_reporting does: bytes and ios summed,
 * runtime max, latency merged, bw/iops sample stats summed, CPU and maps summed.
 * Returns 0 or -ENOMEM.
 */
int res_clone_merge(struct res_clone *dst, const struct res_clone *src);

/* dst += src for one direction, as res_clone_merge does per direction (fio's
 * unified_rw_reporting folds directions this way). Returns 0 or -ENOMEM. */
int res_ddir_merge(struct res_ddir *dst, const struct res_ddir *src);

/*
 * fio's sum_clat_prio_stats for a group that shows priorities: a direction
 * that kept no per-priority latency (one priority only) gets one entry, its
 * whole clat (or lat, with lat_percentiles) at ioprio.  0 or -ENOMEM.
 */
int res_ddir_prio_single(struct res_ddir *d, uint32_t ioprio, bool lat_percentiles);

/* Initialise an empty clone (min = UINT64_MAX ...) with no histograms. */
void res_clone_init(struct res_clone *c);

/*
 * Zeroes what a clone counted (bytes, I/Os, latencies, distributions), keeping
 * its histograms' storage: fio's reset_io_stats, when latency_target's search
 * settles and the final window starts.
 */
void res_clone_clear_counts(struct res_clone *c);

/* Frees a clone's histograms, series and trace (not the clone itself). */
void res_clone_release(struct res_clone *c);

/*
 * Makes dst a deep copy of src (histograms, series and trace its own), for the
 * results so far of a running plan.  dst needs no release before; on -ENOMEM it
 * is left empty (res_clone_release'd).  Returns 0 or -ENOMEM.
 */
int res_clone_copy(struct res_clone *dst, const struct res_clone *src);

/* Deep-copies src's steady-state records (res_job.ss) into dst, which has none. 0 or -ENOMEM. */
int res_job_ss_copy(struct res_job *dst, const struct res_job *src);

/* A job's span from its clones: the first thread's start, the last one's end (0 when none started). */
void res_job_span(struct res_job *rj);

/* Appends a message to r (text formatted like printf).  0 or -ENOMEM. */
int res_msg_add(struct results *r, enum res_msg_level level, const char *code, int32_t job_id,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Frees results and everything it owns, not the plan. NULL is a no-op. */
/* Frees a rank job's threads (res_rank_clone), leaving it without. */
void res_rank_clones_free(struct res_rank_job *j);
void results_free(struct results *r);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_RESULTS_H */

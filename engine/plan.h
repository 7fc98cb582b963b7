/*
 * engine/plan.h - the plan: the contract between parser/ (C++17) and engine/ (C11).
 *
 * A plan is everything the engine needs to run a workload, fully resolved: no option
 * names, no text to parse, no defaults left to apply. The parser builds it from job
 * files (INI, TOML, YAML) or DISKSPD arguments; the engine executes a const plan and
 * never changes it; reports read it to echo what was asked.
 *
 * Shape:  plan -> groups[] -> jobs[] (one per job section) -> clones[] (one thread
 * each, numjobs of them) -> files[].  Groups are fio's reporting groups (groupid);
 * execution order is the flattened job order, with barriers where a job has
 * `stonewall` set (see struct plan_job).
 *
 * Units are in field names (_bytes, _ns, _pct, _ppm); every value is in base units.
 * Per-direction values are arrays indexed by enum plan_ddir.  Strings are
 * NUL-terminated, heap-owned by the plan, and freed by plan_free().
 *
 * This header compiles as C11 (-pedantic) and as C++17; keep it free of anything
 * either language lacks (no flexible array members, no designated initialisers).
 */
#ifndef IOPLAN_PLAN_H
#define IOPLAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan_enums.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The plan's version, shown by --showplan.  It is part of the text whose hash
 * (plan_hash) matches a stored run to the workload it ran, so it is bumped
 * when the same job text comes to mean another workload, not when fields move
 * (parser and engine are built together): a bump makes every stored run a
 * different plan.
 */
#define PLAN_ABI_VERSION 4

#define PLAN_PERCENTILES_MAX 20
#define PLAN_MERGE_MAX 20		/* merge_blktrace_scalars/_iters entries (fio's list length) */
#define PLAN_BSSPLIT_MAX 64
#define PLAN_RAND_ZONES_MAX 16
#define PLAN_IGNORE_ERRORS_MAX 16
#define PLAN_IO_TRACE_TOTAL_MAX 262144u	/* io_trace records a plan keeps (plan_job) */
#define PLAN_CPUS_MAX 1024		/* CPUs a CPU list may name: glibc's CPU_SETSIZE */

/* A set of CPUs: CPU c is bit c % 64 of word[c / 64]; none set = any CPU. */
struct plan_cpus {
	uint64_t word[PLAN_CPUS_MAX / 64];
};

/* One bssplit= entry: bs_bytes is used for pct percent of the I/Os. */
struct plan_bssplit {
	uint64_t bs_bytes;
	uint32_t pct;
};

/*
 * One zone of random_distribution=zoned: io_pct percent of the I/Os go to the
 * next range_pct percent of the region (zoned), or the next range_bytes bytes
 * (zoned_abs; range_pct is 0 then).  Zones follow each other from the start.
 */
struct plan_rand_zone {
	uint32_t io_pct;
	uint32_t range_pct;
	uint64_t range_bytes;
};

/*
 * Capture and replay (fio's read_iolog; parser/iolog/iolog.h reads the traces).  One
 * I/O of a loaded trace: when it is due (trace time since the trace's first
 * I/O, before replay_time_scale), where, and the trace line (text iolog) or
 * record (blktrace) it came from, for diagnostics.  ddir is enum plan_ddir,
 * PLAN_REPLAY_SYNC (a `sync` line or a blktrace flush: fsync of that file) or
 * PLAN_REPLAY_DATASYNC (a `datasync` line: fdatasync of that file).
 */
#define PLAN_REPLAY_SYNC 3u
#define PLAN_REPLAY_DATASYNC 4u
struct plan_replay_io {
	uint64_t time_ns;
	uint64_t offset;
	uint32_t len;
	uint32_t file;			/* index into the clone's files */
	uint32_t source;		/* line or record number in the trace */
	uint8_t ddir;
};

/* A trace loaded for a job: its I/Os in trace order, shared by the job's clones. */
struct plan_replay {
	struct plan_replay_io *ios;
	uint64_t nr_ios;
};

/* Block sizes of one direction: a fixed size (min == max), a range, or a split. */
struct plan_bs {
	uint64_t min_bytes;
	uint64_t max_bytes;
	uint64_t align_bytes;		/* blockalign; 0 = min_bytes */
	uint32_t nr_split;		/* 0 = no bssplit */
	/* nr_split entries in plan memory: not an array of the most, which made
	 * every job (and the parser's copy of each section) 3 KiB bigger.  Const:
	 * a job's clones read one plan at once, so none may write it. */
	const struct plan_bssplit *split;
};

/* One key=value as the user typed it (after ${VAR} expansion): echoed in reports. */
struct plan_kv {
	char *key;
	char *value;			/* "" for a bare flag */
	/* Its place in fio's echo ("job options"; an order, not a count): fio
	 * parses a job file section's options by priority, filename= after the
	 * rest.  The plan keeps them as typed, which --showplan (and so the
	 * plan's hash) shows. */
	uint32_t fio_at;
};

/*
 * One file a clone does I/O to.  Generated names are per clone; a fixed filename=
 * is shared by every clone of the job (and by other jobs naming the same path), in
 * which case `shared` is set and the engine opens and lays it out once.
 */
struct plan_file {
	char *path;
	uint64_t size_bytes;		/* file size to create or require; 0 = existing size */
	uint32_t size_ppm;		/* size as a share of the existing file/device (ppm); 0 = unset */
	uint64_t offset_bytes;		/* first byte of the I/O region in this file */
	uint32_t offset_ppm;		/* offset as a share of the file size (ppm); 0 = unset */
	uint64_t region_bytes;		/* bytes of I/O region; 0 = to the end of size */
	bool shared;
	bool is_device;			/* block or character device: never created or laid out */
	/*
	 * fio's name for the file where it is not path: fio joins directory=d/ and x
	 * as d//x.  A skewed random_distribution's seed is a hash of it.  NULL: path.
	 */
	char *fio_name;
};

/* One thread: a numjobs clone of a job. */
struct plan_clone {
	uint32_t clone_index;		/* fio's $jobnum: 0 .. numjobs-1 */
	/* 1-based across the whole plan, as fio's td->thread_number: a job's clones
	 * 0, 1, ..., n-1 are its threads first, first+n-1, ..., first+1 (fio's
	 * add_job), so the clones are in subjob order, and reports list them by thread */
	uint32_t thread_number;
	uint64_t seed;			/* resolved RNG seed for offsets, mix and buffers */
	uint32_t mix_seed;		/* fio's rwmix_state seed (its rand_seeds[FIO_RAND_MIX_OFF]) */
	/* fio's 64-bit seeds where random_generator=tausworthe64 may take them whole
	 * (a 32-bit generator takes the low half, as fio's init_rand_seed) */
	uint64_t block_seed;		/* fio's random_state seed (FIO_RAND_BLOCK_OFF) */
	uint64_t bs_seed[PLAN_DDIR_NR];	/* fio's bsrange_state seeds (FIO_RAND_BS_OFF + ddir) */
	uint32_t zone_seed;		/* fio's zone_state seed (FIO_RAND_ZONE_OFF) */
	uint32_t seq_rand_seed;		/* fio's seq_rand_state seed (FIO_RAND_SEQ_RAND_READ_OFF) */
	uint64_t file_seed;		/* fio's file service seed (FIO_RAND_FILE_OFF) */
	uint64_t verify_seed;		/* fio's verify_state seed (FIO_RAND_VER_OFF): the writes' header seeds */
	uint64_t trim_seed;		/* fio's trim_state seed (FIO_RAND_TRIM_OFF): the writes trim_percentage lists */
	uint64_t offset_bytes;		/* offset + clone_index * offset_increment */
	/*
	 * zonemode=strided does not apply to this clone: fio's fixup_options turns
	 * it off where open_files > 1, which is openfiles= as given for the job's
	 * first thread, and, for each later clone (fixed up again after its copy),
	 * the open_files the first fix-up set: the job's file count, or openfiles=.
	 */
	bool zones_off;
	struct plan_file *files;
	/*
	 * 0 (no replay): fio's clone whose generated file names the first clone of
	 * a job with numjobs>1 took (filesetup.c add_file); it does no I/O.
	 */
	uint32_t nr_files;
};

/* Everything a job section resolved to. Shared by all of the job's clones. */
enum plan_unified {
	PLAN_UNIFIED_NONE = 0,
	PLAN_UNIFIED_MIXED = 1,
	PLAN_UNIFIED_BOTH = 2,
};

/* steadystate= criterion (fio's FIO_SS_* bits, same values). */
enum plan_ss_flags {
	PLAN_SS_IOPS = 1u << 0,		/* judge IOPS (else bandwidth) */
	PLAN_SS_BW = 1u << 1,
	PLAN_SS_SLOPE = 1u << 2,	/* least-squares slope (else max deviation from the mean) */
	PLAN_SS_PCT = 1u << 6		/* limit is a percent of the window's mean */
};

/* fio's cmdprio_bssplit entry: I/Os of bs_bytes, pct of them at ioprio. */
#define PLAN_IOPRIO_CLASS_SHIFT 13
#define PLAN_CMDPRIO_SPLIT_MAX 64
struct plan_cmdprio_split {
	uint64_t bs_bytes;
	uint32_t pct;			/* 1..100 (zero entries are dropped, as fio) */
	int32_t ioprio;			/* -1: cmdprio_class/cmdprio's priority */
};

/* One direction's cmdprio options (engine/prio.h). */
struct plan_cmdprio {
	uint32_t pct;			/* cmdprio_percentage; 0 = none */
	uint32_t prio_class;		/* cmdprio_class; 0 = fio's default, real-time (1) */
	uint32_t level;			/* cmdprio */
	uint32_t nr_split;		/* cmdprio_bssplit entries, sorted by bs_bytes */
	struct plan_cmdprio_split *split;	/* nr_split of them, in plan memory */
};

struct plan_job {
	char *name;			/* as displayed (name= may rename the section) */
	char *section;			/* the section header text */
	char *description;		/* "" if none */
	uint32_t job_id;		/* 0-based index in definition order across the plan */
	uint32_t groupid;
	uint32_t source_file;		/* 0-based index of the job file it came from */

	/* Ordering. */
	bool stonewall;			/* full barrier: waits for every earlier job to exit */
	bool new_group;
	int32_t wait_for_job_id;	/* -1, or the job_id this job waits for */
	uint64_t startdelay_min_ns;
	uint64_t startdelay_max_ns;	/* == min unless a range was given */
	bool group_reporting;
	/* fio's unified_rw_reporting: report the directions per direction (none),
	 * as one merged "mixed" direction (mixed), or both. */
	enum plan_unified unified_rw_reporting;
	bool exitall;
	bool thread;			/* fio's thread=: what the banner calls the clones (ioplan always runs threads) */

	/* Pattern. */
	enum plan_rw rw;
	uint64_t rw_seq_skip_bytes;	/* rw=read:<n> gap between sequential I/Os */
	uint32_t rwmixread_pct;		/* share of reads in mixed jobs */
	struct plan_bs bs[PLAN_DDIR_NR];
	bool bs_unaligned;
	bool bs_is_seq_rand;		/* bs split is seq,rand instead of read,write */
	uint32_t percentage_random_pct[PLAN_DDIR_NR];
	enum plan_random_dist random_distribution;
	double random_dist_param;	/* zipf theta, pareto h, normal deviation (percent), as fio reads them */
	double random_dist_center;	/* 0..1, when random_dist_centered */
	bool random_dist_centered;	/* a centre was given (zipf:1.2:0 is not zipf:1.2) */
	uint32_t nr_rand_zones;		/* PLAN_RAND_ZONED */
	struct plan_rand_zone rand_zones[PLAN_RAND_ZONES_MAX];
	enum plan_zone_rule rand_zone_rule;	/* zoned_ranges=: whose rule places the zones */
	bool norandommap;
	bool softrandommap;		/* a random map that cannot be allocated: go on without, as norandommap */
	bool random_lfsr;		/* random_generator=lfsr: every block once per pass even
					 * with norandommap, as fio's LFSR */
	bool random_tausworthe64;	/* random_generator=tausworthe64: fio's 64-bit draws of sizes, offsets, files */
	bool randrepeat;
	uint64_t randseed;
	bool interlocked;		/* clones share one atomic sequential offset (DISKSPD -si) */
	bool sequential_parallel;	/* each of iodepth slots runs its own sequential stream
					 * from the same start (DISKSPD -p) */
	uint64_t sequential_stride_bytes;	/* step between sequential I/Os; 0 = the block size */

	/* Region and amount. */
	uint64_t size_bytes;		/* per clone, split over its files; 0 = from existing files */
	uint32_t size_ppm;		/* size= as a share of the file/device; 0 = unset */
	uint64_t filesize_min_bytes;	/* filesize=; 0 = size split evenly */
	uint64_t filesize_max_bytes;
	uint64_t offset_bytes;
	uint32_t offset_ppm;
	uint64_t offset_increment_bytes;
	uint32_t offset_increment_ppm;	/* offset_increment=N%: clone k starts k times that share
					 * of the file's size further, as fio's; 0 = unset */
	bool file_append;		/* each regular file's I/O starts at its end: its size when
					 * the job's files are set up (layout_size_found), as fio's */
	uint64_t io_size_bytes;		/* io_size/io_limit; 0 = size */
	uint32_t io_size_ppm;		/* io_size=N%: that share of each file's region (ppm); 0 = unset */
	uint64_t number_ios;		/* 0 = unlimited */
	uint32_t loops;
	/* zonemode=strided: do zone_size bytes, then jump to the next zone_range
	 * boundary (plus zone_skip), so samples spread evenly over the region
	 * (GNOME Disks' transfer-rate sweep).  zone_size 0 = no zones. */
	uint64_t zone_size_bytes;
	uint64_t zone_range_bytes;	/* 0 = zone_range_ppm, or zone_size */
	uint32_t zone_range_ppm;	/* zonerange=1%: a share of the region (evenly spread samples) */
	uint64_t zone_skip_bytes;
	bool fill_device;
	uint32_t nrfiles;
	uint32_t openfiles;
	enum plan_file_service file_service;
	uint32_t file_service_extra;	/* TYPE:N: N-1 more I/Os go to a file once it is picked */
	double file_service_param;	/* zipf theta, pareto h, normal deviation (percent) */
	double file_service_center;	/* 0..1, or -1: none (zipf and pareto then start at a drawn file) */

	/* Engine and queue. */
	enum plan_ioengine ioengine;
	uint32_t iodepth;
	uint32_t iodepth_batch_submit;
	uint32_t iodepth_batch_complete_min;
	uint32_t iodepth_batch_complete_max;
	uint32_t iodepth_low;
	bool uring_hipri;		/* io_uring: polled I/O; pvsync2: RWF_HIPRI */
	uint32_t hipri_percentage;	/* pvsync2: share of I/Os with RWF_HIPRI (fio's default 100) */
	bool rwf_uncached;		/* pvsync2, io_uring: RWF_UNCACHED on buffered I/O (uncached=) */
	bool rwf_nowait;		/* pvsync2, io_uring, libaio: RWF_NOWAIT (nowait=) */
	/*
	 * The job's engine's own options: the struct its file declares, filled from
	 * the table it brings (engine/plan_engopts.h); owned by the plan.  NULL for
	 * an engine with none.
	 */
	void *engine_opts;

	/* Files and durability. */
	bool direct;			/* O_DIRECT */
	enum plan_sync_mode sync_mode;
	uint32_t fsync_every;		/* fsync after this many writes; 0 = never */
	uint32_t fdatasync_every;
	/* sync_file_range= every this many writes (0 = never): each file's bytes written since its last sync */
	uint32_t sync_file_range_every;
	uint32_t sync_file_range_flags;	/* enum plan_sfr_bits */
	bool end_fsync;
	bool fsync_on_close;
	bool create_fsync;
	bool create_only;
	/* fio's create_on_open: nothing is laid out; filestat's files are used as
	 * found, filedelete's get no data, the others' are made empty if missing,
	 * by the job's own open (ioe_files_as_found, ioe_files_made_on_open,
	 * the layout's note_use, layout_on_open.c) */
	bool create_on_open;
	bool allow_file_create;
	bool overwrite;
	bool invalidate;
	bool unlink;
	bool unlink_each_loop;
	bool pre_read;
	enum plan_fadvise fadvise_hint;
	enum plan_fallocate fallocate;

	/* Time. */
	uint64_t runtime_ns;		/* 0 = unlimited */
	bool time_based;
	uint64_t ramp_time_ns;		/* warm-up: runs, not counted */
	uint64_t cooldown_ns;		/* runs after the measured window, not counted */

	/* Rate. */
	uint64_t rate_bytes_per_s[PLAN_DDIR_NR];
	uint64_t rate_iops[PLAN_DDIR_NR];
	uint64_t rate_min_bytes_per_s[PLAN_DDIR_NR];
	uint64_t rate_iops_min[PLAN_DDIR_NR];
	enum plan_rate_process rate_process;
	uint64_t rate_cycle_ns;
	uint64_t thinktime_ns;
	uint64_t thinktime_spin_ns;
	uint32_t thinktime_blocks;

	/* Buffers. */
	enum plan_buffer_fill buffer_fill;
	bool refill_buffers;
	bool scramble_buffers;
	uint32_t buffer_compress_pct;
	uint64_t buffer_compress_chunk_bytes;
	uint8_t *buffer_pattern;	/* NULL unless buffer_fill == PLAN_BUF_PATTERN */
	uint32_t buffer_pattern_len;
	uint64_t write_source_bytes;	/* PLAN_BUF_RANDOM_ONCE: size of the random source */

	/* Verify. */
	enum plan_verify verify;
	bool do_verify;
	bool verify_only;
	bool verify_fatal;
	uint64_t verify_interval_bytes;	/* 0 = the block size */
	uint32_t verify_offset_bytes;	/* the header's place in each chunk */
	uint32_t verify_backlog;	/* verify after this many writes; 0 = after the write phase */
	uint32_t verify_backlog_batch;	/* blocks checked per backlog pass; 0 = verify_backlog */
	bool verify_dump;		/* a bad chunk is written to <file>.<offset>.received */
	bool verify_state_save;		/* write the map of written chunks when the thread ends */
	bool verify_state_save_asked;	/* given in the job, not fio's default: a user's file at the
					 * state's name then refuses the run instead of being left be */
	bool verify_state_load;		/* verify_only checks the chunks a saved map names */
	uint8_t *verify_pattern;	/* verify_pattern=, NULL when not given */
	uint32_t verify_pattern_len;
	uint32_t verify_pattern_offset_at[PLAN_VERIFY_OFFSET_FMTS];	/* %o: each block's offset goes here */
	uint32_t nr_verify_pattern_offsets;
	/* verify_async and the trim_* verification options (worker_verify*.c). */
	uint32_t verify_async;		/* checker threads per clone; 0 = checks on the I/O thread */
	struct plan_cpus verify_async_cpus;	/* CPUs of the checker threads */
	uint32_t trim_percentage;	/* share of verified writes later trimmed, 0..100 */
	uint64_t trim_backlog;		/* trim after this many writes; 0 = no trims */
	uint32_t trim_backlog_batch;	/* accepted; fio 3.33 trims every listed block each round whatever it is */
	bool trim_verify_zero;		/* the read-back checks trimmed blocks are zeroes */

	/*
	 * Recording: keep the first io_trace_max I/Os (time, offset, size, latency).
	 * Every record stays in memory until the report, so a plan keeps at most
	 * PLAN_IO_TRACE_TOTAL_MAX over all its clones and runs (8 MiB, and well under
	 * a second to render as JSON): the memory a trace costs does not grow with
	 * the run's length.
	 */
	uint64_t io_trace_max;

	/*
	 * fio's log files (engine/logs/logs.h): the file name prefix of each log, NULL
	 * when it is off (write_bw_log, write_iops_log, write_lat_log; the job name
	 * when the option has no value).
	 */
	char *bw_log_prefix;
	char *iops_log_prefix;
	char *lat_log_prefix;		/* the _lat, _clat and _slat files */
	uint64_t log_avg_ns;		/* log_avg_msec; 0 = one entry per I/O */
	bool log_max_value;		/* averaged entries hold the interval's largest value */
	bool log_offset;		/* an offset column */
	bool per_job_logs;		/* NAME_bw.N.log per thread, else one NAME_bw.log */
	bool log_unix_epoch;		/* times in unix ms instead of ms since the window's start */
	bool log_alternate_epoch;	/* times from log_epoch_clock_id's epoch (as log_unix_epoch) */
	int32_t log_epoch_clock_id;	/* clock_gettime() clock of both; 0 = CLOCK_REALTIME */
	bool log_prio;			/* the priority column as fio's 0x%04x ioprio value */
	char *hist_log_prefix;		/* write_hist_log: PREFIX_clat_hist.N.log; NULL = off */
	/*
	 * Bit k (bw, iops, lat, hist) set: that log's prefix is the job's name, not
	 * given, so clones after the first take the section's name, as fio names them.
	 */
	uint8_t log_prefix_named;
	/*
	 * After each log's, verify state file's and command output's name (NULL =
	 * nothing): under mpirun ".HOST.RANK", so ranks sharing a working directory
	 * keep one each, as fio's client names a server's logs NAME.HOST.
	 */
	char *log_suffix;
	uint64_t log_hist_ns;		/* log_hist_msec; 0 = the hist log gets no entries (fio) */
	uint32_t log_hist_coarseness;	/* 0..10: 2^c fio buckets summed per column */
	uint32_t log_gz_bytes;		/* log_compression: zlib chunk size; 0 = off */
	bool log_store_compressed;	/* files are NAME.log.fz, fio's compressed samples */
	struct plan_cpus log_gz_cpus;	/* log_compression_cpus: the log writer thread's CPUs */

	/*
	 * Capture and replay (fio's write_iolog / read_iolog).  write_iolog_path:
	 * every issued I/O goes there in fio's iolog version 3 (NULL = off).
	 * replay: the trace read_iolog named, loaded before the run (the clone's
	 * files are the trace's, or replay_redirect); each I/O is issued at its
	 * trace time scaled by replay_time_scale_pct (open loop), or at once with
	 * replay_no_stall.  The trace's offsets were already divided by
	 * replay_scale, aligned to replay_align and filtered by replay_skip.
	 */
	char *write_iolog_path;
	char *read_iolog_path;
	/*
	 * A directory= entry that is not an existing directory when the plan is
	 * made, or NULL.  fio refuses such a job, and a run refuses it too (a
	 * mistyped or unmounted mount point would be measured on the filesystem
	 * beneath); --parse-only, --showplan and convert only read the plan.
	 * Directories a file name= names below it are made, as fio makes them.
	 */
	char *missing_directory;
	struct plan_replay *replay;
	bool replay_no_stall;
	uint32_t replay_time_scale_pct;	/* 100 = the trace's own pace */
	char *replay_redirect;		/* NULL = the trace's own files/devices */
	uint64_t replay_align_bytes;
	uint64_t replay_scale;		/* 0 or 1 = offsets as traced */
	uint32_t replay_skip_mask;	/* 1 << plan_ddir, 1 << PLAN_REPLAY_SYNC / _DATASYNC */
	/* merge_blktrace_file: read_iolog's ':'-separated blktrace files are merged
	 * into this file before the run, then it is the trace replayed; entry k of
	 * each list pairs with file k (no list: every file at 100%, once). */
	char *merge_blktrace_path;	/* NULL = no merge */
	uint32_t nr_merge_scalars, nr_merge_iters;
	int32_t merge_scalars_pct[PLAN_MERGE_MAX];
	int32_t merge_iters[PLAN_MERGE_MAX];

	/* Errors and watchdog. */
	uint32_t continue_on_error;	/* enum plan_coe_bits */
	uint64_t stall_timeout_ns;	/* report a clone with no completion this long; 0 = off */

	/* Statistics. */
	bool disable_lat;
	bool disable_clat;
	bool disable_slat;
	bool clat_percentiles;
	bool lat_percentiles;
	bool slat_percentiles;
	uint32_t nr_percentiles;
	double percentiles[PLAN_PERCENTILES_MAX];
	uint64_t bw_avg_time_ns;	/* bwavgtime: bandwidth sample interval */
	uint64_t iops_avg_time_ns;	/* iopsavgtime: IOPS sample interval (DISKSPD -D) */
	bool diskspd_iops_stddev;	/* diskspd_iops_stddev=: DISKSPD reports print IopsStdDev (-D) */
	bool diskspd_no_latency;	/* diskspd_latency=0: DISKSPD reports print no latency (no -L) */
	uint32_t kb_base;		/* 1024 or 1000: how reports scale units */

	/* Repetition (CrystalDiskMark-style): applies to the job's whole group. */
	uint32_t repeat;		/* measured runs; 1 = run once */
	uint32_t repeat_discard;	/* extra runs first, not counted */
	enum plan_repeat_aggregate repeat_aggregate;
	uint64_t repeat_pause_ns;	/* sleep between runs of the group */
	uint64_t group_pause_ns;	/* sleep before this job's group starts */

	/* Placement. */
	struct plan_cpus cpus_allowed;	/* cpus_allowed= or cpumask= */
	bool cpus_allowed_split;	/* the run's thread k runs on the k-th allowed CPU (mod count) */
	int32_t nice;

	/*
	 * fio's pattern, error and environment options, kept together because
	 * fio's example job files use them side by side.  Pattern: rw=read:-<n> steps back n bytes from the end of each
	 * sequential I/O (wrapping to the region's end, as fio); rw=randread:<n>
	 * draws a new random offset every n I/Os, the ones between continue
	 * sequentially or repeat the last offset (rw_sequencer=identical); fio reads
	 * n with atoi, so -8 is 2^32 - 8 and no number is 0, which draws none (the
	 * I/Os go on from the region's start, a random block only at its end).
	 */
	uint64_t rw_seq_back_bytes;	/* rw=read:-<n>; 0 = forward */
	uint32_t rw_seq_nr;		/* random jobs: a random offset every n I/Os; 0/1 = each */
	bool rw_seq_only;		/* rw=randread:0 (fio's reading of 0 or no number): none draws */
	bool rw_seq_identical;		/* rw_sequencer=identical */
	bool thinktime_on_issue;	/* thinktime_blocks_type=issue (default: complete) */
	bool thinktime_blocks_set;	/* given: with thinktime_iotime, blocks count too */
	uint64_t thinktime_iotime_ns;	/* think after this long of I/O and think; 0 = by blocks */
	bool rate_ignore_thinktime;	/* the rate schedule skips the think time */
	uint64_t offset_align_bytes;	/* a percentage offset rounds up to this; 0 = min bs */
	/*
	 * Errors, as fio's td_non_fatal_error: an error of a kind continue_on_error
	 * names is survived only when its errno is in that kind's list (read,
	 * write, verify); an empty list means fio's default, EIO and EILSEQ.
	 */
	int32_t ignore_errors[3][PLAN_IGNORE_ERRORS_MAX];
	uint32_t nr_ignore_errors[3];
	bool error_dump;		/* fio prints each error as it happens */
	bool exitall_on_error;		/* a clone's fatal error stops the other jobs */
	uint32_t exit_what;		/* enum plan_exit_what: whom exitall stops */
	/* Data: dedupe_percentage of the write buffers repeat an earlier one. */
	uint32_t dedupe_pct;
	bool dedupe_working_set;	/* dedupe_mode=working_set (else repeat) */
	uint32_t dedupe_working_set_pct;	/* share of the region the repeats come from */
	bool dedupe_global;		/* the repeats come from every job's buffers */
	/* NUMA (libnuma): the threads run on these nodes' CPUs, their memory per policy. */
	uint64_t numa_cpu_nodes_mask;	/* 0 = any node */
	enum plan_numa_mem numa_mem_policy;
	uint64_t numa_mem_nodes_mask;	/* the nodes of prefer (one), bind, interleave */
	/* Environment: commands around each clone (fio's exec_prerun/postrun, run by
	 * sh with output to JOBNAME.prerun.txt), memory pinned while it runs, and a
	 * write lifetime hint (F_SET_RW_HINT) on its files. */
	char *exec_prerun;		/* NULL = none */
	char *exec_postrun;
	uint64_t lockmem_bytes;		/* 0 = none */
	uint32_t write_hint;		/* RWH_WRITE_LIFE_*; 0 = leave unset */
	/* The I/O scheduler the block devices under the job's files are switched
	 * to before its I/O (fio's ioscheduler=; engine/iosched.h), put back at
	 * the end of the run.  NULL = leave them as they are. */
	char *ioscheduler;

	/* fio's flow control and submission (engine/flow.h). */
	uint32_t flow_weight;		/* flow=: share among jobs of flow_id; 0 = no flow */
	uint32_t flow_id;
	uint64_t flow_sleep_ns;		/* a held job waits this long (after draining), 0 = retries */
	bool submit_offload;		/* io_submit_mode=offload: accepted, submits inline (README) */
	bool serialize_overlap;		/* an I/O overlapping one in flight waits for it */
	uint64_t max_latency_ns[PLAN_DDIR_NR];	/* a longer lat fails the job (ETIMEDOUT); 0 = none */

	/* latency_target: fio's search for the deepest queue that meets a latency (worker_lat_target.c). */
	uint64_t lat_target_ns;		/* 0 = no search: the job keeps iodepth */
	uint64_t lat_window_ns;		/* each queue depth is tried this long */
	double lat_percentile;		/* share of I/Os (%) whose lat must be within the target */
	bool lat_run;			/* keep adjusting the depth instead of ending once it settles */

	/* fio's reporting options (report/): how numbers are shown, whether the job is. */
	uint8_t sig_figs;		/* significant_figures: digits of the normal output's numbers (1..10) */
	uint8_t unit_base;		/* 0 auto (bits for net), 8 bytes, 1 bits */
	bool no_stats;			/* stats=0: the job is left out of every report */
	bool no_disk_util;		/* disk_util=0: its files' disks are not sampled (fio's disk_util) */
	bool disable_bw;		/* disable_bw_measurement: no per-I/O bandwidth log entries */
	bool block_error_hist;		/* block_error_percentiles: print fio's block lifetime section */

	/* Steady state (fio's ss, ss_dur, ss_ramp; engine/steadystate.h): once a
	 * second the job's (or, with group_reporting, its group's) IOPS or bandwidth
	 * is sampled; the job ends when the last ss_dur_s samples meet the criterion. */
	uint32_t ss_flags;		/* PLAN_SS_* */
	double ss_limit;		/* IOPS, bytes/s or (PLAN_SS_PCT) percent of the mean */
	uint32_t ss_dur_s;		/* window in samples (seconds); 0 = off */
	uint64_t ss_ramp_ns;		/* no sample before this long (+1 s, as fio) */
	/*
	 * I/O priorities (fio's prio, prioclass and the cmdprio options of libaio
	 * and io_uring; engine/prio.h).  A priority is Linux's ioprio value,
	 * class << PLAN_IOPRIO_CLASS_SHIFT | level.  cmdprio[] is per direction
	 * (read, write): a share of the I/Os (cmdprio_percentage) or of the I/Os of
	 * one block size (cmdprio_bssplit) goes out with a priority of its own.
	 */
	bool ioprio_set;		/* prio= or prioclass= given: the thread's ioprio_set() */
	uint32_t ioprio_class;		/* prioclass: 0 (none) means best effort, as fio */
	uint32_t ioprio_level;		/* prio */
	bool cmdprio_bssplit;		/* cmdprio_bssplit given (never with cmdprio_percentage) */
	struct plan_cmdprio cmdprio[2];

	/* Echo of the options as typed, for reports (fio's "job options"). */
	struct plan_kv *opts;
	uint32_t nr_opts;

	struct plan_clone *clones;
	uint32_t nr_clones;		/* numjobs */
};

struct plan_group {
	uint32_t id;			/* groupid, 0-based, as fio assigns it */
	struct plan_job *jobs;
	uint32_t nr_jobs;
};

struct plan {
	uint32_t abi_version;		/* PLAN_ABI_VERSION of the builder */
	struct plan_group *groups;
	uint32_t nr_groups;
	uint32_t nr_jobs;		/* sum of groups[].nr_jobs */
	uint32_t nr_threads;		/* sum of every job's nr_clones */

	/* Echo of the union of [global] sections and command-line defaults, no duplicates. */
	struct plan_kv *global_opts;
	uint32_t nr_global_opts;

	/* Safety: the one block device a user allowed writes to ("" = none). */
	char *allow_device_write;
	bool allow_existing_file_write;	/* write into files ioplan did not create */

	/* --aux-path: the directory of verify state and verify_dump files (NULL = the working one). */
	char *aux_path;
};

/*
 * Iteration helper: the job with flattened index i (definition order), or NULL.
 * Jobs are stored per group, but the engine walks them in order; this keeps
 * both views without a second array to keep in sync.
 */
const struct plan_job *plan_job_at(const struct plan *p, uint32_t i);

/* True when the job issues I/O in direction d at all. */
bool plan_rw_has_ddir(enum plan_rw rw, enum plan_ddir d);

/* True when offsets are random for this rw value. */
bool plan_rw_is_random(enum plan_rw rw);

/* rw=randread:<n>: true when some of a random job's I/Os go on from the last instead of drawing. */
bool plan_rw_seq_turns(const struct plan_job *j);

/* Whether a random job takes sequential turns: rw=randread:<n>, or percentage_random below 100. */
bool plan_random_turns_seq(const struct plan_job *j);

/* fill_device (fill_fs) in a job that writes: its files grow until the device is full.  Not
 * under mmap, whose writes cannot grow a file (fio's FIO_NOEXTEND): fio lays its files out
 * with data to size= first, fill_device or not, and the job writes them as any mmap job. */
bool plan_fills_device(const struct plan_job *j);

/* JOB.EXT, then log_suffix: exec's JOB.stdout, exec_prerun's JOB.prerun.txt (a name past n is
 * cut, and its open then fails: a component is at most 255 bytes). */
void plan_job_output_name(char *path, size_t n, const struct plan_job *j, const char *ext);

/* x's share of ppm parts per million, without the overflow of x * ppm past 18 TB. */
uint64_t plan_share_ppm(uint64_t x, uint32_t ppm);

/* fio's rw_min_bs: the smallest block size set for any direction (1 when none is). */
uint64_t plan_min_bs(const struct plan_job *j);

/*
 * fio's setup_files: size= split over nfiles leaves a remainder; as many
 * whole smallest blocks as it holds go one each to the first files, so they
 * add up to size= (size=1000 nrfiles=3 bs=1: 334, 333, 333).  0 with filesize=.
 */
uint32_t plan_files_with_extra_block(const struct plan_job *j, uint32_t nfiles);

/* The files of every clone of every job, counted once per clone that names one. */
uint32_t plan_clone_files(const struct plan *p);

/*
 * A file whose draw from a filesize= range is under one block: fio's
 * get_rand_file_size cuts it to rw_min_bs, so the file has no length (fio lays
 * nothing out; a job that writes makes it empty as it opens it).
 */
bool plan_file_drawn_empty(const struct plan_job *j, const struct plan_file *f);

/*
 * A file whose length is whatever it holds past its offset: the job sets no
 * size=, filesize= or region for it (fio's setup_files, its per-file share of
 * size= being 0, takes the file's real size).  One that holds nothing there
 * gets no I/O: fio prints "fio: file F may be ignored" and runs the others.
 */
bool plan_file_sized_as_found(const struct plan_job *j, const struct plan_file *f);

/* The largest block one direction's bs= or bssplit= allows (0 when none is set). */
uint64_t plan_bs_max(const struct plan_bs *b);

/*
 * fio's plain sequential pass (no holes, strides, backward steps, zones,
 * interlocked tickets or trimwrite): it issues an I/O while its offset is inside
 * the region and the block ends inside the file, so a block of fixed length may
 * reach past the region into what an existing file holds (size=10k bs=4k over a
 * 16 KiB file: 12 KiB).
 */
bool plan_seq_reaches(const struct plan_job *j);

/*
 * fio's forward holed sequential pass (rw=read:<n>, no strides, zones,
 * interlocked tickets or trimwrite): its next offset wraps to the start once
 * it passes the file's end, not the region's, and a fixed block may reach past
 * the region as a plain pass's does (size=10k bs=4k rw=read:4k over a 16 KiB
 * file: 0, 8k, then 0 again, 12 KiB).
 */
bool plan_seq_holed(const struct plan_job *j);

/*
 * Whether a sequential pass is judged against the file's size as fio's setup
 * found it (its real_file_size), not only against the region: plan_seq_reaches'
 * and plan_seq_holed's.
 */
bool plan_seq_uses_file_size(const struct plan_job *j);

/*
 * Whether j's I/O may go past its region into the file's size as fio's setup
 * found it: a sequential pass's (plan_seq_uses_file_size), or strided zones',
 * which walk on to the file's end, not the region's, as fio's do (size= then
 * bounds the bytes moved, not where the zones go); or whether its fills fail
 * there: a random job's sequential turn past the region inside the file; or
 * whether its pass ends only there: a backward one's (rw=read:-<n>); or whether
 * its later loops draw from where a percentage offset of that size puts them
 * (plan_random_loop_moves).
 */
bool plan_io_uses_file_size(const struct plan_job *j);

/*
 * Whether j is a random job whose later loops (loops=, io_size= rounds) take its
 * percentage offset again, of the file's size as fio's set-up left it (fio's
 * clear_io_state): its draws there run past that file's end, where they fail.
 */
bool plan_random_loop_moves(const struct plan_job *j);

/* Whether j's sequential passes step backward (rw=read:-<n>, not a random job's turns):
 * such a pass ends only where an I/O ends on the file's end, as fio's. */
bool plan_seq_back(const struct plan_job *j);

/* The one length every sequential I/O of direction d has, or 0 when lengths are drawn. */
uint64_t plan_seq_fixed_bs(const struct plan_job *j, enum plan_ddir d);

/*
 * fio's queue defaults, applied once by the parser (and by plan-building test
 * helpers): iodepth_batch_complete_max unset or below the minimum becomes the
 * minimum, iodepth_low 0 or above iodepth becomes iodepth.  The engine only
 * clamps them to the depth its ioengine can hold.
 */
void plan_job_resolve_queue(struct plan_job *j);

/*
 * Each enum's one name table (plan.c): the stable lower-case names --showplan,
 * reports and diagnostics print; "?" for a value out of range.
 */
const char *plan_rw_name(enum plan_rw rw);
const char *plan_ioengine_name(enum plan_ioengine e);
const char *plan_ddir_name(enum plan_ddir d);
const char *plan_random_dist_name(enum plan_random_dist d);
const char *plan_zone_rule_name(enum plan_zone_rule r);
const char *plan_rate_process_name(enum plan_rate_process r);
const char *plan_sync_mode_name(enum plan_sync_mode s);
const char *plan_file_service_name(enum plan_file_service f);
const char *plan_fallocate_name(enum plan_fallocate f);
const char *plan_buffer_fill_name(enum plan_buffer_fill b);
const char *plan_verify_name(enum plan_verify v);
const char *plan_repeat_aggregate_name(enum plan_repeat_aggregate a);

/*
 * Allocation helpers so the parser never allocates plan memory with new/malloc
 * mismatches: everything below is released by plan_free().  They return NULL only
 * when out of memory.
 */
struct plan *plan_alloc(void);
char *plan_strdup(const char *s);
void *plan_calloc(size_t n, size_t size);

/* Frees the plan and everything it owns. NULL is a no-op. */
void plan_free(struct plan *p);

/* Frees what one job owns (not the job itself): a job checked and dropped
 * before it joins a group (--parse-only keeps no job it will not read again). */
void plan_job_free(struct plan_job *j);

#ifdef __cplusplus
}
#endif

#include "engine/plan_engopts.h"

#endif /* IOPLAN_PLAN_H */

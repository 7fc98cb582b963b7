/*
 * engine/logs/logs.h - fio's log files (write_bw_log, write_iops_log, write_lat_log,
 * write_hist_log).
 *
 * People draw results over time from these files (fio2gnuplot, fio_generate_plots,
 * fio-plot), so names, columns and units are fio 3.33's: NAME_bw.N.log (N = the
 * thread number; NAME_bw.log with per_job_logs=0, appended to, never truncated,
 * each job's lines in its own columns), lines "time_ms, value, ddir, bs[, offset],
 * prio"; bw in KiB/s, iops, latencies in ns; only the measured window is logged,
 * its start is time 0.
 *
 * The I/O loop only appends a fixed-size entry to a chunk of its own; full chunks
 * go to one writer thread per run (log_writer.c) that turns them into text and
 * writes them while the run goes on.  A bounded number of chunks is queued, so
 * memory stays constant over any run length: a writer that falls behind slows
 * the clones that log, it never drops an entry.
 *
 * log_store_compressed: the file is NAME.log.fz, fio's layout, so that
 * `fio --inflate-log` reads it: zlib streams one after another, each holding
 * fio's binary samples (struct io_sample: time, value, ddir with the offset and
 * prio flag bits, priority, bs, [offset]).  Hist logs (clat_hist) hold fio's
 * 1856-bucket clat histogram of each log_hist_msec window, coarsened.
 */
#ifndef IOPLAN_ENGINE_LOGS_H
#define IOPLAN_ENGINE_LOGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum log_kind {
	LOG_BW = 0,
	LOG_IOPS,
	LOG_LAT,
	LOG_CLAT,
	LOG_SLAT,
	LOG_HIST,		/* text lines made by the clone (rare: one per log_hist_msec) */
	LOG_KIND_NR
};

/* fio's latency histogram: FIO_IO_U_PLAT_NR buckets (ioplan's first ones, same scheme). */
#define LOG_HIST_BUCKETS 1856u

/* fio's sample layout and its ddir flag bits (iolog.h), for .log.fz files. */
#define LOG_SAMPLE_BYTES 32u
#define LOG_SAMPLE_OFFSET_BYTES 40u
#define LOG_SAMPLE_OFFSET_BIT 0x80000000u
#define LOG_SAMPLE_PRIO_BIT 0x40000000u

/*
 * One line of a log file, before it is text.  The I/O's size, direction and
 * priority share one word (log_entry_io), so the loop stores an entry as four
 * words made in registers.
 */
struct log_entry {
	uint64_t t_ms;
	uint64_t value;
	uint64_t offset;
	uint64_t io;			/* bs | ddir << 32 | ioprio << 48 */
};

static inline uint64_t log_entry_io(uint32_t bs, uint8_t ddir, uint16_t ioprio)
{
	return (uint64_t)bs | (uint64_t)ddir << 32 | (uint64_t)ioprio << 48;
}

static inline uint32_t log_entry_bs(const struct log_entry *e) { return (uint32_t)e->io; }
static inline uint8_t log_entry_ddir(const struct log_entry *e) { return (uint8_t)(e->io >> 32); }
/* The I/O's priority (prio, cmdprio); 0 in averaged entries, as fio's. */
static inline uint16_t log_entry_ioprio(const struct log_entry *e) { return (uint16_t)(e->io >> 48); }

/*
 * A completed I/O of a per-I/O log, once for all its kinds: the writer makes
 * its lat, clat, bw and iops lines (log_rec_value), so the loop stores 40
 * bytes an I/O instead of 32 a line, and divides nothing for the bw line.
 */
struct log_rec {
	uint64_t t_ms;
	uint64_t offset;
	uint64_t io;			/* as log_entry's */
	uint64_t lat;
	uint64_t clat;
};

/* The kinds a record holds: those before LOG_SLAT (a slat line is made at submission). */
#define LOG_REC_KINDS LOG_SLAT

/* A record's value in a log of kind k: fio's per-I/O bw is bytes * 10^6 / clat_ns. */
static inline uint64_t log_rec_value(const struct log_rec *r, enum log_kind k)
{
	switch (k) {
	case LOG_LAT:
		return r->lat;
	case LOG_CLAT:
		return r->clat;
	case LOG_BW:
		return r->clat ? (uint64_t)(uint32_t)r->io * 1000000ull / r->clat : 0;
	default:
		return 1;	/* LOG_IOPS */
	}
}

#define LOG_CHUNK_ENTRIES 4096u		/* 128 KiB per chunk */
#define LOG_CHUNK_RECS (LOG_CHUNK_ENTRIES * sizeof(struct log_entry) / sizeof(struct log_rec))
#define LOG_QUEUE_MAX 64u		/* full chunks waiting; as many more may be being written: 16 MiB */

struct log_file;

struct log_chunk {
	struct log_chunk *next;
	struct log_file *file;
	uint32_t nr;			/* entries, records, or bytes of text when raw */
	bool raw;			/* e[] holds finished text lines (hist logs) */
	bool recs;			/* r[] holds records, for the files in fan[] (NULL: no line) */
	struct log_file *fan[LOG_REC_KINDS];
	union {
		struct log_entry e[LOG_CHUNK_ENTRIES];
		struct log_rec r[LOG_CHUNK_RECS];
	};
};

/* The run's writer (log_writer.c): one thread, the open files, the queue of full chunks. */
struct log_writer;

/* Starts the writer thread, pinned to cpus unless that is empty (log_compression_cpus): 0 or -errno. */
int log_writer_start(struct log_writer **out, const struct plan_cpus *cpus);

/* How a log file failed: its open, a write (it ends at its last whole line), or it was removed. */
enum log_fail { LOG_FAIL_OPEN, LOG_FAIL_WRITE, LOG_FAIL_REMOVED };

/*
 * Writes every queued chunk, stops the thread and closes the files.  Calls
 * fail(arg, path, errno, how, why) for each file an open or a write failed on
 * (why: the open's refusal in words, as safety_open_output gave it, or ""),
 * and for each removed during the run (its directory too, or another file
 * renamed over its name: LOG_FAIL_REMOVED, errno ENOENT), whose entries went
 * with it; returns the first such error as -errno, or 0.
 */
typedef void (*log_writer_fail_fn)(void *arg, const char *path, int err, enum log_fail how, const char *why);
int log_writer_stop(struct log_writer *lw, log_writer_fail_fn fail, void *arg);

/*
 * The file at path with these columns (log_offset, log_prio), opened once per
 * run (append: per_job_logs=0, as fio never truncates it); jobs that share a
 * per_job_logs=0 file with other columns each get their own, as fio writes each
 * thread's lines with its own.  NULL if out of memory.
 */
struct log_file *log_writer_file(struct log_writer *lw, const char *path, bool append,
				 bool offset, bool prio_hex);

/*
 * Makes f a log_store_compressed file: its samples go out as fio's binary
 * samples, deflated by zlib in streams of about chunk_bytes (log_compression).
 */
void log_writer_file_gz(struct log_file *f, uint32_t chunk_bytes);

/* fio's binary sample of e at p: its size (LOG_SAMPLE_BYTES or _OFFSET_BYTES). */
size_t log_sample(unsigned char *p, const struct log_entry *e, bool offset, bool prio_hex);

/* Hands a chunk over (it may wait for room) and returns an empty one, or NULL. */
struct log_chunk *log_writer_swap(struct log_writer *lw, struct log_chunk *full);

/* Formats one entry as fio does; returns the length written into buf (>= 96 bytes). */
size_t log_format(char *buf, const struct log_entry *e, bool offset, bool prio_hex);

/* One clone's logs (logs.c): what it records, in chunks handed to the run's writer. */
struct clone_log {
	struct log_writer *lw;
	struct log_chunk *cur[LOG_KIND_NR];	/* NULL = off, or its lines go in recs */
	struct log_chunk *recs;			/* per-I/O lat, clat, bw and iops lines, as records */
	struct log_file *fan[LOG_REC_KINDS];	/* where recs' lines go (NULL: not made) */
	unsigned kinds;				/* 1 << kind, for each kind the clone logs */
	uint64_t avg_ns;			/* log_avg_msec; 0 = an entry per I/O */
	bool max_value;
	uint16_t ioprio;			/* the next I/O's priority (the worker sets it) */
	bool no_bw_per_io;			/* disable_bw_measurement: per-I/O bw entries are not made */
	bool mute;				/* stats=0: the files are made, no entry goes in (fio) */
	bool no_iops_per_io;			/* fio's gtod_reduce(): per-I/O iops entries are not made */
	uint64_t start_ns;			/* the measured window's start */
	uint64_t base_ms;			/* added to times: unix ms of the start (log_unix_epoch) */
	bool unix_epoch;			/* log_unix_epoch or log_alternate_epoch */
	int clock_id;
	/*
	 * Averaged bw and iops lines ([LOG_BW], [LOG_IOPS]): each log's interval
	 * (bwavgtime, iopsavgtime: log_avg_msec unless given, as fio's), when its
	 * next line is due and when its last one was made.
	 */
	uint64_t rate_ns[2];
	uint64_t next_ns[2];
	uint64_t last_ns[2];
	uint64_t end_ns;			/* the window's end by runtime= (clone_log_begin); 0: none */
	uint64_t avg_last_ms[LOG_KIND_NR][PLAN_DDIR_NR];	/* a latency window's start, per direction */
	uint64_t sum[LOG_KIND_NR][PLAN_DDIR_NR], n[LOG_KIND_NR][PLAN_DDIR_NR];
	uint64_t max[LOG_KIND_NR][PLAN_DDIR_NR];
	uint64_t hist_ms;			/* log_hist_msec; 0 = no hist log */
	uint32_t hist_stride;			/* 1 << log_hist_coarseness */
	uint64_t hist_last_ms[PLAN_DDIR_NR];	/* the window's start, ms since the start; 0: not yet */
	uint64_t *hist;				/* [PLAN_DDIR_NR][LOG_HIST_BUCKETS] this window's counts */
};

/*
 * The name of clone c's log of kind k in path (fio's), or 0 when the job
 * writes no such log; log_option is the option that asks for it.
 */
int log_file_name(char *path, size_t n, const struct plan_job *j, const struct plan_clone *c,
		  enum log_kind k);
const char *log_option(enum log_kind k);

/* True when the job writes any log. */
bool logs_wanted(const struct plan_job *j);

/* A clone's logs (NULL when the job logs nothing, or out of memory: then *err). */
struct clone_log *clone_log_open(struct log_writer *lw, const struct plan_job *j,
				 const struct plan_clone *c, int *err);

/*
 * The measured window starts at now (clock ns); epoch_ns is the log's epoch
 * clock (clock_id) at that moment, for log_unix_epoch (0 = not known): the
 * window's start is dated, not the call (a clone that joins its start gate
 * late calls later).  end_ns is when the window ends by runtime= (0: when its I/O
 * is done): the bw and iops line of an interval that closes at or after it is
 * not written, as fio's helper thread takes no sample once the job has stopped.
 */
void clone_log_begin(struct clone_log *l, uint64_t now, uint64_t epoch_ns, uint64_t end_ns);

/* One completed I/O of the window: its lat, clat, bw and iops lines. */
void clone_log_io(struct clone_log *l, uint64_t now, uint8_t ddir, uint32_t bytes,
		  uint64_t offset, uint64_t lat, uint64_t clat);

/* True when the clone writes a log of kind k. */
static inline bool clone_log_has(const struct clone_log *l, enum log_kind k)
{
	return l && (l->kinds & 1u << k);
}

/* True when the clone writes a slat log. */
static inline bool clone_log_wants_slat(const struct clone_log *l)
{
	return l && l->cur[LOG_SLAT];
}

/*
 * One submitted I/O of the window (an async engine took it at now): its slat
 * line, dated at the submission as fio's are, bytes the length asked.
 */
void clone_log_slat(struct clone_log *l, uint64_t now, uint8_t ddir, uint32_t bytes, uint64_t offset,
		    uint64_t slat, uint16_t ioprio);

/* The window ended at now: last averaged latency entries, partial chunks to the writer. */
void clone_log_end(struct clone_log *l, uint64_t now);

/* Releases the clone's logs (after clone_log_end; NULL is a no-op). */
void clone_log_close(struct clone_log *l);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_LOGS_H */

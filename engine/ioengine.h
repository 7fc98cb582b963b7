/*
 * engine/ioengine.h - the I/O engine plug-in contract and the unit of I/O (io_u).
 *
 * An engine is a const ops struct in its own file under engine/ioengines/ and
 * one line in the engine list (engine/plan_ioengines.h), which the registry in
 * engine/ioengines.c is expanded from.  A worker opens one engine
 * instance per thread.  Sync engines complete I/O inside queue(); async engines
 * queue, submit in commit() and hand completions back from getevents().  Results
 * go into io_u.result: bytes transferred, or -errno.
 */
#ifndef IOPLAN_ENGINE_IOENGINE_H
#define IOPLAN_ENGINE_IOENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/plan.h"

struct bufpool;
struct scratch_files;

/* One I/O slot: preallocated, one per queue entry, reused for the whole run. */
struct io_u {
	void *buf;
	uint64_t offset;
	uint64_t start_ns;		/* prepared: lat starts here */
	uint64_t issue_ns;		/* submitted: clat starts here */
	uint64_t due_ns;		/* rate schedule's due time; 0 = not rate-limited */
	int64_t result;			/* bytes done, or -errno */
	uint32_t len;
	int fd;
	uint16_t file;			/* the worker's file index */
	uint8_t ddir;			/* enum plan_ddir */
	uint8_t counted;		/* issued inside the measured window */
	uint32_t slot;			/* buffer index (fixed buffers) */
	uint8_t nostat;			/* set by the engine: IOE_NOSTAT_* of what this I/O does not count */
	uint8_t prio_idx;		/* cmdprio: its entry in res_ddir.prios (engine/prio.h) */
	uint16_t ioprio;		/* libaio, io_uring: the I/O's own priority; 0 = the thread's */
	void *eng_data;			/* engine's per-slot state */
};

/* io_u.nostat bits: an I/O that is counted but not timed (fio's FIO_NOSTATS), or moves no bytes (FIO_NOIO). */
#define IOE_NOSTAT_LAT 1u
#define IOE_NOSTAT_BYTES 2u

enum ioe_q_status {
	IOE_Q_QUEUED = 0,		/* accepted; completes via commit/getevents */
	IOE_Q_COMPLETED = 1,		/* done; result is set */
	IOE_Q_BUSY = 2			/* no room; reap, then try again */
};

/*
 * A remote target silent this long has stopped answering: 10 s once the job's
 * time is over (a loaded nbdkit went over 1 s without answering any of 64
 * reads), 1 s once the user has asked the run to stop.  The worker abandons
 * I/Os in flight after it (worker_remote_gave_up), and a remote engine a
 * command it waits for itself (nbd's flush and verify read) the same.
 */
#define IOE_REMOTE_SILENCE_NS 10000000000ull
#define IOE_REMOTE_SILENCE_STOP_NS 1000000000ull

struct ioe_cfg {
	uint32_t depth;
	bool hipri;
	uint32_t hipri_percentage;	/* pvsync2: share of I/Os with RWF_HIPRI */
	int rwf_flags;			/* pvsync2, io_uring, libaio: RWF_* flags on every I/O */
	const int *fds;			/* every file the worker opened, by file index */
	uint32_t nr_fds;
	const struct bufpool *bufs;	/* one buffer per slot */
	/* Remote engines (net, netsplice, nbd) read their target from the job, exec its program. */
	const struct plan_job *job;
	uint32_t clone_index;		/* net: clone k uses port + k */
	/* 0 while a blocking wait (connect, accept, data) may go on; -EINTR (stop) or -ETIMEDOUT after. */
	int (*stopping)(void *arg);
	void *stop_arg;
	/* cpuio: whether jobs that do I/O are running or yet to start (1), have all ended (0),
	 * or the plan has none (-1), as fio's fio_running_or_pending_io_threads; of stop_arg. */
	int (*io_jobs_left)(void *arg);
	/* Metadata engines (fileops.c): the clone's files and each one's region length. */
	const struct plan_file *files;
	const uint64_t *region_len;
	uint32_t nr_files;
	struct scratch_files *scratch;	/* e4defrag: the run's scratch files (scratch.h) */
};

struct ioe {
	const struct ioe_ops *ops;
	struct ioe_cfg cfg;
	void *priv;
	struct io_u **events;		/* completions of the last getevents() */
	bool is_sync;			/* queue() always completes */
	bool peer_done;			/* the target takes no more (net: the peer closed the stream;
					 * fill_device: the device is full): the job ends */
	uint64_t dropped;		/* net: datagrams lost since the worker last took the count */
	uint64_t opens;			/* files the worker has opened: after an open, a descriptor
					 * number seen before may be a new file's (openfiles,
					 * unlink_each_loop), so nothing known of the old one holds */
	const char *fail_what;		/* what a failed queue() tried when not the I/O itself
					 * (exec: "exec PROGRAM"; the metadata engines: "unlink"),
					 * for the error's message; NULL = the I/O.  Such a failure
					 * has no offset and is not counted as an I/O (fio fails
					 * these in the file's open) */
};

struct ioe_ops {
	enum plan_ioengine id;		/* its name: plan_ioengine_name(id) */
	bool sync;			/* completes in queue(); no commit/getevents */
	/*
	 * Queues, but fio flags its counterpart FIO_SYNCIO (vsync): fio stamps an
	 * I/O's issue time before queue(), so its clat holds the call that moves
	 * the data and it has no slat, and fio notes that iodepth>1 is "capped at 1".
	 */
	bool clat_at_queue;
	/*
	 * fio's counterpart hands back every completion it has whatever max says
	 * (vsync), and fio completes them all before it queues again:
	 * the worker takes every fetched completion in one reap, not
	 * iodepth_batch_complete_max of them, so a vsync batch is queued and
	 * merged whole again, as fio's.
	 */
	bool reaps_all;
	bool open_rw;			/* files open read-write even for reads (falloc allocates on reads) */
	bool no_open;			/* the worker opens no descriptor (null, metadata engines) */
	bool no_layout;			/* no file is laid out or checked first (fio's FIO_DISKLESSIO) */
	bool removes;			/* deletes the job's files: a writer to the safety checks */
	bool clat_only;			/* its timed operations are clat samples only, no lat (as fio's) */
	bool remote;			/* a peer or export the job names (net, nbd): no local file, data verified */
	bool no_extend;			/* cannot write past a file's end (fio's FIO_NOEXTEND): the layout sizes it */
	bool names_entries;		/* no layout, but the job's files are local names it makes, stats or
					 * removes itself (filecreate, dircreate, dirstat, dirdelete) */
	/* What it changes on the file system whatever rw= says ("creates files"), NULL if nothing:
	 * --readonly refuses a job that uses it. */
	const char *changes;
	/*
	 * queue() completes with no work worth timing (null): a sync I/O takes the
	 * clock read ioplan already has as its start instead of a fresh one.
	 */
	bool instant;
	/*
	 * Moves no data (null, as fio's FIO_FAKEIO): verify stamps its writes and
	 * counts its read-back, but a buffer it hands back holds nothing to check.
	 */
	bool fake_io;
	/*
	 * Does no I/O at all (cpuio, fio's FIO_NOIO): not one of the jobs whose end
	 * cpuio's exit_on_io_done waits for.
	 */
	bool no_io;
	/*
	 * Why this build cannot run the engine (its library was missing at build
	 * time: the engine's file then builds only this stub), NULL when it can.
	 * --enghelp lists it as unavailable; a job that asks for it is refused.
	 */
	const char *unavailable;
	/*
	 * Opens the library the engine runs through the first time a run asks for
	 * the engine (nbd: libnbd, not linked, so that ioplan's start-up does not
	 * load it and its dependencies); NULL when the engine can run, else why it
	 * cannot, which eng_ioengine_unavailable() reports as unavailable.  Optional.
	 */
	const char *(*load)(void);
	int (*init)(struct ioe *e);
	void (*exit)(struct ioe *e);
	int (*queue)(struct ioe *e, struct io_u *u);
	/* Submits what queue() accepted: number submitted (may be fewer), or -errno. */
	int (*commit)(struct ioe *e);
	/*
	 * Waits up to timeout_ns for at least min completions and returns up to max
	 * of them in e->events: their count, or -errno.
	 */
	int (*getevents)(struct ioe *e, uint32_t min, uint32_t max, uint64_t timeout_ns);
	/* Remote engines: a synchronous read for verify's read-back; bytes or -errno. */
	int64_t (*pread_sync)(struct ioe *e, void *buf, uint32_t len, uint64_t off);
	/* Remote engines: fsync=N's and end_fsync's flush of the target, as fio's; 0 or -errno. */
	int (*flush_sync)(struct ioe *e);
	/*
	 * A sync of the file open on fd, which fio hands its engine as an I/O of
	 * its own: fsync=N's, fdatasync=N's and sync_file_range='s (data) and a
	 * trace's flush, or, with at_end, end_fsync's and fsync_on_close's.  0 or -errno.  NULL: the
	 * descriptor's fsync or fdatasync (ioe_fsync), as fio's engines that sync.
	 * An engine whose fio counterpart cannot sync fails it here as fio's does
	 * (ftruncate, e4defrag: EINVAL), so the job ends where fio's ends.
	 */
	int (*sync_fd)(struct ioe *e, int fd, bool data, bool at_end);
	/* Remote engines: the target's size before any instance opens (NULL: size= bounds the job). */
	int (*target_size)(const struct plan_job *j, uint64_t *size);
	/*
	 * The worker opened its files again (unlink_each_loop made them anew), in the
	 * same cfg.fds: an engine that holds descriptors of its own (io_uring's
	 * registered files) takes the new ones.  NULL: nothing held.  0 or -errno.
	 */
	int (*files_reopened)(struct ioe *e);
	/*
	 * Asks every I/O in flight to end now: a stop's, when one may never
	 * complete (a FIFO read its writer sends nothing to).  They come back
	 * through getevents failed with -ECANCELED, or done if too late to stop.
	 * NULL: an I/O in flight ends only when its target answers.  0 or -errno.
	 */
	int (*cancel)(struct ioe *e);
	/*
	 * The line fio's engine prints on its own as a thread sets it up (stage
	 * IOE_FIO_LINE_INIT: cpuio's "j (noop): ioengine=cpuio, cpuload=30,
	 * cpucycle=50000") or as it starts its work (IOE_FIO_LINE_START: exec's
	 * "j : Saving output of ..."), written into buf without a newline: its
	 * length, or 0 when the engine prints nothing then.  The run keeps it as a
	 * fio-note, printed where fio prints it.  NULL: none.
	 */
	int (*fio_line)(const struct plan_job *j, int stage, char *buf, size_t len);
};

enum { IOE_FIO_LINE_INIT, IOE_FIO_LINE_START };

/*
 * The engine's own options struct of the job (engine/plan_engopts.h), as the
 * engine's file declares it; NULL without a job or for an engine with none.
 */
static inline const void *ioe_job_opts(const struct ioe *e)
{
	return e->cfg.job ? e->cfg.job->engine_opts : NULL;
}

/* The registered engine with this id, or NULL. */
const struct ioe_ops *ioe_find(enum plan_ioengine id);

/* The ops flags of a job's engine, false for an unregistered one. */
bool ioe_opens_files(enum plan_ioengine id);
bool ioe_lays_out(enum plan_ioengine id);
bool ioe_removes_files(enum plan_ioengine id);
bool ioe_cannot_extend(enum plan_ioengine id);
/* The job's files are local names the engine itself makes, stats or removes, with no layout first. */
bool ioe_names_entries(enum plan_ioengine id);
/*
 * Whether job j's files are used as found: laid out by nothing, neither made,
 * sized nor filled (fio's create_on_open on an engine that opens no file for
 * I/O and removes none: filestat).  The preflight still checks them.  Not
 * filedelete's: ioplan removes only files it made, and an empty one is marked
 * as ioplan's by the layout that adopts it.
 */
bool ioe_files_as_found(const struct plan_job *j);
/*
 * Whether job j's files are made by its open (fio's create_on_open on an
 * engine that opens files for I/O and can extend them, in a job that does not
 * read): nothing is laid out, an existing file is used as found and a missing
 * one is made empty by the job's open of its first I/O, as fio's O_CREAT
 * makes it (layout_on_open.c; by the layout before the job when another
 * clone, job or rank names it too), so its writes are the allocating writes
 * of a new file.  A job
 * that reads still has its files laid out: fio's reads of the empty file
 * fail (EIO) with a sync engine and read nothing with libaio or io_uring.
 */
bool ioe_files_made_on_open(const struct plan_job *j);
bool ioe_is_remote(enum plan_ioengine id);
bool ioe_fakes_io(enum plan_ioengine id);
bool ioe_does_no_io(enum plan_ioengine id);

/* True when the engine completes each I/O in its queue call (fio's FIO_SYNCIO engines). */
bool ioe_is_sync(enum plan_ioengine id);
/* True when fio flags the engine FIO_SYNCIO: the sync ones and those with clat_at_queue (vsync). */
bool ioe_is_fio_syncio(enum plan_ioengine id);

/* Number of registered engines and the i-th, for tests. */
uint32_t ioe_count(void);
const struct ioe_ops *ioe_at(uint32_t i);

/* Opens an engine instance in the calling thread.  0 or -errno. */
int ioe_open(struct ioe *e, enum plan_ioengine id, const struct ioe_cfg *cfg);
void ioe_close(struct ioe *e);

/*
 * For engines that complete in order: moves the first min(done, max) of the nr
 * I/Os held in q into e->events, shifts the rest down and returns how many moved.
 */
uint32_t ioe_hand_back(struct ioe *e, struct io_u **q, uint32_t *nr, uint32_t done, uint32_t max);

/* A plain read of the target: the engine's pread_sync, else pread(fd).  Bytes or -errno. */
int64_t ioe_pread(struct ioe *e, int fd, void *buf, uint32_t len, uint64_t off);

/* Does u synchronously (pread/pwrite, or a discard for trims), setting u->result. */
void ioe_do_sync(struct io_u *u);

/* fsync(fd), or fdatasync(fd) when data: 0 or -errno. */
int ioe_fsync(int fd, bool data);

/* Each engine's ops, defined in its own file (the list: engine/plan_ioengines.h). */
#define IOE_OPS_EXTERN(token, suffix, help, opts) extern const struct ioe_ops ioe_##token;
PLAN_IOENGINES(IOE_OPS_EXTERN)
#undef IOE_OPS_EXTERN

/*
 * pvsync2, io_uring, libaio: the RWF_* flags every I/O of a job carries
 * (uncached only when buffered, as fio).
 */
int ioe_rwf_flags(bool uncached, bool nowait, bool direct);

#endif /* IOPLAN_ENGINE_IOENGINE_H */

/*
 * engine/ioengine.h - the I/O engine plug-in contract and the unit of I/O (io_u).
 *
 * An engine is a const ops struct in its own file under engine/ioengines/, listed
 * in the one registry array in engine/ioengines.c.  A worker opens one engine
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
	void *eng_data;			/* engine's per-slot state */
};

enum ioe_q_status {
	IOE_Q_QUEUED = 0,		/* accepted; completes via commit/getevents */
	IOE_Q_COMPLETED = 1,		/* done; result is set */
	IOE_Q_BUSY = 2			/* no room; reap, then try again */
};

struct ioe_cfg {
	uint32_t depth;
	bool sqpoll;
	bool hipri;
	uint32_t hipri_percentage;	/* pvsync2: share of I/Os with RWF_HIPRI */
	int rwf_flags;			/* pvsync2, io_uring, libaio: RWF_* flags on every I/O */
	bool fixedbufs;
	bool registerfiles;
	bool vectored;			/* io_uring nonvectored=0: readv/writev SQEs */
	uint32_t force_async;		/* io_uring: IOSQE_ASYNC on every Nth SQE; 0 = never */
	int sq_cpu;			/* io_uring sqthread_poll_cpu; -1 = any */
	bool userspace_reap;		/* libaio: non-blocking reaps read the ring directly */
	const int *fds;			/* every file the worker opened, by file index */
	uint32_t nr_fds;
	const struct bufpool *bufs;	/* one buffer per slot */
};

struct ioe {
	const struct ioe_ops *ops;
	struct ioe_cfg cfg;
	void *priv;
	struct io_u **events;		/* completions of the last getevents() */
	bool is_sync;			/* queue() always completes */
};

struct ioe_ops {
	const char *name;
	enum plan_ioengine id;
	bool sync;			/* completes in queue(); no commit/getevents */
	bool open_rw;			/* files open read-write even for reads (falloc allocates on reads) */
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
};

/* The registered engine with this id, or NULL. */
const struct ioe_ops *ioe_find(enum plan_ioengine id);

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

/* Does u synchronously (pread/pwrite, or a discard for trims), setting u->result. */
void ioe_do_sync(struct io_u *u);

extern const struct ioe_ops ioe_null;
extern const struct ioe_ops ioe_psync;
extern const struct ioe_ops ioe_libaio;
extern const struct ioe_ops ioe_io_uring;
extern const struct ioe_ops ioe_pvsync;
extern const struct ioe_ops ioe_pvsync2;
extern const struct ioe_ops ioe_vsync;
extern const struct ioe_ops ioe_posixaio;
extern const struct ioe_ops ioe_mmap;
extern const struct ioe_ops ioe_falloc;
extern const struct ioe_ops ioe_ftruncate;
extern const struct ioe_ops ioe_sync;

/* pvsync2: the RWF_* flags every I/O of a job carries (uncached only when buffered, as fio). */
int ioe_pvsync2_flags(bool uncached, bool nowait, bool direct);

#endif /* IOPLAN_ENGINE_IOENGINE_H */

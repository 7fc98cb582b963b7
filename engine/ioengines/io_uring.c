/*
 * engine/ioengines/io_uring.c - io_uring through liburing 2.3's core API.
 *
 * queue() fills an SQE per I/O, commit() submits them all with one
 * io_uring_submit(), getevents() waits for the minimum with one io_uring_enter (or
 * none if the CQ ring already holds enough) and reaps a batch with
 * io_uring_peek_batch_cqe + io_uring_cq_advance.  The ring is created by the
 * worker thread that uses it, so SINGLE_ISSUER and COOP_TASKRUN are asked for
 * (and dropped on kernels that refuse them).
 *
 * Registered files and buffers save the kernel a file lookup and, with
 * O_DIRECT, a page pinning per I/O (about 10% of the CPU per I/O measured on a
 * virtio disk).  The job's registerfiles / fixedbufs make them required (an
 * error if refused); otherwise they are tried anyway -- files always, buffers
 * when all of them take at most AUTO_FIXEDBUFS_MAX of locked memory -- and a
 * refusal (RLIMIT_MEMLOCK, an old kernel) quietly leaves the plain path.
 * The worker opens its files once and keeps its buffers for the whole run,
 * which is what makes registering them safe.
 *
 * fio 3.33's other io_uring options act as in fio: nowait and uncached put
 * RWF_NOWAIT / RWF_UNCACHED in each SQE's rw_flags, force_async=N sets
 * IOSQE_ASYNC on every Nth SQE, sqthread_poll_cpu pins the SQ thread
 * (IORING_SETUP_SQ_AFF), nonvectored=0 issues readv/writev SQEs.
 */
#include <errno.h>
#include <liburing.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "engine/buffers.h"
#include "engine/ioengine.h"
#include "engine/ioengines/io_uring.h"

#define AUTO_FIXEDBUFS_MAX (16u << 20)

/* Its options (plan_engopts.h): the parser fills one per job from the table below. */
struct uring_opts {
	bool fixedbufs;			/* registered buffers, required */
	bool registerfiles;		/* registered files, required */
	bool sqthread_poll;		/* IORING_SETUP_SQPOLL */
	long long sq_cpu;		/* sqthread_poll_cpu: the SQ thread's CPU; -1 = any */
	long long force_async;		/* IOSQE_ASYNC on every Nth SQE; 0 = never */
	long long nonvectored;		/* -1 (fio's default) or 1: read/write SQEs; 0: readv/writev */
};

/* A ring made without a job (the engine's own tests): the table's defaults. */
static const struct uring_opts uring_defaults = { .sq_cpu = -1, .nonvectored = -1 };

#define URING_OPT(field) .off = offsetof(struct uring_opts, field)
static const struct plan_engopt uring_opts[] = {
	{ .name = "fixedbufs", .type = PLAN_ENGOPT_FLAG, .def = "0", .min = 1, .max = 0, URING_OPT(fixedbufs),
	  .help = "io_uring: registered buffers (locked memory: iodepth x bs x threads must fit ulimit -l "
		  "without CAP_IPC_LOCK, or the run is refused)." },
	{ .name = "registerfiles", .type = PLAN_ENGOPT_FLAG, .def = "0", .min = 1, .max = 0,
	  URING_OPT(registerfiles), .help = "io_uring: registered files." },
	{ .name = "sqthread_poll", .type = PLAN_ENGOPT_FLAG, .def = "0", .min = 1, .max = 0,
	  URING_OPT(sqthread_poll), .help = "io_uring: kernel submission polling thread." },
	{ .name = "sqthread_poll_cpu", .type = PLAN_ENGOPT_INT, .def = "-1", .min = -1, .max = 4095,
	  URING_OPT(sq_cpu), .help = "io_uring with sqthread_poll: the CPU the kernel's submission thread runs "
				     "on; -1: any." },
	{ .name = "force_async", .type = PLAN_ENGOPT_INT, .def = "0", .min = 0, .max = 4294967295.0,
	  URING_OPT(force_async), .help = "io_uring: set IOSQE_ASYNC (the kernel's worker threads) on every "
					  "Nth I/O; 0: never." },
	{ .name = "nonvectored", .type = PLAN_ENGOPT_INT, .def = "-1", .min = -1, .max = 1, URING_OPT(nonvectored),
	  .help = "io_uring: 1 or -1 (fio's default): plain read/write commands; 0: readv/writev commands." },
};
#undef URING_OPT

PLAN_ENGOPTS_DEFINE(io_uring, struct uring_opts, uring_opts);

struct uring {
	struct io_uring ring;
	struct uring_opts o;
	struct io_uring_cqe **cqes;
	struct iovec *iov;		/* nonvectored=0: one per slot */
	uint32_t nr_queued;
	uint64_t nr_prepped;		/* SQEs filled so far, for force_async */
	bool fixed_files;
	bool fixed_bufs;
	uint8_t last_flags;		/* of the last SQE filled (ioe_uring_last_sqe) */
	uint32_t last_rw_flags;
	uint8_t last_opcode;
};

static int ring_setup(struct ioe *e, struct uring *u)
{
	struct io_uring_params p;
	unsigned int base = 0, fast;
	int ret;

	memset(&p, 0, sizeof(p));
	if (u->o.sqthread_poll)
		base |= IORING_SETUP_SQPOLL;
	if (u->o.sqthread_poll && u->o.sq_cpu >= 0)
		base |= IORING_SETUP_SQ_AFF;
	if (e->cfg.hipri)
		base |= IORING_SETUP_IOPOLL;
	fast = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
	p.flags = base | (u->o.sqthread_poll ? 0 : fast);
	p.sq_thread_cpu = u->o.sq_cpu >= 0 ? (uint32_t)u->o.sq_cpu : 0;
	ret = io_uring_queue_init_params(e->cfg.depth, &u->ring, &p);
	if (ret == -EINVAL && p.flags != base) {
		memset(&p, 0, sizeof(p));
		p.flags = base;
		p.sq_thread_cpu = u->o.sq_cpu >= 0 ? (uint32_t)u->o.sq_cpu : 0;
		ret = io_uring_queue_init_params(e->cfg.depth, &u->ring, &p);
	}
	return ret;
}

static int register_files(struct ioe *e, struct uring *u)
{
	int ret;

	if (!e->cfg.nr_fds)
		return 0;
	ret = io_uring_register_files(&u->ring, e->cfg.fds, e->cfg.nr_fds);
	if (!ret)
		u->fixed_files = true;
	return u->o.registerfiles ? ret : 0;
}

/* The registered table follows the worker's descriptors, or I/O would go to the files they replaced. */
static int uring_files_reopened(struct ioe *e)
{
	struct uring *u = e->priv;
	int ret;

	if (!u->fixed_files)
		return 0;
	ret = io_uring_register_files_update(&u->ring, 0, e->cfg.fds, e->cfg.nr_fds);
	return ret < 0 ? ret : 0;
}

static bool wants_fixed_bufs(const struct ioe *e, const struct uring *u)
{
	if (!e->cfg.bufs || (!u->o.nonvectored && !u->o.fixedbufs))
		return false;	/* nonvectored=0 asks for readv/writev, which take no fixed buffers */
	return u->o.fixedbufs ||
	       (uint64_t)e->cfg.depth * e->cfg.bufs->stride <= AUTO_FIXEDBUFS_MAX;
}

static int register_bufs(struct ioe *e, struct uring *u)
{
	struct iovec *iov;
	int ret;

	if (!wants_fixed_bufs(e, u))
		return 0;
	iov = calloc(e->cfg.depth, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	for (uint32_t i = 0; i < e->cfg.depth; i++) {
		iov[i].iov_base = bufpool_at(e->cfg.bufs, i);
		iov[i].iov_len = e->cfg.bufs->stride;
	}
	ret = io_uring_register_buffers(&u->ring, iov, e->cfg.depth);
	free(iov);
	if (!ret)
		u->fixed_bufs = true;
	return u->o.fixedbufs ? ret : 0;
}

static int register_all(struct ioe *e, struct uring *u)
{
	int ret = register_files(e, u);

	return ret ? ret : register_bufs(e, u);
}

bool ioe_uring_last_sqe(const struct ioe *e, uint8_t *flags, uint32_t *rw_flags, uint8_t *opcode)
{
	const struct uring *u = e->priv;

	if (e->ops != &ioe_io_uring || !u)
		return false;
	*flags = u->last_flags;
	*rw_flags = u->last_rw_flags;
	*opcode = u->last_opcode;
	return true;
}

bool ioe_uring_registered(const struct ioe *e, bool *files, bool *bufs)
{
	const struct uring *u = e->priv;

	if (e->ops != &ioe_io_uring || !u)
		return false;
	*files = u->fixed_files;
	*bufs = u->fixed_bufs;
	return true;
}

static int uring_init(struct ioe *e)
{
	struct uring *u = calloc(1, sizeof(*u));
	int ret;

	if (!u)
		return -ENOMEM;
	u->o = ioe_job_opts(e) ? *(const struct uring_opts *)ioe_job_opts(e) : uring_defaults;
	u->cqes = calloc(e->cfg.depth, sizeof(*u->cqes));
	u->iov = !u->o.nonvectored ? calloc(e->cfg.depth, sizeof(*u->iov)) : NULL;
	if (!u->cqes || (!u->o.nonvectored && !u->iov)) {
		free(u->cqes);
		free(u->iov);
		free(u);
		return -ENOMEM;
	}
	ret = ring_setup(e, u);
	if (!ret) {
		ret = register_all(e, u);
		if (ret)
			io_uring_queue_exit(&u->ring);
	}
	if (ret) {
		free(u->cqes);
		free(u->iov);
		free(u);
		return ret;
	}
	e->priv = u;
	return 0;
}

static void uring_exit(struct ioe *e)
{
	struct uring *u = e->priv;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u->cqes);
	free(u->iov);
	free(u);
}

/* nonvectored=0: one iovec per slot (fixed buffers have no vectored form). */
static void prep_vectored(struct uring *r, struct io_uring_sqe *sqe, struct io_u *u, int fd)
{
	struct iovec *iov = &r->iov[u->slot];

	iov->iov_base = u->buf;
	iov->iov_len = u->len;
	if (u->ddir == PLAN_DDIR_READ)
		io_uring_prep_readv(sqe, fd, iov, 1, u->offset);
	else
		io_uring_prep_writev(sqe, fd, iov, 1, u->offset);
}

/* fio's per-SQE options: RWF_* flags, and IOSQE_ASYNC on every force_async-th SQE. */
static void sqe_options(const struct ioe *e, struct uring *r, struct io_uring_sqe *sqe)
{
	sqe->rw_flags = e->cfg.rwf_flags;
	if (r->o.force_async && ++r->nr_prepped % (uint64_t)r->o.force_async == 0)
		sqe->flags |= IOSQE_ASYNC;
	r->last_flags = sqe->flags;
	r->last_rw_flags = (uint32_t)sqe->rw_flags;
	r->last_opcode = sqe->opcode;
}

static void prep(const struct ioe *e, struct uring *r, struct io_uring_sqe *sqe, struct io_u *u)
{
	int fd = r->fixed_files ? (int)u->file : u->fd;

	if (r->iov && !r->fixed_bufs) {
		prep_vectored(r, sqe, u, fd);
	} else if (r->fixed_bufs) {
		if (u->ddir == PLAN_DDIR_READ)
			io_uring_prep_read_fixed(sqe, fd, u->buf, u->len, u->offset, (int)u->slot);
		else
			io_uring_prep_write_fixed(sqe, fd, u->buf, u->len, u->offset, (int)u->slot);
	} else if (u->ddir == PLAN_DDIR_READ) {
		io_uring_prep_read(sqe, fd, u->buf, u->len, u->offset);
	} else {
		io_uring_prep_write(sqe, fd, u->buf, u->len, u->offset);
	}
	if (r->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	sqe->ioprio = u->ioprio;	/* as fio: the SQ poll thread does not inherit ioprio_set() */
	sqe_options(e, r, sqe);
	io_uring_sqe_set_data(sqe, u);
}

static int uring_queue(struct ioe *e, struct io_u *u)
{
	struct uring *r = e->priv;
	struct io_uring_sqe *sqe;

	if (u->ddir == PLAN_DDIR_TRIM) {
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	sqe = io_uring_get_sqe(&r->ring);
	if (!sqe)
		return IOE_Q_BUSY;
	prep(e, r, sqe, u);
	r->nr_queued++;
	return IOE_Q_QUEUED;
}

static int uring_commit(struct ioe *e)
{
	struct uring *r = e->priv;
	int ret;

	if (!r->nr_queued)
		return 0;
	do
		ret = io_uring_submit(&r->ring);
	while (ret == -EINTR);
	if (ret == -EAGAIN || ret == -EBUSY)
		return 0;	/* left in the SQ ring; resubmitted after a reap */
	if (ret < 0)
		return ret;
	/* Under sqthread_poll the count is of every entry the kernel thread has not taken
	 * yet, earlier submissions' too: only this commit's own are the worker's to count. */
	if ((uint32_t)ret > r->nr_queued)
		ret = (int)r->nr_queued;
	r->nr_queued -= (uint32_t)ret;
	return ret;
}

static int uring_getevents(struct ioe *e, uint32_t min, uint32_t max, uint64_t timeout_ns)
{
	struct uring *r = e->priv;
	struct __kernel_timespec ts = { (long long)(timeout_ns / 1000000000ull),
					(long long)(timeout_ns % 1000000000ull) };
	struct io_uring_cqe *cqe;
	unsigned int n;
	int ret;

	if (min) {
		ret = io_uring_wait_cqes(&r->ring, &cqe, min, &ts, NULL);
		if (ret < 0 && ret != -ETIME && ret != -EINTR)
			return ret;
	}
	n = io_uring_peek_batch_cqe(&r->ring, r->cqes, max);
	unsigned int got = 0;
	for (unsigned int i = 0; i < n; i++) {
		struct io_u *u = io_uring_cqe_get_data(r->cqes[i]);

		if (!u)
			continue;	/* uring_cancel's own answer */
		u->result = r->cqes[i]->res;
		e->events[got++] = u;
	}
	io_uring_cq_advance(&r->ring, n);
	return (int)got;
}

/*
 * One ASYNC_CANCEL for any request (kernel 5.19): each comes back -ECANCELED,
 * or done if it had begun.  Asked with nothing queued (the worker's commits
 * are all in), so the submit carries only the cancel; -EBUSY: try again.
 */
static int uring_cancel(struct ioe *e)
{
	struct uring *r = e->priv;
	struct io_uring_sqe *sqe = r->nr_queued ? NULL : io_uring_get_sqe(&r->ring);
	int ret;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	io_uring_sqe_set_data(sqe, NULL);
	do
		ret = io_uring_submit(&r->ring);
	while (ret == -EINTR);
	return ret < 0 ? ret : 0;
}

const struct ioe_ops ioe_io_uring = {
	.id = PLAN_IOENGINE_IO_URING,
	.init = uring_init,
	.exit = uring_exit,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
	.files_reopened = uring_files_reopened,
	.cancel = uring_cancel,
};

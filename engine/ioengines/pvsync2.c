/*
 * engine/ioengines/pvsync2.c - preadv2/pwritev2 with per-I/O RWF_* flags: fio's pvsync2.
 *
 * The flags follow fio 3.33: hipri sets RWF_HIPRI on hipri_percentage of the I/Os
 * (drawn per I/O), uncached sets RWF_UNCACHED on buffered I/O only, nowait sets
 * RWF_NOWAIT.  RWF_UNCACHED never reached mainline headers; fio defines it as
 * 0x40, which newer kernels give another meaning (RWF_ATOMIC), so a kernel may
 * refuse it: the I/O then fails with the kernel's errno, as fio's does.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "engine/ioengine.h"

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x00000001
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif
#ifndef RWF_UNCACHED
#define RWF_UNCACHED 0x00000040		/* fio 3.33's value (os/os-linux.h) */
#endif

struct pv2 {
	int flags;			/* the fixed flags: uncached, nowait */
	uint32_t hipri_pct;		/* 0: never RWF_HIPRI */
	uint64_t rng;			/* xorshift state for hipri_percentage */
};

static int pv2_init(struct ioe *e)
{
	struct pv2 *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->flags = e->cfg.rwf_flags;
	p->hipri_pct = e->cfg.hipri ? e->cfg.hipri_percentage : 0;
	p->rng = 0x9e3779b97f4a7c15ull;
	e->priv = p;
	return 0;
}

static void pv2_exit(struct ioe *e)
{
	free(e->priv);
}

/* The flags of one I/O: hipri is a draw per I/O, as fio's rand_between(1, 100). */
static int pv2_flags(struct pv2 *p)
{
	if (!p->hipri_pct)
		return p->flags;
	if (p->hipri_pct >= 100)
		return p->flags | RWF_HIPRI;
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 7;
	p->rng ^= p->rng << 17;
	return p->rng % 100 < p->hipri_pct ? p->flags | RWF_HIPRI : p->flags;
}

static int pv2_queue(struct ioe *e, struct io_u *u)
{
	struct iovec iov = { .iov_base = u->buf, .iov_len = u->len };
	ssize_t r;

	if (u->ddir == PLAN_DDIR_READ)
		r = preadv2(u->fd, &iov, 1, (off_t)u->offset, pv2_flags(e->priv));
	else if (u->ddir == PLAN_DDIR_WRITE)
		r = pwritev2(u->fd, &iov, 1, (off_t)u->offset, pv2_flags(e->priv));
	else {
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	u->result = r < 0 ? -errno : r;
	return IOE_Q_COMPLETED;
}

/* The fixed RWF_* flags a job asks for; uncached only applies to buffered I/O (as fio). */
int ioe_rwf_flags(bool uncached, bool nowait, bool direct)
{
	return (uncached && !direct ? RWF_UNCACHED : 0) | (nowait ? RWF_NOWAIT : 0);
}

const struct ioe_ops ioe_pvsync2 = {
	.id = PLAN_IOENGINE_PVSYNC2,
	.sync = true,
	.init = pv2_init,
	.exit = pv2_exit,
	.queue = pv2_queue,
};

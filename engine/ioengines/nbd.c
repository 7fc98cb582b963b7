/*
 * engine/ioengines/nbd.c - an NBD server as the target, through libnbd: fio's nbd engine.
 *
 * uri= names the export (nbd://host/name, nbd+unix:///?socket=PATH, ...), as
 * fio 3.33's engines/nbd.c.  Each thread opens its own connection; reads,
 * writes and trims are libnbd's asynchronous commands, iodepth of them in
 * flight, and a completion callback hands each one back; a sync (fsync=N,
 * end_fsync) is the export's flush.  Without size= the
 * export's size bounds the job, as fio takes it from the server.  Every wait
 * on the server (connect, completions, a flush, a verify read, the end) is in
 * slices a stop or the end of runtime cuts: a server that stops answering
 * cannot hold the run.
 *
 * Safety (docs/safety.md): nothing local is opened or laid out.
 * The only target written is the export the job's own uri= names, so the job
 * text is the user's explicit consent, as filename= of a device with
 * allow_device_write is; a job without uri= is refused before it runs.
 *
 * The engine is built only when pkg-config finds libnbd (Makefile defines
 * IOPLAN_HAVE_LIBNBD); otherwise this file holds a stub that --enghelp lists as
 * unavailable.  Its options table is here either way: uri= stays a known option.
 * libnbd is opened (dlopen) when a run first asks for the engine, not linked:
 * with its dependencies (GnuTLS, libxml2, ICU and eight more) it cost every
 * ioplan start about 11 ms of CPU (`ioplan --version`: 26 ms, now 15), and a
 * machine without libnbd still runs every other engine.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "engine/ioengine.h"

/* Its options (plan_engopts.h): the parser fills one per job from the table below. */
struct nbd_opts {
	char *uri;			/* nbd://host/export, nbd+unix:///?socket=PATH */
};

static const struct plan_engopt nbd_opts[] = {
	{ .name = "uri", .type = PLAN_ENGOPT_STRING, .min = 1, .max = 0, .off = offsetof(struct nbd_opts, uri),
	  .help = "nbd: the NBD server and export, as a URI (nbd://host/export, nbd+unix:///?socket=PATH).",
	  .required = "the NBD server and export it writes to" },
};

PLAN_ENGOPTS_DEFINE(nbd, struct nbd_opts, nbd_opts);

#ifndef IOPLAN_HAVE_LIBNBD
/* Built without libnbd: the name stays known, a job asking for it is refused. */
const struct ioe_ops ioe_nbd = {
	.id = PLAN_IOENGINE_NBD,
	.unavailable = "built without its library",
};
#else
#include <dlfcn.h>
#include <libnbd.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define NBD_SLICE_MS 100	/* longest blind wait on the server: a stop is seen this fast */
#define NBD_CONNECT_MS 10000	/* a connection outside a run (sizing the export) gives up here */
#define NBD_DRAIN_MS 200	/* commands in flight at the end get this long to come back */

struct nbd_data {
	struct nbd_handle *h;
	struct io_u **done;		/* completed, not yet handed back */
	uint32_t nr_done;
	uint32_t nr_queued;		/* issued since the last commit */
	bool abandoned;			/* a command waited for got no answer: the connection is given up */
};

/* The libnbd calls this file makes, found in the library by name when it is opened. */
#define NBD_LIB_SONAME "libnbd.so.0"
#define NBD_LIB_CALLS(X)                                                                        \
	X(nbd_create) X(nbd_close) X(nbd_get_errno) X(nbd_get_size) X(nbd_poll) X(nbd_shutdown) \
	X(nbd_aio_connect_uri) X(nbd_aio_is_connecting) X(nbd_aio_is_ready) X(nbd_aio_in_flight) \
	X(nbd_aio_pread) X(nbd_aio_pwrite) X(nbd_aio_trim) X(nbd_aio_flush) X(nbd_aio_command_completed)

static struct {
#define NBD_LIB_PTR(f) __typeof__(f) *f;
	NBD_LIB_CALLS(NBD_LIB_PTR)
#undef NBD_LIB_PTR
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static char lib_why[512];	/* why it could not be opened; empty once it was */

static void nbd_lib_open(void)
{
	void *h = dlopen(NBD_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

	if (!h) {
		snprintf(lib_why, sizeof(lib_why), "%s", dlerror());
		return;
	}
	/* POSIX's way to a function pointer from dlsym: ISO C has no cast between the two. */
#define NBD_LIB_SYM(f) \
	if (!missing && !(*(void **)&lib.f = dlsym(h, #f))) \
		missing = #f;
	NBD_LIB_CALLS(NBD_LIB_SYM)
#undef NBD_LIB_SYM
	if (missing)
		snprintf(lib_why, sizeof(lib_why), "%s has no %s", NBD_LIB_SONAME, missing);
	/* Kept open: the pointers above point into it for the rest of the process. */
}

/* ioe_ops.load: libnbd opened once, whichever thread asks first. */
static const char *nbd_lib_load(void)
{
	pthread_once(&lib_once, nbd_lib_open);
	return lib_why[0] ? lib_why : NULL;
}

static int nbd_err(void)
{
	int e = lib.nbd_get_errno();

	return e ? -e : -EIO;
}

/*
 * Connects in slices of NBD_SLICE_MS so a server that never answers cannot
 * hold the run: stopping (the worker's stop or runtime) or, without it,
 * NBD_CONNECT_MS ends the wait.
 */
static int nbd_connect_wait(struct nbd_handle *h, const char *uri, int (*stopping)(void *), void *arg)
{
	int waited = 0, r;

	if (lib.nbd_aio_connect_uri(h, uri) == -1)
		return nbd_err();
	while (lib.nbd_aio_is_connecting(h)) {
		if ((r = stopping ? stopping(arg) : waited >= NBD_CONNECT_MS ? -ETIMEDOUT : 0))
			return r;
		if (lib.nbd_poll(h, NBD_SLICE_MS) == -1)
			return nbd_err();
		waited += NBD_SLICE_MS;
	}
	return lib.nbd_aio_is_ready(h) ? 0 : nbd_err();
}

/* A connected handle, or NULL with *err set. */
static struct nbd_handle *nbd_open_uri(const char *uri, int *err, int (*stopping)(void *), void *arg)
{
	struct nbd_handle *h = lib.nbd_create();

	if (!h) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = uri ? nbd_connect_wait(h, uri, stopping, arg) : -EINVAL;
	if (*err) {
		lib.nbd_close(h);
		return NULL;
	}
	return h;
}

static int nbd_size(const struct plan_job *j, uint64_t *size)
{
	int err = 0;
	const struct nbd_opts *o = j->engine_opts;
	struct nbd_handle *h = nbd_open_uri(o ? o->uri : NULL, &err, NULL, NULL);
	int64_t s;

	if (!h)
		return err;
	s = lib.nbd_get_size(h);
	lib.nbd_close(h);
	if (s < 0)
		return -EIO;
	*size = (uint64_t)s;
	return 0;
}

static void nbd_exit(struct ioe *e);

/* ioe_open does not call exit after a failed init: what was made is released here. */
static int nbd_init(struct ioe *e)
{
	struct nbd_data *d = calloc(1, sizeof(*d));
	int err = 0;

	if (!d)
		return -ENOMEM;
	e->priv = d;
	d->done = calloc(e->cfg.depth, sizeof(*d->done));
	if (d->done)
		d->h = nbd_open_uri(((const struct nbd_opts *)ioe_job_opts(e))->uri, &err, e->cfg.stopping,
				    e->cfg.stop_arg);
	else
		err = -ENOMEM;
	if (d->h)
		return 0;
	nbd_exit(e);
	e->priv = NULL;
	return err;
}

static void nbd_exit(struct ioe *e)
{
	struct nbd_data *d = e->priv;

	if (!d)
		return;
	if (d->h) {
		/*
		 * Commands still in flight (a stop) may finish before the handle goes,
		 * for NBD_DRAIN_MS at most: a server that does not answer is left
		 * without the polite disconnect (which would wait for it too).
		 */
		for (int ms = 0; !d->abandoned && lib.nbd_aio_in_flight(d->h) > 0 && ms < NBD_DRAIN_MS;
		     ms += NBD_SLICE_MS)
			if (lib.nbd_poll(d->h, NBD_SLICE_MS) == -1)
				break;
		if (lib.nbd_aio_in_flight(d->h) <= 0)
			lib.nbd_shutdown(d->h, 0);
		lib.nbd_close(d->h);
	}
	free(d->done);
	free(d);
}

static int nbd_completed(void *user_data, int *error)
{
	struct io_u *u = user_data;
	struct nbd_data *d = u->eng_data;

	u->result = *error ? -(int64_t)*error : (int64_t)u->len;
	d->done[d->nr_done++] = u;
	return 1;	/* retires the command: no nbd_aio_command_completed needed */
}

static int nbd_queue(struct ioe *e, struct io_u *u)
{
	struct nbd_data *d = e->priv;
	nbd_completion_callback cb = { .callback = nbd_completed, .user_data = u };
	int64_t r;

	u->eng_data = d;
	if (d->abandoned) {
		u->result = -ETIMEDOUT;
		return IOE_Q_COMPLETED;
	}
	if (u->ddir == PLAN_DDIR_READ)
		r = lib.nbd_aio_pread(d->h, u->buf, u->len, u->offset, cb, 0);
	else if (u->ddir == PLAN_DDIR_WRITE)
		r = lib.nbd_aio_pwrite(d->h, u->buf, u->len, u->offset, cb, 0);
	else
		r = lib.nbd_aio_trim(d->h, u->len, u->offset, cb, 0);
	if (r == -1) {
		u->result = nbd_err();
		return IOE_Q_COMPLETED;
	}
	d->nr_queued++;
	return IOE_Q_QUEUED;
}

/* libnbd sends each command as it is queued: commit only counts them. */
static int nbd_commit(struct ioe *e)
{
	struct nbd_data *d = e->priv;
	int n = (int)d->nr_queued;

	d->nr_queued = 0;
	return n;
}

static int nbd_getevents(struct ioe *e, uint32_t min, uint32_t max, uint64_t timeout_ns)
{
	struct nbd_data *d = e->priv;
	int ms = timeout_ns / 1000000u > 60000u ? 60000 : (int)(timeout_ns / 1000000u), r;

	if (d->abandoned)
		return -ETIMEDOUT;
	/* Replies are read only inside nbd_poll: poll once even when none must wait. */
	do {
		r = lib.nbd_poll(d->h, d->nr_done >= min ? 0 : (ms ? ms : 1));
		if (r == -1)
			return nbd_err();
	} while (d->nr_done < min && r > 0);
	return (int)ioe_hand_back(e, d->done, &d->nr_done, d->nr_done, max);
}

static uint64_t nbd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Waits for the command cookie names (a flush or verify read the worker waits
 * on, not one of its I/Os in flight), in slices of NBD_SLICE_MS: libnbd's own
 * blocking calls wait for ever, and a server that stopped answering held the
 * run past runtime and past SIGINT.  Once the worker is stopping (a stop, or
 * runtime is over) the server gets IOE_REMOTE_SILENCE_STOP_NS or
 * IOE_REMOTE_SILENCE_NS more, as the worker gives the I/Os in flight; then the
 * connection is given up (-ETIMEDOUT).  Replies to I/Os in flight that come
 * meanwhile are kept for getevents.  0 or -errno.
 */
static int nbd_wait_command(struct ioe *e, int64_t cookie)
{
	struct nbd_data *d = e->priv;
	uint64_t ended = 0, stopped = 0, now;	/* when runtime's end, a stop, was first seen */
	int r;

	if (cookie == -1)
		return nbd_err();
	while ((r = lib.nbd_aio_command_completed(d->h, (uint64_t)cookie)) == 0) {
		now = nbd_now_ns();
		r = e->cfg.stopping ? e->cfg.stopping(e->cfg.stop_arg) : 0;
		if (r && !ended)
			ended = now;
		if (r == -EINTR && !stopped)
			stopped = now;	/* a stop after runtime's end shortens the wait still */
		if ((ended && now >= ended + IOE_REMOTE_SILENCE_NS) ||
		    (stopped && now >= stopped + IOE_REMOTE_SILENCE_STOP_NS)) {
			/*
			 * Never polled again (getevents fails at once, exit does not
			 * drain): a late reply could land in a buffer no longer waited on.
			 */
			d->abandoned = true;
			return -ETIMEDOUT;
		}
		if (lib.nbd_poll(d->h, NBD_SLICE_MS) == -1)
			return nbd_err();
	}
	return r == 1 ? 0 : nbd_err();
}

static int64_t nbd_read_sync(struct ioe *e, void *buf, uint32_t len, uint64_t off)
{
	struct nbd_data *d = e->priv;
	int r;

	if (d->abandoned)
		return -ETIMEDOUT;
	r = nbd_wait_command(e, lib.nbd_aio_pread(d->h, buf, len, off, NBD_NULL_COMPLETION, 0));
	return r ? r : (int64_t)len;
}

/*
 * fsync=N, end_fsync: the export's flush, as fio's nbd engine sends for a
 * sync.  The writes still in flight stay so; this waits for the flush's reply.
 */
static int nbd_flush_sync(struct ioe *e)
{
	struct nbd_data *d = e->priv;

	if (d->abandoned)
		return -ETIMEDOUT;
	return nbd_wait_command(e, lib.nbd_aio_flush(d->h, NBD_NULL_COMPLETION, 0));
}

const struct ioe_ops ioe_nbd = {
	.no_open = true,
	.no_layout = true,		/* nothing local: the peer or export is the target */
	.remote = true,
	.id = PLAN_IOENGINE_NBD,
	.init = nbd_init,
	.exit = nbd_exit,
	.queue = nbd_queue,
	.commit = nbd_commit,
	.getevents = nbd_getevents,
	.pread_sync = nbd_read_sync,
	.flush_sync = nbd_flush_sync,
	.target_size = nbd_size,
	.load = nbd_lib_load,
};
#endif /* IOPLAN_HAVE_LIBNBD */

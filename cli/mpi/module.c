/*
 * cli/mpi/module.c - ioplan's MPI module: the collectives a synchronised,
 * merged run needs, built with mpicc into ioplan-mpi.so and dlopen'ed by
 * cli/mpi/mpi.cpp under mpirun (cli/mpi/mpi_module.h says why a module).
 *
 * Hand-written because it is the thin glue between ioplan and the MPI the
 * system ships; MPI itself does the work.  Every wait is a non-blocking call
 * polled against a deadline (MPI's blocking calls wait forever for a lost
 * rank): past it the caller gets -ETIMEDOUT and decides to abort.
 *
 * Two threads call in (the engine's coordinator through the run's hooks, the
 * supervisor for live status and interim reports) while MPI runs
 * MPI_THREAD_SERIALIZED: every MPI call is made under one lock, which polled
 * waits drop while they sleep, so neither thread holds the other up.
 */
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/mpi/mpi_module.h"

static char library[MPI_MAX_LIBRARY_VERSION_STRING];
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

/* One MPI call under the lock: LOCKED(MPI_Test(...)) is its return code. */
#define LOCKED(call)                                  \
	({                                            \
		pthread_mutex_lock(&mpi_lock);        \
		int rc_ = (call);                     \
		pthread_mutex_unlock(&mpi_lock);      \
		rc_;                                  \
	})

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Polls req until it completes or timeout_s passes.  Sleeps grow from 20 us
 * to 1 ms so a quick collective stays quick and 64 ranks oversubscribed on
 * two cores do not spin each other off the CPU.
 */
static int wait_req(MPI_Request *req, MPI_Status *st, double timeout_s)
{
	double deadline = now_s() + timeout_s;
	useconds_t nap = 20;
	int done = 0;

	for (;;) {
		if (LOCKED(MPI_Test(req, &done, st ? st : MPI_STATUS_IGNORE)) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		if (now_s() > deadline)
			return -ETIMEDOUT;
		usleep(nap);
		if (nap < 1000)
			nap *= 2;
	}
}

static int m_init(int *rank, int *size, int *local_rank, char *host, size_t host_len)
{
	int provided, len = 0, flag = 0;
	MPI_Comm local;

	MPI_Initialized(&flag);
	if (!flag && MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
		return -EIO;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	/* Ranks sharing memory share a host: the local rank is the rank among them. */
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &local) ==
	    MPI_SUCCESS) {
		MPI_Comm_rank(local, local_rank);
		MPI_Comm_free(&local);
	} else {
		*local_rank = 0;
	}
	if (gethostname(host, host_len) != 0)
		host[0] = '\0';
	host[host_len - 1] = '\0';
	MPI_Get_library_version(library, &len);
	library[strcspn(library, ",\n")] = '\0';
	return 0;
}

static int m_barrier(double timeout_s)
{
	MPI_Request req;

	if (LOCKED(MPI_Ibarrier(MPI_COMM_WORLD, &req)) != MPI_SUCCESS)
		return -EIO;
	return wait_req(&req, NULL, timeout_s);
}

static int m_bcast(void *buf, size_t len, int root, double timeout_s)
{
	MPI_Request req;

	if (LOCKED(MPI_Ibcast(buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD, &req)) != MPI_SUCCESS)
		return -EIO;
	return wait_req(&req, NULL, timeout_s);
}

static int m_allreduce_i64(int64_t *vals, int n, enum ioplan_mpi_op op, double timeout_s)
{
	MPI_Op mop = op == IOPLAN_MPI_MIN ? MPI_MIN : op == IOPLAN_MPI_MAX ? MPI_MAX : MPI_SUM;
	MPI_Request req;

	if (LOCKED(MPI_Iallreduce(MPI_IN_PLACE, vals, n, MPI_INT64_T, mop, MPI_COMM_WORLD, &req)) !=
	    MPI_SUCCESS)
		return -EIO;
	return wait_req(&req, NULL, timeout_s);
}

static int m_gather(const void *mine, size_t len, void *all, int root, double timeout_s)
{
	MPI_Request req;

	if (LOCKED(MPI_Igather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, root,
			       MPI_COMM_WORLD, &req)) != MPI_SUCCESS)
		return -EIO;
	return wait_req(&req, NULL, timeout_s);
}

static int m_send(const void *buf, size_t len, int dest, int tag, double timeout_s)
{
	MPI_Request req;

	if (len > (size_t)0x7fffffff)
		return -EMSGSIZE;
	if (LOCKED(MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)) != MPI_SUCCESS)
		return -EIO;
	return wait_req(&req, NULL, timeout_s);
}

/*
 * Posts a send and returns at once: *req for m_test.  The buffer must stay
 * as it is until m_test says the send is done.
 */
static int m_isend(const void *buf, size_t len, int dest, int tag, void **req)
{
	MPI_Request *r;

	if (len > (size_t)0x7fffffff)
		return -EMSGSIZE;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (LOCKED(MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r)) != MPI_SUCCESS) {
		free(r);
		return -EIO;
	}
	*req = r;
	return 0;
}

/*
 * Whether a posted send is done (*done 1: req is freed).  A failed test frees
 * req too: every caller forgets a request whose test failed.
 */
static int m_test(void *req, int *done)
{
	MPI_Request *r = req;

	*done = 0;
	if (LOCKED(MPI_Test(r, done, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
		free(r);
		return -EIO;
	}
	if (*done)
		free(r);
	return 0;
}

/* Waits for a message's envelope (its size) before posting the receive. */
static int m_recv(void **buf, size_t *len, int src, int tag, int *from, double timeout_s)
{
	double deadline = now_s() + timeout_s;
	useconds_t nap = 20;
	MPI_Status st;
	int flag = 0, count = 0;

	while (!flag) {
		if (LOCKED(MPI_Iprobe(src < 0 ? MPI_ANY_SOURCE : src, tag, MPI_COMM_WORLD, &flag, &st)) !=
		    MPI_SUCCESS)
			return -EIO;
		if (flag)
			break;
		if (now_s() > deadline)
			return -ETIMEDOUT;
		usleep(nap);
		if (nap < 1000)
			nap *= 2;
	}
	MPI_Get_count(&st, MPI_BYTE, &count);
	*buf = malloc(count ? (size_t)count : 1);
	if (!*buf)
		return -ENOMEM;
	if (LOCKED(MPI_Recv(*buf, count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
		free(*buf);
		*buf = NULL;
		return -EIO;
	}
	*len = (size_t)count;
	*from = st.MPI_SOURCE;
	return 0;
}

static void m_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

static int m_finalize(void)
{
	return MPI_Finalize() == MPI_SUCCESS ? 0 : -EIO;
}

static const struct ioplan_mpi_ops ops = {
	.abi = IOPLAN_MPI_ABI,
	.library = library,
	.init = m_init,
	.barrier = m_barrier,
	.bcast = m_bcast,
	.allreduce_i64 = m_allreduce_i64,
	.gather = m_gather,
	.send = m_send,
	.recv = m_recv,
	.isend = m_isend,
	.test = m_test,
	.abort_world = m_abort,
	.finalize = m_finalize,
};

const struct ioplan_mpi_ops *ioplan_mpi_module(void);

const struct ioplan_mpi_ops *ioplan_mpi_module(void)
{
	return &ops;
}

/*
 * cli/mpi/mpi_module.h - the C interface between ioplan and its MPI module.
 *
 * Why a module: MPI must stay optional (a plain build and a plain run need no
 * libmpi), and Open MPI and MPICH are not ABI-compatible, so no binary can
 * link one MPI for everybody.  The few collectives ioplan needs live in a
 * small shared object (cli/mpi/module.c) built with the MPI's own mpicc and
 * dlopen'ed only when a launcher's variables say this process is a rank
 * (cli/mpi/mpi.cpp).  A second binary (ioplan-mpi, GROMACS's gmx_mpi pattern)
 * would have doubled what users install and pick between; the module keeps
 * one command, `mpirun ioplan job.fio`, and a build without mpicc omits it.
 *
 * Every wait takes a deadline (seconds) and is a non-blocking MPI call polled
 * until it completes or the deadline passes: 0, or -ETIMEDOUT (the caller
 * names who is missing and calls abort_world, so a lost rank never hangs the
 * others).  Plain C so the module needs no C++ runtime.
 */
#ifndef IOPLAN_MPI_MODULE_H
#define IOPLAN_MPI_MODULE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IOPLAN_MPI_ABI 2
#define IOPLAN_MPI_ENTRY "ioplan_mpi_module"

enum ioplan_mpi_op { IOPLAN_MPI_MIN = 0, IOPLAN_MPI_MAX, IOPLAN_MPI_SUM };

struct ioplan_mpi_ops {
	uint32_t abi;			/* IOPLAN_MPI_ABI */
	const char *library;		/* "Open MPI 4.1.4", from MPI_Get_library_version */
	/* MPI_Init_thread (serialized: the engine's coordinator calls the hooks). */
	int (*init)(int *rank, int *size, int *local_rank, char *host, size_t host_len);
	int (*barrier)(double timeout_s);
	int (*bcast)(void *buf, size_t len, int root, double timeout_s);
	int (*allreduce_i64)(int64_t *vals, int n, enum ioplan_mpi_op op, double timeout_s);
	/* root gets size * len bytes in all (rank order); others pass all = NULL. */
	int (*gather)(const void *mine, size_t len, void *all, int root, double timeout_s);
	int (*send)(const void *buf, size_t len, int dest, int tag, double timeout_s);
	/* From src (-1: any rank): *buf malloc'ed, *len, *from the sender. */
	int (*recv)(void **buf, size_t *len, int src, int tag, int *from, double timeout_s);
	/* Non-blocking send: *req until test() says done or fails (then freed); buf kept till then. */
	int (*isend)(const void *buf, size_t len, int dest, int tag, void **req);
	int (*test)(void *req, int *done);
	void (*abort_world)(int code);
	int (*finalize)(void);
};

typedef const struct ioplan_mpi_ops *(*ioplan_mpi_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_MPI_MODULE_H */

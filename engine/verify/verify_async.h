/*
 * engine/verify/verify_async.h - verify_async: threads that check read-back blocks off the I/O thread.
 *
 * fio's verify_async=N starts N threads per job that verify what the I/O
 * thread read, so checksums do not hold up the I/O.  Here the I/O thread takes
 * a slot (a buffer of its own), reads into it, and submits it; a checker
 * thread runs vfy_check (or vfy_check_zero for trimmed blocks) on it with a
 * checksum state of its own and hands it back with what it found.  The I/O
 * thread reaps checked slots and reports their mismatches itself, so errors,
 * verify_dump files and verify_fatal are handled on one thread as without
 * verify_async.  A fixed set of slots bounds the memory; the I/O thread waits
 * for a checked one when all are in use.
 */
#ifndef IOPLAN_ENGINE_VERIFY_ASYNC_H
#define IOPLAN_ENGINE_VERIFY_ASYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/plan.h"
#include "engine/verify/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VASYNC_BAD_MAX 8	/* mismatches described per slot */

struct vasync_slot {
	struct vasync_slot *next;
	uint8_t *buf;			/* the slot's own buffer, vasync.buf_bytes long */
	uint64_t len;			/* bytes to check */
	uint64_t offset;		/* file offset of buf[0] */
	uint64_t io_len;		/* the written I/Os' length in it (vfy_check; 0: one) */
	uint32_t file;			/* the worker's file index */
	bool zero;			/* trimmed: check for zeroes, not headers */
	int32_t numberio;		/* the write number its headers must hold (vfy.want_numberio); -1: any */
	uint32_t nbad;			/* set by the checker */
	struct vfy_bad bad[VASYNC_BAD_MAX];
};

struct vasync_thread;

struct vasync {
	pthread_mutex_t mu;
	pthread_cond_t work_cv;		/* a slot was submitted, or exit */
	pthread_cond_t done_cv;		/* a slot was checked */
	struct vasync_slot *slots;
	struct vasync_slot *free_list, *todo, *todo_tail, *done, *done_tail;
	uint32_t nr_slots;
	uint32_t out;			/* submitted, not reaped yet */
	uint64_t buf_bytes;
	struct vasync_thread *thr;	/* the checkers, each with its own context */
	uint32_t nr_threads;
	bool exit;
};

/*
 * Starts n checker threads (on the CPUs of cpus, none set = any) with contexts
 * cloned from proto, and 2n + 1 slots of buf_bytes each.  0 or -errno (then
 * nothing is left running).
 */
int vasync_start(struct vasync *a, const struct vfy *proto, uint32_t n, const struct plan_cpus *cpus,
		 uint64_t buf_bytes);

/* Stops the threads (after the slots submitted are checked) and frees everything. */
void vasync_stop(struct vasync *a);

/* A free slot, or NULL when every slot is submitted or waits to be reaped. */
struct vasync_slot *vasync_get(struct vasync *a);

/* Hands a filled slot (len, offset, file, zero set) to the checkers. */
void vasync_submit(struct vasync *a, struct vasync_slot *s);

/*
 * A checked slot, for the caller to report and vasync_put; with wait, waits
 * for one while any is submitted.  NULL when none is (or none is ready).
 */
struct vasync_slot *vasync_reap(struct vasync *a, bool wait);

/* Gives a reaped slot back. */
void vasync_put(struct vasync *a, struct vasync_slot *s);

/* Chunks the checker threads checked, summed (their contexts' counters). */
uint64_t vasync_checks(struct vasync *a);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_VERIFY_ASYNC_H */

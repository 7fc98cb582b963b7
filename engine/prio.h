/*
 * engine/prio.h - I/O priorities: the thread's own (fio's prio, prioclass) and
 * the per-I/O priorities of fio's cmdprio options (libaio, io_uring).
 *
 * A job with cmdprio_percentage or cmdprio_bssplit draws, per read or write,
 * whether the I/O goes out at a priority of its own (fio's
 * fio_cmdprio_set_ioprio: one draw in 0..99 against the share of its block
 * size) and records its latency per priority (results.h struct res_prio), so
 * reports show what the priority bought.  A job without them has no struct
 * prio_pick at all: the I/O loop tests one pointer and does nothing else.
 */
#ifndef IOPLAN_ENGINE_PRIO_H
#define IOPLAN_ENGINE_PRIO_H

#include <stdint.h>

#include "engine/ioengine.h"
#include "engine/plan.h"
#include "engine/results.h"
#include "engine/gen/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Linux's ioprio classes (linux/ioprio.h): fio's prioclass/cmdprio_class values. */
#define PRIO_CLASS_RT 1u
#define PRIO_CLASS_BE 2u

/* One way an I/O of a block size can go (cmdprio_percentage: any size). */
struct prio_choice {
	uint64_t bs;			/* 0: any block size */
	uint32_t total;			/* percentage of every choice of this size */
	uint32_t upto;			/* cumulative percentage, this choice included */
	uint16_t ioprio;
	uint8_t idx;			/* its entry in res_ddir.prios */
};

struct prio_dir {
	uint32_t nr;			/* 0: this direction's I/Os keep the thread's priority */
	struct prio_choice ch[PLAN_CMDPRIO_SPLIT_MAX];
};

struct prio_pick {
	uint64_t rng;
	uint16_t def;			/* the thread's priority (0: none set) */
	struct prio_dir dir[2];		/* read, write */
};

/* fio's ioprio_value(): class 0 (none) is best effort. */
static inline uint16_t prio_value(uint32_t prio_class, uint32_t level)
{
	return (uint16_t)(((prio_class ? prio_class : PRIO_CLASS_BE) << PLAN_IOPRIO_CLASS_SHIFT) | level);
}

/* The thread's priority a job asks for (prio/prioclass), 0 when it sets none. */
uint16_t prio_of_job(const struct plan_job *j);

/* ioprio_set() for the calling thread when the job sets prio/prioclass.  0 or -errno. */
int prio_set_thread(const struct plan_job *j);

/*
 * The cmdprio state of a clone, or *out = NULL when the job uses none (or its
 * engine is neither libaio nor io_uring).  Gives res's directions their
 * per-priority entries (histograms as the job's percentiles need).  0 or -ENOMEM.
 */
int prio_pick_new(const struct plan_job *j, uint64_t seed, struct res_clone *res, struct prio_pick **out);

/* Sets u->ioprio and u->prio_idx for the I/O about to be issued. */
void prio_pick_io(struct prio_pick *p, struct io_u *u);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_PRIO_H */

/*
 * engine/engine_internal.h - struct eng, shared by the engine's two halves.
 *
 * engine.c holds the public API and the coordinator's walk over the plan;
 * segment.c runs one segment of it (its workers, their watch, their results).
 * Both read and write the same engine state under the same lock, so the
 * struct lives here rather than behind accessors; nothing outside those two
 * files includes this header.
 */
#ifndef IOPLAN_ENGINE_ENGINE_INTERNAL_H
#define IOPLAN_ENGINE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/cpustat.h"
#include "engine/diskstats.h"
#include "engine/engine.h"
#include "engine/iosched.h"
#include "engine/layout/layout.h"
#include "engine/logs/logs.h"
#include "engine/scratch.h"
#include "engine/worker/worker.h"

struct eng {
	_Alignas(64) _Atomic int stop;	/* read by every worker: nothing else on this line */
	char pad[60];
	/* eng_snapshot's request number, read by every worker once per loop trip. */
	_Alignas(64) _Atomic uint64_t snap_req;
	char pad2[56];
	const struct plan *plan;
	struct eng_opts opts;
	struct results *res;
	struct layout lay;
	struct latbkt_table lbt;
	struct eng_shared sh;
	struct flows flows;
	struct scratch_files scratch;
	struct iosched iosched;		/* devices ioscheduler= switched (iosched.h) */
	struct diskstats disks;
	struct cpustat cpus;
	struct log_writer *log_writer;	/* NULL unless a job writes fio's log files */
	pthread_t coord;
	pthread_mutex_t mu;		/* guards done, cur, nr_cur, the pause wait */
	pthread_cond_t cv;
	bool done;
	int done_fd;			/* eventfd readable once done is set, or -1 */
	int ret;
	_Atomic int phase;
	struct worker **cur;		/* workers of the running segment */
	uint32_t nr_cur;
	/* Bytes and I/Os of the workers of the segments already over (guarded by mu):
	 * eng_status counts them with the running segment's, so its totals never fall. */
	uint64_t past_bytes[PLAN_DDIR_NR], past_ios[PLAN_DDIR_NR];
	uint32_t res_cap;
	/* Where the plan is, for eng_status's estimate (guarded by mu). */
	uint32_t seg_a, seg_b;		/* the running segment's jobs */
	uint32_t seg_runs_left;		/* runs of it after the current one */
	uint32_t segruns_done, segruns_total;
	bool exit_rest;			/* exit_what=all fired: no later segment runs */
};

static inline bool eng_is_stopping(struct eng *e)
{
	return atomic_load_explicit(&e->stop, memory_order_relaxed) != 0;
}

#endif /* IOPLAN_ENGINE_ENGINE_INTERNAL_H */

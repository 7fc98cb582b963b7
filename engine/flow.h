/*
 * engine/flow.h - fio's flow control: jobs sharing a flow_id issue I/Os in
 * proportion to their flow= weights.
 *
 * As in fio 3.33 (flow.c), each flow keeps one shared counter of I/Os issued
 * (starting at 1) and the sum of its members' weights; a member may issue its
 * next I/O while its own count over the shared count does not exceed its
 * weight over the total weight.  A member that leaves takes its count and
 * weight out, so the others recalibrate (fio's t0014).  The table lives for
 * the whole run and is the only state workers of different jobs share besides
 * the stop flag: joins and leaves take a lock, the per-I/O test two relaxed
 * atomics.
 */
#ifndef IOPLAN_ENGINE_FLOW_H
#define IOPLAN_ENGINE_FLOW_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* The unit tests call this from C++, where C11's _Atomic is spelled std::atomic. */
#ifdef __cplusplus
#include <atomic>
#define FLOW_ATOMIC(t) std::atomic<t>
extern "C" {
#else
#include <stdatomic.h>
#define FLOW_ATOMIC(t) _Atomic t
#endif

struct flow {
	uint32_t id;
	uint32_t refs;			/* members, guarded by flows.mu */
	FLOW_ATOMIC(uint64_t) counter;	/* I/Os issued by every member, plus 1 */
	FLOW_ATOMIC(uint32_t) weight;	/* sum of the members' flow= weights */
};

struct flows {
	pthread_mutex_t mu;
	struct flow *v;
	uint32_t nr, cap;
};

/* Room for cap distinct flow ids (the number of jobs is enough). */
int flows_init(struct flows *f, uint32_t cap);
void flows_release(struct flows *f);

/* Adds a member of weight to flow id; NULL (-ENOSPC) only when cap is exceeded. */
struct flow *flow_join(struct flows *f, uint32_t id, uint32_t weight);
/* Takes a member's count and weight out again. */
void flow_leave(struct flows *f, struct flow *fl, uint64_t count, uint32_t weight);

/*
 * True when a member with weight that has issued *count I/Os may issue one
 * more now; then both counts grow by one (fio's flow_threshold_exceeded()).
 */
bool flow_may_issue(struct flow *fl, uint64_t *count, uint32_t weight);

#ifdef __cplusplus
}
#endif

#endif

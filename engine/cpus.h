/*
 * engine/cpus.h - the CPU sets of a plan (cpus_allowed=, verify_async_cpus=) on this machine.
 *
 * A plan names CPUs up to PLAN_CPUS_MAX, as glibc's cpu_set_t holds them; a
 * thread is pinned to the set, or under cpus_allowed_policy=split to one CPU of
 * it.  A CPU this machine does not have is refused before any I/O (fio refuses
 * it while parsing), so a pin never silently falls back to every CPU.
 */
#ifndef IOPLAN_ENGINE_CPUS_H
#define IOPLAN_ENGINE_CPUS_H

#include <pthread.h>
#include <stdbool.h>

#include "engine/plan.h"

static inline bool cpus_has(const struct plan_cpus *s, unsigned int c)
{
	return c < PLAN_CPUS_MAX && (s->word[c / 64] >> (c % 64) & 1);
}

/* Whether no CPU is named: the thread keeps the CPUs it has. */
bool cpus_empty(const struct plan_cpus *s);

/*
 * Pins thread tid to the set, or with split to its k-th CPU (round robin over
 * the set, k = thread).  0, or -errno of the affinity call; an empty set is 0.
 */
int cpus_pin(pthread_t tid, const struct plan_cpus *s, bool split, unsigned int thread);

/* The first CPU of the set past this machine's last (sysconf's configured count), or -1; *nr is that count. */
int cpus_missing(const struct plan_cpus *s, int *nr);

#endif /* IOPLAN_ENGINE_CPUS_H */

/*
 * engine/cpus.c - pinning a thread to a plan's CPU set, and checking the set
 * against the machine.  See cpus.h.
 */
#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include "engine/cpus.h"

bool cpus_empty(const struct plan_cpus *s)
{
	for (unsigned int i = 0; i < PLAN_CPUS_MAX / 64; i++)
		if (s->word[i])
			return false;
	return true;
}

static unsigned int cpus_count(const struct plan_cpus *s)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < PLAN_CPUS_MAX / 64; i++)
		n += (unsigned int)__builtin_popcountll(s->word[i]);
	return n;
}

/* The k-th CPU of a non-empty set, k counted round robin. */
static unsigned int cpus_nth(const struct plan_cpus *s, unsigned int k)
{
	unsigned int want = k % cpus_count(s);

	for (unsigned int c = 0; c < PLAN_CPUS_MAX; c++)
		if (cpus_has(s, c) && want-- == 0)
			return c;
	return 0;
}

int cpus_pin(pthread_t tid, const struct plan_cpus *s, bool split, unsigned int thread)
{
	cpu_set_t set;
	int ret;

	if (cpus_empty(s))
		return 0;
	CPU_ZERO(&set);
	if (split)
		CPU_SET(cpus_nth(s, thread), &set);
	for (unsigned int c = 0; c < PLAN_CPUS_MAX && !split; c++)
		if (cpus_has(s, c))
			CPU_SET(c, &set);
	ret = pthread_setaffinity_np(tid, sizeof(set), &set);
	return -ret;
}

int cpus_missing(const struct plan_cpus *s, int *nr)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	*nr = conf > 0 ? (int)conf : 1;
	for (unsigned int c = (unsigned int)*nr; c < PLAN_CPUS_MAX; c++)
		if (cpus_has(s, c))
			return (int)c;
	return -1;
}

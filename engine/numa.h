/*
 * engine/numa.h - fio's numa_cpu_nodes and numa_mem_policy for a worker thread.
 *
 * Through libnuma (Debian's libnuma-dev), which knows the node topology and
 * wraps set_mempolicy; nothing here is hand-written beyond mapping the plan.
 */
#ifndef IOPLAN_ENGINE_NUMA_H
#define IOPLAN_ENGINE_NUMA_H

#include "engine/plan.h"

/*
 * Narrows the calling thread's CPUs to the job's numa_cpu_nodes (within what
 * it may already use) and sets its memory policy.  0, or -EINVAL when a node
 * does not exist or leaves no CPU, -ENOSYS without NUMA support; *what then
 * names the option.
 */
int numa_place_thread(const struct plan_job *j, const char **what);

/*
 * The first node numa_cpu_nodes or numa_mem_policy names that this machine
 * does not have (fio refuses such a job while parsing; ioplan in its
 * preflight, before any I/O), or -1; *what names the option and *max_node is
 * the highest node there is (-1 without NUMA support).
 */
int numa_missing_node(const struct plan_job *j, const char **what, int *max_node);

#endif /* IOPLAN_ENGINE_NUMA_H */

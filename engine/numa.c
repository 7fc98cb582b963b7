/*
 * engine/numa.c - numa_cpu_nodes and numa_mem_policy through libnuma (numa.h).
 */
#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>

#include "numa.h"

/* A plan node mask as libnuma's bitmask; NULL when a node does not exist. */
static struct bitmask *nodes_of(uint64_t mask)
{
	struct bitmask *b = numa_allocate_nodemask();

	for (int n = 0; b && n < 64; n++) {
		if (!(mask & (1ull << n)))
			continue;
		if (n > numa_max_node()) {
			numa_free_nodemask(b);
			return NULL;
		}
		numa_bitmask_setbit(b, (unsigned)n);
	}
	return b;
}

/* The thread's CPUs, narrowed to the nodes' CPUs. */
static int place_cpus(uint64_t node_mask)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	cpu_set_t cur, set;
	int ret = 0;

	CPU_ZERO(&set);
	if (!cpus || pthread_getaffinity_np(pthread_self(), sizeof(cur), &cur))
		ret = -EINVAL;
	for (int n = 0; !ret && n < 64; n++) {
		if (!(node_mask & (1ull << n)))
			continue;
		if (n > numa_max_node() || numa_node_to_cpus(n, cpus)) {
			ret = -EINVAL;
			break;
		}
		for (unsigned c = 0; c < cpus->size && c < CPU_SETSIZE; c++)
			if (numa_bitmask_isbitset(cpus, c) && CPU_ISSET(c, &cur))
				CPU_SET(c, &set);
	}
	if (!ret && !CPU_COUNT(&set))
		ret = -EINVAL;
	if (!ret && pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		ret = -EINVAL;
	if (cpus)
		numa_free_cpumask(cpus);
	return ret;
}

static int place_memory(enum plan_numa_mem policy, uint64_t node_mask)
{
	struct bitmask *nodes;

	switch (policy) {
	case PLAN_NUMA_MEM_DEFAULT:
	case PLAN_NUMA_MEM_LOCAL:
		numa_set_localalloc();
		return 0;
	case PLAN_NUMA_MEM_PREFER:
		if (!node_mask || __builtin_ctzll(node_mask) > numa_max_node())
			return -EINVAL;
		numa_set_preferred(__builtin_ctzll(node_mask));
		return 0;
	default:
		break;
	}
	nodes = nodes_of(node_mask);
	if (!nodes)
		return -EINVAL;
	if (policy == PLAN_NUMA_MEM_BIND)
		numa_set_membind(nodes);
	else
		numa_set_interleave_mask(nodes);
	numa_free_nodemask(nodes);
	return 0;
}

int numa_place_thread(const struct plan_job *j, const char **what)
{
	int ret = 0;

	if (!j->numa_cpu_nodes_mask && j->numa_mem_policy == PLAN_NUMA_MEM_UNSET)
		return 0;
	*what = j->numa_cpu_nodes_mask ? "numa_cpu_nodes" : "numa_mem_policy";
	if (numa_available() < 0)
		return -ENOSYS;
	if (j->numa_cpu_nodes_mask)
		ret = place_cpus(j->numa_cpu_nodes_mask);
	if (ret || j->numa_mem_policy == PLAN_NUMA_MEM_UNSET)
		return ret;
	*what = "numa_mem_policy";
	return place_memory(j->numa_mem_policy, j->numa_mem_nodes_mask);
}

static int first_missing(uint64_t mask, int max_node)
{
	for (int n = max_node + 1; n < 64; n++)
		if (mask & (1ull << n))
			return n;
	return -1;
}

int numa_missing_node(const struct plan_job *j, const char **what, int *max_node)
{
	int n;

	*max_node = numa_available() < 0 ? -1 : numa_max_node();
	*what = "numa_cpu_nodes";
	n = first_missing(j->numa_cpu_nodes_mask, *max_node);
	if (n >= 0 || j->numa_mem_policy == PLAN_NUMA_MEM_UNSET)
		return n;
	*what = "numa_mem_policy";
	return first_missing(j->numa_mem_nodes_mask, *max_node);
}

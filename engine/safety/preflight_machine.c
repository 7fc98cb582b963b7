/*
 * engine/safety/preflight_machine.c - preflight of what the machine must have
 * for a job: the engine's library, the NUMA nodes and CPUs it names, memory for
 * its threads' I/O buffers, and the kernel's limits on an io_uring ring, its
 * registered buffers (the locked-memory limit) and Linux AIO events.  Each is
 * refused here, naming the job and the figures, rather than failing a thread
 * at its start.  Apart from preflight.c, which judges the targets.
 */
#include "engine/safety/preflight_internal.h"
#include "engine/buffers.h"
#include "engine/cpus.h"
#include "engine/engine.h"
#include "engine/ioengine.h"
#include "engine/numa.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#define URING_MAX_ENTRIES 32768u	/* the kernel's IORING_MAX_ENTRIES */

/* Bytes as a person reads them: "64 GiB", "1.5 MiB". */
static const char *human(uint64_t b, char *buf, size_t n)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, v == (double)(uint64_t)v ? "%.0f %s" : "%.1f %s", v, units[u]);
	return buf;
}

static uint64_t proc_number(const struct safety_env *env, const char *name)
{
	char path[512];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", env->proc_root, name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Linux AIO: every worker's context takes iodepth events from fs.aio-max-nr. */
static void check_aio_events(struct pf_state *s, const struct plan_job *j, uint64_t events)
{
	uint64_t max = proc_number(s->env, "sys/fs/aio-max-nr"), used = proc_number(s->env, "sys/fs/aio-nr");

	if (!max || events <= (max > used ? max - used : 0))
		return;
	pf_add(s, RES_MSG_ERROR, "aio-events", (int32_t)j->job_id,
	    "job '%s': iodepth=%u x %u thread%s needs %llu Linux AIO events, more than the %llu "
	    "that fs.aio-max-nr (%llu) leaves free", j->name, bufpool_depth(j), j->nr_clones,
	    j->nr_clones == 1 ? "" : "s", (unsigned long long)events,
	    (unsigned long long)(max > used ? max - used : 0), (unsigned long long)max);
}

/* Whether this process may lock memory past RLIMIT_MEMLOCK: CAP_IPC_LOCK in its effective set (true when unknown). */
static bool locks_past_the_limit(const struct safety_env *env)
{
	char path[512], line[256];
	unsigned long long caps = ~0ull;
	FILE *f;

	snprintf(path, sizeof(path), "%s/self/status", env->proc_root);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps & (1ull << 14);	/* CAP_IPC_LOCK */
}

/*
 * fixedbufs=1: io_uring charges a thread's registered buffers to the user's
 * locked memory, and a registration past RLIMIT_MEMLOCK fails with ENOMEM,
 * all that fio 3.33 and the run said of it ("io_uring init (iodepth=32):
 * Cannot allocate memory").  The job's threads register at once, so together
 * they must fit; only a refusal that cannot be wrong is made (other jobs and
 * processes of the user lock memory too).
 */
static void check_locked_buffers(struct pf_state *s, const struct plan_job *j, uint64_t all)
{
	struct rlimit rl;
	char a[32], b[32], c[32];

	if (j->ioengine != PLAN_IOENGINE_IO_URING || !plan_engopt_int(j->engine_opts, j->ioengine, "fixedbufs") ||
	    getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY || all <= rl.rlim_cur ||
	    locks_past_the_limit(s->env))
		return;
	pf_add(s, RES_MSG_ERROR, "locked-memory", (int32_t)j->job_id,
	    "job '%s': fixedbufs=1 registers %s of buffers with io_uring (iodepth=%u x bs=%s for %u thread%s), "
	    "more than the locked-memory limit of %s (ulimit -l): raise the limit, or run with CAP_IPC_LOCK",
	    j->name, human(all, a, sizeof(a)), bufpool_depth(j), human(bufpool_len(j), b, sizeof(b)), j->nr_clones,
	    j->nr_clones == 1 ? "" : "s", human((uint64_t)rl.rlim_cur, c, sizeof(c)));
}

/* An engine whose library was missing at build time, or is at run time, is refused before any file is touched. */
static void check_engine_built(struct pf_state *s, const struct plan_job *j)
{
	const char *why = eng_ioengine_unavailable(j->ioengine);

	if (why)
		pf_add(s, RES_MSG_ERROR, "engine-unavailable", (int32_t)j->job_id,
		    "job '%s': ioengine=%s is unavailable: %s (see --enghelp)", j->name,
		    plan_ioengine_name(j->ioengine), why);
}

/* A NUMA node the machine lacks fails the job's thread at its start; fio refuses it at parse time. */
static void check_numa_nodes(struct pf_state *s, const struct plan_job *j)
{
	const char *what;
	int max_node, n = numa_missing_node(j, &what, &max_node);

	if (n < 0)
		return;
	if (max_node < 0)
		pf_add(s, RES_MSG_ERROR, "numa-node", (int32_t)j->job_id,
		    "job '%s': %s names node %d, but this machine has no NUMA support", j->name, what, n);
	else
		pf_add(s, RES_MSG_ERROR, "numa-node", (int32_t)j->job_id,
		    "job '%s': %s names node %d, but this machine's nodes are 0-%d", j->name, what, n, max_node);
}

/* A CPU the machine lacks would leave a thread unpinned; fio refuses it while parsing. */
static void check_cpus(struct pf_state *s, const struct plan_job *j)
{
	const char *what[] = { "cpus_allowed", "verify_async_cpus", "log_compression_cpus" };
	const struct plan_cpus *set[] = { &j->cpus_allowed, &j->verify_async_cpus, &j->log_gz_cpus };
	int nr;

	for (size_t i = 0; i < sizeof(set) / sizeof(*set); i++) {
		int c = cpus_missing(set[i], &nr);

		if (c >= 0)
			pf_add(s, RES_MSG_ERROR, "cpus", (int32_t)j->job_id,
			    "job '%s': %s names CPU %d, but this machine's CPUs are 0-%d", j->name, what[i],
			    c, nr - 1);
	}
}

/*
 * Each thread allocates and fills iodepth buffers of the job's largest block
 * before its first I/O: a queue whose buffers exceed the memory available is
 * refused here, with the product that makes it, instead of failing (or being
 * killed) in set-up.  An io_uring ring, its registered buffers and a Linux AIO
 * context have limits of their own.
 */

static void check_queue(struct pf_state *s, const struct plan_job *j, uint64_t avail)
{
	uint32_t depth = bufpool_depth(j);
	uint64_t len = bufpool_len(j), per = (uint64_t)depth * ((len + 4095) & ~4095ull);
	uint64_t all = per * (j->nr_clones ? j->nr_clones : 1);
	char a[32], b[32], c[32];

	if (avail && all > avail)
		pf_add(s, RES_MSG_ERROR, "buffers", (int32_t)j->job_id,
		    "job '%s': iodepth=%u x bs=%s needs %s of I/O buffers (for %u thread%s), more "
		    "than the %s of memory available", j->name, depth, human(len, a, sizeof(a)),
		    human(all, b, sizeof(b)), j->nr_clones, j->nr_clones == 1 ? "" : "s",
		    human(avail, c, sizeof(c)));
	if (j->ioengine == PLAN_IOENGINE_IO_URING && depth > URING_MAX_ENTRIES)
		pf_add(s, RES_MSG_ERROR, "iodepth", (int32_t)j->job_id,
		    "job '%s': iodepth=%u is more than the %u entries an io_uring ring can have",
		    j->name, depth, URING_MAX_ENTRIES);
	if (j->ioengine == PLAN_IOENGINE_LIBAIO)
		check_aio_events(s, j, (uint64_t)depth * j->nr_clones);
	check_locked_buffers(s, j, all);
	/* Registered files are fixed for the run; openfiles opens and closes them (fio refuses it too). */
	if (j->ioengine == PLAN_IOENGINE_IO_URING && plan_engopt_int(j->engine_opts, j->ioengine, "registerfiles") &&
	    j->openfiles && j->nr_clones && j->openfiles < j->clones[0].nr_files)
		pf_add(s, RES_MSG_ERROR, "registerfiles", (int32_t)j->job_id,
		    "job '%s': registerfiles=1 needs every file open for the whole run, but "
		    "openfiles=%u is below the job's %u files", j->name, j->openfiles,
		    j->clones[0].nr_files);
}

void pf_check_machine(struct pf_state *s, const struct plan_job *j, uint64_t avail)
{
	check_queue(s, j, avail);
	check_engine_built(s, j);
	check_numa_nodes(s, j);
	check_cpus(s, j);
}

/*
 * engine/cpustat.c - per-CPU times from /proc/stat, before and after a run.
 *
 * /proc/stat counts in USER_HZ ticks; they are converted to ns.  user + nice is
 * user time, system + irq + softirq + steal is kernel time, idle + iowait idle.
 */
#include "engine/cpustat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPUSTAT_MAX 1024

int cpustat_parse(const char *text, struct res_cpu *cpus, uint32_t max)
{
	uint64_t ns_per_tick = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
	const char *line = text;
	uint32_t n = 0;

	while (line && *line && n < max) {
		unsigned long long v[8] = { 0 };
		unsigned id;

		if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9' &&
		    sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &id, &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) >= 5) {
			cpus[n].id = id;
			cpus[n].user_ns = (v[0] + v[1]) * ns_per_tick;
			cpus[n].system_ns = (v[2] + v[5] + v[6] + v[7]) * ns_per_tick;
			cpus[n].idle_ns = (v[3] + v[4]) * ns_per_tick;
			n++;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return (int)n;
}

static int snapshot(struct res_cpu *cpus, uint32_t max)
{
	char *buf = malloc(1 << 20);
	size_t len;
	int n;
	FILE *f;

	if (!buf)
		return -ENOMEM;
	f = fopen("/proc/stat", "re");
	if (!f) {
		free(buf);
		return -errno;
	}
	len = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	buf[len] = '\0';
	n = cpustat_parse(buf, cpus, max);
	free(buf);
	return n;
}

void cpustat_begin(struct cpustat *cs, bool fake)
{
	int n;

	memset(cs, 0, sizeof(*cs));
	if (fake)
		return;
	cs->before = calloc(CPUSTAT_MAX, sizeof(*cs->before));
	n = cs->before ? snapshot(cs->before, CPUSTAT_MAX) : -ENOMEM;
	if (n <= 0) {
		free(cs->before);
		cs->before = NULL;
		return;
	}
	cs->nr = (uint32_t)n;
}

static uint64_t delta(uint64_t after, uint64_t before)
{
	return after > before ? after - before : 0;
}

void cpustat_end(struct cpustat *cs, struct results *r)
{
	struct res_cpu *after;
	int n;

	if (!cs->before)
		return;
	after = calloc(CPUSTAT_MAX, sizeof(*after));
	n = after ? snapshot(after, CPUSTAT_MAX) : -ENOMEM;
	if (n == (int)cs->nr) {
		for (uint32_t i = 0; i < cs->nr; i++) {
			after[i].user_ns = delta(after[i].user_ns, cs->before[i].user_ns);
			after[i].system_ns = delta(after[i].system_ns, cs->before[i].system_ns);
			after[i].idle_ns = delta(after[i].idle_ns, cs->before[i].idle_ns);
		}
		free(r->cpus);
		r->cpus = after;
		r->nr_cpus = cs->nr;
		after = NULL;
	}
	free(after);
	free(cs->before);
	cs->before = NULL;
}

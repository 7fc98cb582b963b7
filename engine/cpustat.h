/*
 * engine/cpustat.h - system-wide CPU time per CPU over a run (/proc/stat), for
 * reports that show it per CPU (DISKSPD's CPU table).
 */
#ifndef IOPLAN_ENGINE_CPUSTAT_H
#define IOPLAN_ENGINE_CPUSTAT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/results.h"

struct cpustat {
	struct res_cpu *before;
	uint32_t nr;
};

/* Takes the first snapshot; with fake (golden runs) nothing is measured. */
void cpustat_begin(struct cpustat *cs, bool fake);

/* Stores the differences since cpustat_begin in r->cpus and frees cs. */
void cpustat_end(struct cpustat *cs, struct results *r);

/* Parses /proc/stat-format text into cpus (per "cpuN" line): the count, or -errno. */
int cpustat_parse(const char *text, struct res_cpu *cpus, uint32_t max);

#endif /* IOPLAN_ENGINE_CPUSTAT_H */

/*
 * engine/environment.h - the machine a run ran on and the stack under each target.
 *
 * A result is only comparable with another when it says where it was measured:
 * CPU, memory, kernel, distribution, virtualization, and for every target the
 * file system, partition, dm/md/loop layers and disks below it, with each disk's
 * queue settings and whether someone else used it during the run.  Everything
 * comes from procfs, sysfs, DMI and statx; what cannot be read stays absent.
 */
#ifndef IOPLAN_ENGINE_ENVIRONMENT_H
#define IOPLAN_ENGINE_ENVIRONMENT_H

#include "engine/layout/layout.h"
#include "engine/results.h"

/* Reads the machine and the targets' stacks and the disks' counters into r->env. */
int env_begin(struct results *r, const struct layout *l);

/* Reads the disks' counters again and weighs them against the run's own bytes. */
void env_end(struct results *r);

/* The stack under one path (a file, a directory or a block device), appended to env. */
int env_stack_of(struct res_env *env, const char *path, uint32_t depth);

#endif /* IOPLAN_ENGINE_ENVIRONMENT_H */

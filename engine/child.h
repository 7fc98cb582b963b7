/*
 * engine/child.h - programs a job starts (exec_prerun/exec_postrun, the exec
 * engine's program): started clean, stopped whole.
 *
 * ioplan's threads run with SIGINT, SIGTERM and SIGHUP blocked (cli/ takes
 * them); a child must not inherit that, or SIGTERM would not end it and a stop
 * would wait out the whole grace time.  Each child leads its own process
 * group, so stopping it also stops what it started (a shell's commands): no
 * orphan outlives the run.
 */
#ifndef IOPLAN_ENGINE_CHILD_H
#define IOPLAN_ENGINE_CHILD_H

#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* posix_spawnp with default signals, an empty mask and a new process group: 0 or -errno. */
int child_spawn(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, char *const argv[]);

/* True once pid has exited (reaped, *status filled when not NULL) within wait_ns. */
bool child_reaped(pid_t pid, uint64_t wait_ns, int *status);

/* SIGTERM to pid's group, SIGKILL after grace_ns if it is still there; reaped either way. */
void child_stop(pid_t pid, uint64_t grace_ns);

#endif /* IOPLAN_ENGINE_CHILD_H */

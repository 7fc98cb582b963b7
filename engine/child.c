/*
 * engine/child.c - programs a job starts, started with clean signals in their
 * own process group and stopped with the group (child.h).
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "child.h"

extern char **environ;

#define CHILD_POLL_NS 10000000l		/* how often a wait looks for the child's exit */

int child_spawn(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, char *const argv[])
{
	static const int dfl[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGCHLD, SIGXFSZ };
	posix_spawnattr_t at;
	sigset_t none, def;
	int ret = posix_spawnattr_init(&at);

	if (ret)
		return -ret;
	sigemptyset(&none);
	sigemptyset(&def);
	for (unsigned i = 0; i < sizeof(dfl) / sizeof(dfl[0]); i++)
		sigaddset(&def, dfl[i]);
	ret = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
						    POSIX_SPAWN_SETPGROUP);
	if (!ret)
		ret = posix_spawnattr_setsigmask(&at, &none);
	if (!ret)
		ret = posix_spawnattr_setsigdefault(&at, &def);
	if (!ret)
		ret = posix_spawnattr_setpgroup(&at, 0);
	if (!ret)
		ret = posix_spawnp(pid, file, fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	return -ret;
}

/* True once pid has exited within wait_ns; it stays a zombie, so its pid and group stay its own. */
static bool child_exited(pid_t pid, uint64_t wait_ns)
{
	struct timespec slice = { 0, CHILD_POLL_NS };
	siginfo_t si;

	for (uint64_t waited = 0;; waited += CHILD_POLL_NS) {
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == pid)
			return true;
		if (waited >= wait_ns)
			return false;
		nanosleep(&slice, NULL);
	}
}

bool child_reaped(pid_t pid, uint64_t wait_ns, int *status)
{
	if (!child_exited(pid, wait_ns))
		return false;
	waitpid(pid, status, 0);
	return true;
}

void child_stop(pid_t pid, uint64_t grace_ns)
{
	if (!child_exited(pid, 0)) {
		kill(-pid, SIGTERM);
		if (!child_exited(pid, grace_ns))
			kill(-pid, SIGKILL);
	}
	/* What it started and left running: its group still exists while it is a zombie. */
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

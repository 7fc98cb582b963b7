/*
 * engine/worker/worker_env.c - what surrounds a clone's I/O: fio's exec_prerun and
 * exec_postrun commands and lockmem's pinned memory.
 *
 * As fio: each command runs through the shell in the current directory with its output in JOBNAME.prerun.txt /
 * JOBNAME.postrun.txt.  fio appends "> NAME 2>&1" to the command, where the shell splits a job name at its
 * blanks and truncates whatever file the first word names; here the file opened and checked is the
 * command's stdout and stderr, whatever the name holds;
 * lockmem maps and mlocks that many bytes for the clone's run, so the rest
 * of the system has that much less memory (fio's way to test with less).
 * A prerun that fails is the clone's error before any I/O (fio skips the
 * job's I/O silently); a failed postrun is an error after it.  A stop
 * (SIGINT, SIGTERM) ends a command still running, with what it started
 * (child.h), instead of waiting for it.
 * ioscheduler= switches the devices under the clone's files first, as fio
 * does before its setup_files (engine/iosched.c; the run puts them back).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/child.h"
#include "engine/iosched.h"
#include "engine/safety/safety.h"
#include "engine/worker/worker.h"

#define ENV_SLICE_NS 50000000ull	/* a command's run is looked at this often for a stop */
#define ENV_GRACE_NS 500000000ull	/* a stopped command gets this long after SIGTERM */

/*
 * The output file NAME.MODE.txt, opened under the side-file rule (safety.h:
 * never a device; the preflight kept a user's file by that name); -errno
 * with the error recorded.
 */
static int exec_output(struct worker *w, const char *path, const char *mode)
{
	char why[512], what[600];
	int fd = safety_open_output(&safety_system, path, O_TRUNC,
				    SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES | SAFETY_OUT_JUDGED, why, sizeof(why));

	if (fd < 0) {
		snprintf(what, sizeof(what), "exec_%s: %s", mode, why);
		worker_error(w, .err = -fd, .what = what);
	}
	return fd;
}

/*
 * The shell running line with its stdout and stderr on out, waited for in
 * slices: a stop (SIGINT, SIGTERM) ends it and what it started within
 * ENV_GRACE_NS.  The exit status, or -errno (-EINTR: stopped).
 */
static int shell_run(struct worker *w, char *line, int out)
{
	char sh[] = "/bin/sh", c[] = "-c", *argv[] = { sh, c, line, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = 0, ret = -posix_spawn_file_actions_init(&fa);

	if (ret)
		return ret;
	ret = -posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	if (!ret)
		ret = -posix_spawn_file_actions_adddup2(&fa, out, STDERR_FILENO);
	if (!ret)
		ret = child_spawn(&pid, sh, &fa, argv);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return ret;
	while (!child_reaped(pid, ENV_SLICE_NS, &st))
		if (atomic_load_explicit(w->sh->stop, memory_order_relaxed)) {
			child_stop(pid, ENV_GRACE_NS);
			return -EINTR;
		}
	return st;
}

/*
 * Whether the output file's file system is full: then whatever the command
 * wrote there (an echo, a tool's log) failed with ENOSPC, which may be why it
 * failed, and the file is empty or cut; its exit status alone does not say so.
 */
static bool output_full(int fd)
{
	struct statvfs vfs;

	return fstatvfs(fd, &vfs) == 0 && vfs.f_blocks && vfs.f_bavail == 0;
}

/* Runs one command as fio's exec_string; 0, or the error already recorded. */
static int exec_cmd(struct worker *w, const char *cmd, const char *mode)
{
	char *line = strdup(cmd), what[4300], path[4096], ext[16];
	bool full;
	int st, fd;

	snprintf(ext, sizeof(ext), "%s.txt", mode);
	plan_job_output_name(path, sizeof(path), w->job, ext);
	if (!line)
		return -ENOMEM;
	if ((fd = exec_output(w, path, mode)) < 0) {
		free(line);
		return fd;
	}
	st = shell_run(w, line, fd);
	free(line);
	safety_mark_output(fd);	/* what the command wrote is ioplan's: a re-run replaces it */
	full = output_full(fd);
	close(fd);
	if (st >= 0 && WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	if (st < 0)
		snprintf(what, sizeof(what), "exec_%s%s", mode, st == -EINTR ? ": stopped" : "");
	else
		snprintf(what, sizeof(what), "exec_%s exited with status %d%s%s%s", mode,
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
			 full ? "; its output file " : "", full ? path : "",
			 full ? " is on a full file system, so what it wrote there is cut" : "");
	if (st != -EINTR)
		worker_error(w, .err = st < 0 ? -st : ECANCELED, .what = what);
	return st < 0 ? st : -ECANCELED;
}

int worker_env_iosched(struct worker *w)
{
	const struct plan_job *j = w->job;
	char why[PATH_MAX + 256];
	dev_t last = 0;
	int ret;

	/* fio's FIO_DISKLESSIO engines (null, cpuio, exec, net, nbd, filecreate) touch no device. */
	if (!j->ioscheduler || !ioe_lays_out(j->ioengine))
		return 0;
	for (uint32_t f = 0; f < w->clone->nr_files; f++) {
		ret = iosched_switch(w->sh->iosched, j, w->clone->files[f].path, &last, why, sizeof(why));
		if (ret) {
			worker_error(w, .err = -ret, .file = f, .what = why);
			return ret;
		}
	}
	return 0;
}

int worker_env_start(struct worker *w)
{
	const struct plan_job *j = w->job;
	void *p;

	w->env_started = true;
	if (j->lockmem_bytes) {
		p = mmap(NULL, j->lockmem_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || mlock(p, j->lockmem_bytes)) {
			int err = errno;

			if (p != MAP_FAILED)
				munmap(p, j->lockmem_bytes);
			worker_error(w, .err = err, .what = "lockmem (mlock)");
			return -err;
		}
		w->lockmem = p;
	}
	return j->exec_prerun ? exec_cmd(w, j->exec_prerun, "prerun") : 0;
}

void worker_env_end(struct worker *w)
{
	int ret;

	if (!w->env_started)
		return;
	/* A stop that ends the command is the run's stop, not the job's failure:
	 * SIGINT during exec_postrun made a job that had done all its I/O error 125. */
	ret = w->job->exec_postrun ? exec_cmd(w, w->job->exec_postrun, "postrun") : 0;
	if (ret && ret != -EINTR)
		worker_set_error(w, ECANCELED);
	if (w->lockmem)
		munmap(w->lockmem, w->job->lockmem_bytes);
	w->lockmem = NULL;
	w->env_started = false;
}

/*
 * engine/ioengines/exec.c - runs a program alongside the other jobs: fio's exec.
 *
 * The job's first "I/O" starts program= with arguments= (split at spaces, %r
 * replaced by the runtime in seconds and %n by the job's name, as fio's); the
 * parser gives the job fio's 50 ms think after each I/O and makes it run until
 * runtime.  When the job ends, a program still running gets SIGTERM, then
 * SIGKILL after grace_time seconds, and is reaped; it runs with default
 * signals in its own process group (child.h), so SIGTERM ends it at once and
 * what it started goes with it.  With std_redirect (the
 * default) its stdout and stderr go to <job>.stdout and <job>.stderr in the
 * working directory, so the report on stdout stays the report.  posix_spawnp
 * starts it: no fork of a threaded process, and a program that cannot run is
 * the job's error (ENOENT, EACCES), named "exec PROGRAM", rather than a child
 * that silently exits.
 * No file is touched and no bytes are counted (fio's FIO_NOIO).
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/child.h"
#include "engine/ioengine.h"
#include "engine/safety/safety.h"

/* Its options (plan_engopts.h): the parser fills one per job from the table below. */
struct exec_opts {
	char *program;			/* required */
	char *arguments;		/* %r and %n substituted at run time; NULL = none */
	long long grace_s;		/* SIGTERM at the end, SIGKILL this many seconds later */
	bool std_redirect;		/* stdout/stderr into <job>.stdout, <job>.stderr */
};

static const struct plan_engopt exec_opts[] = {
	{ .name = "program", .type = PLAN_ENGOPT_STRING, .min = 1, .max = 0,
	  .help = "exec: the program to run (looked up in PATH), required.",
	  .off = offsetof(struct exec_opts, program), .required = "the program to run" },
	{ .name = "arguments", .type = PLAN_ENGOPT_STRING, .min = 1, .max = 0,
	  .help = "exec: its arguments, split at spaces; %r is the job's runtime in seconds, %n its name (as fio).",
	  .off = offsetof(struct exec_opts, arguments) },
	{ .name = "grace_time", .type = PLAN_ENGOPT_INT, .unit = "s", .def = "1", .min = 0, .max = 86400,
	  .help = "exec: seconds between the SIGTERM at the job's end and the SIGKILL.",
	  .off = offsetof(struct exec_opts, grace_s) },
	{ .name = "std_redirect", .type = PLAN_ENGOPT_BOOL, .def = "1", .min = 1, .max = 0,
	  .help = "exec: the program's stdout and stderr go to <job>.stdout and <job>.stderr.",
	  .off = offsetof(struct exec_opts, std_redirect) },
};

PLAN_ENGOPTS_DEFINE(exec, struct exec_opts, exec_opts);

struct exec_eng {
	const struct plan_job *job;
	const struct exec_opts *opts;
	pid_t pid;			/* 0: not started; -1: started and reaped */
	int out[2];			/* std_redirect's <job>.stdout and .stderr, or -1 */
	char what[PATH_MAX + 8];	/* "exec PROGRAM", the failure's subject */
};

/* s with every "%r" and "%n" replaced, in a new string (NULL without memory). */
static char *exec_expand(const char *s, const struct plan_job *j)
{
	char runtime[24];
	size_t cap = strlen(s) + 1, n = 0;
	char *out;

	snprintf(runtime, sizeof(runtime), "%llu", (unsigned long long)(j->runtime_ns / 1000000000ull));
	for (const char *p = s; *p; p++)
		if (p[0] == '%' && (p[1] == 'r' || p[1] == 'n'))
			cap += strlen(p[1] == 'r' ? runtime : j->name);
	out = malloc(cap);
	for (const char *p = s; out && *p; p++) {
		if (p[0] == '%' && (p[1] == 'r' || p[1] == 'n')) {
			const char *with = p[1] == 'r' ? runtime : j->name;

			memcpy(out + n, with, strlen(with));
			n += strlen(with);
			p++;
		} else {
			out[n++] = *p;
		}
	}
	if (out)
		out[n] = '\0';
	return out;
}

/* Splits line at spaces in place into a NULL-terminated argv (NULL without memory). */
static char **exec_split(char *line)
{
	size_t n = 0, cap = 8;
	char **argv = malloc(cap * sizeof(*argv)), *save = NULL;

	/* strtok_r: jobs start in threads of one process, and strtok's place is the process's. */
	for (char *tok = strtok_r(line, " ", &save); argv && tok; tok = strtok_r(NULL, " ", &save)) {
		if (n + 2 > cap) {
			char **more = realloc(argv, (cap *= 2) * sizeof(*argv));

			if (!more) {
				free(argv);
				return NULL;
			}
			argv = more;
		}
		argv[n++] = tok;
	}
	if (argv)
		argv[n] = NULL;
	return argv;
}

/*
 * The redirections of std_redirect: <job>.stdout and <job>.stderr (and the
 * rank's suffix under mpirun), truncated,
 * opened here under the side-file rule (safety.h: never a device; the
 * preflight kept a user's file by those names) and handed to the program.
 */
static int exec_redirect(posix_spawn_file_actions_t *fa, struct exec_eng *x)
{
	static const char *const ext[2] = { "stdout", "stderr" };
	char path[4096], why[512];
	int ret = 0;

	for (int i = 0; i < 2 && !ret; i++) {
		plan_job_output_name(path, sizeof(path), x->job, ext[i]);
		x->out[i] = safety_open_output(&safety_system, path, O_TRUNC,
					       SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES | SAFETY_OUT_JUDGED, why,
					       sizeof(why));
		if (x->out[i] < 0)	/* the failure's subject says which file and why */
			snprintf(x->what, sizeof(x->what), "exec %s: std_redirect: %.*s", x->opts->program,
				 (int)(sizeof(x->what) / 2), why);
		ret = x->out[i] < 0 ? x->out[i] : -posix_spawn_file_actions_adddup2(fa, x->out[i], i + 1);
	}
	return ret;
}

/* The program is gone: its redirected output is ioplan's, so a re-run replaces it. */
static void exec_close_outputs(struct exec_eng *x)
{
	for (int i = 0; i < 2; i++)
		if (x->out[i] >= 0) {
			safety_mark_output(x->out[i]);
			close(x->out[i]);
			x->out[i] = -1;
		}
}

static int exec_start(struct exec_eng *x)
{
	const struct plan_job *j = x->job;
	const struct exec_opts *o = x->opts;
	size_t len = strlen(o->program) + (o->arguments ? strlen(o->arguments) : 0) + 2;
	char *line = malloc(len), *expanded = NULL, **argv = NULL;
	posix_spawn_file_actions_t fa;
	int ret = -ENOMEM;

	if (line) {
		snprintf(line, len, "%s %s", o->program, o->arguments ? o->arguments : "");
		expanded = exec_expand(line, j);
	}
	argv = expanded ? exec_split(expanded) : NULL;
	if (argv && !argv[0])
		ret = -EINVAL;
	else if (argv && !(ret = -posix_spawn_file_actions_init(&fa))) {
		ret = o->std_redirect ? exec_redirect(&fa, x) : 0;
		if (!ret)
			ret = child_spawn(&x->pid, argv[0], &fa, argv);
		posix_spawn_file_actions_destroy(&fa);
	}
	free(argv);
	free(expanded);
	free(line);
	if (ret)
		x->pid = -1;
	return ret;
}

static int exec_init(struct ioe *e)
{
	const struct exec_opts *o = ioe_job_opts(e);
	struct exec_eng *x;

	if (!o || !o->program)
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->job = e->cfg.job;
	x->opts = o;
	x->out[0] = x->out[1] = -1;
	e->priv = x;
	return 0;
}

static void exec_exit(struct ioe *e)
{
	struct exec_eng *x = e->priv;

	if (x->pid > 0)
		child_stop(x->pid, (uint64_t)x->opts->grace_s * 1000000000ull);
	exec_close_outputs(x);
	free(x);
}

/*
 * Each I/O after the one that starts the program is a look at it that sleeps
 * the job's thinktime, as fio's queue does (its init sets 50 ms, as the planner
 * sets this job's): with the think between I/Os, one I/O per 100 ms, each timed
 * at 50 ms, as fio's.
 */
static int exec_queue(struct ioe *e, struct io_u *u)
{
	struct exec_eng *x = e->priv;
	uint64_t think = x->job->thinktime_ns;
	struct timespec look = { .tv_sec = (time_t)(think / 1000000000u), .tv_nsec = (long)(think % 1000000000u) };
	bool started = x->pid != 0;
	int ret = started ? 0 : exec_start(x);

	if (started && x->pid > 0)
		nanosleep(&look, NULL);

	u->result = ret ? ret : (int64_t)u->len;
	u->nostat = IOE_NOSTAT_BYTES;
	if (ret && !x->what[0])
		snprintf(x->what, sizeof(x->what), "exec %s", x->opts->program);
	e->fail_what = ret ? x->what : NULL;	/* a later I/O's failure is not the start's */
	return IOE_Q_COMPLETED;
}

/*
 * fio's lines: the program as each thread sets the engine up, and, as it
 * starts it, where its output goes (or that it runs, without std_redirect),
 * arguments with %r and %n replaced; fio prints missing arguments as
 * "(null)".
 */
static int exec_fio_line(const struct plan_job *j, int stage, char *buf, size_t len)
{
	const struct exec_opts *o = j->engine_opts;
	char out[4096], err[4096], *args;
	int n;

	if (!o || !o->program)
		return 0;
	if (stage == IOE_FIO_LINE_INIT)
		return snprintf(buf, len, "%s : program=%s, arguments=%s", j->name, o->program,
				o->arguments ? o->arguments : "(null)");
	args = o->arguments ? exec_expand(o->arguments, j) : NULL;
	if (o->arguments && !args)
		return 0;
	plan_job_output_name(out, sizeof(out), j, "stdout");
	plan_job_output_name(err, sizeof(err), j, "stderr");
	n = o->std_redirect ? snprintf(buf, len, "%s : Saving output of %s %s : stdout=%s stderr=%s", j->name,
				       o->program, args ? args : "(null)", out, err)
			    : snprintf(buf, len, "%s : Running %s %s", j->name, o->program, args ? args : "(null)");
	free(args);
	return n;
}

const struct ioe_ops ioe_exec = {
	.id = PLAN_IOENGINE_EXEC,
	.sync = true,
	.no_io = true,
	.no_open = true,
	.no_layout = true,
	.init = exec_init,
	.exit = exec_exit,
	.queue = exec_queue,
	.fio_line = exec_fio_line,
};

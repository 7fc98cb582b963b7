/*
 * engine/ioengines/cpuio.c - burns CPU instead of doing I/O: fio's cpuio.
 *
 * Each "I/O" burns the CPU for cpuchunks microseconds; the parser gives the
 * job fio's thinktime (cpuchunks * (100 - cpuload) / cpuload after every I/O),
 * so the worker's own think sleeps the rest of each cycle and a stop or the
 * runtime ends it at once.  cpumode=noop spins on the clock; cpumode=qsort
 * sorts a fixed array of pseudo-random numbers (four sorts per round, forward,
 * reverse, by byte and reverse again, as fio's) until the chunk is used up.
 * fio adjusts its think to the last round's length instead; sorting for the
 * chunk keeps the load what cpuload asks for either way.  No file is touched
 * and no bytes are counted (fio's FIO_NOIO); each burn is timed as an I/O.
 * exit_on_io_done ends the job, before its next burn, once every job that does
 * I/O has ended (those of later groups count as still to come, as in fio); in a
 * plan with no such job it changes nothing, as fio's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine/ioengine.h"

#define QSORT_NR 1024u			/* fio's qsort_size: 4 KiB of int32 per sort */

/* Its options (plan_engopts.h): the parser fills one per job from the table below. */
struct cpuio_opts {
	long long load_pct;		/* share of each cycle spent burning; the parser turns it into think */
	long long chunk_us;		/* length of one burn */
	long long mode;			/* CPUIO_NOOP or CPUIO_QSORT */
	bool exit_io_done;		/* end once the jobs that do I/O have */
};

enum { CPUIO_NOOP, CPUIO_QSORT };

static const struct plan_engopt_choice cpuio_modes[] = {
	{ "noop", "spin on the clock", CPUIO_NOOP },
	{ "qsort", "sort a 4 KiB array of pseudo-random numbers, over and over", CPUIO_QSORT },
	{ NULL, NULL, 0 },
};

static const struct plan_engopt cpuio_opts[] = {
	{ .name = "cpuload", .type = PLAN_ENGOPT_INT, .unit = "%", .min = 0, .max = 4294967295.0,
	  .help = "cpuio: percentage of each cycle the thread burns CPU (required, as fio; above 100 is 100).",
	  .off = offsetof(struct cpuio_opts, load_pct), .required = "the percentage of CPU to burn" },
	{ .name = "cpuchunks", .type = PLAN_ENGOPT_INT, .unit = "us", .def = "50000", .min = 0, .max = 1e9,
	  .help = "cpuio: length of one burn in microseconds; the rest of the cycle sleeps (0: one clock read "
		  "or one sort round a burn).",
	  .off = offsetof(struct cpuio_opts, chunk_us) },
	{ .name = "cpumode", .type = PLAN_ENGOPT_CHOICE, .def = "noop", .min = 1, .max = 0, .choices = cpuio_modes,
	  .help = "cpuio: how the CPU is burnt.", .off = offsetof(struct cpuio_opts, mode) },
	{ .name = "exit_on_io_done", .type = PLAN_ENGOPT_BOOL, .def = "0", .min = 1, .max = 0,
	  .help = "cpuio: end the job once every job that does I/O has ended (jobs of later groups "
		  "are still to come); nothing changes in a run of cpuio jobs only.",
	  .off = offsetof(struct cpuio_opts, exit_io_done) },
};

PLAN_ENGOPTS_DEFINE(cpuio, struct cpuio_opts, cpuio_opts);

struct cpuio {
	uint64_t chunk_ns;
	bool qsort;
	bool exit_io_done;
	int32_t *data;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_up(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_down(const void *a, const void *b)
{
	return cmp_up(b, a);
}

static int cmp_byte(const void *a, const void *b)
{
	return *(const int8_t *)a - *(const int8_t *)b;
}

static void sort_round(int32_t *d)
{
	qsort(d, QSORT_NR, sizeof(*d), cmp_up);
	qsort(d, QSORT_NR, sizeof(*d), cmp_down);
	qsort(d, QSORT_NR * sizeof(*d), 1, cmp_byte);
	qsort(d, QSORT_NR, sizeof(*d), cmp_down);
}

static int cpuio_init(struct ioe *e)
{
	const struct cpuio_opts *o = ioe_job_opts(e);
	struct cpuio *c;
	uint32_t z = 521288629u, w = 362436069u;	/* multiply-with-carry seeds */

	if (!o)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->chunk_ns = (uint64_t)o->chunk_us * 1000ull;
	c->qsort = o->mode == CPUIO_QSORT;
	c->exit_io_done = o->exit_io_done && e->cfg.io_jobs_left;
	if (c->qsort) {
		c->data = malloc(QSORT_NR * sizeof(*c->data));
		if (!c->data) {
			free(c);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < QSORT_NR; i++) {
			z = 36969 * (z & 65535) + (z >> 16);
			w = 18000 * (w & 65535) + (w >> 16);
			c->data[i] = (int32_t)((z << 16) + w);
		}
	}
	e->priv = c;
	return 0;
}

static void cpuio_exit(struct ioe *e)
{
	struct cpuio *c = e->priv;

	free(c->data);
	free(c);
}

static int cpuio_queue(struct ioe *e, struct io_u *u)
{
	struct cpuio *c = e->priv;
	uint64_t end;

	if (c->exit_io_done && !e->cfg.io_jobs_left(e->cfg.stop_arg)) {
		e->peer_done = true;	/* the job ends here; this burn is not counted */
		u->result = 0;
		return IOE_Q_COMPLETED;
	}
	end = mono_ns() + c->chunk_ns;
	do {
		if (c->qsort)
			sort_round(c->data);
	} while (mono_ns() < end);
	u->result = u->len;
	u->nostat = IOE_NOSTAT_BYTES;
	return IOE_Q_COMPLETED;
}

/*
 * fio's line as each thread sets the engine up ("j (noop): ioengine=cpuio,
 * cpuload=30, cpucycle=50000"), in place of the job's banner line, which fio
 * leaves out for an engine that does no I/O; a load above 100 shows as 100.
 */
static int cpuio_fio_line(const struct plan_job *j, int stage, char *buf, size_t len)
{
	const struct cpuio_opts *o = j->engine_opts;

	if (stage != IOE_FIO_LINE_INIT || !o)
		return 0;
	return snprintf(buf, len, "%s (%s): ioengine=cpuio, cpuload=%lld, cpucycle=%lld", j->name,
			o->mode == CPUIO_QSORT ? "qsort" : "noop", o->load_pct > 100 ? 100 : o->load_pct,
			o->chunk_us);
}

const struct ioe_ops ioe_cpuio = {
	.id = PLAN_IOENGINE_CPUIO,
	.sync = true,
	.no_io = true,
	.no_open = true,
	.no_layout = true,
	.init = cpuio_init,
	.exit = cpuio_exit,
	.queue = cpuio_queue,
	.fio_line = cpuio_fio_line,
};

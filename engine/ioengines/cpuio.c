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
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "engine/ioengine.h"

#define QSORT_NR 1024u			/* fio's qsort_size: 4 KiB of int32 per sort */

struct cpuio {
	uint64_t chunk_ns;
	bool qsort;
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
	struct cpuio *c = calloc(1, sizeof(*c));
	uint32_t z = 521288629u, w = 362436069u;	/* multiply-with-carry seeds */

	if (!c)
		return -ENOMEM;
	c->chunk_ns = (uint64_t)e->cfg.cpuchunks_us * 1000ull;
	c->qsort = e->cfg.cpumode_qsort;
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
	uint64_t end = mono_ns() + c->chunk_ns;

	do {
		if (c->qsort)
			sort_round(c->data);
	} while (mono_ns() < end);
	u->result = u->len;
	u->nostat = IOE_NOSTAT_BYTES;
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_cpuio = {
	.id = PLAN_IOENGINE_CPUIO,
	.sync = true,
	.no_open = true,
	.no_layout = true,
	.init = cpuio_init,
	.exit = cpuio_exit,
	.queue = cpuio_queue,
};

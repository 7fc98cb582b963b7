/*
 * engine/buffers.h - I/O buffer memory and what write buffers contain.
 *
 * Each worker owns one aligned pool with a buffer per queue slot, allocated once.
 * Write data is random by default and varied per write by xoring a fresh 64-byte
 * key over the buffer (a vectorisable pass, ~50 ns per 4 KiB), so no two written
 * blocks are alike and a file written sequentially does not repeat, without
 * generating random bytes per write (refill_buffers does that when asked).
 */
#ifndef IOPLAN_ENGINE_BUFFERS_H
#define IOPLAN_ENGINE_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan.h"
#include "engine/gen/rng.h"

struct bufpool {
	uint8_t *mem;
	uint64_t stride;		/* bytes between buffers (aligned) */
	uint32_t n;
};

/*
 * What a job's worker allocates: one buffer per queue slot (bufpool_depth:
 * iodepth, 1 for psync) of the job's largest transfer (bufpool_len).  Shared by
 * the worker and by preflight, which refuses a plan whose buffers cannot fit.
 */
uint32_t bufpool_depth(const struct plan_job *j);
uint64_t bufpool_len(const struct plan_job *j);

/* n buffers of len bytes, each aligned to align (raised to a page).  0 or -ENOMEM. */
int bufpool_alloc(struct bufpool *p, uint32_t n, uint64_t len, uint64_t align);
void bufpool_free(struct bufpool *p);

static inline void *bufpool_at(const struct bufpool *p, uint32_t i)
{
	return p->mem + (uint64_t)i * p->stride;
}

/* What to write, from the plan (copied so workers never read the plan while running). */
struct buffill {
	enum plan_buffer_fill kind;
	uint32_t compress_pct;
	bool in_chunks;			/* buffer_compress_percentage or dedupe_percentage: each
					 * chunk random, then zeros or the pattern (fio's order) */
	uint64_t compress_chunk;
	uint8_t *pattern;		/* owned copy, or NULL */
	uint32_t pattern_len;
};

/* Copies the job's buffer settings.  0 or -ENOMEM. */
int buffill_from_job(struct buffill *f, const struct plan_job *j);
void buffill_release(struct buffill *f);

/* A verified job's fill, as fio's verify makes its writes (see buffers.c). */
void buffill_for_verify(struct buffill *f);

/* A verified write's len bytes as fio makes them from its header seed (buffill_for_verify's f). */
void buf_fill_verified(void *buf, uint64_t len, const struct buffill *f, uint64_t seed);

/* Fills buf with the job's content (fresh random bytes where random). */
void buf_fill(void *buf, uint64_t len, const struct buffill *f, uint64_t *rng);

/* Random bytes at memory speed. */
void buf_fill_random(void *buf, uint64_t len, uint64_t *rng);

/*
 * fio's dedupe_percentage: that share of the writes repeats an earlier buffer
 * (dedupe_mode=repeat: the last unique one; working_set: one of the first
 * dedupe_working_set_percentage of the region's unique buffers, as fio's
 * working set is the start of the job's own unique sequence; with
 * dedupe_global a set every job shares).  Each write's content is generated from a seed, so a repeat
 * only needs the seed it repeats.
 */
struct dedupe {
	uint32_t pct;
	bool working_set;
	uint64_t nr_set;		/* working_set: buffers the repeats come from */
	uint64_t set_key;		/* dedupe_global: the shared set's seeds derive from it */
	uint64_t key;			/* the clone's unique buffers: seed i is rng_seed(key, i) */
	uint64_t next_unique;		/* index of the next unique buffer */
	uint64_t rng;			/* the draws: repeat or not, and which one */
	uint64_t last_unique;		/* repeat: seed of the last unique buffer */
};

/* From the job, for a clone (seed) over region_bytes in writes of bs.  pct 0: off. */
void dedupe_init(struct dedupe *d, const struct plan_job *j, uint64_t seed, uint64_t region_bytes,
		 uint64_t bs);

/* The seed the next write's content is generated from. */
uint64_t dedupe_next_seed(struct dedupe *d);

#define BUF_VARY_SECTOR 512u

/*
 * Makes every 512-byte sector of a random buffer differ from what it held
 * before, so no write repeats an earlier one at any block size a dedup engine
 * or a compressor could use: one XORed word per sector (the data stays
 * random), 64 times cheaper than touching every word -- fio's
 * scramble_buffers does the same kind of thing.
 */
static inline void buf_vary(void *buf, uint64_t len, uint64_t *rng)
{
	uint64_t *w = (uint64_t *)buf, k = rng_next(rng) | 1;
	uint64_t n = len / 8;

	for (uint64_t i = 0; i < n; i += BUF_VARY_SECTOR / 8)
		w[i] ^= k + i;
}

#endif /* IOPLAN_ENGINE_BUFFERS_H */

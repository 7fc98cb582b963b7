/*
 * engine/buffers.c - buffer pools and buffer contents (buffers.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "ioengine.h"

#define PAGE 4096u

uint32_t bufpool_depth(const struct plan_job *j)
{
	const struct ioe_ops *o = ioe_find(j->ioengine);

	/* A sync engine holds one I/O at a time whatever iodepth says (as fio). */
	return (o && o->sync) || !j->iodepth ? 1 : j->iodepth;
}

uint64_t bufpool_len(const struct plan_job *j)
{
	uint64_t m = 0;

	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (plan_bs_max(&j->bs[d]) > m)
			m = plan_bs_max(&j->bs[d]);
	return m ? m : 4096;
}

int bufpool_alloc(struct bufpool *p, uint32_t n, uint64_t len, uint64_t align)
{
	void *mem = NULL;

	memset(p, 0, sizeof(*p));
	if (align < PAGE)
		align = PAGE;
	if (align & (align - 1))
		return -EINVAL;
	p->stride = (len + align - 1) & ~(align - 1);
	if (!p->stride)
		p->stride = align;
	if (posix_memalign(&mem, align, p->stride * (n ? n : 1)))
		return -ENOMEM;
	p->mem = mem;
	p->n = n;
	return 0;
}

void bufpool_free(struct bufpool *p)
{
	free(p->mem);
	memset(p, 0, sizeof(*p));
}

int buffill_from_job(struct buffill *f, const struct plan_job *j)
{
	memset(f, 0, sizeof(*f));
	f->kind = j->buffer_fill;
	f->compress_pct = j->buffer_compress_pct > 100 ? 100 : j->buffer_compress_pct;
	f->in_chunks = j->buffer_compress_pct || j->dedupe_pct;
	/* fio's min_not_zero(min_bs, compress_chunk): no chunk past the smallest write, 0 that write. */
	f->compress_chunk = j->bs[PLAN_DDIR_WRITE].min_bytes;
	if (j->buffer_compress_chunk_bytes &&
	    (!f->compress_chunk || j->buffer_compress_chunk_bytes < f->compress_chunk))
		f->compress_chunk = j->buffer_compress_chunk_bytes;
	if (!f->compress_chunk)
		f->compress_chunk = 512;	/* a job that writes nothing: any chunk will do */
	if (f->kind == PLAN_BUF_PATTERN) {
		if (!j->buffer_pattern || !j->buffer_pattern_len) {
			f->kind = PLAN_BUF_ZERO;
			return 0;
		}
		f->pattern = malloc(j->buffer_pattern_len);
		if (!f->pattern)
			return -ENOMEM;
		memcpy(f->pattern, j->buffer_pattern, j->buffer_pattern_len);
		f->pattern_len = j->buffer_pattern_len;
	}
	return 0;
}

void buffill_release(struct buffill *f)
{
	free(f->pattern);
	memset(f, 0, sizeof(*f));
}

void buf_fill_random(void *buf, uint64_t len, uint64_t *rng)
{
	uint8_t *p = buf;
	uint64_t i = 0, r;

	for (; i + 8 <= len; i += 8) {
		r = rng_next(rng);
		memcpy(p + i, &r, 8);
	}
	if (i < len) {
		r = rng_next(rng);
		memcpy(p + i, &r, len - i);
	}
}

static void fill_pattern(uint8_t *p, uint64_t len, const struct buffill *f)
{
	uint64_t done = 0, n;

	while (done < len) {
		n = len - done < f->pattern_len ? len - done : f->pattern_len;
		memcpy(p + done, f->pattern, n);
		done += n;
	}
}

/*
 * fio's buffer_compress_percentage (fill_io_buffer): the buffer in chunks (the
 * last one shorter), each (100 - pct)% random, rounded down, then zeros, or
 * buffer_pattern from its start: the pattern is what compresses, not all there
 * is.  dedupe_percentage alone fills so too (0%: random, a dedupe repeats it).
 */
static void fill_compressible(uint8_t *p, uint64_t len, const struct buffill *f, uint64_t *rng)
{
	uint64_t chunk = f->compress_chunk, off, n, random;

	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		random = n * (100 - f->compress_pct) / 100;
		buf_fill_random(p + off, random, rng);
		if (f->kind == PLAN_BUF_PATTERN)
			fill_pattern(p + off + random, n - random, f);
		else
			memset(p + off + random, 0, n - random);
	}
}

void buf_fill(void *buf, uint64_t len, const struct buffill *f, uint64_t *rng)
{
	/* As fio's: compression or dedupe first, whatever zero_buffers or a pattern say. */
	if (f->in_chunks) {
		fill_compressible(buf, len, f, rng);
		return;
	}
	switch (f->kind) {
	case PLAN_BUF_ZERO:
		memset(buf, 0, len);
		return;
	case PLAN_BUF_PATTERN:
		fill_pattern(buf, len, f);
		return;
	default:
		buf_fill_random(buf, len, rng);
	}
}

/*
 * fio's fill_verify_pattern: a verified write (verify_pattern aside) is random
 * data, buffer_compress_percentage of it zeros, or buffer_pattern, at the end
 * of the whole write (fio fills it as one segment: compress_chunk does not
 * reach it), then the headers.  zero_buffers, buffer_pattern alone and
 * dedupe_percentage do not reach it either, and 100% (which fio's fixup turns
 * into zero_buffers) is random too.  ioplan wrote zeros under zero_buffers=1
 * verify=crc32c, where fio's blocks are random.  The random data is fio's own
 * for the write's header seed (buf_fill_verified), so a block's data is fio's
 * byte for byte and can be made again from its header.
 */
void buffill_for_verify(struct buffill *f)
{
	if (f->compress_pct == 100)
		f->compress_pct = 0;
	f->in_chunks = f->compress_pct != 0;
	f->compress_chunk = UINT64_MAX;
	if (!f->in_chunks || f->kind != PLAN_BUF_PATTERN)
		f->kind = PLAN_BUF_RANDOM;
}

#define FIO_HASH_MUL 0x61C8864680B583EBull	/* fio's __hash_u64: the golden-ratio multiply */
#define FIO_SEED_LANES 4u			/* fio's CONFIG_SEED_BUCKETS, as Debian's fio is built */

/*
 * fio's __fill_random_buf: four interleaved chains of 64-bit words, lane i
 * starting at seed times the i-th of 1, 2, 3, 5 and each next word the last
 * times the golden ratio; what the lanes leave (under 32 bytes) continues
 * lane 0's chain word by word, the last bytes of its next word after them.
 * Words are stored little-endian, as on fio's x86.
 */
static void fill_seeded_random(uint8_t *p, uint64_t len, uint64_t seed)
{
	static const uint64_t mul[FIO_SEED_LANES] = { 1, 2, 3, 5 };
	uint64_t lane[FIO_SEED_LANES], words = len / 8 / FIO_SEED_LANES * FIO_SEED_LANES, i = 0, v;

	for (uint32_t k = 0; k < FIO_SEED_LANES; k++)
		lane[k] = seed * mul[k];
	for (; i < words; i++) {
		memcpy(p + i * 8, &lane[i % FIO_SEED_LANES], 8);
		lane[i % FIO_SEED_LANES] *= FIO_HASH_MUL;
	}
	v = lane[0];
	for (i *= 8; i + 8 <= len; i += 8) {
		memcpy(p + i, &v, 8);
		v *= FIO_HASH_MUL;
	}
	memcpy(p + i, &v, len - i);
}

void buf_fill_verified(void *buf, uint64_t len, const struct buffill *f, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t random = len * (100 - f->compress_pct) / 100;

	fill_seeded_random(p, random, seed);
	if (f->kind == PLAN_BUF_PATTERN)
		fill_pattern(p + random, len - random, f);
	else
		memset(p + random, 0, len - random);
}

/* Every job with dedupe_global draws its working set from this one key. */
#define DEDUPE_GLOBAL_KEY 0x646564757065ull

void dedupe_init(struct dedupe *d, const struct plan_job *j, uint64_t seed, uint64_t region_bytes,
		 uint64_t bs)
{
	memset(d, 0, sizeof(*d));
	d->pct = j->dedupe_pct > 100 ? 100 : j->dedupe_pct;
	d->working_set = j->dedupe_working_set;
	d->rng = rng_seed(seed, RNG_DEDUPE);
	d->key = rng_seed(seed, RNG_DEDUPE_KEY);
	d->set_key = j->dedupe_global ? DEDUPE_GLOBAL_KEY : d->key;
	d->nr_set = bs ? region_bytes / 100 * j->dedupe_working_set_pct / bs : 0;
	if (!d->nr_set)
		d->nr_set = 1;
	d->last_unique = rng_seed(d->key, 0);	/* a repeat before any unique write: the first one */
}

uint64_t dedupe_next_seed(struct dedupe *d)
{
	if (d->pct && rng_below(&d->rng, 100) < d->pct) {
		if (!d->working_set)
			return d->last_unique;
		return rng_seed(d->set_key, rng_below(&d->rng, d->nr_set));
	}
	d->last_unique = rng_seed(d->key, d->next_unique++);
	return d->last_unique;
}

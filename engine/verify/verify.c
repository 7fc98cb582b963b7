/*
 * engine/verify/verify.c - fio's block headers and their checks, and written-block maps (verify.h).
 *
 * The layout follows fio 3.33's verify.c so both tools read each other's
 * blocks: header, digest area, data; the header's own crc32c covers its
 * fields up to the crc; verify_offset swaps the header with the bytes at that
 * offset after the digest is taken.  Checks go in fio's order (magic, length,
 * offset, header crc, then the method) and stop at the first bad field of a
 * chunk.  fio also compares a write number, which ioplan does not keep per
 * block, and in a job that reads and writes the seed, against its verify
 * state's sequence drawn again in its read-back order (the writes' order under
 * a random map, which ioplan's read-back follows too, worker_verify_order.c;
 * by offset otherwise, where fio 3.33 fails its own randrw norandommap job):
 * ioplan compares neither, so an overwrite the device lost, leaving the
 * earlier write whole, passes here where fio's write number catches it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/verify/verify.h"

static bool has_header(enum plan_verify kind)
{
	return kind != PLAN_VERIFY_PATTERN && kind != PLAN_VERIFY_NULL && kind != PLAN_VERIFY_NONE;
}

static bool has_digest(enum plan_verify kind)
{
	return has_header(kind) && kind != PLAN_VERIFY_META && kind != PLAN_VERIFY_PATTERN_HDR;
}

int vfy_init(struct vfy *v, enum plan_verify kind, uint64_t interval, uint64_t seed,
	     const uint8_t *pattern, uint32_t pattern_len)
{
	memset(v, 0, sizeof(*v));
	v->want_numberio = -1;
	v->kind = kind;
	v->interval = interval;
	v->seed = seed;
	v->pattern = pattern_len ? pattern : NULL;
	v->pattern_len = pattern_len;
	if (kind == PLAN_VERIFY_PATTERN)
		return pattern && pattern_len && interval ? 0 : -EINVAL;
	if (!has_header(kind))
		return 0;
	v->hdr_size = VFY_HDR_BYTES + csum_area(kind);
	if (interval <= v->hdr_size)
		return -EINVAL;
	return has_digest(kind) ? csum_init(&v->csum, kind) : 0;
}

void vfy_release(struct vfy *v)
{
	csum_release(&v->csum);
}

int vfy_set_offset(struct vfy *v, uint32_t verify_offset)
{
	/* Below hdr_size the two swapped ranges overlap: every check would then fail (as fio's do). */
	if (verify_offset &&
	    (!v->hdr_size || verify_offset < v->hdr_size || verify_offset + v->hdr_size > v->interval))
		return -EINVAL;
	v->verify_offset = verify_offset;
	return 0;
}

const char *vfy_kind_name(enum plan_verify kind)
{
	return plan_verify_name(kind);
}

#define VFY_PATTERN_MAX 512u	/* fio's MAX_PATTERN_SIZE: the parser allows no more */

/*
 * The pattern as the chunk at `offset` carries it: each %o holds the offset
 * (little-endian, as fio pastes a block's offset; a chunk is the block when
 * verify_interval is unset).
 */
static const uint8_t *chunk_pattern(const struct vfy *v, uint64_t offset, uint8_t *tmp)
{
	if (!v->nr_offset_at || v->pattern_len > VFY_PATTERN_MAX)
		return v->pattern;
	memcpy(tmp, v->pattern, v->pattern_len);
	for (uint32_t i = 0; i < v->nr_offset_at; i++) {
		uint32_t at = v->offset_at[i], n = 8;

		if (at >= v->pattern_len)
			continue;
		if (n > v->pattern_len - at)
			n = v->pattern_len - at;
		memcpy(tmp + at, &offset, n);
	}
	return tmp;
}

/*
 * As fio's fill_verify_pattern: the pattern runs on through the whole I/O's
 * buffer from its start (a chunk of an I/O does not start it again), %o being
 * the I/O's offset; the headers then go over the start of each chunk.
 */
static void fill_pattern(const struct vfy *v, uint8_t *c, uint64_t len, uint64_t io_offset)
{
	uint8_t tmp[VFY_PATTERN_MAX];
	const uint8_t *pat = chunk_pattern(v, io_offset, tmp);

	for (uint64_t i = 0; i < len; i++)
		c[i] = pat[i % v->pattern_len];
}

/* Swaps the header (and digest) at the chunk's start with the bytes at verify_offset. */
static void swap_header(const struct vfy *v, uint8_t *c)
{
	uint8_t tmp[VFY_HDR_BYTES + CSUM_AREA_MAX];

	if (!v->verify_offset)
		return;
	memcpy(tmp, c, v->hdr_size);
	memcpy(c, c + v->verify_offset, v->hdr_size);
	memcpy(c + v->verify_offset, tmp, v->hdr_size);
}

static void stamp_chunk(struct vfy *v, uint8_t *c, uint64_t offset, uint64_t seed,
			const struct timespec *now)
{
	struct vfy_hdr h = {
		.magic = VFY_MAGIC,
		.verify_type = (uint16_t)v->kind,
		.len = (uint32_t)v->interval,
		.rand_seed = seed,
		.offset = offset,
		.time_sec = (uint32_t)now->tv_sec,
		.time_nsec = (uint32_t)now->tv_nsec,
		.thread = v->thread,
		.numberio = v->numberio,
	};

	h.crc32 = csum_crc32c(&h, offsetof(struct vfy_hdr, crc32));
	memcpy(c, &h, sizeof(h));
	if (has_digest(v->kind))
		csum_compute(&v->csum, c + v->hdr_size, v->interval - v->hdr_size, c + VFY_HDR_BYTES);
	swap_header(v, c);
}

void vfy_stamp(struct vfy *v, void *buf, uint64_t len, uint64_t offset)
{
	uint8_t *p = buf;
	struct timespec now;

	if (v->kind == PLAN_VERIFY_NULL || v->kind == PLAN_VERIFY_NONE)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	if (v->pattern)
		fill_pattern(v, p, len, offset);
	for (uint64_t at = 0; at + v->interval <= len && has_header(v->kind); at += v->interval)
		stamp_chunk(v, p + at, offset + at, v->seed, &now);
	v->numberio++;	/* fio's: the writes issued before this one (td->io_issues) */
}

uint16_t vfy_numberio(const struct vfy *v, const void *chunk)
{
	uint16_t n;

	if (!has_header(v->kind))
		return 0;
	memcpy(&n, (const uint8_t *)chunk + v->verify_offset + offsetof(struct vfy_hdr, numberio), sizeof(n));
	return n;
}

void vfy_fill_pattern(const struct vfy *v, void *io, uint64_t len, uint64_t io_offset)
{
	if (v->pattern)
		fill_pattern(v, io, len, io_offset);
}

void vfy_stamp_expected(struct vfy *v, void *chunk, uint64_t offset, uint64_t seed)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	stamp_chunk(v, chunk, offset, seed, &now);
}

/*
 * The chunk at `off`, `pos` bytes into an I/O at io_off: its first byte from
 * `from` on that differs from the pattern (fio's verify_io_u_pattern: the
 * pattern's place is the byte's in the I/O); false when all match.
 */
static bool check_pattern(const struct vfy *v, const uint8_t *c, uint64_t from, uint64_t off,
			  uint64_t pos, uint64_t io_off, struct vfy_bad *b)
{
	uint8_t tmp[VFY_PATTERN_MAX];
	const uint8_t *pat = chunk_pattern(v, io_off, tmp);

	for (uint64_t i = from; i < v->interval; i++) {
		uint8_t want = pat[(pos + i) % v->pattern_len];

		if (c[i] != want) {
			b->offset = off + i;
			b->want = want;
			b->got = c[i];
			b->field = "pattern";
			return true;
		}
	}
	return false;
}

static bool differs(struct vfy_bad *b, const char *field, uint64_t want, uint64_t got)
{
	if (want == got)
		return false;
	b->field = field;
	b->want = want;
	b->got = got;
	return true;
}

static bool check_header(const struct vfy *v, const uint8_t *c, uint64_t off, struct vfy_bad *b)
{
	struct vfy_hdr h;

	memcpy(&h, c, sizeof(h));
	/* fio's order: a stale block (an earlier write's, whole) fails at its write number. */
	return differs(b, "magic", VFY_MAGIC, h.magic) ||
	       differs(b, "length", v->interval, h.len) ||
	       differs(b, "offset", off, h.offset) ||
	       (v->want_numberio >= 0 && differs(b, "numberio", (uint64_t)v->want_numberio, h.numberio)) ||
	       differs(b, "header crc32c", h.crc32, csum_crc32c(&h, offsetof(struct vfy_hdr, crc32)));
}

/* The digest over the data against the stored area, padding included. */
static bool check_digest(struct vfy *v, const uint8_t *c, struct vfy_bad *b)
{
	uint32_t area = csum_area(v->kind);

	csum_compute(&v->csum, c + v->hdr_size, v->interval - v->hdr_size, b->got_sum);
	if (!memcmp(b->got_sum, c + VFY_HDR_BYTES, area))
		return false;
	memcpy(b->want_sum, c + VFY_HDR_BYTES, area);
	/* Name the digests alone unless the damage is in the zero padding after them. */
	b->sum_len = csum_digest_len(v->kind);
	if (!memcmp(b->got_sum, b->want_sum, b->sum_len))
		b->sum_len = area;
	b->field = plan_verify_name(v->kind);
	return true;
}

static bool check_chunk(struct vfy *v, uint8_t *c, uint64_t off, uint64_t pos, uint64_t io_off,
			struct vfy_bad *b)
{
	b->offset = off;
	b->sum_len = 0;
	if (v->kind == PLAN_VERIFY_NULL)
		return false;
	if (v->kind == PLAN_VERIFY_PATTERN)
		return check_pattern(v, c, 0, off, pos, io_off, b);
	swap_header(v, c);
	if (check_header(v, c, off, b))
		return true;
	if (!has_digest(v->kind))	/* meta, and verify_pattern without verify= */
		return v->pattern && check_pattern(v, c, v->hdr_size, off, pos, io_off, b);
	return check_digest(v, c, b);
}

uint32_t vfy_check(struct vfy *v, void *buf, uint64_t len, uint64_t offset, uint64_t io_len,
		   struct vfy_bad *bad, uint32_t max)
{
	uint8_t *p = buf;
	struct vfy_bad b;
	uint32_t n = 0;

	if (!io_len)
		io_len = len;
	for (uint64_t at = 0; at + v->interval <= len; at += v->interval) {
		uint64_t pos = at % io_len;

		v->checks++;
		if (!check_chunk(v, p + at, offset + at, pos, offset + at - pos, &b))
			continue;
		if (n < max)
			bad[n] = b;
		n++;
	}
	return n;
}

int vfy_clone(struct vfy *dst, const struct vfy *src)
{
	int ret = vfy_init(dst, src->kind, src->interval, src->seed, src->pattern, src->pattern_len);

	if (ret)
		return ret;
	dst->verify_offset = src->verify_offset;
	dst->thread = src->thread;
	dst->numberio = src->numberio;
	dst->offset_at = src->offset_at;
	dst->nr_offset_at = src->nr_offset_at;
	return 0;
}

uint32_t vfy_check_zero(struct vfy *v, const void *buf, uint64_t len, uint64_t offset,
			struct vfy_bad *bad, uint32_t max)
{
	const uint8_t *p = buf;
	uint32_t n = 0;

	for (uint64_t at = 0; at + v->interval <= len; at += v->interval) {
		v->checks++;
		for (uint64_t i = at; i < at + v->interval; i++) {
			if (!p[i])
				continue;
			if (n < max)
				bad[n] = (struct vfy_bad){ .offset = offset + i, .got = p[i],
							   .field = "trimmed block" };
			n++;
			break;
		}
	}
	return n;
}

static size_t hex(char *out, size_t cap, const uint8_t *p, uint32_t n)
{
	size_t at = 0;

	for (uint32_t i = 0; i < n && at + 3 <= cap; i++)
		at += (size_t)snprintf(out + at, cap - at, "%02x", p[i]);
	return at;
}

void vfy_describe(const struct vfy *v, const struct vfy_bad *b, char *out, size_t cap)
{
	const char *name = vfy_kind_name(v->kind);
	size_t at;

	if (b->sum_len) {
		at = (size_t)snprintf(out, cap, "verify %s: want ", name);
		at += hex(out + at, at < cap ? cap - at : 0, b->want_sum, b->sum_len);
		if (at + 6 < cap)
			at += (size_t)snprintf(out + at, cap - at, " got ");
		hex(out + at, at < cap ? cap - at : 0, b->got_sum, b->sum_len);
	} else if (!strcmp(b->field, "trimmed block")) {
		snprintf(out, cap, "trim_verify_zero: trimmed block reads back byte %02" PRIx64
			 " here, not zeroes", b->got);
	} else if (!strcmp(b->field, "pattern")) {
		snprintf(out, cap, "verify %s: pattern byte want %02" PRIx64 " got %02" PRIx64, name,
			 b->want, b->got);
	} else {
		snprintf(out, cap, "verify %s: bad %s%s: want 0x%" PRIx64 " got 0x%" PRIx64, name,
			 strncmp(b->field, "header ", 7) ? "header " : "", b->field, b->want, b->got);
	}
}

int vfy_map_init(struct vfy_map *m, uint64_t region_len, uint64_t interval)
{
	m->nbits = interval ? region_len / interval : 0;
	m->bits = calloc(m->nbits / 64 + 1, sizeof(*m->bits));
	return m->bits ? 0 : -ENOMEM;
}

void vfy_map_release(struct vfy_map *m)
{
	free(m->bits);
	m->bits = NULL;
	m->nbits = 0;
}

void vfy_map_set(struct vfy_map *m, uint64_t first, uint64_t n, bool on)
{
	for (uint64_t i = first; i < first + n && i < m->nbits; i++) {
		if (on)
			m->bits[i / 64] |= 1ull << (i % 64);
		else
			m->bits[i / 64] &= ~(1ull << (i % 64));
	}
}

/*
 * engine/verify.c - checksums, chunk headers and written-block maps (verify.h).
 *
 * XXH64 follows the algorithm as its specification describes it: four 64-bit
 * accumulators over 32-byte stripes, a merge, then the tail in 8-, 4- and
 * 1-byte steps and a final avalanche.  CRC-32C is the reflected CRC with
 * polynomial 0x82F63B78, computed eight bytes at a time (slicing-by-8) or with
 * the SSE4.2 instruction, which implements exactly this polynomial.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "verify.h"

#define CRC32C_POLY 0x82f63b78u

#define XXP1 0x9e3779b185ebca87ull
#define XXP2 0xc2b2ae3d27d4eb4full
#define XXP3 0x165667b19e3779f9ull
#define XXP4 0x85ebca77c2b2ae63ull
#define XXP5 0x27d4eb2f165667c5ull

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t xx_round(uint64_t acc, uint64_t lane)
{
	acc += lane * XXP2;
	acc = rotl64(acc, 31);
	return acc * XXP1;
}

static uint64_t xx_merge(uint64_t acc, uint64_t v)
{
	acc ^= xx_round(0, v);
	return acc * XXP1 + XXP4;
}

uint64_t vfy_xxh64(const void *buf, size_t len, uint64_t seed)
{
	const uint8_t *p = buf, *end = p + len;
	uint64_t acc;

	if (len >= 32) {
		uint64_t v1 = seed + XXP1 + XXP2, v2 = seed + XXP2, v3 = seed, v4 = seed - XXP1;

		for (; end - p >= 32; p += 32) {
			v1 = xx_round(v1, rd64(p));
			v2 = xx_round(v2, rd64(p + 8));
			v3 = xx_round(v3, rd64(p + 16));
			v4 = xx_round(v4, rd64(p + 24));
		}
		acc = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		acc = xx_merge(acc, v1);
		acc = xx_merge(acc, v2);
		acc = xx_merge(acc, v3);
		acc = xx_merge(acc, v4);
	} else {
		acc = seed + XXP5;
	}
	acc += (uint64_t)len;
	for (; end - p >= 8; p += 8) {
		acc ^= xx_round(0, rd64(p));
		acc = rotl64(acc, 27) * XXP1 + XXP4;
	}
	if (end - p >= 4) {
		acc ^= (uint64_t)rd32(p) * XXP1;
		acc = rotl64(acc, 23) * XXP2 + XXP3;
		p += 4;
	}
	for (; p < end; p++) {
		acc ^= (uint64_t)*p * XXP5;
		acc = rotl64(acc, 11) * XXP1;
	}
	acc ^= acc >> 33;
	acc *= XXP2;
	acc ^= acc >> 29;
	acc *= XXP3;
	acc ^= acc >> 32;
	return acc;
}

static void crc_tables(struct vfy *v)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1u ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		v->crc_tab[0][i] = c;
	}
	for (int t = 1; t < 8; t++)
		for (uint32_t i = 0; i < 256; i++)
			v->crc_tab[t][i] = (v->crc_tab[t - 1][i] >> 8) ^
					   v->crc_tab[0][v->crc_tab[t - 1][i] & 0xffu];
}

static uint32_t crc_soft(const struct vfy *v, uint32_t c, const uint8_t *p, size_t len)
{
	const uint32_t(*t)[256] = v->crc_tab;

	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo = c ^ rd32(p), hi = rd32(p + 4);

		c = t[7][lo & 0xffu] ^ t[6][(lo >> 8) & 0xffu] ^ t[5][(lo >> 16) & 0xffu] ^
		    t[4][lo >> 24] ^ t[3][hi & 0xffu] ^ t[2][(hi >> 8) & 0xffu] ^
		    t[1][(hi >> 16) & 0xffu] ^ t[0][hi >> 24];
	}
	for (; len; len--, p++)
		c = (c >> 8) ^ t[0][(c ^ *p) & 0xffu];
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t len)
{
	uint64_t c64 = c;

	for (; len >= 8; len -= 8, p += 8)
		c64 = __builtin_ia32_crc32di(c64, rd64(p));
	c = (uint32_t)c64;
	for (; len; len--, p++)
		c = __builtin_ia32_crc32qi(c, *p);
	return c;
}

static bool cpu_has_crc(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse4.2");
}
#else
static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t len)
{
	(void)p;
	(void)len;
	return c;
}

static bool cpu_has_crc(void)
{
	return false;
}
#endif

uint32_t vfy_crc32c(const struct vfy *v, uint32_t crc, const void *buf, size_t len)
{
	uint32_t c = ~crc;

	c = v->hw_crc ? crc_hw(c, buf, len) : crc_soft(v, c, buf, len);
	return ~c;
}

int vfy_init(struct vfy *v, enum plan_verify kind, uint64_t interval, uint64_t seed,
	     const uint8_t *pattern, uint32_t pattern_len)
{
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->interval = interval;
	v->seed = seed;
	v->pattern = pattern;
	v->pattern_len = pattern_len;
	crc_tables(v);
	v->hw_crc = cpu_has_crc();
	if (kind == PLAN_VERIFY_PATTERN)
		return pattern && pattern_len && interval ? 0 : -EINVAL;
	if (kind != PLAN_VERIFY_NONE && interval <= VFY_HDR_BYTES)
		return -EINVAL;
	return 0;
}

const char *vfy_kind_name(enum plan_verify kind)
{
	switch (kind) {
	case PLAN_VERIFY_CRC32C:
		return "crc32c";
	case PLAN_VERIFY_XXH64:
		return "xxhash";
	case PLAN_VERIFY_PATTERN:
		return "pattern";
	default:
		return "none";
	}
}

/* The checksum of a chunk: its header up to the csum field, then its data. */
static uint64_t chunk_csum(const struct vfy *v, const uint8_t *c, uint64_t len)
{
	const size_t pre = offsetof(struct vfy_hdr, csum);

	if (v->kind == PLAN_VERIFY_CRC32C)
		return vfy_crc32c(v, vfy_crc32c(v, 0, c, pre), c + VFY_HDR_BYTES,
				  len - VFY_HDR_BYTES);
	return vfy_xxh64(c + VFY_HDR_BYTES, len - VFY_HDR_BYTES, vfy_xxh64(c, pre, 0));
}

static void fill_pattern(const struct vfy *v, uint8_t *c, uint64_t len)
{
	for (uint64_t done = 0, n; done < len; done += n) {
		n = len - done < v->pattern_len ? len - done : v->pattern_len;
		memcpy(c + done, v->pattern, n);
	}
}

void vfy_stamp(struct vfy *v, void *buf, uint64_t len, uint64_t offset)
{
	uint8_t *p = buf;
	struct vfy_hdr h;

	v->generation++;
	for (uint64_t at = 0; at + v->interval <= len; at += v->interval) {
		uint8_t *c = p + at;

		if (v->kind == PLAN_VERIFY_PATTERN) {
			fill_pattern(v, c, v->interval);
			continue;
		}
		memset(&h, 0, sizeof(h));
		h.magic = VFY_MAGIC;
		h.kind = (uint8_t)v->kind;
		h.version = VFY_VERSION;
		h.hdr_len = VFY_HDR_BYTES;
		h.len = (uint32_t)v->interval;
		h.offset = offset + at;
		h.seed = v->seed;
		h.generation = v->generation;
		memcpy(c, &h, sizeof(h));
		h.csum = chunk_csum(v, c, v->interval);
		memcpy(c + offsetof(struct vfy_hdr, csum), &h.csum, sizeof(h.csum));
	}
}

/* First differing byte of a pattern chunk; false when it matches. */
static bool check_pattern(const struct vfy *v, const uint8_t *c, uint64_t off, struct vfy_bad *b)
{
	for (uint64_t i = 0; i < v->interval; i++) {
		uint8_t want = v->pattern[i % v->pattern_len];

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

static bool check_chunk(const struct vfy *v, const uint8_t *c, uint64_t off, struct vfy_bad *b)
{
	struct vfy_hdr h;

	if (v->kind == PLAN_VERIFY_PATTERN)
		return check_pattern(v, c, off, b);
	memcpy(&h, c, sizeof(h));
	b->offset = off;
	if (differs(b, "magic", VFY_MAGIC, h.magic) || differs(b, "kind", v->kind, h.kind) ||
	    differs(b, "length", v->interval, h.len) || differs(b, "offset", off, h.offset))
		return true;
	return differs(b, v->kind == PLAN_VERIFY_CRC32C ? "crc32c" : "xxh64", h.csum,
		       chunk_csum(v, c, v->interval));
}

uint32_t vfy_check(const struct vfy *v, const void *buf, uint64_t len, uint64_t offset,
		   struct vfy_bad *bad, uint32_t max)
{
	const uint8_t *p = buf;
	struct vfy_bad b;
	uint32_t n = 0;

	for (uint64_t at = 0; at + v->interval <= len; at += v->interval) {
		if (!check_chunk(v, p + at, offset + at, &b))
			continue;
		if (n < max)
			bad[n] = b;
		n++;
	}
	return n;
}

void vfy_describe(const struct vfy *v, const struct vfy_bad *b, char *out, size_t cap)
{
	if (!strcmp(b->field, "crc32c"))
		snprintf(out, cap, "verify crc32c: want %08" PRIx64 " got %08" PRIx64, b->want,
			 b->got);
	else if (!strcmp(b->field, "xxh64"))
		snprintf(out, cap, "verify xxh64: want %016" PRIx64 " got %016" PRIx64, b->want,
			 b->got);
	else if (!strcmp(b->field, "pattern"))
		snprintf(out, cap, "verify pattern: want %02" PRIx64 " got %02" PRIx64, b->want,
			 b->got);
	else
		snprintf(out, cap, "verify %s: bad %s: want %" PRIu64 " got %" PRIu64,
			 vfy_kind_name(v->kind), b->field, b->want, b->got);
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

/* --crctest: the checksums timed over a 1 MiB buffer (engine.h). */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int eng_checksum_speed(const char *name, double *mib_per_s)
{
	const size_t len = 1u << 20;
	const int rounds = 256;
	bool crc = !strcmp(name, "crc32c");
	volatile uint64_t sink = 0; /* the sums must not be optimised away */
	struct vfy *v;
	uint8_t *buf;
	uint64_t start;

	if (!crc && strcmp(name, "xxhash"))
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	buf = malloc(len);
	if (!v || !buf) {
		free(v);
		free(buf);
		return -ENOMEM;
	}
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 24);
	vfy_init(v, PLAN_VERIFY_CRC32C, 4096, 1, NULL, 0);
	start = mono_ns();
	for (int r = 0; r < rounds; r++)
		sink = sink + (crc ? vfy_crc32c(v, 0, buf, len) : vfy_xxh64(buf, len, 0));
	*mib_per_s = rounds / ((double)(mono_ns() - start) / 1e9 + 1e-12);
	free(v);
	free(buf);
	return 0;
}

/*
 * engine/verify.h - data verification: checksums, block headers, written-block maps.
 *
 * With verify=crc32c or verify=xxhash every verify_interval bytes of a written
 * block (a "chunk") start with a header naming what should be there - magic,
 * kind, chunk length, file offset, the clone's seed and a write generation -
 * followed by data; the checksum covers the header (without its checksum
 * field) and the data, so any flipped byte of the chunk is found.  Reading the
 * chunk back checks magic, kind, length and offset first (so a block written
 * to the wrong place is named as such), then the checksum.  verify=pattern
 * writes verify_pattern from the start of every chunk and compares byte by
 * byte, naming the first differing byte.
 *
 * Checksums are computed here from their published definitions: CRC-32C
 * (Castagnoli, reflected polynomial 0x82F63B78, as iSCSI and ext4 use it;
 * SSE4.2's crc32 instruction when the CPU has it) and XXH64 (Yann Collet's
 * xxHash, 64-bit variant).  Tables live in a per-worker context, so the engine
 * keeps no global state.
 */
#ifndef IOPLAN_ENGINE_VERIFY_H
#define IOPLAN_ENGINE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VFY_MAGIC 0x56504f49u		/* "IOPV" little-endian */
#define VFY_VERSION 1
#define VFY_HDR_BYTES 48u

/* The header at the start of every chunk (little-endian, as written). */
struct vfy_hdr {
	uint32_t magic;
	uint8_t kind;			/* enum plan_verify */
	uint8_t version;
	uint16_t hdr_len;
	uint32_t len;			/* chunk bytes, header included */
	uint32_t reserved;
	uint64_t offset;		/* the chunk's file offset */
	uint64_t seed;			/* the writing clone's seed */
	uint64_t generation;		/* the writing clone's write count */
	uint64_t csum;			/* crc32c (low 32 bits) or xxh64 */
};

/* Checksum tables and settings of one worker. */
struct vfy {
	enum plan_verify kind;		/* PLAN_VERIFY_NONE = off */
	uint64_t interval;		/* chunk bytes */
	uint64_t seed;
	uint64_t generation;
	const uint8_t *pattern;		/* verify=pattern: borrowed, pattern_len bytes */
	uint32_t pattern_len;
	bool hw_crc;			/* SSE4.2 crc32 instruction */
	uint32_t crc_tab[8][256];	/* slicing-by-8 tables */
};

/* One mismatch: where and what. */
struct vfy_bad {
	uint64_t offset;		/* file offset of the chunk, or of the byte for patterns */
	uint64_t want;
	uint64_t got;
	const char *field;		/* "magic", "offset", "length", "kind", "crc32c", "xxh64", "pattern" */
};

/* Sets up a context.  0, or -EINVAL when interval is too small for a header. */
int vfy_init(struct vfy *v, enum plan_verify kind, uint64_t interval, uint64_t seed,
	     const uint8_t *pattern, uint32_t pattern_len);

/* The name of a kind as the option spells it ("crc32c", "xxhash", "pattern"). */
const char *vfy_kind_name(enum plan_verify kind);

/* CRC-32C of buf continuing from crc (0 to start); the usual pre/post inversion included. */
uint32_t vfy_crc32c(const struct vfy *v, uint32_t crc, const void *buf, size_t len);

/* XXH64 of buf with seed. */
uint64_t vfy_xxh64(const void *buf, size_t len, uint64_t seed);

/*
 * Writes the header (or pattern) into every whole chunk of a block about to be
 * written at file offset `offset`; a trailing piece shorter than the interval is
 * left as it is and is never checked.
 */
void vfy_stamp(struct vfy *v, void *buf, uint64_t len, uint64_t offset);

/*
 * Checks every whole chunk of a block read from `offset`.  Returns the number of
 * bad chunks; the first up to max are described in bad[].
 */
uint32_t vfy_check(const struct vfy *v, const void *buf, uint64_t len, uint64_t offset,
		   struct vfy_bad *bad, uint32_t max);

/* Formats a mismatch for res_error.what ("verify crc32c: want 0x.. got 0x.."). */
void vfy_describe(const struct vfy *v, const struct vfy_bad *b, char *out, size_t cap);

/*
 * Which chunks of a file region were written (so the read-back checks exactly
 * those).  One bit per interval, relative to the region start.
 */
struct vfy_map {
	uint64_t *bits;
	uint64_t nbits;
};

int vfy_map_init(struct vfy_map *m, uint64_t region_len, uint64_t interval);
void vfy_map_release(struct vfy_map *m);
void vfy_map_set(struct vfy_map *m, uint64_t first, uint64_t n, bool on);

static inline bool vfy_map_test(const struct vfy_map *m, uint64_t i)
{
	return i < m->nbits && (m->bits[i / 64] >> (i % 64)) & 1u;
}

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_VERIFY_H */

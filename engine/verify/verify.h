/*
 * engine/verify/verify.h - data verification: fio's block headers, checksums, written-block maps.
 *
 * A written block is cut into chunks of verify_interval bytes (the whole block
 * when the interval is unset or larger).  With a checksum method each chunk
 * starts with fio 3.33's 40-byte header - magic 0xacca, the method's number,
 * the chunk length, a seed, the chunk's file offset, the time written, the
 * thread, a write number, and a crc32c of those fields - then the method's
 * digest area (checksum.h), then data; the digest covers the data after the
 * area.  So a file written here reads back clean in fio and the other way
 * round (sha256/sha512 aside, checksum.c says why), and `meta` means what it
 * means in fio: the header alone is checked.  Reading a chunk back checks the
 * header first (so a block written to the wrong place, or by a job with other
 * settings, is named as such), then the digest and its zero padding.
 * verify=pattern writes verify_pattern over the chunk and compares byte by
 * byte; with a checksum method, verify_pattern is the data the digest covers,
 * and meta then also compares it.  verify_offset moves the header to that
 * offset of the chunk (swapping it with the bytes there), as fio does.
 */
#ifndef IOPLAN_ENGINE_VERIFY_H
#define IOPLAN_ENGINE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/verify/checksum.h"
#include "engine/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VFY_MAGIC 0xaccau
#define VFY_HDR_BYTES 40u

/* fio's struct verify_header, field for field (little-endian, as written). */
struct vfy_hdr {
	uint16_t magic;
	uint16_t verify_type;		/* enum plan_verify */
	uint32_t len;			/* chunk bytes, header included */
	uint64_t rand_seed;
	uint64_t offset;		/* the chunk's file offset */
	uint32_t time_sec;
	uint32_t time_nsec;
	uint16_t thread;
	uint16_t numberio;
	uint32_t crc32;			/* csum_crc32c of the fields above */
};

/* Settings and checksum state of one worker. */
struct vfy {
	enum plan_verify kind;		/* PLAN_VERIFY_NONE = off */
	uint64_t interval;		/* chunk bytes */
	uint32_t hdr_size;		/* header + digest area; 0 for pattern and null */
	uint32_t verify_offset;		/* where in the chunk the header is kept */
	uint64_t seed;			/* written as rand_seed (the worker sets each write's) */
	uint16_t thread;
	uint16_t numberio;
	int32_t want_numberio;		/* the write number the chunks checked must hold (fio's check in a
					   job that writes: that of the last write to them); -1: any */
	const uint8_t *pattern;		/* verify_pattern: borrowed, pattern_len bytes */
	uint32_t pattern_len;
	const uint32_t *offset_at;	/* verify_pattern's %o: where each chunk's offset goes */
	uint32_t nr_offset_at;
	struct csum_ctx csum;
	uint64_t checks;		/* chunks this context checked (verify_async hands them to others) */
};

/* One mismatch: where and what. */
struct vfy_bad {
	uint64_t offset;		/* file offset of the chunk, or of the byte for patterns */
	uint64_t want;			/* header fields and pattern bytes */
	uint64_t got;
	const char *field;		/* "magic", "length", "offset", "header crc32c", "pattern", or the method */
	uint32_t sum_len;		/* digest mismatches: the bytes compared */
	uint8_t want_sum[CSUM_AREA_MAX];
	uint8_t got_sum[CSUM_AREA_MAX];
};

/*
 * Sets up a context.  0; -EINVAL when the interval cannot hold the header and
 * digest at verify_offset, or pattern needs a pattern; -ENOMEM.
 */
int vfy_init(struct vfy *v, enum plan_verify kind, uint64_t interval, uint64_t seed,
	     const uint8_t *pattern, uint32_t pattern_len);
void vfy_release(struct vfy *v);

/* Keeps the header at this offset of each chunk (verify_offset=); -EINVAL when it does not fit. */
int vfy_set_offset(struct vfy *v, uint32_t verify_offset);

/* The name of a kind as the option spells it ("md5", "sha3-256", "pattern"). */
const char *vfy_kind_name(enum plan_verify kind);

/*
 * Writes the header and digest into every whole chunk of one I/O about to be
 * written at file offset `offset`, and the pattern through all of it (from the
 * I/O's start, as fio's); a trailing piece shorter than the interval has no
 * header and is never checked.
 */
void vfy_stamp(struct vfy *v, void *buf, uint64_t len, uint64_t offset);

/* The write number stamped in a chunk as written (its header at verify_offset); 0 without a header. */
uint16_t vfy_numberio(const struct vfy *v, const void *chunk);

/*
 * verify_dump's .expected: the header and digest of one chunk whose data the
 * caller made again from the seed it was written with (as fio's, the header
 * goes to verify_offset; its time is now).
 */
void vfy_stamp_expected(struct vfy *v, void *chunk, uint64_t offset, uint64_t seed);

/* verify_dump's .expected with verify_pattern: len bytes of the pattern of an I/O written at io_offset, from its start. */
void vfy_fill_pattern(const struct vfy *v, void *io, uint64_t len, uint64_t io_offset);

/*
 * Checks every whole chunk of a block read from `offset` (verify_offset's
 * swap is undone in buf): its header's magic, length, offset, write number
 * (when want_numberio is set) and crc32c, then its digest or pattern.  The block holds I/Os of io_len bytes from its start
 * as they were written (0: one I/O): a pattern starts again at each.  Returns
 * the number of bad chunks; the first up to max are described in bad[].
 */
uint32_t vfy_check(struct vfy *v, void *buf, uint64_t len, uint64_t offset, uint64_t io_len,
		   struct vfy_bad *bad, uint32_t max);

/*
 * verify_async: dst gets src's settings and a checksum state of its own, so
 * another thread can check blocks with it.  0, or vfy_init's error.
 */
int vfy_clone(struct vfy *dst, const struct vfy *src);

/*
 * trim_verify_zero: a trimmed block must read back as zeroes.  Each whole
 * chunk with a byte that is not zero is one mismatch (field "trimmed block",
 * offset: that byte's).  Returns the number of such chunks.
 */
uint32_t vfy_check_zero(struct vfy *v, const void *buf, uint64_t len, uint64_t offset,
			struct vfy_bad *bad, uint32_t max);

/* Formats a mismatch ("verify md5: want 2927.. got 1f3a.."), for res_error.what. */
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

/* verify_state_save/load (verify_state.c): fio 3.33's state files, by fio's names. */
struct vstate {
	uint64_t numberio;		/* writes issued (fio's numberio) */
	uint64_t writes;		/* writes completed, over all files */
	uint64_t no_comps;		/* recorded completions in comps */
	uint64_t index;			/* thread index across all jobs */
	uint32_t depth, nofiles;	/* iodepth and files: the slots are depth x nofiles */
	bool no_random;			/* loaded: its random state is zero, as ioplan writes it (fio's is not) */
	char name[64];			/* the job's name, as fio truncates it */
	struct vstate_comp {
		uint64_t fileno, offset;
	} *comps;			/* newest completion first, per file */
	uint64_t *ring;			/* saving: per file, the last depth completed offsets */
	uint32_t *ring_at;		/* saving: per file, the next ring slot */
};

/*
 * dir: --aux-path, where fio puts its state files too (NULL or "" = the working
 * directory); tail: the job's log_suffix (".HOST.RANK" under mpirun, so ranks
 * sharing a directory keep a state each), NULL for none.
 */
void vstate_name(char *out, size_t cap, const char *dir, const char *job, uint32_t index, const char *tail);
int vstate_init(struct vstate *s, const char *job, uint32_t depth, uint32_t nofiles, uint32_t index);
void vstate_release(struct vstate *s);
void vstate_note_write(struct vstate *s, uint32_t file, uint64_t offset);
/*
 * judged: the preflight refused a user's file at path, so only what it is now is
 * checked; otherwise a user's file there is -EEXIST and stays as it is.
 */
int vstate_save(const char *path, struct vstate *s, bool judged);
/* Whether a file ioplan did not write holds path now (vstate_save would keep it: -EEXIST). */
bool vstate_name_taken(const char *path);
/*
 * 0 when path is a whole state file fio would load, of job with nofiles
 * files; else -errno with why saying what is wrong (version, size, CRC,
 * name, files; a directory or a device is never read).
 */
int vstate_load(const char *path, struct vstate *s, const char *job, uint32_t nofiles, char *why, size_t n);
int vstate_check(const char *path, const char *job, uint32_t nofiles, char *why, size_t n);
/* True when the verify_only read after `reads` reads, of file at offset, was never completed. */
bool vstate_should_stop(const struct vstate *s, uint64_t reads, uint32_t file, uint64_t offset);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_VERIFY_H */

/*
 * engine/verify/verify_state.c - verify_state_save/verify_state_load in fio 3.33's state file format.
 *
 * A write job with verify_state_save=1 keeps, per file, the offsets of its
 * last iodepth completed writes and counts the writes it issued; when the
 * thread ends (also when interrupted) it writes them as fio does, so fio,
 * fio-verify-state and ioplan read each other's files.  The layout, all
 * little-endian: a 24-byte header {version 3, payload bytes, CRC-32C of the
 * payload}, then a 152-byte fixed part {completions, iodepth, files, writes
 * issued, thread index, random state, job name[64]} and iodepth x files
 * {file number, offset} slots, newest completion first, unused ones zero.
 * A later verify_only run with verify_state_load=1 stops as fio stops: at the
 * first block within the last iodepth writes that is not among the recorded
 * completions (a write in flight when the run ended).
 * The file is named as fio names it: local-JOB-N-verify.state in --aux-path
 * or the working directory, '/' in the job name turned into '.', N the
 * thread's index across all jobs (fio's thread_number - 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/safety/safety.h"
#include "engine/verify/checksum.h"
#include "engine/verify/verify.h"

#define VSTATE_VERSION 3
#define VSTATE_HDR 24		/* version, size, crc: three u64 */
#define VSTATE_FIXED 152	/* the payload before the completion slots */
#define VSTATE_NAME_AT 88	/* the job name in the payload, after the random state */
#define VSTATE_SLOT 16		/* file number, offset */
#define VSTATE_MAX_SLOTS (1u << 20)	/* more is a damaged file, not a job (iodepth x files) */

void vstate_name(char *out, size_t cap, const char *dir, const char *job, uint32_t index, const char *tail)
{
	bool in_dir = dir && *dir;
	int at = snprintf(out, cap, "%s%slocal-", in_dir ? dir : "", in_dir ? "/" : "");
	int n = snprintf(out + (at < (int)cap ? at : 0), at < (int)cap ? cap - (size_t)at : 0,
			 "%s-%" PRIu32 "-verify.state%s", job, index, tail ? tail : "") + at;

	for (int i = at; i < n && (size_t)i < cap; i++)
		if (out[i] == '/')
			out[i] = '.';
}

int vstate_init(struct vstate *s, const char *job, uint32_t depth, uint32_t nofiles, uint32_t index)
{
	size_t slots;

	memset(s, 0, sizeof(*s));
	s->depth = depth ? depth : 1;
	s->nofiles = nofiles;
	s->index = index;
	snprintf(s->name, sizeof(s->name), "%s", job);
	slots = (size_t)s->depth * (nofiles ? nofiles : 1);
	s->ring = calloc(slots, sizeof(uint64_t));
	s->ring_at = calloc(nofiles ? nofiles : 1, sizeof(uint32_t));
	s->comps = calloc(slots, sizeof(*s->comps));
	if (s->ring && s->ring_at && s->comps)
		return 0;
	vstate_release(s);
	return -ENOMEM;
}

void vstate_release(struct vstate *s)
{
	free(s->ring);
	free(s->ring_at);
	free(s->comps);
	s->ring = NULL;
	s->ring_at = NULL;
	s->comps = NULL;
}

void vstate_note_write(struct vstate *s, uint32_t file, uint64_t offset)
{
	if (file >= s->nofiles)
		return;
	s->writes++;
	s->ring[(size_t)file * s->depth + s->ring_at[file]] = offset;
	s->ring_at[file] = (s->ring_at[file] + 1) % s->depth;
}

/*
 * fio's slots: per file, the last min(writes, iodepth) completions from its
 * ring, newest first - writes counted over all files, as fio counts them.
 */
static void fill_comps(struct vstate *s)
{
	uint64_t take = s->writes < s->depth ? s->writes : s->depth;

	s->no_comps = 0;
	for (uint32_t f = 0; f < s->nofiles; f++) {
		uint32_t j = s->ring_at[f];

		for (uint64_t i = 0; i < take; i++) {
			j = j ? j - 1 : s->depth - 1;
			s->comps[s->no_comps].fileno = f;
			s->comps[s->no_comps++].offset = s->ring[(size_t)f * s->depth + j];
		}
	}
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static size_t payload_len(uint32_t depth, uint32_t nofiles)
{
	return VSTATE_FIXED + (size_t)depth * nofiles * VSTATE_SLOT;
}

/* The random state (bytes 32..87) stays zero: fio's loader never reads it, ioplan has no tausworthe to put there. */
static void encode(const struct vstate *s, uint8_t *b)
{
	uint8_t *p = b + VSTATE_HDR;
	size_t len = payload_len(s->depth, s->nofiles);

	put64(p, s->no_comps);
	put64(p + 8, (uint64_t)s->depth | (uint64_t)s->nofiles << 32);
	put64(p + 16, s->numberio);
	put64(p + 24, s->index);
	memcpy(p + VSTATE_NAME_AT, s->name, strnlen(s->name, 63));
	for (uint64_t i = 0; i < s->no_comps; i++) {
		put64(p + VSTATE_FIXED + i * VSTATE_SLOT, s->comps[i].fileno);
		put64(p + VSTATE_FIXED + i * VSTATE_SLOT + 8, s->comps[i].offset);
	}
	put64(b, VSTATE_VERSION);
	put64(b + 8, len);
	put64(b + 16, csum_crc32c(p, len));
}

/*
 * Saved whole or not at all (safety_save_whole): the state was written in
 * place after a truncate, so a full disk left a cut file, unmarked, that
 * every later run took for a user's (a warning, no state saved) until it was
 * removed.
 */
int vstate_save(const char *path, struct vstate *s, bool judged)
{
	size_t len = VSTATE_HDR + payload_len(s->depth, s->nofiles);
	uint8_t *b = calloc(1, len);
	char why[512];
	int ret;

	if (!b)
		return -ENOMEM;
	fill_comps(s);
	encode(s, b);
	/* A name ioplan makes up: a user's file by it is kept; never a device. */
	ret = safety_save_whole(&safety_system, path, b, len,
				SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES | (judged ? SAFETY_OUT_JUDGED : 0), why,
				sizeof(why));
	free(b);
	return ret;
}

bool vstate_name_taken(const char *path)
{
	char why[SAFETY_WHY_MAX];

	return safety_check_output(&safety_system, path, SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES, why,
				   sizeof(why)) == -EEXIST;
}

/* The whole file, at most the largest state a job can have, with why when it cannot be read. */
static int read_whole(const char *path, uint8_t **out, size_t *len, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	ssize_t got;

	if (fd < 0 || fstat(fd, &sb)) {
		int ret = -errno;

		snprintf(why, n, "%s", strerror(-ret));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > VSTATE_HDR + payload_len(VSTATE_MAX_SLOTS, 1)) {
		snprintf(why, n, "%s", S_ISDIR(sb.st_mode) ? "a directory, not a state file"
				       : S_ISREG(sb.st_mode) ? "too large for a verify state file"
							     : "not a regular file");
		close(fd);
		return S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
	}
	*len = (size_t)sb.st_size;
	*out = malloc(*len ? *len : 1);
	got = *out ? read(fd, *out, *len) : -1;
	close(fd);
	if (got != (ssize_t)*len) {
		snprintf(why, n, "cannot read its %zu bytes", *len);
		free(*out);
		*out = NULL;
		return -EIO;
	}
	return 0;
}

/* The header's rules, as fio's loader and fio-verify-state apply them. */
static int check_header(const uint8_t *b, size_t len, char *why, size_t n)
{
	uint64_t size, crc;

	if (len < VSTATE_HDR) {
		snprintf(why, n, "truncated: %zu bytes, the header alone is %d", len, VSTATE_HDR);
		return -EINVAL;
	}
	if (get64(b) != VSTATE_VERSION) {
		snprintf(why, n, "version %" PRIu64 " in its header; fio 3.33's state files are version %d",
			 get64(b), VSTATE_VERSION);
		return -EINVAL;
	}
	size = get64(b + 8);
	if (size != len - VSTATE_HDR) {
		snprintf(why, n, "%s: the header says %" PRIu64 " bytes follow it, the file has %zu",
			 size > len - VSTATE_HDR ? "truncated" : "bytes past the state", size, len - VSTATE_HDR);
		return -EINVAL;
	}
	crc = csum_crc32c(b + VSTATE_HDR, (size_t)size);
	if (crc != get64(b + 16)) {
		snprintf(why, n, "corrupt: CRC-32C 0x%08" PRIx64 " of its contents, the header says 0x%08" PRIx64,
			 crc, get64(b + 16));
		return -EINVAL;
	}
	return 0;
}

/* The payload: of this job (its name, its number of files), slots within the file. */
static int decode(struct vstate *s, const uint8_t *p, size_t len, const char *job, uint32_t nofiles,
		  char *why, size_t n)
{
	char name[64], want[64];
	uint64_t dn = get64(p + 8);

	memset(s, 0, sizeof(*s));
	s->depth = (uint32_t)dn;
	s->nofiles = (uint32_t)(dn >> 32);
	s->no_comps = get64(p);
	s->numberio = get64(p + 16);
	s->index = get64(p + 24);
	s->no_random = len >= VSTATE_NAME_AT;
	for (size_t i = 32; s->no_random && i < VSTATE_NAME_AT; i++)
		s->no_random = !p[i];
	if (len < VSTATE_FIXED || !s->depth || (uint64_t)s->depth * s->nofiles > VSTATE_MAX_SLOTS ||
	    len != payload_len(s->depth, s->nofiles) || s->no_comps > (uint64_t)s->depth * s->nofiles) {
		snprintf(why, n, "damaged: %zu bytes of state do not hold iodepth %" PRIu32 " x %" PRIu32
			 " files and %" PRIu64 " completions", len, s->depth, s->nofiles, s->no_comps);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%.63s", (const char *)p + VSTATE_NAME_AT);
	snprintf(want, sizeof(want), "%s", job);
	if (strcmp(name, want)) {
		snprintf(why, n, "written for job '%s', not '%s'", name, want);
		return -EINVAL;
	}
	if (s->nofiles != nofiles) {
		snprintf(why, n, "holds the completions of %" PRIu32 " files; the job has %" PRIu32, s->nofiles,
			 nofiles);
		return -EINVAL;
	}
	if (!(s->comps = calloc(s->no_comps ? s->no_comps : 1, sizeof(*s->comps))))
		return -ENOMEM;
	for (uint64_t i = 0; i < s->no_comps; i++) {
		s->comps[i].fileno = get64(p + VSTATE_FIXED + i * VSTATE_SLOT);
		s->comps[i].offset = get64(p + VSTATE_FIXED + i * VSTATE_SLOT + 8);
		if (s->comps[i].fileno >= nofiles) {
			snprintf(why, n, "damaged: completion %" PRIu64 " is of file %" PRIu64, i, s->comps[i].fileno);
			vstate_release(s);
			return -EINVAL;
		}
	}
	return 0;
}

int vstate_load(const char *path, struct vstate *s, const char *job, uint32_t nofiles, char *why, size_t n)
{
	uint8_t *b = NULL;
	size_t len = 0;
	int ret = read_whole(path, &b, &len, why, n);

	memset(s, 0, sizeof(*s));
	if (!ret)
		ret = check_header(b, len, why, n);
	if (!ret)
		ret = decode(s, b + VSTATE_HDR, len - VSTATE_HDR, job, nofiles, why, n);
	free(b);
	return ret;
}

int vstate_check(const char *path, const char *job, uint32_t nofiles, char *why, size_t n)
{
	struct vstate s;
	int ret = vstate_load(path, &s, job, nofiles, why, n);

	vstate_release(&s);
	return ret;
}

/*
 * fio's rule: reads earlier than the last iodepth writes are checked; within
 * them (or when the run wrote no more than iodepth), a block whose offset is
 * not a recorded completion of its file was in flight: stop there.
 */
bool vstate_should_stop(const struct vstate *s, uint64_t reads, uint32_t file, uint64_t offset)
{
	if ((reads < s->depth || s->numberio - reads > s->depth) && s->numberio > s->depth)
		return false;
	for (uint64_t i = 0; i < s->no_comps; i++)
		if (s->comps[i].fileno == file && s->comps[i].offset == offset)
			return false;
	return true;
}

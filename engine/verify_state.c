/*
 * engine/verify_state.c - verify_state_save/verify_state_load: which chunks a run wrote, kept in a file.
 *
 * A write job with verify_state_save=1 records, per file, the chunks whose
 * writes completed, and writes that map when the thread ends - also when the
 * run was interrupted (SIGINT, runtime, an error).  A later verify_only run
 * with verify_state_load=1 checks exactly those chunks, so an interrupted run
 * verifies clean instead of failing on blocks it never wrote.  The file is
 * named as fio names its state files (local-JOB-N-verify.state in --aux-path
 * or the working directory, '/' in the job name turned into '.'), but holds ioplan's map,
 * not fio's list of completions: the two tools do not read each other's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "verify.h"

#define VSTATE_MAGIC "ioplan-verify-state 1"

void vstate_name(char *out, size_t cap, const char *dir, const char *job, uint32_t index)
{
	bool in_dir = dir && *dir;
	int at = snprintf(out, cap, "%s%slocal-", in_dir ? dir : "", in_dir ? "/" : "");
	int n = snprintf(out + (at < (int)cap ? at : 0), at < (int)cap ? cap - (size_t)at : 0,
			 "%s-%" PRIu32 "-verify.state", job, index) + at;

	for (int i = at; i < n && (size_t)i < cap; i++)
		if (out[i] == '/')
			out[i] = '.';
}

static size_t map_words(const struct vfy_map *m)
{
	return (size_t)(m->nbits / 64 + 1);
}

int vstate_save(const char *path, const struct vfy_map *maps, uint32_t nr, uint64_t interval)
{
	FILE *f = fopen(path, "we");
	int ret = 0;

	if (!f)
		return -errno;
	fprintf(f, "%s files=%" PRIu32 " interval=%" PRIu64 "\n", VSTATE_MAGIC, nr, interval);
	for (uint32_t i = 0; i < nr && !ret; i++) {
		fprintf(f, "file %" PRIu32 " chunks=%" PRIu64 "\n", i, maps[i].nbits);
		if (fwrite(maps[i].bits, sizeof(uint64_t), map_words(&maps[i]), f) != map_words(&maps[i]))
			ret = -EIO;
	}
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* -EINVAL when the file is not a state of this job's layout (other files, sizes or interval). */
int vstate_load(const char *path, struct vfy_map *maps, uint32_t nr, uint64_t interval)
{
	FILE *f = fopen(path, "re");
	uint64_t iv = 0, nbits = 0;
	uint32_t files = 0, idx = 0;
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, VSTATE_MAGIC " files=%" SCNu32 " interval=%" SCNu64 "\n", &files, &iv) != 2 ||
	    files != nr || iv != interval)
		ret = -EINVAL;
	for (uint32_t i = 0; i < nr && !ret; i++) {
		if (fscanf(f, "file %" SCNu32 " chunks=%" SCNu64 "\n", &idx, &nbits) != 2 || idx != i ||
		    nbits != maps[i].nbits)
			ret = -EINVAL;
		else if (fread(maps[i].bits, sizeof(uint64_t), map_words(&maps[i]), f) !=
			 map_words(&maps[i]))
			ret = -EINVAL;
	}
	fclose(f);
	return ret;
}

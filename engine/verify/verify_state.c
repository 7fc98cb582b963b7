/*
 * engine/verify/verify_state.c - verify_state_save/verify_state_load: which chunks a run wrote, kept in a file.
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
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/safety/safety.h"
#include "engine/verify/verify.h"

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
	char why[512];
	/* A name ioplan makes up: the preflight kept a user's file by it; never a device. */
	int fd = safety_open_output(&safety_system, path, O_TRUNC,
				    SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES | SAFETY_OUT_JUDGED, why, sizeof(why));
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int ret = 0;

	if (!f) {
		ret = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	fprintf(f, "%s files=%" PRIu32 " interval=%" PRIu64 "\n", VSTATE_MAGIC, nr, interval);
	for (uint32_t i = 0; i < nr && !ret; i++) {
		fprintf(f, "file %" PRIu32 " chunks=%" PRIu64 "\n", i, maps[i].nbits);
		if (fwrite(maps[i].bits, sizeof(uint64_t), map_words(&maps[i]), f) != map_words(&maps[i]))
			ret = -EIO;
	}
	if (fflush(f) && !ret)
		ret = -errno;
	if (!ret)
		safety_mark_output(fileno(f));	/* ioplan's own: the next run may replace it */
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

/* The map sections after the header: each "file I chunks=N" line and its words, to the file's end. */
static int vstate_walk(FILE *f, uint32_t nr, uint64_t size, char *why, size_t n)
{
	uint64_t nbits = 0;
	uint32_t idx = 0;

	for (uint32_t i = 0; i < nr; i++) {
		struct vfy_map m;
		long at;

		if (fscanf(f, "file %" SCNu32 " chunks=%" SCNu64 "\n", &idx, &nbits) != 2 || idx != i) {
			snprintf(why, n, "truncated or damaged: no map of file %" PRIu32, i);
			return -EINVAL;
		}
		m.nbits = nbits;
		at = ftell(f);
		if (at < 0 || nbits / 64 + 1 > (size - (uint64_t)at) / sizeof(uint64_t)) {
			snprintf(why, n, "truncated: the map of file %" PRIu32 " needs %llu bytes", i,
				 (unsigned long long)(map_words(&m) * sizeof(uint64_t)));
			return -EINVAL;
		}
		fseek(f, (long)(map_words(&m) * sizeof(uint64_t)), SEEK_CUR);
	}
	if ((uint64_t)ftell(f) != size) {
		snprintf(why, n, "%llu bytes past the last map", (unsigned long long)(size - (uint64_t)ftell(f)));
		return -EINVAL;
	}
	return 0;
}

int vstate_check(const char *path, uint32_t nr, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), ret;
	uint32_t files = 0;
	uint64_t iv = 0;
	struct stat sb;
	FILE *f;

	if (fd < 0 || fstat(fd, &sb)) {
		ret = -errno;
		snprintf(why, n, "%s", strerror(-ret));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!S_ISREG(sb.st_mode) || !sb.st_size) {
		snprintf(why, n, "%s", S_ISDIR(sb.st_mode) ? "a directory, not a state file"
				       : S_ISREG(sb.st_mode) ? "empty"
							     : "not a regular file");
		close(fd);
		return S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
	}
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return -ENOMEM;
	}
	if (fscanf(f, VSTATE_MAGIC " files=%" SCNu32 " interval=%" SCNu64 "\n", &files, &iv) != 2) {
		snprintf(why, n, "not an ioplan verify state file (no \"%s\" header)", VSTATE_MAGIC);
		ret = -EINVAL;
	} else if (files != nr) {
		snprintf(why, n, "holds the maps of %" PRIu32 " files; the job has %" PRIu32, files, nr);
		ret = -EINVAL;
	} else {
		ret = vstate_walk(f, nr, (uint64_t)sb.st_size, why, n);
	}
	fclose(f);
	return ret;
}

/*
 * engine/readonly.c - what --readonly and --crctest ask of the engine, without running it.
 *
 * A read-only run must not write anything, so before any I/O the CLI asks
 * whether the layout would write some file of the plan: create it, extend it
 * to the region a job uses, or lay it out again because a reading job finds
 * its layout unfinished.  The rule is the layout's own (layout_init collects
 * the files as layout_prepare will see them), so the answer cannot drift from
 * what a run would do.  The checksum speed test times the verify checksums.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/layout.h"
#include "engine/mark.h"
#include "engine/verify.h"

/* Why the layout would write lf, or NULL when it would leave the file alone. */
static const char *layout_writes(const struct layout_file *lf)
{
	struct stat st;
	enum mark_state m;
	char why[256];

	if (lf->is_device)
		return NULL;
	if (stat(lf->path, &st) != 0)
		return "it does not exist and would be created";
	if (lf->need > (uint64_t)st.st_size)
		return "it is smaller than the jobs need and would be extended";
	m = mark_read_path(lf->path, why, sizeof(why));
	if (lf->fill && (m == MARK_PARTIAL || m == MARK_SIZED))
		return "its layout is unfinished and would be written again";
	return NULL;
}

int eng_layout_writes(const struct plan *p, char *why, size_t n)
{
	struct layout l;
	int ret = layout_init(&l, p);

	if (ret)
		return ret;
	for (uint32_t i = 0; i < l.nr && !ret; i++) {
		const char *w = layout_writes(&l.files[i]);

		if (w) {
			snprintf(why, n, "%s: %s", l.files[i].path, w);
			ret = -EROFS;
		}
	}
	layout_release(&l);
	return ret;
}

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

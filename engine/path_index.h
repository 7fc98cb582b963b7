/*
 * engine/path_index.h - where a path is among many: a hash table from a path to its place.
 *
 * The plan's files are kept sorted by path (layout.h, the preflight's views)
 * and were found by bsearch.  But the files of one job share a long prefix
 * ("/mnt/scratch/job.0.12345"), so each of a lookup's 17 comparisons at
 * 100 000 files read that prefix again, and the lookups were about a third
 * of a 100 000-file layout's user time.  Here a path is read once to hash it
 * (xxHash), and one candidate, whose hash agrees, is compared in full.
 *
 * The table holds places, not paths: element i of the caller's array (base,
 * stride) begins with its path, a const char * (struct layout_file, struct
 * tgt_seen, or an array of paths).  Linear probing, at most half full.
 */
#ifndef IOPLAN_ENGINE_PATH_INDEX_H
#define IOPLAN_ENGINE_PATH_INDEX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PATH_INDEX_NONE UINT32_MAX

struct path_index {
	uint64_t *slot;		/* hash's high half << 32 | place + 1; 0: empty */
	uint32_t mask;
	const char *base;	/* place i's path: *(const char *const *)(base + i * stride) */
	size_t stride;
};

/* Room for n places of the array at base.  0 or -ENOMEM. */
int path_index_init(struct path_index *x, uint32_t n, const void *base, size_t stride);

/*
 * Adds place, whose path is in the array already, unless a place with an
 * equal path is in the table: then that place is returned, else place.
 */
uint32_t path_index_put(struct path_index *x, uint32_t place);

/* The place of path, or PATH_INDEX_NONE. */
uint32_t path_index_find(const struct path_index *x, const char *path);

void path_index_free(struct path_index *x);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_PATH_INDEX_H */

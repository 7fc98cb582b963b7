/*
 * engine/path_index.c - the path-to-place hash table (path_index.h).
 */
#include "engine/path_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

static const char *path_at(const struct path_index *x, uint32_t place)
{
	return *(const char *const *)(x->base + (size_t)place * x->stride);
}

int path_index_init(struct path_index *x, uint32_t n, const void *base, size_t stride)
{
	size_t size = 16;

	while (size < 2 * (size_t)n)
		size *= 2;
	x->slot = calloc(size, sizeof(*x->slot));
	x->mask = (uint32_t)(size - 1);
	x->base = base;
	x->stride = stride;
	return x->slot ? 0 : -ENOMEM;
}

static uint64_t hash_of(const char *path)
{
	return XXH3_64bits(path, strlen(path));
}

/*
 * The slot that holds path, or the empty one where it would go.  The low half
 * of its hash h picks the first slot, the high half is kept to skip the paths
 * that only share a slot.
 */
static uint64_t *probe(const struct path_index *x, const char *path, uint64_t h)
{
	uint32_t tag = (uint32_t)(h >> 32), i = (uint32_t)h & x->mask;

	for (;; i = (i + 1) & x->mask) {
		uint64_t s = x->slot[i];
		const char *at;

		if (!s)
			return &x->slot[i];
		if ((uint32_t)(s >> 32) != tag)
			continue;
		/* Most lookups pass the plan's own string, the one the array holds. */
		at = path_at(x, (uint32_t)s - 1);
		if (at == path || !strcmp(at, path))
			return &x->slot[i];
	}
}

uint32_t path_index_put(struct path_index *x, uint32_t place)
{
	const char *path = path_at(x, place);
	uint64_t h = hash_of(path), *s = probe(x, path, h);

	if (*s)
		return (uint32_t)*s - 1;
	*s = (h >> 32) << 32 | ((uint64_t)place + 1);
	return place;
}

uint32_t path_index_find(const struct path_index *x, const char *path)
{
	const uint64_t *s = x->slot ? probe(x, path, hash_of(path)) : NULL;

	return s && *s ? (uint32_t)*s - 1 : PATH_INDEX_NONE;
}

void path_index_free(struct path_index *x)
{
	free(x->slot);
	x->slot = NULL;
}

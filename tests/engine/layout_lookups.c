/*
 * tests/engine/layout_lookups.c - the layout's lookups by path, driven from C:
 * every plan file found as its layout entry (layout_find), and the preflight's
 * entry of each file found by one walk of both sorted lists (layout_expect,
 * layout_seen_at).  C because engine/layout/layout.h is C11 (stdatomic.h) that
 * C++ cannot include; tests/engine/test_path_index.cpp calls in.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/layout/layout.h"

static int cmp_seen(const void *a, const void *b)
{
	return strcmp(((const struct tgt_seen *)a)->path, ((const struct tgt_seen *)b)->path);
}

/* Each plan file's layout entry has its path; one with a copy of the path too; a path not in the plan is not found. */
static int check_find(const struct layout *l, const struct plan *p)
{
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
				const char *path = j->clones[c].files[f].path;
				struct layout_file *lf = layout_find(l, path);
				char *copy = strdup(path);
				int wrong = !lf || strcmp(lf->path, path) || !copy || layout_find(l, copy) != lf;

				free(copy);
				if (wrong)
					return -1;
			}
	}
	return layout_find(l, "/nowhere/at/all") ? -2 : 0;
}

/*
 * Builds the layout of p, then a preflight list of every other layout file
 * (copies of their paths, as the preflight's would be the plan's own) and
 * n_extra paths the layout does not have, sorted; each file must find its
 * own entry or none.  0, or a negative step that failed.
 */
int t_layout_lookups(const struct plan *p, const char *const *extra, uint32_t n_extra)
{
	struct layout l;
	struct tgt_seen *seen;
	uint32_t n = 0;
	int ret;

	if (layout_init(&l, p))
		return -10;
	ret = check_find(&l, p);
	seen = calloc(l.nr + n_extra + 1, sizeof(*seen));
	if (!ret && !seen)
		ret = -11;
	for (uint32_t i = 0; !ret && i < l.nr; i += 2)
		seen[n++].path = l.files[i].path;
	for (uint32_t i = 0; !ret && i < n_extra; i++)
		seen[n++].path = extra[i];
	if (!ret) {
		qsort(seen, n, sizeof(*seen), cmp_seen);
		layout_expect(&l, seen, n);
	}
	for (uint32_t i = 0; !ret && i < l.nr; i++) {
		const struct tgt_seen *s = layout_seen_at(&l, &l.files[i]);

		if (i % 2 ? s != NULL : !s || strcmp(s->path, l.files[i].path))
			ret = -12 - (int)i;
	}
	free(seen);
	layout_release(&l);
	return ret;
}

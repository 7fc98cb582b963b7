/*
 * engine/safety/preflight_seen.c - what preflight has looked at: each target path once,
 * each directory once per run of its files, and what was at each path then.
 *
 * Shared files appear in many clones and a directory's files follow each other,
 * so preflight keeps a set of the paths it checked and the last directory it
 * stat()ed, open, to look its files up by name.  What it saw at each path is
 * noted for the layout, which refuses to write over a file that changed in
 * between (target.h).
 */
#include "engine/safety/preflight_internal.h"
#include "engine/target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pf_look_dir(struct pf_state *s, const char *dir, struct stat *dsb)
{
	if (strcmp(s->dir, dir)) {
		snprintf(s->dir, sizeof(s->dir), "%s", dir);
		if (s->dir_fd >= 0)
			close(s->dir_fd);
		/* Its files are looked up by name in it: one path walk, not one a file. */
		s->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (s->dir_fd >= 0 && fstat(s->dir_fd, &s->dir_st) == 0)
			s->dir_err = 0;
		else
			s->dir_err = stat(dir, &s->dir_st) ? errno : 0;	/* why it is not a directory, if not */
		if (s->dir_err && s->dir_fd >= 0) {
			close(s->dir_fd);
			s->dir_fd = -1;
		}
	}
	*dsb = s->dir_st;
	return s->dir_err;
}

/*
 * Whether path names a file of s->dir, the directory pf_look_dir keeps open:
 * only then is it looked up by its last name there.  A directory name cut at
 * PATH_MAX is another directory, where a file of the same name may be.
 */
static int dir_fd_of(const struct pf_state *s, const char *path)
{
	size_t n = (size_t)(tgt_base(path) - path);	/* up to and with the last slash */
	bool same = !n ? !strcmp(s->dir, ".") :
		    n == 1 ? !strcmp(s->dir, "/") :
			     strlen(s->dir) == n - 1 && !memcmp(s->dir, path, n - 1);

	return same ? s->dir_fd : -1;
}

/* Grows by doubling: one more slot per path made 300 000 files quadratic
 * wherever realloc copies (always under ASan: minutes before the layout). */
bool pf_note_seen(struct pf_state *s, const char *path, const struct stat *dsb, struct stat *sb, bool *link)
{
	struct tgt_seen one, *at = &one;
	int ret;

	if (s->r->nr_seen == s->seen_cap) {
		uint32_t cap = s->seen_cap ? s->seen_cap * 2 : 64;
		struct tgt_seen *n = realloc(s->r->seen, cap * sizeof(*n));

		if (n) {
			s->r->seen = n;
			s->seen_cap = cap;
		} else {
			s->oom = 1;
		}
	}
	if (s->r->nr_seen < s->seen_cap)
		at = &s->r->seen[s->r->nr_seen++];
	ret = tgt_seen_now(at, dir_fd_of(s, path), path, dsb, sb);
	*link = at->link;
	return ret == 0;
}

static int cmp_seen(const void *a, const void *b)
{
	return strcmp(((const struct tgt_seen *)a)->path, ((const struct tgt_seen *)b)->path);
}

int pf_sort_seen(struct pf_report *r)
{
	if (r->nr_seen)
		qsort(r->seen, r->nr_seen, sizeof(*r->seen), cmp_seen);
	if (path_index_init(&r->seen_index, r->nr_seen, r->seen, sizeof(*r->seen)))
		return -ENOMEM;
	for (uint32_t i = 0; i < r->nr_seen; i++)
		path_index_put(&r->seen_index, i);
	return 0;
}

const struct tgt_seen *pf_seen_of(const struct pf_report *r, const char *path)
{
	uint32_t i = path_index_find(&r->seen_index, path);

	return i == PATH_INDEX_NONE ? NULL : &r->seen[i];
}

int pf_paths_init(struct pf_paths *set, const struct plan *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; c < j->nr_clones; c++)
			n += j->clones[c].nr_files;
	}
	set->nr = 0;
	set->index.slot = NULL;	/* what pf_paths_free frees when a calloc below fails */
	set->paths = malloc((n ? n : 1) * sizeof(*set->paths));
	set->need = calloc(n ? n : 1, sizeof(*set->need));
	set->checked = calloc(n ? n : 1, sizeof(*set->checked));
	if (!set->paths || !set->need || !set->checked ||
	    path_index_init(&set->index, n, set->paths, sizeof(*set->paths))) {
		pf_paths_free(set);
		return -ENOMEM;
	}
	return 0;
}

/* Comparing with every earlier path instead cost 15 s at 100 000 files (path_index.h). */
uint32_t pf_paths_add(struct pf_paths *set, const char *path)
{
	uint32_t at;

	/* paths[] has room for every use of every path: nr is below it until all are added */
	set->paths[set->nr] = path;
	at = path_index_put(&set->index, set->nr);
	if (at == set->nr)
		set->nr++;
	return at;
}

uint32_t pf_paths_find(const struct pf_paths *set, const char *path)
{
	return path_index_find(&set->index, path);
}

void pf_paths_free(struct pf_paths *set)
{
	path_index_free(&set->index);
	free(set->paths);
	free(set->need);
	free(set->checked);
	set->paths = NULL;
	set->need = NULL;
	set->checked = NULL;
}

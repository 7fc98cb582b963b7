/*
 * engine/layout/layout_notes.c - what the layout says of itself in the run's
 * messages: fio's "Laying out IO file" line per thread, and where a full file
 * system ended it.  Apart from layout.c, which checks and writes the files.
 */
#include <errno.h>
#include <stdlib.h>

#include "engine/layout/layout.h"

static int cmp_thread(const void *a, const void *b)
{
	const struct layout_file *x = *(struct layout_file *const *)a, *y = *(struct layout_file *const *)b;

	if (x->first_job != y->first_job)
		return x->first_job < y->first_job ? -1 : 1;
	return x->first_clone < y->first_clone ? -1 : x->first_clone > y->first_clone;
}

/*
 * fio's "Laying out IO file (1 file / 4MiB)", once per thread that lays files
 * out (the first to use each), with their count and fio's total of their
 * sizes; the normal output prints them under the banner, as fio does.
 */
void layout_note_laid_out(const struct layout *l, struct results *r, uint32_t round)
{
	struct layout_file **v = malloc((l->nr ? l->nr : 1) * sizeof(*v));
	uint32_t n = 0;

	if (!v)
		return;
	for (uint32_t i = 0; i < l->nr; i++)
		if (l->files[i].laid_out && layout_in_round(&l->files[i], round))
			v[n++] = &l->files[i];
	qsort(v, n, sizeof(*v), cmp_thread);
	for (uint32_t i = 0, k; i < n; i = k) {
		uint64_t bytes = 0;

		for (k = i; k < n && !cmp_thread(&v[i], &v[k]); k++)
			bytes += v[k]->need;
		res_msg_add(r, RES_MSG_NOTE, "layout", v[i]->first_job, "Laying out IO file%s (%u file%s / %s%lluMiB)",
			    k - i > 1 ? "s" : "", k - i, k - i > 1 ? "s" : "", k - i > 1 ? "total " : "",
			    (unsigned long long)(bytes >> 20));
	}
	free(v);
}

/*
 * A full file system (or quota) ends the layout at the file that found it so:
 * every later file there fails the same way, each with its own error line
 * (nrfiles=10000 on a disk out of inodes gave 10000 of them), and a run whose
 * layout failed runs no job, so files elsewhere would be written for nothing.
 * One note counts the files left out.
 */
bool layout_stop_when_full(const struct layout *l, struct results *r, int ret, uint32_t at, uint32_t round)
{
	uint32_t left = 0;

	if (ret != -ENOSPC && ret != -EDQUOT)
		return false;
	for (uint32_t i = at + 1; i < l->nr; i++)
		left += layout_in_round(&l->files[i], round);
	if (left)
		res_msg_add(r, RES_MSG_NOTE, "layout-stopped", l->files[at].first_job,
			    "the layout stopped at %s, with no room left: %u more file%s not laid out (no job runs "
			    "after a layout that failed)", l->files[at].path, left, left > 1 ? "s were" : " was");
	return true;
}

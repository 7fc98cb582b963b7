/*
 * engine/layout/layout_notes.c - what the layout says of itself in the run's
 * messages: fio's "Laying out IO file" line per thread, and where a full file
 * system ended it.  Apart from layout.c, which checks and writes the files.
 * fio prints its line before it writes; the files to be made are known from
 * the preflight's look (and a short file's mark), so their lines come first
 * (layout_announce), and only a file found unfinished, or changed since the
 * preflight, is said after its layout.
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
 * sizes; the normal output prints them under the banner, as fio does.  A file
 * the thread names more than once counts once per name, as each is one of
 * fio's files (nrfiles=16 with filename_format=file$jobnum: 16 files).
 * announced: the files layout_announce picked, else those laid out without
 * being announced.  Returns the lines noted.
 */
static uint32_t note_threads(const struct layout *l, struct results *r, uint32_t round, bool announced)
{
	struct layout_file **v = malloc((l->nr ? l->nr : 1) * sizeof(*v));
	uint32_t n = 0, lines = 0;

	if (!v)
		return 0;
	for (uint32_t i = 0; i < l->nr; i++) {
		const struct layout_file *lf = &l->files[i];

		if (layout_in_round(lf, round) && (announced ? lf->announced : lf->laid_out && !lf->announced))
			v[n++] = &l->files[i];
	}
	qsort(v, n, sizeof(*v), cmp_thread);
	for (uint32_t i = 0, k; i < n; i = k, lines++) {
		uint64_t bytes = 0;
		uint32_t files = 0;

		for (k = i; k < n && !cmp_thread(&v[i], &v[k]); k++) {
			bytes += v[k]->need * v[k]->first_names;
			files += v[k]->first_names;
		}
		res_msg_add(r, RES_MSG_NOTE, "layout", v[i]->first_job, "Laying out IO file%s (%u file%s / %s%lluMiB)",
			    files > 1 ? "s" : "", files, files > 1 ? "s" : "", files > 1 ? "total " : "",
			    (unsigned long long)(bytes >> 20));
	}
	free(v);
	return lines;
}

/*
 * Will the layout make lf, which the preflight found no trace of?  The same
 * test as the layout's own (layout.c: unseen, create_missing) short of the
 * directory's identity, which only the layout's open of it gives.
 */
static bool layout_makes(const struct layout_file *lf, const struct tgt_seen *s)
{
	return !s->ino && !s->link && !lf->is_device && lf->allow_create && !lf->made_by_job &&
	       (lf->need || lf->grows) && !layout_defers(lf);
}

/*
 * Will it extend lf, a regular file shorter than its jobs need?  If it is
 * ioplan's (its mark), empty, or the user's and allowed to be written, as
 * layout.c's check_existing decides; one that is refused says no layout line.
 */
static bool layout_extends(const struct layout_file *lf, const struct tgt_seen *s, bool foreign_allowed)
{
	char why[256];

	if (!s->ino || !s->regular || lf->is_device || s->size >= lf->need)
		return false;
	return foreign_allowed || layout_adopts_empty(s->size, lf->need, lf->grows) ||
	       mark_is_ours(mark_read_path(lf->path, why, sizeof(why)));
}

uint32_t layout_announce(struct layout *l, const struct plan *p, struct results *r, uint32_t round)
{
	/* fio says "may be ignored" between two threads' layout lines: from there on, after the layout. */
	int32_t upto = layout_first_ignoring(p);

	for (uint32_t i = 0; i < l->nr; i++) {
		struct layout_file *lf = &l->files[i];
		const struct tgt_seen *s = layout_seen_at(l, lf);

		lf->announced = s && lf->first_job < upto && layout_in_round(lf, round) &&
				(layout_makes(lf, s) || layout_extends(lf, s, p->allow_existing_file_write));
	}
	return note_threads(l, r, round, true);
}

void layout_note_laid_out(const struct layout *l, struct results *r, uint32_t round)
{
	(void)note_threads(l, r, round, false);
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

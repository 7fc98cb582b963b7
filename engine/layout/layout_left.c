/*
 * engine/layout/layout_left.c - the test files a run made and leaves behind.
 *
 * ioplan's run ends with a note naming the files it created (240 GiB of
 * Azure's test files must not go unsaid).  The layout knows each file this run
 * made (made), which ones a job removed again (unlink=1, unlink_each_loop: no
 * longer ours), and the size it last saw; a file a job wrote was looked at
 * again after the run (layout_finish).  So the note needs no look of its own
 * at each file: a stat each was 5% of the CPU time of a layout of 100 000
 * files of 4 KiB.  Only a file whose size the run may have changed unseen (one
 * written without a mark to re-stamp, one a stop left partly laid out) is
 * looked at again, by its directory's descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/layout/layout.h"

/*
 * Its size at the end, or false when no file of it is there to leave.  A
 * file found replaced under the run (layout_finish warned of it) is not: the
 * note would tell the user to remove a file that is not ioplan's.
 */
static bool size_at_end(const struct layout *l, const struct layout_file *lf, uint64_t *size)
{
	struct stat st;
	int dfd = lf->dir >= 0 ? l->dirs[lf->dir].fd : -1;

	if (lf->seen && (!lf->run_writes || lf->seen_after_run)) {
		*size = lf->size;
		return true;
	}
	if (dfd >= 0 ? fstatat(dfd, tgt_base(lf->path), &st, 0) : stat(lf->path, &st))
		return false;
	if (lf->id.known && (st.st_dev != lf->id.dev || st.st_ino != lf->id.ino))
		return false;
	*size = (uint64_t)st.st_size;
	return S_ISREG(st.st_mode);
}

int layout_left(const struct layout *l, const struct plan *p, struct res_left *out)
{
	bool *told = calloc(l->nr ? l->nr : 1, sizeof(*told));
	uint64_t size;

	memset(out, 0, sizeof(*out));
	if (!told)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
				const struct layout_file *lf = layout_find(l, j->clones[c].files[f].path);

				if (!lf || told[lf - l->files] || !lf->made || !lf->ours || lf->is_device)
					continue;
				told[lf - l->files] = true;
				if (!size_at_end(l, lf, &size))
					continue;
				if (out->nr < RES_LEFT_NAMED)
					out->named[out->nr] = lf->path;
				out->nr++;
				out->bytes += size;
			}
	}
	free(told);
	return 0;
}

/*
 * engine/layout/layout_ignored.c - the files fio's setup leaves without I/O:
 * a job with no size= or filesize= takes each file's length from what it
 * holds, and one holding nothing past its offset (an empty file opendir=
 * found, or one named in filename=) is run past, with fio's note "fio: file F
 * may be ignored".  The note is made here, after the layout and before any
 * job starts, because fio sets every job's files up first, in job order; the
 * worker, which runs the others, applies the same rule (worker.c).
 */
#include <stdint.h>
#include <sys/stat.h>

#include "engine/ioengine.h"
#include "engine/layout/layout.h"

/* Does fio's setup of clone c size its files from what they hold, and reach them all? */
static bool sized_from_files(const struct plan_job *j, const struct plan_clone *c)
{
	uint64_t total = 0;
	struct stat st;
	bool any = false;

	for (uint32_t f = 0; f < c->nr_files; f++)
		any = any || plan_file_sized_as_found(j, &c->files[f]);
	if (!any || !ioe_lays_out(j->ioengine) || !ioe_opens_files(j->ioengine))
		return false;
	for (uint32_t f = 0; f < c->nr_files; f++)
		if (!stat(c->files[f].path, &st) && S_ISREG(st.st_mode))
			total += (uint64_t)st.st_size;
	/* All empty: fio fails the job first ("you need to specify size="), noting none. */
	return total > 0;
}

static void note_clone(const struct plan_job *j, const struct plan_clone *c, int32_t job, struct results *r)
{
	struct stat st;
	uint64_t start, len;

	for (uint32_t f = 0; f < c->nr_files; f++) {
		const struct plan_file *pf = &c->files[f];

		if (pf->is_device || !plan_file_sized_as_found(j, pf) || stat(pf->path, &st) || !S_ISREG(st.st_mode))
			continue;
		layout_region(j, c, pf, (uint64_t)st.st_size, &start, &len);
		if (start > (uint64_t)st.st_size)
			return;	/* fio's setup fails here (an offset past the end), noting no later file */
		if (!len)
			res_msg_add(r, RES_MSG_NOTE, "file-ignored", job,
				    "job '%s': file %s may be ignored: it holds no data past offset=%llu and the job has "
				    "no size= or filesize= to give it any, so it gets no I/O and the job runs "
				    "its other files, as fio's",
				    j->name ? j->name : "", pf->fio_name ? pf->fio_name : pf->path,
				    (unsigned long long)start);
	}
}

void layout_note_ignored(const struct plan *p, struct results *r)
{
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; j && !j->filesize_min_bytes && c < j->nr_clones; c++)
			if (sized_from_files(j, &j->clones[c]))
				note_clone(j, &j->clones[c], (int32_t)i, r);
	}
}

int32_t layout_first_ignoring(const struct plan *p)
{
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; j && !j->filesize_min_bytes && c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++)
				if (plan_file_sized_as_found(j, &j->clones[c].files[f]))
					return (int32_t)i;
	}
	return INT32_MAX;
}

/*
 * engine/layout/layout_found.c - the size each job's files have when fio would
 * set them up (layout.h: layout_resolve), which offset=N%, offset_increment=N%
 * and file_append are taken of, and a sequential pass may reach into and wrap
 * at.  Apart from layout.c because it acts on no file: it reads the plan and
 * what the preflight saw, before the layout.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "engine/ioengine.h"
#include "engine/layout/layout.h"

/*
 * Does j's region start from the size its files have at setup, or may its
 * sequential pass reach past a region of size= into that size, or a holed one
 * wrap at its end, or strided zones walk to it (plan_io_uses_file_size)?
 */
static bool needs_found(const struct plan_job *j, const struct plan_file *f)
{
	return f->offset_ppm || j->offset_increment_ppm || j->file_append ||
	       (plan_io_uses_file_size(j) && (f->size_bytes || f->region_bytes));
}

/*
 * Does fio's setup of j make a file as long as j's region (extend_file)?
 * A job that reads it lays it out (so does one whose engine cannot extend a
 * file, or overwrite=1 without file_append); one that only writes it has it
 * sized by fallocate=: native, posix and truncate do; none and keep leave it
 * for the job's writes to grow, empty when fio removed it (setup_unlinks).
 */
static bool setup_sizes(const struct plan_job *j)
{
	if (plan_rw_has_ddir(j->rw, PLAN_DDIR_READ) || ioe_cannot_extend(j->ioengine) ||
	    (j->overwrite && !j->file_append))
		return true;
	return j->fallocate != PLAN_FALLOCATE_NONE && j->fallocate != PLAN_FALLOCATE_KEEP;
}

/* fio's extend_file removes the file first for a job that writes it, unless overwrite= or file_append. */
static bool setup_unlinks(const struct plan_job *j)
{
	return plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) && !j->overwrite && !j->file_append;
}

/*
 * lf's size before the run: what the preflight saw (on every rank of a
 * shared run, before any of them laid a file out), else a stat now.  False
 * for a device and anything else but a regular file or nothing.
 */
static bool size_before(const struct layout *l, const struct layout_file *lf, uint64_t *size)
{
	const struct tgt_seen *s = layout_seen_at(l, lf);
	struct stat st;

	if (lf->is_device)
		return false;
	if (s) {
		*size = s->ino ? s->size : 0;
		return !s->ino || s->regular;
	}
	if (stat(lf->path, &st))
		return (*size = 0, errno == ENOENT);
	*size = (uint64_t)st.st_size;
	return S_ISREG(st.st_mode);
}

static bool plan_needs_found(const struct plan *p)
{
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		if (ioe_lays_out(j->ioengine) &&
		    (j->offset_increment_ppm || j->file_append || j->offset_ppm || plan_io_uses_file_size(j)))
			return true;
	}
	return false;
}

static uint32_t count_found(const struct plan *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; ioe_lays_out(j->ioengine) && c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++)
				n += needs_found(j, &j->clones[c].files[f]);
	}
	return n;
}

/* One use of lf by clone c of j: the size it finds, the bytes its region needs, what its setup leaves. */
static void resolve_use(struct layout *l, struct layout_file *lf, const struct plan_job *j,
			const struct plan_clone *c, const struct plan_file *f)
{
	uint64_t found = lf->setup_size, start, len;
	/* Its writes go on until the device is full, or it is used as found or made by the job's
	 * open: no end to lay out. */
	bool no_end = plan_fills_device(j) || ioe_files_as_found(j) || ioe_files_made_on_open(j);

	layout_region_found(j, c, f, found, found, &start, &len);
	if (needs_found(j, f)) {
		l->found[l->nr_found++] = (struct layout_found){ .pf = f, .size = found };
		/* As note_use's rule: a share of a size not known yet asks for no bytes. */
		if (!no_end && len && (!f->size_ppm || j->filesize_min_bytes) && start + len > lf->need)
			lf->need = start + len;
	}
	if (!no_end && start + len > found)
		lf->setup_size = setup_sizes(j) ? start + len : setup_unlinks(j) ? 0 : found;
}

/* By address: the worker looks its files up by the plan's own pointers. */
static int cmp_found(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct layout_found *)a)->pf;
	uintptr_t y = (uintptr_t)((const struct layout_found *)b)->pf;

	return x < y ? -1 : x > y;
}

int layout_resolve(struct layout *l, const struct plan *p)
{
	uint32_t n;

	if (l->found || !plan_needs_found(p))
		return 0;
	n = count_found(p);
	l->found = calloc(n ? n : 1, sizeof(*l->found));
	if (!l->found)
		return -ENOMEM;
	for (uint32_t i = 0; i < l->nr; i++)
		l->files[i].set_up = size_before(l, &l->files[i], &l->files[i].setup_size);
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; ioe_lays_out(j->ioengine) && c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
				const struct plan_file *pf = &j->clones[c].files[f];
				struct layout_file *lf = layout_find(l, pf->path);

				if (lf && lf->set_up)
					resolve_use(l, lf, j, &j->clones[c], pf);
			}
	}
	qsort(l->found, l->nr_found, sizeof(*l->found), cmp_found);
	return 0;
}

uint64_t layout_size_found(const struct layout *l, const struct plan_file *pf, uint64_t now)
{
	struct layout_found key = { .pf = pf }, *hit;

	if (!l || !l->nr_found)
		return now;
	hit = bsearch(&key, l->found, l->nr_found, sizeof(key), cmp_found);
	return hit ? hit->size : now;
}

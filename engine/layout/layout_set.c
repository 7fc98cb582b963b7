/*
 * engine/layout/layout_set.c - the plan's files as one sorted, de-duplicated
 * set (layout.h): each file's region over every job that uses it, its
 * directory, and the lookup by path that layout.c and the workers share.
 * Apart from layout.c, which acts on the files, because building the set
 * reads only the plan.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/ioengine.h"
#include "engine/layout/layout.h"

/* fio rounds a percentage offset up to offset_align, or else to the smallest block size. */
static uint64_t offset_align(const struct plan_job *j)
{
	return j->offset_align_bytes ? j->offset_align_bytes : plan_min_bs(j);
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x / a + (x % a != 0)) * a;
}

void layout_region(const struct plan_job *j, const struct plan_clone *c,
		   const struct plan_file *f, uint64_t actual, uint64_t *start, uint64_t *len)
{
	layout_region_found(j, c, f, j->file_append ? 0 : actual, actual, start, len);
}

/* fio's get_start_offset, of the size found at the job's setup. */
static uint64_t region_start(const struct plan_job *j, const struct plan_clone *c, const struct plan_file *f,
			     uint64_t found)
{
	uint64_t s = c->offset_bytes ? c->offset_bytes : f->offset_bytes;

	/* file_append: a regular file's end, whatever offset= and offset_increment= say. */
	if (j->file_append && !f->is_device)
		return found;
	if (f->offset_ppm)
		s = plan_share_ppm(found, f->offset_ppm) + (c->offset_bytes - j->offset_bytes);
	/* A share of the size found, like offset=N%, and aligned the same way. */
	if (j->offset_increment_ppm)
		s += c->clone_index * plan_share_ppm(found, j->offset_increment_ppm);
	if (f->offset_ppm || j->offset_increment_ppm)
		s = align_up(s, offset_align(j));
	return s;
}

void layout_region_found(const struct plan_job *j, const struct plan_clone *c, const struct plan_file *f,
			 uint64_t found, uint64_t actual, uint64_t *start, uint64_t *len)
{
	uint64_t s = region_start(j, c, f, found), n;
	bool share = false;

	n = f->region_bytes ? f->region_bytes : f->size_bytes;
	/* fio: filesize= is the file's length, so the region runs from offset= to its end;
	 * offset=N% too, of the size found (the null engine's: size= over nrfiles). */
	if (!f->region_bytes && j->filesize_min_bytes && !f->size_ppm)
		n = n > s ? n - s : 0;
	/*
	 * size=N% is of the file's length: filesize='s when given (the size the plan
	 * drew, or an existing file's within its range), else the one found
	 * (size=50% filesize=4m: 2 MiB, also once that file holds 2 MiB), cut to
	 * the smallest block size as fio's setup_files.
	 */
	if (!f->region_bytes && f->size_ppm && (actual || j->filesize_min_bytes)) {
		uint64_t file = j->filesize_min_bytes ? f->size_bytes : actual;
		uint64_t room = file > s ? file - s : 0;

		n = plan_share_ppm(file, f->size_ppm);
		if (j->filesize_min_bytes && n > room)	/* fio caps it at the file's end past offset= */
			n = room;
		n -= n % plan_min_bs(j);
		share = true;	/* under one block: none, an error (fio: "blocksize is larger than data set range") */
	}
	/* No length set is the file's own; one drawn of no length from a filesize= range has none,
	 * nor has one whose offset=N% is at or past filesize= (fio refuses that offset). */
	if (!n && !share && actual > s && !plan_file_drawn_empty(j, f) && !(j->filesize_min_bytes && f->offset_ppm))
		n = actual - s;
	if (actual && s + n > actual && (f->size_ppm || f->offset_ppm))
		n = actual > s ? actual - s : 0;
	*start = s;
	*len = n;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct layout_file *)a)->path, ((const struct layout_file *)b)->path);
}

struct layout_file *layout_find(const struct layout *l, const char *path)
{
	uint32_t i = path_index_find(&l->index, path);

	return i == PATH_INDEX_NONE ? NULL : &l->files[i];
}

static void note_use(struct layout_file *lf, const struct plan_job *j, const struct plan_clone *c,
		     const struct plan_file *f, uint32_t job_index)
{
	/* verify_only reads what an earlier run wrote: it neither writes nor lays out data. */
	bool writes = (plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) || plan_rw_has_ddir(j->rw, PLAN_DDIR_TRIM)) &&
		      !j->verify_only;
	uint64_t start, len;
	/* fio's create_on_open lays nothing out: no data goes into the files (filestat's are used as
	 * found; filedelete's are only sized, an empty one adopted as ioplan's; the others are made
	 * empty, as the job's open would make them).  Nor does fio lay out a file of no length drawn
	 * from a filesize= range: a job that writes makes it empty as it opens it, mode 0600. */
	bool no_length = plan_file_drawn_empty(j, f) && writes && !f->is_device;
	bool made_on_open = (ioe_files_made_on_open(j) && !f->is_device) || no_length;
	bool no_data = j->create_on_open && (!ioe_opens_files(j->ioengine) || made_on_open);

	/* A percentage offset is of the file found: a file created here starts at its offset 0. */
	layout_region(j, c, f, 0, &start, &len);
	/* fill_device's writes grow the file until the device is full, and a file made on open
	 * grows as its job writes it: nothing is reserved first. */
	lf->made_on_open = made_on_open;
	lf->no_length = no_length;
	if (plan_fills_device(j) || made_on_open)
		lf->grows = true;
	/* size=N% of a file made here is of filesize=; fio lays it out to the region's end.  A file
	 * used as found (filestat under create_on_open) asks for no bytes: it is neither made nor sized. */
	else if (!ioe_files_as_found(j) && len && (!f->size_ppm || j->filesize_min_bytes) && start + len > lf->need)
		lf->need = start + len;
	if (writes || ioe_removes_files(j->ioengine))
		lf->writes = true;
	if (writes && ioe_cannot_extend(j->ioengine))
		lf->sized = true;
	/*
	 * Only data the run writes moves the mtime its mark binds: create_only does
	 * no I/O, and the metadata engines write no data (filedelete's files are gone).
	 */
	if (writes && !j->create_only && ioe_opens_files(j->ioengine) && !ioe_removes_files(j->ioengine))
		lf->run_writes = true;
	if (plan_rw_has_ddir(j->rw, PLAN_DDIR_TRIM) && !j->verify_only)
		lf->trims = true;
	/*
	 * A read job with verify= checks what an earlier run wrote, as verify_only
	 * does: laying its file out again would replace that data with new.
	 */
	if ((plan_rw_has_ddir(j->rw, PLAN_DDIR_READ) || j->overwrite) && !j->verify_only && !no_data &&
	    !(j->verify != PLAN_VERIFY_NONE && !plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE)))
		lf->fill = true;
	lf->direct = lf->direct || j->direct;
	lf->is_device = lf->is_device || f->is_device;
	/* fio's open of a job that only reads or trims a file drawn of no length fails (ENOENT) */
	lf->allow_create = lf->allow_create && j->allow_file_create && !(plan_file_drawn_empty(j, f) && !writes);
	lf->as_found = lf->as_found && ioe_files_as_found(j);
	lf->on_open_only = lf->on_open_only && j->create_on_open;
	lf->last_job = job_index;
}

/* Sorts and merges entries of the same path, keeping the strictest needs. */
static void dedupe(struct layout *l)
{
	uint32_t out = 0;

	qsort(l->files, l->nr, sizeof(*l->files), cmp_path);
	for (uint32_t i = 0; i < l->nr; i++) {
		struct layout_file *a = &l->files[out], *b = &l->files[i];

		if (i && !strcmp(a->path, b->path)) {
			if (b->need > a->need)
				a->need = b->need;
			a->writes |= b->writes;
			a->run_writes |= b->run_writes;
			a->trims |= b->trims;
			a->grows |= b->grows;
			a->made_on_open &= b->made_on_open;
			a->no_length &= b->no_length;
			a->sized |= b->sized;
			a->fill |= b->fill;
			a->direct |= b->direct;
			a->is_device |= b->is_device;
			a->allow_create &= b->allow_create;
			a->as_found &= b->as_found;
			a->on_open_only &= b->on_open_only;
			a->create_fsync |= b->create_fsync;
			a->shared = true;
			if (b->last_job > a->last_job)
				a->last_job = b->last_job;
			if (b->first_job < a->first_job ||
			    (b->first_job == a->first_job && b->first_clone < a->first_clone)) {
				a->first_job = b->first_job;
				a->job = b->job;
				a->first_clone = b->first_clone;
				a->first_names = b->first_names;
			} else if (b->first_job == a->first_job && b->first_clone == a->first_clone) {
				a->first_names += b->first_names;
			}
			continue;
		}
		if (i)
			l->files[++out] = *b;
	}
	l->nr = l->nr ? out + 1 : 0;
}

/* The index of dir in l->dirs, adding it when new; the files are sorted, so it is usually the last. */
static int32_t dir_index(struct layout *l, char *dir)
{
	for (uint32_t i = l->nr_dirs; i-- > 0;)
		if (!strcmp(l->dirs[i].path, dir)) {
			free(dir);
			return (int32_t)i;
		}
	l->dirs[l->nr_dirs] = (struct layout_dir){ .path = dir, .fd = -1 };
	return (int32_t)l->nr_dirs++;
}

/*
 * Every distinct directory of the files that are not devices (those keep
 * their names, as does a path too long to split: its open fails on its own).
 */
static int collect_dirs(struct layout *l)
{
	char dir[PATH_MAX], *copy;

	l->dirs = calloc(l->nr ? l->nr : 1, sizeof(*l->dirs));
	if (!l->dirs)
		return -ENOMEM;
	for (uint32_t i = 0; i < l->nr; i++) {
		struct layout_file *lf = &l->files[i];

		lf->dir = -1;
		if (lf->is_device || tgt_dir_name(lf->path, dir, sizeof(dir)))
			continue;
		copy = strdup(dir);
		if (!copy)
			return -ENOMEM;
		lf->dir = dir_index(l, copy);
	}
	return 0;
}

/*
 * The files an earlier group's filecreate job makes, which fio's setup of the
 * later jobs leaves alone (they all have create_on_open=1): its timed open
 * creates them, as fio's, so the layout leaves them for it.  It made them
 * first for a later filedelete (or filestat), and filecreate then timed opens
 * of files that were there (md_create, md_stat, md_delete in one job file).
 */
static void note_made_by_filecreate(struct layout *l, const struct plan *p)
{
	uint32_t flat = 0;

	for (uint32_t g = 0; g < p->nr_groups; g++) {
		uint32_t later = flat + p->groups[g].nr_jobs;	/* the first job of the next group */

		for (uint32_t i = 0; i < p->groups[g].nr_jobs; i++, flat++) {
			const struct plan_job *j = &p->groups[g].jobs[i];

			if (j->ioengine != PLAN_IOENGINE_FILECREATE)
				continue;
			for (uint32_t c = 0; c < j->nr_clones; c++)
				for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
					struct layout_file *lf = layout_find(l, j->clones[c].files[f].path);

					if (lf && lf->first_job >= (int32_t)later && lf->on_open_only)
						lf->made_by_job = true;
				}
		}
	}
}

int layout_init(struct layout *l, const struct plan *p)
{
	uint32_t n = plan_clone_files(p), k = 0;

	memset(l, 0, sizeof(*l));
	l->files = calloc(n ? n : 1, sizeof(*l->files));
	if (!l->files)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		if (!ioe_lays_out(j->ioengine))
			continue; /* the null engine touches no file, filecreate makes its own (as fio's) */
		for (uint32_t c = 0; c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
				struct layout_file *lf = &l->files[k++];

				lf->path = j->clones[c].files[f].path;
				lf->claim_fd = -1;
				lf->allow_create = true;
				lf->as_found = true;
				lf->on_open_only = true;
				lf->first_job = (int32_t)i;
				lf->job = j;
				lf->first_clone = c;
				lf->first_names = 1;
				lf->fallocate = j->fallocate;
				lf->create_fsync = j->create_fsync;
				note_use(lf, j, &j->clones[c], &j->clones[c].files[f], i);
			}
	}
	l->nr = k;
	dedupe(l);
	if (path_index_init(&l->index, l->nr, l->files, sizeof(*l->files)))
		return -ENOMEM;
	for (uint32_t i = 0; i < l->nr; i++)
		path_index_put(&l->index, i);
	note_made_by_filecreate(l, p);
	return collect_dirs(l);
}

void layout_release(struct layout *l)
{
	for (uint32_t i = 0; i < l->nr; i++)
		if (l->files[i].claim_fd >= 0)
			close(l->files[i].claim_fd);
	for (uint32_t i = 0; i < l->nr_dirs; i++) {
		if (l->dirs[i].fd >= 0)
			close(l->dirs[i].fd);
		free(l->dirs[i].path);
	}
	free(l->dirs);
	path_index_free(&l->index);
	free(l->files);
	free(l->batch);
	free(l->found);
	l->found = NULL;
	l->nr_found = 0;
	l->batch = NULL;
	l->files = NULL;
	l->dirs = NULL;
	l->nr = 0;
	l->nr_dirs = 0;
}


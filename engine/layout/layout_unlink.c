/*
 * engine/layout/layout_unlink.c - removing what the layout made: unlink=1 after
 * the job, unlink_each_loop before each loop after the first (layout.h).
 *
 * fio's unlink_each_loop removes every regular file of the job before each
 * loop but the first, and the job's own open (O_CREAT when it writes) makes
 * an empty one, mode 0600, that the loop's writes fill; the last loop's file
 * is left, and a job that only reads fails its second loop with ENOENT.
 * ioplan does the same with the one difference its safety rules ask: it
 * removes only a file it created, that no other clone, job or rank names, by
 * its directory's descriptor and only while the name still holds the file the
 * layout found (tgt_remove_same: judged under a name only ioplan knows, so a
 * file renamed over it at any moment is kept).  Any other file is kept, with a
 * note saying why (layout_note_kept).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/ioengine.h"
#include "engine/layout/layout.h"
#include "engine/mark.h"

void layout_remove(const struct layout *l, const struct layout_file *lf)
{
	bool by_dir = lf->dir >= 0 && l->dirs[lf->dir].fd >= 0;

	/*
	 * Not known is not proof: a file whose identity was never learnt is left.
	 * Nor is a link the user named removed (its name never holds the file).
	 */
	if (lf->id.known && !lf->id.follow)
		(void)tgt_remove_same(by_dir ? l->dirs[lf->dir].fd : AT_FDCWD,
				      by_dir ? tgt_base(lf->path) : lf->path, lf->id.dev, lf->id.ino, NULL, 0);
}

void layout_unlink_job(struct layout *l, const struct plan_job *j, uint32_t job_index)
{
	if (!j->unlink)
		return;
	for (uint32_t c = 0; c < j->nr_clones; c++)
		for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
			struct layout_file *lf = layout_find(l, j->clones[c].files[f].path);

			if (lf && lf->ours && !lf->is_device && lf->last_job == job_index) {
				layout_remove(l, lf);
				lf->ours = false;
			}
		}
}

/* Why a file of the layout is not removed between loops, or NULL when it may be. */
static const char *kept_because(const struct layout *l, const struct layout_file *lf)
{
	if (!lf->ours)
		return "ioplan did not create it";
	if (lf->shared)
		return "another clone, job or rank uses it too";
	if (lf->id.follow)
		return "it is named through a symbolic link";
	if (!lf->id.known || l->dirs[lf->dir].fd < 0)
		return "the layout did not check it";
	return NULL;
}

/* The empty file a writing job's open would make, marked partial: its loop writes it. */
static int create_again(struct layout_file *lf, int dfd, char *why, size_t n)
{
	struct stat st;
	char what[256];
	int fd = layout_make_empty(lf, dfd, O_WRONLY, MARK_PARTIAL, what, sizeof(what), &st);

	if (fd < 0) {
		snprintf(why, n, "create again (unlink_each_loop): %s", fd == -EEXIST ?
			 "another file took the name after ioplan removed its own; it is kept" : what);
		return fd;
	}
	close(fd);
	return 0;
}

int layout_renew(const struct layout *l, const char *path, bool create, char *why, size_t n)
{
	struct layout_file *lf = l ? layout_find(l, path) : NULL;
	char aside[PATH_MAX];
	const char *kept;
	int dfd, ret;

	if (!lf || lf->is_device || lf->dir < 0)
		return LAYOUT_NOT_A_FILE;
	kept = kept_because(l, lf);
	if (kept) {
		snprintf(why, n, "%s", kept);
		return LAYOUT_KEPT;
	}
	dfd = l->dirs[lf->dir].fd;
	aside[0] = '\0';
	ret = tgt_remove_same(dfd, tgt_base(path), lf->id.dev, lf->id.ino, aside, sizeof(aside));
	if (ret == -ESTALE || ret == -EEXIST) {
		snprintf(why, n, "unlink (unlink_each_loop): the file was replaced under the run%s%s%s",
			 ret == -EEXIST ? " and another took its name again; the one found is kept as " : "",
			 ret == -EEXIST ? aside : "", ret == -EEXIST ? " in its directory" : "");
		return -ESTALE;
	}
	if (ret) {
		/* Set aside and judged, but its name could not be given back (EROFS, EIO). */
		snprintf(why, n, "unlink (unlink_each_loop)%s%s%s", aside[0] ? ": the file could not be put back "
			 "under its name; it is kept as " : "", aside, aside[0] ? " in its directory" : "");
		return ret;
	}
	lf->ours = false;
	lf->mark = MARK_NONE;
	return create ? create_again(lf, dfd, why, n) : LAYOUT_RENEWED;
}

/* Whether j may run more than one loop, each after the first removing its files. */
static bool loops_again(const struct plan_job *j)
{
	return j->unlink_each_loop && !j->time_based && ioe_lays_out(j->ioengine) &&
	       (j->loops > 1 || j->io_size_bytes > j->size_bytes || j->io_size_ppm > 1000000);
}

/* Why lf is kept where j would have fio remove it, or NULL; *when says when fio would. */
static const char *kept_from(const struct layout *l, const struct layout_file *lf, const struct plan_job *j,
			     const char **when)
{
	if (!lf || lf->is_device || lf->dir < 0)
		return NULL;	/* fio removes regular files only */
	*when = "unlink_each_loop keeps it between loops";
	if (loops_again(j))
		return kept_because(l, lf);
	*when = "unlink=1 keeps it";
	/* A file its job's open makes (create_on_open) is not there yet, and will be ioplan's. */
	return j->unlink && !lf->ours && !lf->deferred ? "ioplan did not create it" : NULL;
}

void layout_note_kept(const struct layout *l, const struct plan *p, struct results *r)
{
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; j && (j->unlink || loops_again(j)) && c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
				const struct layout_file *lf = layout_find(l, j->clones[c].files[f].path);
				const char *when = NULL, *why = kept_from(l, lf, j, &when);

				/* A shared file once, where it is first named. */
				if (why && (!lf->shared || (lf->first_job == (int32_t)i && lf->first_clone == c)))
					res_msg_add(r, RES_MSG_NOTE, "unlink-kept", (int32_t)i,
						    "%s: %s (%s); fio would remove it", lf->path, when, why);
			}
	}
}

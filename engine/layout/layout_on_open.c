/*
 * engine/layout/layout_on_open.c - files a job's own open makes (fio's create_on_open).
 *
 * fio's create_on_open=1 leaves a missing file to its job: the open with
 * O_CREAT comes with the job's first I/O to the file, so making it is part of
 * the job's time, and a job of many small files measures its creates (5 000
 * files of 4 KiB on a fresh ext4: fio 111-118 ms of job time; ioplan, which
 * made them in the layout, 33 ms; now 111-120).  The layout checks what it
 * would before making such a file (its directory, that nothing is at the
 * name) and leaves it (layout_defers);
 * the job's open makes it with O_CREAT|O_EXCL|O_NOFOLLOW, so only the inode it
 * makes is written, and the run's end marks it (layout_make_on_open).
 * A file another clone, job or rank names too is still made by the layout:
 * which of them would open it first is a race, and so is a job's that removes
 * and makes its files again between loops (unlink_each_loop).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/layout/layout.h"
#include "engine/mark.h"

bool layout_defers(const struct layout_file *lf)
{
	return lf->made_on_open && lf->run_writes && !lf->no_length && !lf->shared && !lf->is_device &&
	       lf->dir >= 0 && lf->job && !lf->job->unlink_each_loop;
}

bool layout_waits_for_open(const struct layout *l, const char *path)
{
	const struct layout_file *lf = l ? layout_find(l, path) : NULL;

	return lf && lf->deferred && !lf->id.known;
}

bool layout_file_where(const struct layout *l, const struct layout_file *lf, struct stat *st, const char **path)
{
	*path = lf->path;
	if ((lf->deferred || lf->made_by_job) && !lf->id.known && lf->dir >= 0 && l->dirs[lf->dir].fd >= 0) {
		*st = l->dirs[lf->dir].st;
		*path = l->dirs[lf->dir].path;
		return true;
	}
	return layout_file_seen(lf, st) || !stat(lf->path, st);
}

int layout_make_empty(struct layout_file *lf, int dfd, int flags, enum mark_state m, char *why, size_t n,
		      struct stat *st)
{
	int fd, ret;

	lf->id = (struct tgt_id){ .single = true };	/* what the create makes is the file from now on */
	fd = tgt_openat(dfd, tgt_base(lf->path), &lf->id, flags | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		snprintf(why, n, "%s", tgt_open_error(fd, &lf->id));
		lf->id = (struct tgt_id){ 0 };
		return fd;
	}
	ret = tgt_check(fd, &lf->id, why, n, st);
	if (ret) {
		close(fd);
		return ret;
	}
	/* Without user xattrs the file is still ours for this run; the next one finds it unmarked. */
	if (m != MARK_NONE && !mark_write_as(fd, m, lf->token, st))
		lf->mark = m;
	lf->ours = true;
	layout_remember(lf, st);
	return fd;
}

int layout_make_on_open(const struct layout *l, struct layout_file *lf, int flags, char *why, size_t n,
			struct stat *st)
{
	/* Each file's token from the layout's seed (drawn when it deferred the file) and its
	 * place: workers make files at once, and a draw of its own would be a system call. */
	uint64_t seed = l->tokens ^ ((uint64_t)(lf - l->files) * 0xD1B54A32D192ED03ull);
	int fd;

	lf->token = mark_token(&seed);
	fd = layout_make_empty(lf, l->dirs[lf->dir].fd, flags, MARK_NONE, why, n, st);
	/*
	 * Marked once the run is over (layout_finish), not here: in the job's time
	 * the mark is work fio does not do (5 000 files: 127-138 ms of job time
	 * against 111-120 without it).  A run killed before then leaves the file
	 * unmarked, which a later run refuses to write, or adopts while it is empty.
	 */
	if (fd >= 0) {
		lf->mark = MARK_SIZED;
		lf->made = true;
	}
	if (fd == -EEXIST)
		snprintf(why, n, "create (create_on_open): something took the name since the layout found "
			 "nothing there; it is not written");
	else if (fd < 0 && fd != -ELOOP)	/* the error's own text follows the operation */
		snprintf(why, n, "create (create_on_open)");
	return fd;
}

/*
 * engine/safety/readonly.c - what --readonly asks of the engine, without running it.
 *
 * A read-only run must not write anything, so before any I/O the CLI asks
 * whether the layout would write some file of the plan: create it, extend it
 * to the region a job uses, or lay it out again because a reading job finds
 * its layout unfinished.  The rule is the layout's own (layout_init collects
 * the files as layout_prepare will see them), so the answer cannot drift from
 * what a run would do.  An engine that changes the file system whatever the
 * job's rw= says (creates or deletes files and directories, allocates blocks)
 * says so in its ops (`changes`), and a job that uses it is refused too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/ioengine.h"
#include "engine/layout/layout.h"
#include "engine/mark.h"

/* A file only sized that write jobs have since made data throughout: the layout takes it as filled. */
static bool written_whole(const char *path, const struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	bool whole = fd >= 0 && layout_data_whole(fd, (uint64_t)st->st_size);

	if (fd >= 0)
		close(fd);
	return whole;
}

/* Why the layout would write lf, or NULL when it would leave the file alone. */
static const char *layout_writes(const struct layout_file *lf)
{
	struct stat st;
	enum mark_state m;
	char why[256];

	if (lf->is_device)
		return NULL;
	if (stat(lf->path, &st) != 0)
		return "it does not exist and would be created";
	if (lf->need > (uint64_t)st.st_size)
		return "it is smaller than the jobs need and would be extended";
	m = mark_read_path(lf->path, why, sizeof(why));
	if (lf->fill && (m == MARK_PARTIAL || (m == MARK_SIZED && !written_whole(lf->path, &st))))
		return "its layout is unfinished and would be written again";
	return NULL;
}

/* A job whose engine changes the file system whatever its rw= (filecreate, dirdelete, falloc). */
static int engine_writes(const struct plan *p, char *why, size_t n)
{
	for (uint32_t j = 0; j < p->nr_jobs; j++) {
		const struct plan_job *job = plan_job_at(p, j);
		const struct ioe_ops *o = ioe_find(job->ioengine);

		if (o && o->changes) {
			snprintf(why, n, "job '%s': ioengine=%s %s", job->name, plan_ioengine_name(job->ioengine),
				 o->changes);
			return -EROFS;
		}
	}
	return 0;
}

int eng_layout_writes(const struct plan *p, char *why, size_t n)
{
	struct layout l;
	int ret = engine_writes(p, why, n);

	if (ret)
		return ret;
	ret = layout_init(&l, p);
	if (!ret)
		ret = layout_resolve(&l, p);	/* file_append's and percentage offsets' needs */
	if (ret) {
		layout_release(&l);
		return ret;
	}
	for (uint32_t i = 0; i < l.nr && !ret; i++) {
		const char *w = layout_writes(&l.files[i]);

		if (w) {
			snprintf(why, n, "%s: %s", l.files[i].path, w);
			ret = -EROFS;
		}
	}
	layout_release(&l);
	return ret;
}

/*
 * engine/ioengines/fileops.c - the metadata engines: fio's filecreate, filestat,
 * filedelete, dircreate, dirstat and dirdelete (fio's answer to mdtest).
 *
 * No data moves.  The first I/O of each pass over a file is the metadata
 * operation (open with O_CREAT, a stat call, unlink, mkdir, rmdir), and its
 * latency is that I/O's: the job's latency histogram and its IOPS are per
 * operation.  The pass's other I/Os complete at once and are counted without a
 * latency (nostat), so io_bytes are fio's, whose I/Os on these engines are fake
 * and whose one timed sample per file comes from opening it.
 *
 * filestat and filedelete work on files the layout made, an earlier group's
 * filecreate job made (under create_on_open=1: layout.h's made_by_job), or
 * ioplan's own from an earlier run (the engine is flagged as removing, so the
 * safety checks refuse a file ioplan did not create); dircreate makes its directories and
 * marks them as ioplan's (mark.h) after the run (filecreate with unlink=1
 * removes the files it made then, as fio), and dirstat and dirdelete
 * make theirs at set-up when missing (as fio 3.37's).  dirdelete removes only
 * a directory this run made or one carrying ioplan's mark: a user's directory
 * by a job's name stays (the preflight refuses the job first).
 * Nothing is opened for I/O, so the worker holds no descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/ioengine.h"
#include "engine/mark.h"
#include "engine/target.h"

enum fop_kind { FOP_CREATE, FOP_STAT, FOP_DELETE };

/* stat_type= of filestat and dirstat: their one option (plan_engopts.h). */
enum fop_stat_type { FOP_STAT_STAT, FOP_STAT_LSTAT, FOP_STAT_STATX };

struct fop_opts {
	long long stat_type;		/* enum fop_stat_type */
};

static const struct plan_engopt_choice fop_stat_types[] = {
	{ "stat", "stat(2)", FOP_STAT_STAT },
	{ "lstat", "lstat(2): a symbolic link itself", FOP_STAT_LSTAT },
	{ "statx", "statx(2) with STATX_ALL", FOP_STAT_STATX },
	{ NULL, NULL, 0 },
};

static const struct plan_engopt fop_opts[] = {
	{ .name = "stat_type", .type = PLAN_ENGOPT_CHOICE, .def = "stat", .min = 1, .max = 0,
	  .choices = fop_stat_types, .help = "filestat, dirstat: the stat call each file or directory gets.",
	  .off = offsetof(struct fop_opts, stat_type) },
};

PLAN_ENGOPTS_DEFINE(fileops, struct fop_opts, fop_opts);

struct fop {
	enum fop_kind kind;
	bool dirs;
	enum fop_stat_type stat_type;
	const struct plan_file *files;
	uint32_t nr;
	uint64_t *region_len;		/* per file */
	uint64_t *issued;		/* bytes issued per file: a pass begins at each multiple of its region */
	bool *made;			/* per file or directory: this run made it */
	struct stat *ids;		/* filecreate with unlink=1: what it made, to remove only that */
};

/* A directory ioplan made: this run (made), or an earlier one by its mark (dircreate stamps it). */
static bool fop_dir_ours(const struct fop *p, uint32_t f)
{
	char why[256];

	return p->made[f] || mark_is_ours(mark_read_path(p->files[f].path, why, sizeof(why)));
}

static int fop_stat(const char *path, enum fop_stat_type t)
{
	struct stat st;
	struct statx stx;

	if (t == FOP_STAT_LSTAT)
		return lstat(path, &st) ? -errno : 0;
	if (t == FOP_STAT_STATX)
		return statx(AT_FDCWD, path, 0, STATX_ALL, &stx) ? -errno : 0;
	return stat(path, &st) ? -errno : 0;
}

/* The operation itself: 0 or -errno. */
static int fop_do(const struct fop *p, uint32_t f)
{
	const char *path = p->files[f].path;
	int fd;

	switch (p->kind) {
	case FOP_CREATE:
		if (p->dirs) {
			if (mkdir(path, 0700))
				return -errno;
			p->made[f] = true;
			return 0;
		}
		fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
		if (fd >= 0) {
			p->made[f] = !p->ids || !fstat(fd, &p->ids[f]);
		} else if (errno == EEXIST) {
			fd = open(path, O_RDWR | O_CLOEXEC);	/* a later pass opens what the first made */
		}
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	case FOP_STAT:
		return fop_stat(path, p->stat_type);
	default:
		/* A user's directory is never removed, empty or not (the preflight refuses it first). */
		if (p->dirs && !fop_dir_ours(p, f))
			return -EPERM;
		return (p->dirs ? rmdir(path) : unlink(path)) ? -errno : 0;
	}
}

/* The call fop_do makes, for a failure's message (fio's "func=delete(path)"). */
static const char *fop_call(const struct fop *p)
{
	static const char *const stat_calls[] = { "stat", "lstat", "statx" };

	switch (p->kind) {
	case FOP_CREATE:
		return p->dirs ? "mkdir" : "create";
	case FOP_STAT:
		return stat_calls[p->stat_type];
	default:
		return p->dirs ? "rmdir" : "unlink";
	}
}

/* dirstat, dirdelete: the directories to work on exist first (fio's setup_dirs). */
static int fop_make_dirs(const struct fop *p)
{
	for (uint32_t f = 0; f < p->nr; f++) {
		if (!mkdir(p->files[f].path, 0700))
			p->made[f] = true;
		else if (errno != EEXIST)
			return -errno;
	}
	return 0;
}

/* dircreate's directories, marked as ioplan's once the run is over (not inside the timed mkdir). */
static void fop_mark_dirs(const struct fop *p)
{
	for (uint32_t f = 0; p->kind == FOP_CREATE && p->dirs && f < p->nr; f++) {
		int fd = p->made[f] ? open(p->files[f].path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;

		if (fd >= 0) {
			mark_write(fd, MARK_FILLED);
			close(fd);
		}
	}
}

/*
 * filecreate with unlink=1: the files it made go when the job ends, as fio's, and
 * only while their names still hold the files it made.
 */
static void fop_unlink_made(const struct fop *p)
{
	for (uint32_t f = 0; p->ids && f < p->nr; f++)
		if (p->made[f])
			(void)tgt_remove_same(AT_FDCWD, p->files[f].path, p->ids[f].st_dev, p->ids[f].st_ino, NULL, 0);
}

static void fop_free(struct fop *p)
{
	free(p->ids);
	free(p->made);
	free(p->region_len);
	free(p->issued);
	free(p);
}

static int fop_init(struct ioe *e, enum fop_kind kind, bool dirs)
{
	const struct fop_opts *o = ioe_job_opts(e);
	struct fop *p = calloc(1, sizeof(*p));
	uint32_t n = e->cfg.nr_files;
	int ret = 0;

	if (!p)
		return -ENOMEM;
	/* Only filestat and dirstat bring options: the others never stat. */
	*p = (struct fop){ .kind = kind, .dirs = dirs, .stat_type = o ? (enum fop_stat_type)o->stat_type : FOP_STAT_STAT,
			   .files = e->cfg.files, .nr = n };
	p->region_len = calloc(n ? n : 1, sizeof(*p->region_len));
	p->issued = calloc(n ? n : 1, sizeof(*p->issued));
	p->made = calloc(n ? n : 1, sizeof(*p->made));
	if (kind == FOP_CREATE && !dirs && e->cfg.job && e->cfg.job->unlink)
		p->ids = calloc(n ? n : 1, sizeof(*p->ids));
	if (!p->region_len || !p->issued || !p->made || !e->cfg.region_len ||
	    (kind == FOP_CREATE && !dirs && e->cfg.job && e->cfg.job->unlink && !p->ids))
		ret = -ENOMEM;
	if (!ret) {
		memcpy(p->region_len, e->cfg.region_len, n * sizeof(*p->region_len));
		if (dirs && kind != FOP_CREATE)
			ret = fop_make_dirs(p);
	}
	if (ret) {
		fop_free(p);
		return ret;
	}
	e->priv = p;
	return 0;
}

static void fop_exit(struct ioe *e)
{
	fop_mark_dirs(e->priv);
	fop_unlink_made(e->priv);
	fop_free(e->priv);
}

static int fop_queue(struct ioe *e, struct io_u *u)
{
	struct fop *p = e->priv;
	uint64_t *at = &p->issued[u->file];
	uint64_t len = p->region_len[u->file];
	bool first = !len || *at % len == 0;
	int ret = first ? fop_do(p, u->file) : 0;

	*at += u->len;
	u->nostat = first ? 0 : IOE_NOSTAT_LAT;
	u->result = ret ? ret : (int64_t)u->len;
	/* fio fails the file's open, so the failure is no I/O of the job and has no offset */
	e->fail_what = ret ? fop_call(p) : NULL;
	return IOE_Q_COMPLETED;
}

static int filecreate_init(struct ioe *e) { return fop_init(e, FOP_CREATE, false); }
static int filestat_init(struct ioe *e) { return fop_init(e, FOP_STAT, false); }
static int filedelete_init(struct ioe *e) { return fop_init(e, FOP_DELETE, false); }
static int dircreate_init(struct ioe *e) { return fop_init(e, FOP_CREATE, true); }
static int dirstat_init(struct ioe *e) { return fop_init(e, FOP_STAT, true); }
static int dirdelete_init(struct ioe *e) { return fop_init(e, FOP_DELETE, true); }

#define FOP_OPS(n, ID, lays_out, rm, what)				\
	const struct ioe_ops ioe_##n = {				\
		.id = PLAN_IOENGINE_##ID,				\
		.sync = true,						\
		.no_open = true,					\
		.no_layout = !(lays_out),				\
		.names_entries = !(lays_out),				\
		.removes = (rm),					\
		.changes = (what),					\
		.clat_only = true,					\
		.init = n##_init,					\
		.exit = fop_exit,					\
		.queue = fop_queue,					\
	}

/* filestat and filedelete work on laid-out files; the others make their own entries. */
FOP_OPS(filecreate, FILECREATE, false, false, "creates files");
FOP_OPS(filestat, FILESTAT, true, false, NULL);
FOP_OPS(filedelete, FILEDELETE, true, true, "deletes files");
FOP_OPS(dircreate, DIRCREATE, false, false, "creates directories");
FOP_OPS(dirstat, DIRSTAT, false, false, "creates the directories it finds missing");
FOP_OPS(dirdelete, DIRDELETE, false, true, "removes directories");

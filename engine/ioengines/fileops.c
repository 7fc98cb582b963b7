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
 * filestat and filedelete work on files the layout made (or ioplan's own from
 * an earlier run: the engine is flagged as removing, so the safety checks
 * refuse a file ioplan did not create); dircreate makes its directories, and
 * dirstat and dirdelete make theirs at set-up when missing (as fio 3.37's).
 * Nothing is opened for I/O, so the worker holds no descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/ioengine.h"

enum fop_kind { FOP_CREATE, FOP_STAT, FOP_DELETE };

struct fop {
	enum fop_kind kind;
	bool dirs;
	enum plan_stat_type stat_type;
	const struct plan_file *files;
	uint32_t nr;
	uint64_t *region_len;		/* per file */
	uint64_t *issued;		/* bytes issued per file: a pass begins at each multiple of its region */
};

static int fop_stat(const char *path, enum plan_stat_type t)
{
	struct stat st;
	struct statx stx;

	if (t == PLAN_STAT_LSTAT)
		return lstat(path, &st) ? -errno : 0;
	if (t == PLAN_STAT_STATX)
		return statx(AT_FDCWD, path, 0, STATX_ALL, &stx) ? -errno : 0;
	return stat(path, &st) ? -errno : 0;
}

/* The operation itself: 0 or -errno. */
static int fop_do(const struct fop *p, const char *path)
{
	int fd;

	switch (p->kind) {
	case FOP_CREATE:
		if (p->dirs)
			return mkdir(path, 0700) ? -errno : 0;
		fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	case FOP_STAT:
		return fop_stat(path, p->stat_type);
	default:
		return (p->dirs ? rmdir(path) : unlink(path)) ? -errno : 0;
	}
}

/* dirstat, dirdelete: the directories to work on exist first (fio's setup_dirs). */
static int fop_make_dirs(const struct fop *p)
{
	for (uint32_t f = 0; f < p->nr; f++)
		if (mkdir(p->files[f].path, 0700) && errno != EEXIST)
			return -errno;
	return 0;
}

static void fop_free(struct fop *p)
{
	free(p->region_len);
	free(p->issued);
	free(p);
}

static int fop_init(struct ioe *e, enum fop_kind kind, bool dirs)
{
	struct fop *p = calloc(1, sizeof(*p));
	uint32_t n = e->cfg.nr_files;
	int ret = 0;

	if (!p)
		return -ENOMEM;
	*p = (struct fop){ .kind = kind, .dirs = dirs, .stat_type = e->cfg.stat_type,
			   .files = e->cfg.files, .nr = n };
	p->region_len = calloc(n ? n : 1, sizeof(*p->region_len));
	p->issued = calloc(n ? n : 1, sizeof(*p->issued));
	if (!p->region_len || !p->issued || !e->cfg.region_len)
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
	fop_free(e->priv);
}

static int fop_queue(struct ioe *e, struct io_u *u)
{
	struct fop *p = e->priv;
	uint64_t *at = &p->issued[u->file];
	uint64_t len = p->region_len[u->file];
	bool first = !len || *at % len == 0;
	int ret = first ? fop_do(p, p->files[u->file].path) : 0;

	*at += u->len;
	u->nostat = first ? 0 : IOE_NOSTAT_LAT;
	u->result = ret ? ret : (int64_t)u->len;
	return IOE_Q_COMPLETED;
}

static int filecreate_init(struct ioe *e) { return fop_init(e, FOP_CREATE, false); }
static int filestat_init(struct ioe *e) { return fop_init(e, FOP_STAT, false); }
static int filedelete_init(struct ioe *e) { return fop_init(e, FOP_DELETE, false); }
static int dircreate_init(struct ioe *e) { return fop_init(e, FOP_CREATE, true); }
static int dirstat_init(struct ioe *e) { return fop_init(e, FOP_STAT, true); }
static int dirdelete_init(struct ioe *e) { return fop_init(e, FOP_DELETE, true); }

#define FOP_OPS(n, ID, lays_out, rm)					\
	const struct ioe_ops ioe_##n = {				\
		.name = #n,						\
		.id = PLAN_IOENGINE_##ID,				\
		.sync = true,						\
		.no_open = true,					\
		.no_layout = !(lays_out),				\
		.removes = (rm),					\
		.clat_only = true,					\
		.init = n##_init,					\
		.exit = fop_exit,					\
		.queue = fop_queue,					\
	}

/* filestat and filedelete work on laid-out files; the others make their own entries. */
FOP_OPS(filecreate, FILECREATE, false, false);
FOP_OPS(filestat, FILESTAT, true, false);
FOP_OPS(filedelete, FILEDELETE, true, true);
FOP_OPS(dircreate, DIRCREATE, false, false);
FOP_OPS(dirstat, DIRSTAT, false, false);
FOP_OPS(dirdelete, DIRDELETE, false, true);

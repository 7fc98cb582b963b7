/*
 * engine/safety/safety_output.c - the one rule for every file ioplan writes besides a
 * job's targets (safety.h): reports, rank files, logs, iologs, verify state,
 * exec redirects, prerun output, merged traces, verify dumps.
 *
 * Such a file is written only where nothing can be lost:
 *  - a regular file, unless it is active swap or backs a loop device (the
 *    same rules as a target's, and no allow_* opens them), or an SQLite
 *    database (a results store: no report or log is meant to replace one);
 *  - a pipe or socket, a terminal, /dev/null, /dev/zero, /dev/full, or the
 *    very file the shell gave ioplan as stdout or stderr (what the user
 *    redirected is the user's choice, as writing stdout itself is);
 *  - never a block device or another character device (a disk, a tape, raw
 *    flash): a report written to /dev/sdX lands on its first sectors.
 * A name ioplan makes up (NAME_bw.1.log, local-NAME-0-verify.state,
 * NAME.prerun.txt, NAME.stdout, agg-read_bw.log, rank-N.json) may already be a
 * user's file: it is replaced only when empty or ioplan's own, known by the
 * mark of mark.h that ioplan stamps on it once written (bound to its inode,
 * size and mtime, so a file the user edited since is the user's again); one
 * that other names reach too (a hard link) is replaced by a new file, never
 * emptied in place.  A name the user gave (--output=, write_iolog=) is the
 * user's to replace.
 *
 * The checks run twice: on the path in the preflight (exit 2 before any I/O)
 * and on the open descriptor (what is written is what was checked).
 */
#include "engine/safety/safety.h"
#include "engine/safety/guarded_open.h"
#include "engine/safety/stale_temps.h"
#include "engine/mark.h"
#include "engine/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TTY_MAJOR 4
#define TTYAUX_MAJOR 5
#define PTS_MAJOR_FIRST 136
#define PTS_MAJOR_LAST 143

/* Is sb what ioplan's stdout or stderr already is? */
static bool is_std_stream(const struct stat *sb)
{
	struct stat st;

	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
		if (fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == (sb->st_mode & S_IFMT) &&
		    st.st_rdev == sb->st_rdev && st.st_dev == sb->st_dev && st.st_ino == sb->st_ino)
			return true;
	return false;
}

/* A character device whose writes store nothing: the null-like ones and terminals. */
static bool harmless_char(dev_t rdev)
{
	unsigned maj = major(rdev);

	if (safety_char_stores_nothing(rdev))
		return true;
	return maj == TTY_MAJOR || maj == TTYAUX_MAJOR || (maj >= PTS_MAJOR_FIRST && maj <= PTS_MAJOR_LAST);
}

static int refuse_device(const struct safety_env *env, const char *path, const struct stat *sb, char *why,
			 size_t n)
{
	char busy[512] = "";

	if (S_ISBLK(sb->st_mode))
		safety_device_in_use(env, sb->st_rdev, busy, sizeof(busy));
	snprintf(why, n, "refusing to write to %s: it is a %s device%s%s; reports, logs and state "
		 "files go only to regular files, pipes, terminals and /dev/null", path,
		 S_ISBLK(sb->st_mode) ? "block" : "character", *busy ? " and " : "", busy);
	return -EPERM;
}

/* Is the regular file (fd, or path when fd < 0) empty or ioplan's own? */
static bool replaceable(const char *path, int fd, const struct stat *sb, char *mark_why, size_t n)
{
	if (!sb->st_size)
		return true;
	return mark_is_ours(fd >= 0 ? mark_read(fd, mark_why, n) : mark_read_path(path, mark_why, n));
}

/*
 * Does this process hold the regular file sb open for writing on a descriptor
 * other than except?  A name clones share (NAME.prerun.txt, NAME.stdout) is
 * written by one clone, unmarked until its command ends, while the next opens
 * it: that file is this run's.  Any other unmarked file with data that took
 * the name after the preflight (a user's, written while an earlier group ran)
 * is not, and is kept.
 */
static bool held_for_writing(const struct stat *sb, int except)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	bool held = false;

	while (d && !held && (e = readdir(d))) {
		int fd = atoi(e->d_name), fl;
		struct stat st;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == except || fd == dirfd(d) || fstat(fd, &st))
			continue;
		fl = fcntl(fd, F_GETFL);
		held = S_ISREG(st.st_mode) && st.st_dev == sb->st_dev && st.st_ino == sb->st_ino && fl >= 0 &&
		       (fl & O_ACCMODE) != O_RDONLY;
	}
	if (d)
		closedir(d);
	return held;
}

/* Active swap or a loop device's backing file: against busy when the caller read it already. */
static bool in_use(const struct safety_env *env, const struct safety_files *busy, const char *path,
		   const struct stat *sb, char *why, size_t n)
{
	return busy ? safety_files_check(busy, path, sb, why, n) != 0 : safety_file_in_use(env, path, sb, why, n) != 0;
}

/*
 * Is the regular file sb (open as fd, or at path when fd is -1) an SQLite
 * database: a results store, or any other program's?  `ioplan report r.json
 * -o results.db` replaced years of runs with a page; no report, log or chart
 * is ever meant to go over one.  Read through a descriptor of its own, as fd
 * is open for writing only; a file it cannot read is not judged so.
 */
static bool is_sqlite_db(const char *path, int fd, const struct stat *sb)
{
	static const char magic[16] = "SQLite format 3";	/* and its NUL: the header's first 16 bytes */
	char head[sizeof(magic)], self[64];
	struct stat rs;
	ssize_t got = -1;
	int rfd;

	if (sb->st_size < 512)	/* a database is at least one page */
		return false;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rfd = open(fd >= 0 ? self : path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (rfd < 0)
		return false;
	if (!fstat(rfd, &rs) && rs.st_dev == sb->st_dev && rs.st_ino == sb->st_ino)
		got = pread(rfd, head, sizeof(head), 0);
	close(rfd);
	return got == (ssize_t)sizeof(head) && !memcmp(head, magic, sizeof(magic));
}

/*
 * The name of the kernel's own file system the regular file path (fd when
 * open) is on, or NULL: /proc, /sys and their kind hold the kernel's
 * settings and controls, not data.  A report there is written as a command:
 * `--output=/proc/sysrq-trigger` of a job named b rebooted the machine (its
 * first byte is the command), and --output=/proc/self/comm ran and said
 * nothing, its report gone (fio 3.33 writes either too).
 */
static const char *kernel_fs(const char *path, int fd)
{
	static const struct { long type; const char *name; } fs[] = {
		{ PROC_SUPER_MAGIC, "proc" }, { SYSFS_MAGIC, "sysfs" }, { DEBUGFS_MAGIC, "debugfs" },
		{ TRACEFS_MAGIC, "tracefs" }, { SECURITYFS_MAGIC, "securityfs" }, { CGROUP_SUPER_MAGIC, "cgroup" },
		{ CGROUP2_SUPER_MAGIC, "cgroup2" }, { 0x62656570, "configfs" }, { BPF_FS_MAGIC, "bpf" },
		{ PSTOREFS_MAGIC, "pstore" }, { EFIVARFS_MAGIC, "efivarfs" },
	};
	struct statfs st;

	if (fd >= 0 ? fstatfs(fd, &st) : statfs(path, &st))
		return NULL;
	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (st.f_type == fs[i].type)
			return fs[i].name;
	return NULL;
}

/* The verdict on what path is now (sb; fd when open): 0, or -errno with why. */
static int judge(const struct safety_env *env, const struct safety_files *busy, const char *path, int fd,
		 const struct stat *sb, unsigned how, char *why, size_t n)
{
	char mark_why[256];
	const char *kfs;

	if (S_ISFIFO(sb->st_mode) || S_ISSOCK(sb->st_mode))
		return 0;
	if (S_ISBLK(sb->st_mode) || S_ISCHR(sb->st_mode)) {
		if (is_std_stream(sb) || (S_ISCHR(sb->st_mode) && harmless_char(sb->st_rdev)))
			return 0;
		return refuse_device(env, path, sb, why, n);
	}
	if (!S_ISREG(sb->st_mode))
		return 0;	/* a directory: the open says EISDIR */
	if ((kfs = kernel_fs(path, fd)) != NULL) {
		snprintf(why, n, "refusing to write to %s: it is a file of the kernel's %s file system (a setting or "
			 "a control, not storage); reports, logs and state files go only to files that store them",
			 path, kfs);
		return -EPERM;
	}
	if (in_use(env, busy, path, sb, why, n))
		return -EBUSY;
	if (is_sqlite_db(path, fd, sb)) {
		snprintf(why, n, "%s is an SQLite database (a results store?): refusing to write over it "
			 "(name another file)", path);
		return -EEXIST;
	}
	if ((how & SAFETY_OUT_DERIVED) && (how & SAFETY_OUT_REPLACES) &&
	    !replaceable(path, fd, sb, mark_why, sizeof(mark_why)) &&
	    !((how & SAFETY_OUT_JUDGED) && held_for_writing(sb, fd))) {
		snprintf(why, n, "%s exists and ioplan did not write it (or it changed since): refusing to "
			 "replace it (move it away, or run where it is not)", path);
		return -EEXIST;
	}
	return 0;
}

/*
 * A file still to create: its directory must be there, or the open fails
 * later, mid-run for a log or an iolog (said now, in the open's own words).
 * A directory part that is a loop of links (ELOOP) is no directory either:
 * --write_bw_log=loopy/j ran the whole job and failed at the log's open.
 */
static int parent_missing(const char *path, char *why, size_t n)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat ds;
	int err = 0;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return 0;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (stat(dir, &ds))
		err = errno;
	else if (!S_ISDIR(ds.st_mode))
		err = ENOTDIR;
	if (err == ENOENT || err == ENOTDIR || err == ELOOP)
		snprintf(why, n, "cannot open for writing: %s", strerror(err));
	return err == ENOENT || err == ENOTDIR || err == ELOOP ? -err : 0;
}

/*
 * path is a symbolic link to nothing (or one of a loop of links): the open makes
 * no file through it, and failed only when the file opened, a log's after the
 * whole run, saying "No such file or directory" of a name that is there.
 */
static int broken_link(const char *path, int err, char *why, size_t n)
{
	char to[PATH_MAX];
	ssize_t len = err == ENOENT ? readlink(path, to, sizeof(to) - 1) : -1;

	if (len < 0) {
		snprintf(why, n, "cannot open for writing: %s", strerror(err));
		return -err;
	}
	to[len] = '\0';
	snprintf(why, n, "cannot open for writing: it is a symbolic link to %s, which does not exist "
		 "(ioplan makes no file through a link)", to);
	return -ENOENT;
}

/*
 * A symbolic link at link (ls, its lstat) that another user may have put
 * there: in a world-writable sticky directory (/tmp), one owned by neither
 * this user nor the directory's owner.  That is the rule of the kernel's
 * fs.protected_symlinks, which is off on some systems (containers among
 * them): there root's `ioplan ... --write_bw_log=j` run in /tmp wrote its log
 * through another user's j_bw.1.log link into the file it named.  Only its
 * owner, the directory's owner or root can replace a link there, so one
 * judged here is the one an open follows next.  -EACCES with why (of path,
 * the name the link is on the way to), else 0.
 */
static int planted_one(const char *path, const char *link, const struct stat *ls, char *why, size_t n)
{
	char dir[PATH_MAX];
	struct stat ds;

	if (tgt_dir_name(link, dir, sizeof(dir)) || stat(dir, &ds))
		return 0;
	if (!(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH) || ls->st_uid == geteuid() || ls->st_uid == ds.st_uid)
		return 0;
	if (!strcmp(link, path))
		snprintf(why, n, "it is a symbolic link of another user's (uid %u) in %s, a directory anyone can "
			 "write (sticky): one put there for ioplan to write through, so it is not followed (the "
			 "kernel's fs.protected_symlinks rule)", (unsigned)ls->st_uid, dir);
	else
		snprintf(why, n, "%s, a directory on its way, is a symbolic link of another user's (uid %u) in %s, "
			 "a directory anyone can write (sticky): one put there for ioplan to write through, so it "
			 "is not followed (the kernel's fs.protected_symlinks rule)", link, (unsigned)ls->st_uid, dir);
	return -EACCES;
}

#define PLANTED_LINKS 40	/* links looked through in all, as the kernel follows at most 40 */

/*
 * Every symbolic link the walk to name passes (each leading part of it, the
 * whole name, and the parts of an allowed link's target in turn, as the
 * kernel's walk follows them), judged by planted_one: the kernel applies
 * fs.protected_symlinks to each link it follows, not only the last, so
 * --write_bw_log=/tmp/sub/j through another user's /tmp/sub link is refused as
 * /tmp/j_bw.1.log would be.  A part that does not exist ends the walk: the
 * open makes nothing through it.
 */
static int planted_walk(const char *path, const char *name, size_t from, int *budget, char *why, size_t n)
{
	char part[PATH_MAX], to[PATH_MAX], next[PATH_MAX];
	size_t len = strlen(name);
	struct stat ls;
	ssize_t got;
	int ret;

	if (len >= sizeof(part))
		return 0;
	for (size_t i = from; i <= len; i++) {
		if ((i < len && name[i] != '/') || name[i - 1] == '/')
			continue;	/* not the end of a part (or a run of slashes) */
		memcpy(part, name, i);
		part[i] = '\0';
		if (lstat(part, &ls))
			return 0;
		if (!S_ISLNK(ls.st_mode))
			continue;
		if ((ret = planted_one(path, part, &ls, why, n)) != 0)
			return ret;
		got = *budget > 0 ? readlink(part, to, sizeof(to) - 1) : -1;
		if (got <= 0)
			continue;
		to[got] = '\0';
		--*budget;
		if (to[0] == '/' || tgt_dir_name(part, next, sizeof(next)))
			snprintf(next, sizeof(next), "%s", to);
		else if ((size_t)snprintf(next + strlen(next), sizeof(next) - strlen(next), "/%s", to) >=
			 sizeof(next) - strlen(next))
			continue;
		if ((ret = planted_walk(path, next, 1, budget, why, n)) != 0)
			return ret;
	}
	return 0;
}

/*
 * The last directory whose walk ioplan need not make again: an absolute path
 * of real directories (no link among its parts), none of which another user
 * can replace (each in a directory not anyone can write, or in a sticky one
 * and owned by this user or that directory's owner).  Such a walk finds the
 * same every time, so the files in it walk only their last part: a layout of
 * 500 4 KiB files made 12 system calls a file against fio's 8 when each
 * walked all its parts (4 lstats, twice), and a directory's 100 000 files
 * would pay it 100 000 times.  One entry: the files of a job share a
 * directory.  A lock, since the workers' side files are opened in their
 * threads.
 */
static pthread_mutex_t settled_lock = PTHREAD_MUTEX_INITIALIZER;
static char settled_dir[PATH_MAX];

/* Whether the part of the name that ends at name[end] is one another user cannot replace (above). */
static bool part_settled(const char *name, size_t end)
{
	char part[PATH_MAX], dir[PATH_MAX];
	struct stat ps, ds;

	memcpy(part, name, end);
	part[end] = '\0';
	if (lstat(part, &ps) || !S_ISDIR(ps.st_mode) || tgt_dir_name(part, dir, sizeof(dir)) || stat(dir, &ds))
		return false;
	if (!(ds.st_mode & S_IWOTH))
		return true;
	return (ds.st_mode & S_ISVTX) && (ps.st_uid == geteuid() || ps.st_uid == ds.st_uid);
}

/* The length of path's directory part when that directory settles (above) now; 0 when not. */
static size_t dir_settles(const char *path, size_t len)
{
	for (size_t i = 1; i < len; i++)
		if (path[i] == '/' && path[i - 1] != '/' && !part_settled(path, i))
			return 0;
	return part_settled(path, len) ? len : 0;
}

/* Where path's last part starts when its directory is the settled one, else 0 (walk it all). */
static size_t settled_prefix(const char *path, size_t dlen)
{
	size_t skip = 0;

	if (path[0] != '/' || !dlen || dlen >= sizeof(settled_dir))
		return 0;
	pthread_mutex_lock(&settled_lock);
	if (!strncmp(settled_dir, path, dlen) && settled_dir[dlen] == '\0')
		skip = dlen + 1;
	pthread_mutex_unlock(&settled_lock);
	return skip;
}

static void settle(const char *path, size_t dlen)
{
	if (path[0] != '/' || !dlen || dlen >= sizeof(settled_dir) || dir_settles(path, dlen) != dlen)
		return;
	pthread_mutex_lock(&settled_lock);
	memcpy(settled_dir, path, dlen);
	settled_dir[dlen] = '\0';
	pthread_mutex_unlock(&settled_lock);
}

/*
 * The links on the way to path another user planted: through its last part
 * too (last), or only its directory's parts, for a caller that has just seen
 * the last part is no link.  errno is left as it was: a caller that looks at
 * it after (an O_NOFOLLOW open's ELOOP) sees its own, not the walk's lstat.
 */
static int planted_check(const char *path, bool last, char *why, size_t n)
{
	int budget = PLANTED_LINKS, saved = errno, ret;
	const char *slash = strrchr(path, '/');
	size_t dlen = slash && slash[1] ? (size_t)(slash - path) : 0, skip = settled_prefix(path, dlen);
	char dir[PATH_MAX];

	if (!last && dlen) {
		memcpy(dir, path, dlen);	/* dlen < PATH_MAX: path is one */
		dir[dlen] = '\0';
		ret = skip ? 0 : planted_walk(path, dir, 1, &budget, why, n);
	} else {
		ret = planted_walk(path, path, skip ? skip : 1, &budget, why, n);
	}
	if (!ret && !skip)
		settle(path, dlen);
	errno = saved;
	return ret;
}

int safety_planted_link(const char *path, char *why, size_t n)
{
	return planted_check(path, true, why, n);
}

int safety_planted_way(const char *path, char *why, size_t n)
{
	return planted_check(path, false, why, n);
}

static int check_output(const struct safety_env *env, const struct safety_files *busy, const char *path,
			unsigned how, char *why, size_t n)
{
	struct stat sb;
	int ret = safety_planted_link(path, why, n);

	if (ret)
		return ret;
	if (stat(path, &sb)) {
		int err = errno;

		if (!lstat(path, &sb) && S_ISLNK(sb.st_mode))
			return broken_link(path, err, why, n);
		return parent_missing(path, why, n);	/* else created by the open, whose errors are its own */
	}
	return judge(env, busy, path, -1, &sb, how, why, n);
}

int safety_check_output(const struct safety_env *env, const char *path, unsigned how, char *why, size_t n)
{
	return check_output(env, NULL, path, how, why, n);
}

/*
 * Whether path can be written: the file, or for one still to be made its
 * directory (a read-only file system, a directory the user may not write).
 * (safety.h)
 */
int safety_check_writable(const char *path, char *why, size_t n)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int err = 0;

	if (!faccessat(AT_FDCWD, path, W_OK, AT_EACCESS))
		return 0;
	if (errno != ENOENT)
		err = errno;
	else if (!slash)
		err = faccessat(AT_FDCWD, ".", W_OK | X_OK, AT_EACCESS) ? errno : 0;
	else if ((size_t)(slash - path) < sizeof(dir)) {
		memcpy(dir, path, (size_t)(slash - path) + (slash == path));
		dir[(slash - path) + (slash == path)] = '\0';
		err = faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) ? errno : 0;
	}
	if (err != EROFS && err != EACCES)
		return 0;	/* anything else is the open's to say */
	snprintf(why, n, "cannot open for writing: %s", strerror(err));
	return -err;
}

int safety_open_output(const struct safety_env *env, const char *path, int flags, unsigned how, char *why,
		       size_t n)
{
	return safety_open_output_seen(env, NULL, path, flags, how, why, n);
}

/* Why an open failed: ENXIO is a FIFO's without a reader, else the errno's own words. */
static void open_failed(const char *path, int err, char *why, size_t n)
{
	struct stat sb;

	if (err == ENXIO && !stat(path, &sb) && S_ISFIFO(sb.st_mode))
		snprintf(why, n, "cannot open for writing: it is a FIFO that nothing reads (start its reader first)");
	else
		snprintf(why, n, "cannot open for writing: %s", strerror(err));
}

/*
 * fd is ioplan's own file under a name it made up, about to be truncated, but
 * other names reach its data (a hard link: `cp -al` and `rsync --link-dest`
 * backups keep an earlier run's logs so): truncated in place, it would empty
 * them too.  So the name is given up instead (only while it still holds that
 * file, tgt_remove_same) and a new file made under it (O_EXCL): the other
 * names keep the older data.  The new fd, or -errno with why (fd is closed).
 */
static int open_anew(const struct safety_env *env, const struct safety_files *busy, const char *path, int fd,
		     int flags, unsigned how, const struct stat *old, char *why, size_t n)
{
	char kept[PATH_MAX] = "";
	struct stat sb;
	int ret;

	close(fd);
	ret = tgt_remove_same(AT_FDCWD, path, old->st_dev, old->st_ino, kept, sizeof(kept));
	if (ret) {
		snprintf(why, n, "%s has %lu names (another one, a hard link, reaches its data) and could not be "
			 "replaced by a new file (%s%s%s): refusing to write over it", path,
			 (unsigned long)old->st_nlink, ret == -ESTALE ? "the name is not that file" : strerror(-ret),
			 *kept ? "; it is now " : "", kept);
		return ret == -ESTALE ? -EEXIST : ret;
	}
	*why = '\0';
	fd = guarded_open(path, flags | O_CREAT | O_EXCL, 0644, why, n);
	if (fd < 0) {
		if (fd != -EACCES || !*why)
			open_failed(path, -fd, why, n);
		return fd;
	}
	ret = fstat(fd, &sb) ? -errno : judge(env, busy, path, fd, &sb, how, why, n);
	if (ret) {
		close(fd);
		(void)tgt_remove_same(AT_FDCWD, path, sb.st_dev, sb.st_ino, NULL, 0);
		return ret;
	}
	return fd;
}

int safety_open_output_seen(const struct safety_env *env, const struct safety_files *busy, const char *path,
			    int flags, unsigned how, char *why, size_t n)
{
	bool created = false, trunc = flags & O_TRUNC, nonblock = flags & O_NONBLOCK;
	struct stat sb;
	int fd, ret;

	/* Judged on the path first: a device refused is never even opened. */
	ret = check_output(env, busy, path, how, why, n);
	if (ret)
		return ret;
	flags = (flags & ~(O_TRUNC | O_CREAT | O_EXCL)) | O_WRONLY | O_CLOEXEC | O_NOCTTY;
	if (!(how & SAFETY_OUT_WAIT_READER))
		flags |= O_NONBLOCK;	/* a FIFO nobody reads: ENXIO, not an open that never returns */
	/*
	 * Opened by a walk that refuses a planted link itself (guarded_open): a
	 * directory part swapped for one since the look above is not followed.
	 */
	*why = '\0';
	fd = (how & SAFETY_OUT_EXISTING) ? -ENOENT : guarded_open(path, flags | O_CREAT | O_EXCL, 0644, why, n);
	created = fd >= 0;
	if ((how & SAFETY_OUT_EXISTING) || (fd == -EEXIST && !(how & SAFETY_OUT_NEW)))
		fd = guarded_open(path, flags, 0, why, n);	/* what took the name since: judged again if a link */
	if (fd < 0) {
		if (fd != -EACCES || !*why)
			open_failed(path, -fd, why, n);
		return fd;
	}
	if (!nonblock && (flags & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);	/* its writes wait, as the caller's */
	ret = fstat(fd, &sb) ? -errno : judge(env, busy, path, fd, &sb, how, why, n);
	if (!ret && trunc && S_ISREG(sb.st_mode) && !created && sb.st_nlink > 1 && (how & SAFETY_OUT_DERIVED))
		return open_anew(env, busy, path, fd, flags, how, &sb, why, n);
	if (!ret && trunc && S_ISREG(sb.st_mode) && !created && ftruncate(fd, 0)) {
		ret = -errno;
		snprintf(why, n, "cannot truncate %s: %s", path, strerror(errno));
	}
	if (ret) {
		close(fd);
		if (created && S_ISREG(sb.st_mode))
			(void)tgt_remove_same(AT_FDCWD, path, sb.st_dev, sb.st_ino, NULL, 0);
		return ret;
	}
	return fd;
}

bool safety_output_is_ours(const char *path)
{
	struct stat sb;
	char why[256];

	return !lstat(path, &sb) && S_ISREG(sb.st_mode) && mark_is_ours(mark_read_path(path, why, sizeof(why)));
}

int safety_remove_made(const char *path, dev_t dev, ino_t ino)
{
	return tgt_remove_same(AT_FDCWD, path, dev, ino, NULL, 0);
}

static bool own_output(int dirfd, const char *aside, const struct stat *st, void *arg)
{
	(void)dirfd;
	(void)st;
	(void)arg;
	return safety_output_is_ours(aside);
}

int safety_remove_own_output(const char *path)
{
	return tgt_remove_if(AT_FDCWD, path, own_output, NULL, NULL, 0);
}

int safety_mark_output(int fd)
{
	struct stat sb;

	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	return mark_write(fd, MARK_FILLED);
}

/* The file on fd has no name left (safety.h). */
bool safety_output_removed(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0;
}

/*
 * The last `written` bytes of fd's file cut off again, when they are still its
 * end (no other clone of a shared iolog appended whole lines since).  A full
 * disk cut a log's last line where the space ran out, and a reader took the
 * piece ("0, 4") for a line of its own.
 */
void safety_cut_back(int fd, size_t written)
{
	off_t end = lseek(fd, 0, SEEK_CUR);	/* of O_APPEND too: the end of this fd's last write */
	struct stat st;

	if (!written || end < (off_t)written || fstat(fd, &st) || st.st_size != end)
		return;
	(void)!ftruncate(fd, end - (off_t)written);
}

int safety_write_whole(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int err = w < 0 ? errno : ENOSPC;

			safety_cut_back(fd, (size_t)(c - (const char *)p));
			return -err;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * A new, unnamed file in the directory dfd (O_TMPFILE), or one named tmp
 * (*tmp set) where the file system has none, locked as a live run's
 * (stale_temps.h): fd, or -errno.  base: the name it is to have.
 */
static int whole_temporary(int dfd, const char *base, char *tmp, size_t tn)
{
	int fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644), ret = 0;

	*tmp = '\0';
	if (fd >= 0)
		(void)stale_temp_hold(fd);	/* before it has a name: a sweep never takes it */
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd >= 0 ? fd : -errno;
	for (int tries = 0; tries < 8; tries++) {
		if ((ret = stale_temp_name(base, tmp, tn)) != 0)
			break;
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		ret = fd >= 0 ? 0 : -errno;
		if (ret != -EEXIST)
			break;
	}
	if (ret)
		*tmp = '\0';
	else
		(void)stale_temp_hold(fd);	/* unmarked until whole: a sweep leaves it meanwhile */
	return ret ? ret : fd;
}

/*
 * The new file at tmp put at base, both in dfd (path: base's whole name, for
 * the judgement and its words): what has the name is replaced only as judge
 * allows (for a made-up name: ioplan's own or empty), judged after an atomic
 * exchange, so a user's file that took the name since the look is put back,
 * not lost.  Without the exchange (a file system without RENAME_EXCHANGE)
 * the look before stands.  0, or -errno with why.
 */
static int whole_put(const struct safety_env *env, int dfd, const char *tmp, const char *base, const char *path,
		     unsigned how, char *why, size_t n)
{
	struct stat old;
	int rfd, ret;

	if (!renameat2(dfd, tmp, dfd, base, RENAME_NOREPLACE))
		return 0;
	if (errno == EINVAL || errno == ENOSYS)
		return renameat(dfd, tmp, dfd, base) ? -errno : 0;
	if (errno != EEXIST || renameat2(dfd, tmp, dfd, base, RENAME_EXCHANGE))
		return -errno;
	/* What had the name is at tmp now, judged as what path was (its mark read from it). */
	rfd = openat(dfd, tmp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	ret = rfd < 0 || fstat(rfd, &old) ? -EEXIST : !S_ISREG(old.st_mode) ? -EEXIST
		: judge(env, NULL, path, rfd, &old, how, why, n);
	if (rfd >= 0)
		close(rfd);
	if (!ret) {
		(void)tgt_remove_same(dfd, tmp, old.st_dev, old.st_ino, NULL, 0);
		return 0;
	}
	(void)renameat2(dfd, tmp, dfd, base, RENAME_EXCHANGE);	/* back under its name */
	if (ret == -EEXIST)
		snprintf(why, n, "%s exists and ioplan did not write it (or it changed since): refusing to "
			 "replace it (move it away, or run where it is not)", path);
	return ret;
}

/*
 * The complete file fd (an unnamed one linked under a fresh name first: a
 * link cannot replace a file) put at path, whose directory is dfd.  0, or
 * -errno with why; the temporary name is gone either way.
 */
static int whole_name_file(const struct safety_env *env, int fd, int dfd, char *tmp, size_t tn, const char *path,
			   unsigned how, char *why, size_t n)
{
	const char *base = tgt_base(path);
	char proc[64];
	int ret = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int tries = 0; !*tmp; tries++) {
		if ((ret = stale_temp_name(base, tmp, tn)) != 0)
			break;
		if (!linkat(AT_FDCWD, proc, dfd, tmp, AT_SYMLINK_FOLLOW))
			break;
		ret = -errno;
		*tmp = '\0';
		if (ret != -EEXIST || tries == 7)
			break;
		ret = 0;
	}
	if (ret) {
		snprintf(why, n, "cannot name the new file: %s", strerror(-ret));
		return ret;
	}
	ret = whole_put(env, dfd, tmp, base, path, how, why, n);
	if (ret)
		(void)unlinkat(dfd, tmp, 0);	/* the new file, made just now: nothing else was ever under its name */
	if (ret && ret != -EEXIST && ret != -EBUSY && ret != -EPERM)
		snprintf(why, n, "cannot put the new file in place: %s", strerror(-ret));
	return ret;
}

/* A link, a FIFO, /dev/null at path: written in place, through it, as any side file. */
static int save_in_place(const struct safety_env *env, const char *path, const void *p, size_t len, unsigned how,
			 char *why, size_t n)
{
	int fd = safety_open_output(env, path, O_TRUNC, how, why, n), ret;

	if (fd < 0)
		return fd;
	ret = safety_write_whole(fd, p, len);
	if (!ret)
		(void)safety_mark_output(fd);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		snprintf(why, n, "%s", strerror(-ret));
	return ret;
}

/*
 * The new file made, named and put in place in the directory dfd, reached by
 * guarded_dir_open: a directory part swapped for a planted link since the
 * look is not followed (the names were made and renamed by path).
 */
static int save_in_dir(const struct safety_env *env, int dfd, const char *path, const void *p, size_t len,
		       unsigned how, char *why, size_t n)
{
	char tmp[NAME_MAX + 1];
	int fd, ret;

	(void)stale_temps_sweep(dfd);	/* what a run killed before its rename left */
	fd = whole_temporary(dfd, tgt_base(path), tmp, sizeof(tmp));
	if (fd < 0) {
		snprintf(why, n, "cannot open for writing: %s", strerror(-fd));
		return fd;
	}
	ret = safety_write_whole(fd, p, len);
	if (!ret) {
		(void)safety_mark_output(fd);	/* ioplan's own: the next run may replace it */
		ret = whole_name_file(env, fd, dfd, tmp, sizeof(tmp), path, how, why, n);
	} else {
		snprintf(why, n, "%s", strerror(-ret));
		if (*tmp)
			(void)unlinkat(dfd, tmp, 0);
	}
	close(fd);
	return ret;
}

int safety_save_whole(const struct safety_env *env, const char *path, const void *p, size_t len, unsigned how,
		      char *why, size_t n)
{
	struct stat sb;
	int dfd, ret = check_output(env, NULL, path, how, why, n);

	if (ret)
		return ret;
	if (!lstat(path, &sb) && !S_ISREG(sb.st_mode))
		return save_in_place(env, path, p, len, how, why, n);
	*why = '\0';
	dfd = guarded_dir_open(path, why, n);
	if (dfd < 0) {
		if (!*why)
			snprintf(why, n, "cannot open its directory: %s", strerror(-dfd));
		return dfd;
	}
	ret = save_in_dir(env, dfd, path, p, len, how, why, n);
	close(dfd);
	return ret;
}

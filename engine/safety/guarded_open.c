/*
 * engine/safety/guarded_open.c - an open whose own walk refuses a link
 * another user planted (guarded_open.h).
 *
 * Where the kernel has openat2 and the directory part holds no link at all
 * (the usual case), one openat2(RESOLVE_NO_SYMLINKS) reaches the directory.
 * Otherwise (links the user made, an older kernel) the walk is made here,
 * one part at a time with O_PATH | O_NOFOLLOW: a part that is a link is
 * judged against the directory it is in (sticky, world-writable, the link
 * owned by neither this user nor the directory's owner: refused) and, when
 * allowed, its target walked in turn from there (or from /), at most 40
 * links in all, as the kernel.  ".." of a directory reached is its real
 * parent, as the kernel's walk.  The last part is opened in the directory
 * reached, with openat.
 */
#include "engine/safety/guarded_open.h"
#include "engine/target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#define GUARD_LINKS 40	/* links followed in all, as the kernel follows at most 40 */

struct walk {
	const char *path;	/* the name opened, for why */
	int budget;		/* links still to follow */
	char *why;
	size_t n;
};

/* The directory at dir in dfd (no link on its way) with openat2, or -errno (-ELOOP: a link is there). */
static int dir_without_links(int dfd, const char *dir)
{
#ifdef SYS_openat2
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
	long fd = syscall(SYS_openat2, dfd, dir, &how, sizeof(how));

	return fd >= 0 ? (int)fd : -errno;
#else
	(void)dfd;
	(void)dir;
	return -ENOSYS;
#endif
}

/*
 * The link lfd (named name in the directory dfd) judged: -EACCES with why
 * when another user put it in a sticky world-writable directory, else 0.
 */
static int planted_here(int dfd, int lfd, const char *name, struct walk *w)
{
	struct stat ds, ls;

	if (fstat(dfd, &ds) || fstat(lfd, &ls))
		return -errno;
	if (!(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH) || ls.st_uid == geteuid() || ls.st_uid == ds.st_uid)
		return 0;
	snprintf(w->why, w->n, "%s, on the way to %s, is a symbolic link of another user's (uid %u) in a directory "
		 "anyone can write (sticky): one put there for ioplan to write through, so it is not followed (the "
		 "kernel's fs.protected_symlinks rule)", name, w->path, (unsigned)ls.st_uid);
	return -EACCES;
}

/* The target of the link lfd (named name in dfd), once judged allowed, in to (PATH_MAX bytes): 0 or -errno. */
static int allowed_target(int dfd, int lfd, const char *name, char *to, struct walk *w)
{
	ssize_t len;
	int ret = planted_here(dfd, lfd, name, w);

	if (ret)
		return ret;
	if (--w->budget < 0)
		return -ELOOP;
	len = readlinkat(lfd, "", to, PATH_MAX - 1);
	if (len < 0)
		return -errno;
	to[len] = '\0';
	return 0;
}

static int walk_from(int start, const char *rel, struct walk *w);

/*
 * Whether the directory dfd is in /proc, whose links (/proc/self, fd/1,
 * cwd) are the kernel's own, not text to walk: /dev/stdout leads to
 * /proc/self/fd/1, whose target reads "pipe:[123]".  Nobody plants one.
 */
static bool in_proc(int dfd)
{
	struct statfs fs;

	return !fstatfs(dfd, &fs) && fs.f_type == 0x9fa0;	/* PROC_SUPER_MAGIC */
}

/* One part of a walk: name in dfd, a link followed; the fd reached (O_PATH), or -errno. */
static int step(int dfd, const char *name, struct walk *w)
{
	char to[PATH_MAX];
	struct stat st;
	int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (!S_ISLNK(st.st_mode))
		return fd;
	if (in_proc(dfd)) {
		close(fd);
		fd = openat(dfd, name, O_PATH | O_CLOEXEC);	/* followed by the kernel */
		return fd >= 0 ? fd : -errno;
	}
	ret = allowed_target(dfd, fd, name, to, w);
	close(fd);
	return ret ? ret : walk_from(dfd, to, w);
}

/* rel walked from the directory start (from / when absolute): the fd reached (O_PATH), or -errno. */
static int walk_from(int start, const char *rel, struct walk *w)
{
	char part[NAME_MAX + 1];
	int cur = openat(rel[0] == '/' ? AT_FDCWD : start, rel[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (cur < 0)
		return -errno;
	for (const char *p = rel; cur >= 0 && *p;) {
		size_t len = strcspn(p, "/");
		int next;

		if (len > NAME_MAX) {
			close(cur);
			return -ENAMETOOLONG;
		}
		memcpy(part, p, len);
		part[len] = '\0';
		p += len + strspn(p + len, "/");
		if (!len || !strcmp(part, "."))
			continue;
		next = step(cur, part, w);
		close(cur);
		cur = next;
	}
	return cur;
}

/* The directory part of path (in dfd) reached without a planted link: its fd (O_PATH), or -errno. */
static int guarded_dir(int dfd, const char *path, struct walk *w)
{
	char dir[PATH_MAX];
	int fd = tgt_dir_name(path, dir, sizeof(dir));
	struct stat st;

	if (fd)
		return fd;
	fd = dir_without_links(dfd, dir);
	if (fd >= 0 || (fd != -ELOOP && fd != -ENOSYS && fd != -EINVAL && fd != -E2BIG && fd != -EPERM))
		return fd;
	fd = walk_from(dfd, dir, w);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISDIR(st.st_mode))) {
		close(fd);
		return -ENOTDIR;
	}
	return fd;
}

/* path (in dfd, or absolute) opened as guarded_open says: the fd, or -errno. */
static int open_in(int dfd, const char *path, int flags, mode_t mode, struct walk *w)
{
	const char *base = tgt_base(path);
	char to[PATH_MAX];
	int dir, fd, lfd, ret;

	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		fd = openat(dfd, path, flags, mode);	/* a directory's name: the open says what it is */
		return fd >= 0 ? fd : -errno;
	}
	dir = guarded_dir(dfd, path, w);
	if (dir < 0)
		return dir;
	fd = openat(dir, base, flags | O_NOFOLLOW, mode);
	ret = fd >= 0 ? fd : -errno;
	if (ret == -ELOOP && !(flags & O_NOFOLLOW) && in_proc(dir)) {
		fd = openat(dir, base, flags, mode);	/* /proc/self/fd/1: the kernel's link, followed by it */
		ret = fd >= 0 ? fd : -errno;
	} else if (ret == -ELOOP && !(flags & O_NOFOLLOW)) {
		/* A link at the end: followed the same way when allowed, to what the open finds. */
		lfd = openat(dir, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		ret = lfd < 0 ? -errno : allowed_target(dir, lfd, base, to, w);
		if (lfd >= 0)
			close(lfd);
		if (!ret)
			ret = open_in(dir, to, flags, mode, w);
	}
	close(dir);
	return ret;
}

int guarded_open(const char *path, int flags, mode_t mode, char *why, size_t n)
{
	struct walk w = { path, GUARD_LINKS, why, n };

	return open_in(AT_FDCWD, path, flags, mode, &w);
}

int guarded_dir_open(const char *path, char *why, size_t n)
{
	struct walk w = { path, GUARD_LINKS, why, n };

	return guarded_dir(AT_FDCWD, path, &w);
}

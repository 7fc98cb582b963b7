/*
 * engine/target.c - directory descriptors, no-follow opens and identity checks (target.h).
 *
 * The last component is opened with openat(O_NOFOLLOW): it holds no slash, so
 * nothing else of the path is resolved again (the directory was, once, when
 * its descriptor was opened), and openat2's RESOLVE_BENEATH would add nothing.
 */
#include "engine/target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int tgt_dir_name(const char *path, char *dir, size_t n)
{
	const char *slash = strrchr(path, '/');
	int len;

	if (!slash)
		len = snprintf(dir, n, ".");
	else if (slash == path)
		len = snprintf(dir, n, "/");
	else
		len = snprintf(dir, n, "%.*s", (int)(slash - path), path);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int tgt_dir_open(const char *path)
{
	char dir[PATH_MAX];
	int fd = tgt_dir_name(path, dir, sizeof(dir));

	if (fd)
		return fd;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int tgt_seen_now(struct tgt_seen *s, int dirfd, const char *path, const struct stat *dir_st, struct stat *st)
{
	const char *base = tgt_base(path);
	int at = dirfd >= 0 && *base ? dirfd : AT_FDCWD, ret;
	const char *name = at == AT_FDCWD ? path : base;

	ret = fstatat(at, name, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	*s = (struct tgt_seen){ .path = path };
	s->link = !ret && S_ISLNK(st->st_mode);
	/* Only a link needs a second look: lstat of anything else is its stat. */
	if (s->link)
		ret = fstatat(at, name, st, 0) ? -errno : 0;
	if (!ret) {
		s->dev = st->st_dev;
		s->ino = st->st_ino;
		s->size = (uint64_t)st->st_size;
		s->regular = S_ISREG(st->st_mode);
	}
	if (dir_st) {
		s->dir_dev = dir_st->st_dev;
		s->dir_ino = dir_st->st_ino;
	}
	return ret;
}

int tgt_seen_same(const struct tgt_seen *s, const struct stat *dir_st, int looked, const struct stat *st,
		  const struct tgt_id *id, char *why, size_t n)
{
	if (s->dir_ino && (!dir_st || dir_st->st_dev != s->dir_dev || dir_st->st_ino != s->dir_ino)) {
		snprintf(why, n, "its directory was replaced since the preflight checked it; nothing was "
			 "written there");
		return -ESTALE;
	}
	if (looked)
		return 0;	/* gone: a file made anew (O_EXCL) is as safe as before */
	if (id->follow && !s->link) {
		snprintf(why, n, "%s", tgt_open_error(-ELOOP, &(struct tgt_id){ .known = true }));
		return -ELOOP;
	}
	if (!s->ino)
		return -EEXIST;
	if (s->dev != st->st_dev || s->ino != st->st_ino) {
		snprintf(why, n, "the file was replaced since the preflight checked it (inode %llu is now "
			 "%llu); nothing was written to it", (unsigned long long)s->ino,
			 (unsigned long long)st->st_ino);
		return -ESTALE;
	}
	return 0;
}

int tgt_dir_existing(const char *path, char *top, size_t n, size_t *missing)
{
	struct stat st;
	char *slash;
	int ret = tgt_dir_name(path, top, n);

	if (ret)
		return ret;
	while (stat(top, &st) && errno == ENOENT) {
		slash = strrchr(top, '/');
		if (!slash) {
			snprintf(top, n, ".");	/* nothing of a relative path exists: it starts here */
			break;
		}
		slash[slash == top] = '\0';	/* "/x" -> "/" */
	}
	*missing = strcmp(top, ".") || !strncmp(path, "./", 2) ? strlen(top) : 0;
	for (const char *c = path + *missing; *c; c += strcspn(c, "/")) {
		c += strspn(c, "/");
		if (!strncmp(c, "..", 2) && (c[2] == '/' || !c[2]))
			return -EPERM;
	}
	return 0;
}

/* Makes (or finds) name in the directory open on dirfd: its descriptor, never through a link. */
static int make_one(int dirfd, const char *name, int (*made)(int fd, void *ctx), void *ctx,
		    char *why, size_t n)
{
	bool created = !mkdirat(dirfd, name, 0700);
	struct stat st;
	int fd, ret;

	if (!created && errno != EEXIST) {
		snprintf(why, n, "cannot create directory %s: %s", name, strerror(errno));
		return -errno;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, n, ret == -ELOOP || ret == -ENOTDIR ?
			 "%s is not a directory ioplan can create files in (a symbolic link or another "
			 "file is there); it is not followed" : "cannot open directory %s: %s",
			 name, strerror(-ret));
		return ret;
	}
	/* A directory swapped in between mkdir and open is someone else's: never marked as ours. */
	if (created && made && !fstat(fd, &st) && st.st_uid == geteuid() && (ret = made(fd, ctx))) {
		snprintf(why, n, "cannot mark directory %s as ioplan's: %s", name, strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

int tgt_dir_make(const char *path, int (*made)(int fd, void *ctx), void *ctx, char *why, size_t n)
{
	char top[PATH_MAX], dir[PATH_MAX];
	size_t at, len;
	int fd, next, ret = tgt_dir_existing(path, top, sizeof(top), &at);

	snprintf(why, n, "cannot create its directory");
	if (ret == -EPERM)
		snprintf(why, n, "ioplan creates missing directories only beneath existing ones, not "
			 "through \"..\"");
	if (ret || (ret = tgt_dir_name(path, dir, sizeof(dir))))
		return ret;
	fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (char *c = dir + at; *c; c += len) {
		c += strspn(c, "/");
		len = strcspn(c, "/");
		if (!len || (len == 1 && *c == '.'))
			continue;
		char name[NAME_MAX + 1];

		snprintf(name, sizeof(name), "%.*s", (int)len, c);
		next = make_one(fd, name, made, ctx, why, n);
		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	return fd;
}

const char *tgt_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int tgt_look(int dirfd, const char *base, struct tgt_id *id, struct stat *st)
{
	if (fstatat(dirfd, base, st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	id->follow = S_ISLNK(st->st_mode);
	if (id->follow && fstatat(dirfd, base, st, 0))
		return -errno;
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->known = true;
	return 0;
}

int tgt_openat(int dirfd, const char *base, const struct tgt_id *id, int flags, mode_t mode)
{
	int fd = openat(dirfd, base, flags | O_CLOEXEC | (id->follow ? 0 : O_NOFOLLOW), mode);

	return fd < 0 ? -errno : fd;
}

int tgt_check(int fd, struct tgt_id *id, char *why, size_t n, struct stat *out)
{
	struct stat own, *stp = out ? out : &own, st;

	if (fstat(fd, stp))
		return -errno;
	st = *stp;
	if (!id->known) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		id->known = true;
	} else if (st.st_dev != id->dev || st.st_ino != id->ino) {
		snprintf(why, n, "the file was replaced since ioplan checked it (device %u:%u inode %llu "
			 "is now device %u:%u inode %llu); nothing was written to it", major(id->dev),
			 minor(id->dev), (unsigned long long)id->ino, major(st.st_dev), minor(st.st_dev),
			 (unsigned long long)st.st_ino);
		return -ESTALE;
	}
	/* No name at all: renamed over or removed while held open, not linked elsewhere. */
	if (id->single && S_ISREG(st.st_mode) && st.st_nlink == 0) {
		snprintf(why, n, "the file ioplan made was replaced or removed under the run (no name "
			 "reaches it now); nothing more is written to it");
		return -ESTALE;
	}
	if (id->single && S_ISREG(st.st_mode) && st.st_nlink != 1) {
		snprintf(why, n, "ioplan made this file with one name, and it now has %llu (another name "
			 "reaches its data); nothing was written to it", (unsigned long long)st.st_nlink);
		return -ESTALE;
	}
	return 0;
}

const char *tgt_open_error(int err, const struct tgt_id *id)
{
	if (err == -ELOOP && !id->follow)
		return "a symbolic link is there now, where ioplan checked a file; it is not followed, "
		       "and nothing was written";
	return strerror(-err);
}

/* A random name beside name (the same directory), for it to wait under while judged. */
static int aside_name(const char *name, char *out, size_t n)
{
	const char *base = tgt_base(name);
	uint64_t r = 0;
	int len;

	while (getrandom(&r, sizeof(r), 0) < 0 && errno == EINTR)
		;
	r ^= (uint64_t)getpid() << 32;	/* unpredictable with getrandom; distinct without */
	len = snprintf(out, n, "%.*s.ioplan-removing.%016llx", (int)(base - name), name, (unsigned long long)r);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/* The look and then unlink, for a file system without RENAME_NOREPLACE. */
static int remove_looked(int dirfd, const char *name, tgt_removable removable, void *arg)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!removable(dirfd, name, &st, arg))
		return -ESTALE;
	return unlinkat(dirfd, name, 0) ? -errno : 0;
}

int tgt_remove_if(int dirfd, const char *name, tgt_removable removable, void *arg, char *kept_as, size_t n)
{
	char aside[PATH_MAX];
	struct stat st;
	int ret, tries = 0;

	do {
		ret = aside_name(name, aside, sizeof(aside));
		if (!ret && renameat2(dirfd, name, dirfd, aside, RENAME_NOREPLACE))
			ret = -errno;
	} while (ret == -EEXIST && ++tries < 8);
	/* A full disk may have no room for the new name's entry: the space comes back first. */
	if (ret == -EINVAL || ret == -ENOSYS || ret == -ENAMETOOLONG || ret == -ENOSPC || ret == -EDQUOT)
		return remove_looked(dirfd, name, removable, arg);
	if (ret)
		return ret;
	/* Only ioplan knows the name now: what is judged there is what is removed. */
	if (!fstatat(dirfd, aside, &st, AT_SYMLINK_NOFOLLOW) && removable(dirfd, aside, &st, arg))
		ret = unlinkat(dirfd, aside, 0) && errno != ENOENT ? -errno : 0;
	else
		ret = -ESTALE;
	/* Kept, or not removable after all (EIO, EROFS): back under its own name. */
	if (!ret || !renameat2(dirfd, aside, dirfd, name, RENAME_NOREPLACE))
		return ret;
	/* Not put back: it waits under the random name, which the caller must tell. */
	ret = -errno;
	if (kept_as)
		snprintf(kept_as, n, "%s", aside);
	return ret;
}

struct same_file {
	dev_t dev;
	ino_t ino;
};

static bool is_same(int dirfd, const char *aside, const struct stat *st, void *arg)
{
	const struct same_file *f = arg;

	(void)dirfd;
	(void)aside;
	return st->st_dev == f->dev && st->st_ino == f->ino;
}

int tgt_remove_same(int dirfd, const char *name, dev_t dev, ino_t ino, char *kept_as, size_t n)
{
	struct same_file f = { dev, ino };

	return tgt_remove_if(dirfd, name, is_same, &f, kept_as, n);
}

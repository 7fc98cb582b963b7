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
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int tgt_dir_open(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return -ENAMETOOLONG;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
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

int tgt_check(int fd, struct tgt_id *id, char *why, size_t n)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
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

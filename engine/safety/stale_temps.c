/*
 * engine/safety/stale_temps.c - temporary names of files saved whole, and
 * the removal of those a killed run left behind (stale_temps.h).
 *
 * What makes one certainly a dead run's, each needed:
 *  - its name: ".BASE.ioplan-new." and exactly 16 lowercase hex digits;
 *  - a regular file (lstat: never a link), owned by this user, with one name;
 *  - ioplan's mark, bound to it (mark.h): written only once the file was
 *    whole and locked; a user's file by such a name (one a run killed during
 *    RENAME_EXCHANGE left under it, or one made by hand) has none, and stays;
 *  - no lock held on it: the writer takes its flock before the file has a
 *    name and keeps it until the name is gone, so a file no process holds
 *    locked belongs to no live run (flock is per inode, not per process id,
 *    so PID namespaces and reused ids do not mislead it).
 * It is then removed by tgt_remove_same (renamed aside, judged again, and
 * only then unlinked), so nothing renamed over the name meanwhile is lost.
 */
#include "engine/safety/stale_temps.h"
#include "engine/mark.h"
#include "engine/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEMP_MARKER ".ioplan-new."
#define TEMP_DIGITS 16

int stale_temp_name(const char *base, char *out, size_t n)
{
	uint64_t r = 0;
	int len;

	while (getrandom(&r, sizeof(r), 0) < 0 && errno == EINTR)
		;
	r ^= (uint64_t)getpid() << 32;
	len = snprintf(out, n, ".%s" TEMP_MARKER "%0*llx", base, TEMP_DIGITS, (unsigned long long)r);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int stale_temp_hold(int fd)
{
	int ret;

	while ((ret = flock(fd, LOCK_EX)) && errno == EINTR)
		;
	return ret ? -errno : 0;
}

/* Whether name has the form of a temporary stale_temp_name makes. */
static bool temp_shaped(const char *name)
{
	size_t len = strlen(name), mlen = strlen(TEMP_MARKER);

	if (name[0] != '.' || len < 1 + 1 + mlen + TEMP_DIGITS)
		return false;
	if (memcmp(name + len - TEMP_DIGITS - mlen, TEMP_MARKER, mlen))
		return false;
	for (size_t i = len - TEMP_DIGITS; i < len; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return true;
}

/* The file open as fd (ls: the name's lstat) is a dead run's complete temporary. */
static bool dead_runs(int fd, const struct stat *ls)
{
	char why[256];
	struct stat st;

	if (fstat(fd, &st) || st.st_dev != ls->st_dev || st.st_ino != ls->st_ino || st.st_nlink != 1)
		return false;
	if (!mark_is_ours(mark_read(fd, why, sizeof(why))))
		return false;
	return !flock(fd, LOCK_EX | LOCK_NB);	/* held until closed: no writer takes it meanwhile */
}

/* Removes name in dfd when it is a dead run's temporary: 1 removed, else 0. */
static int sweep_one(int dfd, const char *name)
{
	struct stat ls;
	int fd, gone = 0;

	if (fstatat(dfd, name, &ls, AT_SYMLINK_NOFOLLOW) || !S_ISREG(ls.st_mode) || ls.st_uid != geteuid() ||
	    ls.st_nlink != 1)
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (dead_runs(fd, &ls))
		gone = !tgt_remove_same(dfd, name, ls.st_dev, ls.st_ino, NULL, 0);
	close(fd);
	return gone;
}

/* The last directory swept (device and inode): its saves after the first do not read it again. */
static pthread_mutex_t swept_lock = PTHREAD_MUTEX_INITIALIZER;
static dev_t swept_dev;
static ino_t swept_ino;
static bool swept_any;

/* Whether the directory ds was swept already; notes it as swept when not. */
static bool swept_before(const struct stat *ds)
{
	bool before;

	pthread_mutex_lock(&swept_lock);
	before = swept_any && swept_dev == ds->st_dev && swept_ino == ds->st_ino;
	swept_any = true;
	swept_dev = ds->st_dev;
	swept_ino = ds->st_ino;
	pthread_mutex_unlock(&swept_lock);
	return before;
}

int stale_temps_sweep(int dir)
{
	struct dirent *e;
	struct stat ds;
	int gone = 0, dfd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (dfd < 0)
		return 0;
	if (fstat(dfd, &ds) || swept_before(&ds) || !(d = fdopendir(dfd))) {
		close(dfd);
		return 0;
	}
	while ((e = readdir(d)))
		if (temp_shaped(e->d_name))
			gone += sweep_one(dirfd(d), e->d_name);
	closedir(d);
	return gone;
}

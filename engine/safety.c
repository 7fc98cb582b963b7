/*
 * engine/safety.c - the device-write rules of safety.h, from the live system.
 *
 * A device is "in use" when its own major:minor, or that of any partition
 * under it, appears as a mounted filesystem or active swap, or when anything
 * holds it (md, dm, LVM, bcache list themselves under holders/), or when it is
 * the backing store of a loop device (which claims nothing).  Those reads
 * give the message; the kernel gives the last word: an O_EXCL open of a block
 * device fails with EBUSY while anything claims it - a mount in any mount
 * namespace, md, dm, swap - which no file under /proc of ours can show.  Partitions are
 * found through sysfs, so names like nvme0n1p1 need no special cases.
 */
#include "engine/safety.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const struct safety_env safety_system = { "/proc", "/sys" };

/* snprintf that reports truncation: a truncated sysfs path must not be read. */
static int fmt(char *dst, size_t n, const char *f, ...)
{
	va_list ap;
	int len;

	va_start(ap, f);
	len = vsnprintf(dst, n, f, ap);
	va_end(ap);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/* Is the mount source src (mountinfo's field after the fstype) the block device dev? */
static bool source_is(const char *src, dev_t dev)
{
	struct stat sb;

	return src[0] == '/' && stat(src, &sb) == 0 && S_ISBLK(sb.st_mode) && sb.st_rdev == dev;
}

/*
 * The mount point of dev from mountinfo, or -ENOENT.  Field 3 (major:minor)
 * is not enough: btrfs (and other multi-device file systems) show an anonymous
 * 0:NN there, so the mount source is compared too.
 */
static int mounted_at(const struct safety_env *env, dev_t dev, char *where, size_t n)
{
	char path[512], line[4096];
	unsigned maj, min;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/self/mountinfo", env->proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char mnt[1024], src[1024];
		const char *tail = strstr(line, " - ");

		if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &maj, &min, mnt) != 3)
			continue;
		if (makedev(maj, min) == dev || (tail && sscanf(tail, " - %*s %1023s", src) == 1 &&
						 source_is(src, dev))) {
			snprintf(where, n, "%s", mnt);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* 0 when a path in /proc/swaps is the block device dev. */
static int is_swap(const struct safety_env *env, dev_t dev)
{
	char path[512], line[1024], name[512];
	struct stat sb;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/swaps", env->proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "%511s", name) == 1 && name[0] == '/' &&
		    stat(name, &sb) == 0 && S_ISBLK(sb.st_mode) && sb.st_rdev == dev)
			ret = 0;
	fclose(f);
	return ret;
}

/* Reads "maj:min" from a sysfs dev file. */
static int read_dev_file(const char *path, dev_t *dev)
{
	unsigned maj, min;
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*dev = makedev(maj, min);
	return 0;
}

/* 0 when the sysfs block directory dir has anything under holders/. */
static int has_holders(const char *dir, char *holder, size_t n)
{
	char path[1024];
	struct dirent *d;
	DIR *h;
	int ret = -ENOENT;

	if (fmt(path, sizeof(path), "%s/holders", dir))
		return -ENAMETOOLONG;
	h = opendir(path);
	if (!h)
		return -ENOENT;
	while (ret && (d = readdir(h)))
		if (d->d_name[0] != '.') {
			snprintf(holder, n, "%s", d->d_name);
			ret = 0;
		}
	closedir(h);
	return ret;
}

/*
 * 0 when dev is the backing store of a loop device (sysfs loop/backing_file):
 * loop opens its backing device without claiming it, so neither O_EXCL nor
 * holders/ shows that a file system mounted on the loop device lives there.
 */
static int backs_a_loop(const struct safety_env *env, dev_t dev, char *loop, size_t n)
{
	char dir[512], path[1024], backing[PATH_MAX];
	struct dirent *d;
	struct stat sb;
	int ret = -ENOENT;
	DIR *b;

	snprintf(dir, sizeof(dir), "%s/block", env->sys_root);
	b = opendir(dir);
	if (!b)
		return -ENOENT;
	while (ret && (d = readdir(b))) {
		FILE *f;

		if (strncmp(d->d_name, "loop", 4) || fmt(path, sizeof(path), "%s/%s/loop/backing_file", dir, d->d_name))
			continue;
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(backing, sizeof(backing), f)) {
			backing[strcspn(backing, "\n")] = '\0';
			if (stat(backing, &sb) == 0 && S_ISBLK(sb.st_mode) && sb.st_rdev == dev) {
				snprintf(loop, n, "%s", d->d_name);
				ret = 0;
			}
		}
		fclose(f);
	}
	closedir(b);
	return ret;
}

/* Checks one block device node (the device itself or a partition of it). */
static int node_in_use(const struct safety_env *env, const char *sysdir, dev_t dev, const char *name,
		       char *why, size_t n)
{
	char where[1024], holder[256];

	if (mounted_at(env, dev, where, sizeof(where)) == 0) {
		snprintf(why, n, "%s holds a filesystem mounted on %s", name, where);
		return -EBUSY;
	}
	if (is_swap(env, dev) == 0) {
		snprintf(why, n, "%s is active swap", name);
		return -EBUSY;
	}
	if (backs_a_loop(env, dev, holder, sizeof(holder)) == 0) {
		snprintf(why, n, "%s is the backing store of /dev/%s (detach it with losetup -d first)", name, holder);
		return -EBUSY;
	}
	if (has_holders(sysdir, holder, sizeof(holder)) == 0) {
		snprintf(why, n, "%s is in use by %s (md, dm or LVM)", name, holder);
		return -EBUSY;
	}
	return 0;
}

/* Every partition of the disk at sysdir: subdirectories with a "partition" file. */
static int partitions_in_use(const struct safety_env *env, const char *sysdir, char *why, size_t n)
{
	char path[1024], sub[1024];
	struct dirent *d;
	struct stat sb;
	dev_t pdev = 0;
	int ret = 0;
	DIR *dir = opendir(sysdir);

	if (!dir)
		return 0;
	while (!ret && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (fmt(path, sizeof(path), "%s/%s/partition", sysdir, d->d_name) || stat(path, &sb) != 0)
			continue;
		if (fmt(sub, sizeof(sub), "%s/%s", sysdir, d->d_name) || fmt(path, sizeof(path), "%s/dev", sub))
			continue;
		if (read_dev_file(path, &pdev) == 0)
			ret = node_in_use(env, sub, pdev, d->d_name, why, n);
	}
	closedir(dir);
	return ret;
}

int safety_device_in_use(const struct safety_env *env, dev_t dev, char *why, size_t n)
{
	char link[512], sysdir[1024], name[256];
	const char *base;
	int ret;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", env->sys_root, major(dev), minor(dev));
	if (!realpath(link, sysdir))
		snprintf(sysdir, sizeof(sysdir), "%s", link);
	base = strrchr(sysdir, '/');
	fmt(name, sizeof(name), "%s", base ? base + 1 : sysdir);
	ret = node_in_use(env, sysdir, dev, name, why, n);
	if (ret)
		return ret;
	return partitions_in_use(env, sysdir, why, n);
}

int safety_claim_device(const char *path, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == EBUSY)
		snprintf(why, n, "%s is in use: the kernel refuses an exclusive open (a file system mounted "
			 "in another mount namespace, md, dm, LVM or swap holds it)", path);
	else
		snprintf(why, n, "cannot open %s: %s", path, strerror(errno));
	return errno == EBUSY ? -EBUSY : -errno;
}

int safety_check_device_write(const struct safety_env *env, const struct plan *p, const char *path,
			      char *why, size_t n)
{
	struct stat sb, allowed;
	const char *allow = p->allow_device_write ? p->allow_device_write : "";
	int ret, fd;

	if (stat(path, &sb) != 0)
		return -errno;
	if (!S_ISBLK(sb.st_mode) && !S_ISCHR(sb.st_mode))
		return 0;
	/* Named by its number, so /dev/disk/by-id links and the node itself are one device. */
	if (!*allow || stat(allow, &allowed) != 0 || (allowed.st_mode & S_IFMT) != (sb.st_mode & S_IFMT) ||
	    allowed.st_rdev != sb.st_rdev) {
		snprintf(why, n, "refusing to write to %s device %s: name it in allow_device_write=%s to allow it",
			 S_ISBLK(sb.st_mode) ? "block" : "character", path, path);
		return -EPERM;
	}
	if (S_ISCHR(sb.st_mode))
		return 0;	/* nothing mounts a character device (an NVMe ng node's disk is checked as sdX/nvmeXnY) */
	/* Our words first (they name the mount point), then the kernel's, which sees every namespace. */
	ret = safety_device_in_use(env, sb.st_rdev, why, n);
	if (ret)
		return ret;
	fd = safety_claim_device(path, why, n);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

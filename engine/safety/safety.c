/*
 * engine/safety/safety.c - the device-write rules of safety.h, from the live system.
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
#include "engine/safety/safety.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/loop.h>
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

/*
 * Is the file a path names the one sb describes?  A block device by its
 * number (any node of it), anything else by device and inode.
 */
static bool same_file(const struct stat *a, const struct stat *sb)
{
	if (S_ISBLK(sb->st_mode))
		return S_ISBLK(a->st_mode) && a->st_rdev == sb->st_rdev;
	return !S_ISBLK(a->st_mode) && a->st_dev == sb->st_dev && a->st_ino == sb->st_ino;
}

/* /proc's octal escapes (a space is \040) undone in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++, out++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out = *s;
		}
	}
	*out = '\0';
}

/* 0 when a path in /proc/swaps is the device or file sb. */
static int is_swap(const struct safety_env *env, const struct stat *target)
{
	char path[512], line[1024], name[512];
	struct stat sb;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/swaps", env->proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%511s", name) != 1 || name[0] != '/')
			continue;
		unescape(name);
		if (stat(name, &sb) == 0 && same_file(&sb, target))
			ret = 0;
	}
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
 * The backing file of the loop device /dev/name as the kernel holds it
 * (LOOP_GET_STATUS64: the inode it opened, wherever its name went); 0 with
 * *backing's dev, ino and rdev set, or -errno.
 */
static int loop_status(const char *name, struct stat *backing)
{
	struct loop_info64 info;
	char node[320];
	int fd, ret;

	if (fmt(node, sizeof(node), "/dev/%s", name))
		return -ENAMETOOLONG;
	fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, LOOP_GET_STATUS64, &info) ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	/* The kernel's huge_encode_dev: minor's low byte, major, then minor's high bits. */
	backing->st_dev = makedev((unsigned)(info.lo_device >> 8) & 0xfff,
				  (unsigned)((info.lo_device & 0xff) | ((info.lo_device >> 12) & 0xfff00)));
	backing->st_rdev = makedev((unsigned)(info.lo_rdevice >> 8) & 0xfff,
				   (unsigned)((info.lo_rdevice & 0xff) | ((info.lo_rdevice >> 12) & 0xfff00)));
	backing->st_ino = (ino_t)info.lo_inode;
	return 0;
}

/*
 * Is the bound loop device name (under sys_root/block) backed by the device
 * or file target?  Its sysfs loop/backing_file names it, and the kernel's
 * answer covers a name that moved, was deleted or lives in another namespace.
 */
static bool loop_backed_by(const char *dir, const char *name, const struct stat *target)
{
	char path[1024], backing[PATH_MAX];
	struct stat sb;
	bool bound = false, same = false;
	FILE *f;

	if (fmt(path, sizeof(path), "%s/%s/loop/backing_file", dir, name) || !(f = fopen(path, "re")))
		return false;
	if (fgets(backing, sizeof(backing), f)) {
		bound = true;
		backing[strcspn(backing, "\n")] = '\0';
		same = stat(backing, &sb) == 0 && same_file(&sb, target);
	}
	fclose(f);
	if (bound && !same && loop_status(name, &sb) == 0) {
		if (S_ISBLK(target->st_mode))
			same = sb.st_rdev == target->st_rdev;
		else
			same = sb.st_dev == target->st_dev && sb.st_ino == target->st_ino;
	}
	return same;
}

/*
 * 0 when the device or file target is the backing store of a loop device
 * other than the one numbered skip (its name in loop, its number in *ldev):
 * loop opens its backing store without claiming it, so neither O_EXCL nor
 * holders/ shows that a file system mounted on the loop device lives there.
 */
static int backs_a_loop(const struct safety_env *env, const struct stat *target, dev_t skip,
			char *loop, size_t n, dev_t *ldev)
{
	char dir[512], path[1024];
	struct dirent *d;
	int ret = -ENOENT;
	DIR *b;

	snprintf(dir, sizeof(dir), "%s/block", env->sys_root);
	b = opendir(dir);
	if (!b)
		return -ENOENT;
	while (ret && (d = readdir(b))) {
		if (strncmp(d->d_name, "loop", 4) || fmt(path, sizeof(path), "%s/%s/dev", dir, d->d_name) ||
		    read_dev_file(path, ldev) || *ldev == skip || !loop_backed_by(dir, d->d_name, target))
			continue;
		snprintf(loop, n, "%s", d->d_name);
		ret = 0;
	}
	closedir(b);
	return ret;
}

/* Checks one block device node (the device itself or a partition of it). */
static int node_in_use(const struct safety_env *env, const char *sysdir, dev_t dev, const char *name,
		       dev_t skip, char *why, size_t n)
{
	struct stat self = { .st_mode = S_IFBLK, .st_rdev = dev };
	char where[1024], holder[256];
	dev_t loop;

	if (mounted_at(env, dev, where, sizeof(where)) == 0) {
		snprintf(why, n, "%s holds a filesystem mounted on %s", name, where);
		return -EBUSY;
	}
	if (is_swap(env, &self) == 0) {
		snprintf(why, n, "%s is active swap", name);
		return -EBUSY;
	}
	if (backs_a_loop(env, &self, skip, holder, sizeof(holder), &loop) == 0) {
		snprintf(why, n, "%s is the backing store of /dev/%s (detach it with losetup -d first)", name, holder);
		return -EBUSY;
	}
	if (has_holders(sysdir, holder, sizeof(holder)) == 0) {
		snprintf(why, n, "%s is in use by %s (md, dm or LVM)", name, holder);
		return -EBUSY;
	}
	return 0;
}

/* skip: a loop device whose own backing store dev is (it does not count as dev's user). */
static int device_in_use(const struct safety_env *env, dev_t dev, bool siblings, dev_t skip, char *why,
			 size_t n);

/*
 * A loop device writes its backing file: when another loop device reads the
 * same file (device and inode compared) and that one is in use - a mounted
 * file system, swap, a holder - writing through this one corrupts it.
 */
static int loop_sibling_in_use(const struct safety_env *env, const char *sysdir, dev_t dev,
			       const char *name, char *why, size_t n)
{
	char path[1024], backing[PATH_MAX], other[256], busy[512];
	struct stat target;
	dev_t loop;
	FILE *f;
	bool ok = false;

	if (strncmp(name, "loop", 4) || fmt(path, sizeof(path), "%s/loop/backing_file", sysdir))
		return 0;
	if ((f = fopen(path, "re"))) {
		if (fgets(backing, sizeof(backing), f)) {
			backing[strcspn(backing, "\n")] = '\0';
			ok = stat(backing, &target) == 0;
		}
		fclose(f);
	}
	if (!ok && loop_status(name, &target))
		return 0;
	if (!ok)	/* the kernel's answer: a regular file unless it gave a device number */
		target.st_mode = target.st_rdev ? S_IFBLK : S_IFREG;
	/* A loop device over a block device writes that device: its mounts count too. */
	if (S_ISBLK(target.st_mode) && device_in_use(env, target.st_rdev, false, dev, busy, sizeof(busy))) {
		snprintf(why, n, "%s writes through to its backing device, and %s", name, busy);
		return -EBUSY;
	}
	if (backs_a_loop(env, &target, dev, other, sizeof(other), &loop) ||
	    device_in_use(env, loop, false, 0, busy, sizeof(busy)) == 0)
		return 0;
	snprintf(why, n, "%s shares its backing file %s with /dev/%s, and %s", name, ok ? backing : "",
		 other, busy);
	return -EBUSY;
}

/* Every partition of the disk at sysdir: subdirectories with a "partition" file. */
static int partitions_in_use(const struct safety_env *env, const char *sysdir, dev_t skip, char *why,
			     size_t n)
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
			ret = node_in_use(env, sub, pdev, d->d_name, skip, why, n);
	}
	closedir(dir);
	return ret;
}

static int device_in_use(const struct safety_env *env, dev_t dev, bool siblings, dev_t skip, char *why,
			 size_t n)
{
	char link[512], sysdir[1024], name[256];
	const char *base;
	int ret;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", env->sys_root, major(dev), minor(dev));
	if (!realpath(link, sysdir))
		snprintf(sysdir, sizeof(sysdir), "%s", link);
	base = strrchr(sysdir, '/');
	fmt(name, sizeof(name), "%s", base ? base + 1 : sysdir);
	ret = node_in_use(env, sysdir, dev, name, skip, why, n);
	if (!ret)
		ret = partitions_in_use(env, sysdir, skip, why, n);
	if (!ret && siblings)
		ret = loop_sibling_in_use(env, sysdir, dev, name, why, n);
	return ret;
}

int safety_device_in_use(const struct safety_env *env, dev_t dev, char *why, size_t n)
{
	return device_in_use(env, dev, true, 0, why, n);
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

/* One regular file the system uses: a swap file, or the backing file of loop (its state in busy). */
struct busy_file {
	dev_t dev;
	ino_t ino;
	char loop[64];			/* "" = active swap */
	char busy[448];			/* what the loop device holds, or "" */
};

struct safety_files {
	struct busy_file *v;
	uint32_t n;
};

static int busy_add(struct safety_files *sf, const struct stat *sb, const char *loop, const char *busy)
{
	struct busy_file *v = realloc(sf->v, (sf->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	sf->v = v;
	v = &v[sf->n++];
	v->dev = sb->st_dev;
	v->ino = sb->st_ino;
	snprintf(v->loop, sizeof(v->loop), "%s", loop);
	snprintf(v->busy, sizeof(v->busy), "%s", busy);
	return 0;
}

static int load_swap_files(const struct safety_env *env, struct safety_files *sf)
{
	char path[512], line[1024], name[512];
	struct stat sb;
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/swaps", env->proc_root);
	if (!(f = fopen(path, "re")))
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%511s", name) != 1 || name[0] != '/')
			continue;
		unescape(name);
		if (stat(name, &sb) == 0 && S_ISREG(sb.st_mode))
			ret = busy_add(sf, &sb, "", "");
	}
	fclose(f);
	return ret;
}

/*
 * Every bound loop device's backing file: by its sysfs name and by the
 * kernel's inode (LOOP_GET_STATUS64), which differ when the name moved.
 */
static int load_loop_files(const struct safety_env *env, struct safety_files *sf)
{
	char dir[512], path[1024], backing[PATH_MAX], busy[448];
	struct stat by_name, by_kernel;
	struct dirent *d;
	int ret = 0;
	dev_t ldev;
	DIR *b;

	snprintf(dir, sizeof(dir), "%s/block", env->sys_root);
	if (!(b = opendir(dir)))
		return 0;
	while (!ret && (d = readdir(b))) {
		FILE *f;
		bool named = false, known;

		if (strncmp(d->d_name, "loop", 4) || fmt(path, sizeof(path), "%s/%s/loop/backing_file", dir, d->d_name) ||
		    !(f = fopen(path, "re")))
			continue;
		if (fgets(backing, sizeof(backing), f)) {
			backing[strcspn(backing, "\n")] = '\0';
			named = stat(backing, &by_name) == 0 && S_ISREG(by_name.st_mode);
		}
		fclose(f);
		known = loop_status(d->d_name, &by_kernel) == 0 && !by_kernel.st_rdev;
		busy[0] = '\0';
		if ((named || known) && !fmt(path, sizeof(path), "%s/%s/dev", dir, d->d_name) &&
		    !read_dev_file(path, &ldev))
			device_in_use(env, ldev, false, 0, busy, sizeof(busy));
		if (named)
			ret = busy_add(sf, &by_name, d->d_name, busy);
		if (!ret && known && (!named || by_kernel.st_ino != by_name.st_ino || by_kernel.st_dev != by_name.st_dev))
			ret = busy_add(sf, &by_kernel, d->d_name, busy);
	}
	closedir(b);
	return ret;
}

int safety_files_load(const struct safety_env *env, struct safety_files **out)
{
	struct safety_files *sf = calloc(1, sizeof(*sf));
	int ret;

	*out = NULL;
	if (!sf)
		return -ENOMEM;
	ret = load_swap_files(env, sf);
	if (!ret)
		ret = load_loop_files(env, sf);
	if (ret) {
		safety_files_free(sf);
		return ret;
	}
	*out = sf;
	return 0;
}

void safety_files_free(struct safety_files *sf)
{
	if (sf)
		free(sf->v);
	free(sf);
}

int safety_files_check(const struct safety_files *sf, const char *path, const struct stat *sb, char *why,
		       size_t n)
{
	for (uint32_t i = 0; sf && i < sf->n; i++) {
		const struct busy_file *b = &sf->v[i];

		if (b->dev != sb->st_dev || b->ino != sb->st_ino)
			continue;
		if (!b->loop[0])
			snprintf(why, n, "%s is an active swap file", path);
		else
			snprintf(why, n, "%s is the backing file of /dev/%s%s%s: writing it bypasses what the "
				 "loop device holds (detach it with losetup -d first)", path, b->loop,
				 b->busy[0] ? ", and " : "", b->busy);
		return -EBUSY;
	}
	return 0;
}

int safety_file_in_use(const struct safety_env *env, const char *path, const struct stat *sb, char *why,
		       size_t n)
{
	struct safety_files *sf;
	int ret = safety_files_load(env, &sf);

	if (!ret)
		ret = safety_files_check(sf, path, sb, why, n);
	safety_files_free(sf);
	return ret == -ENOMEM ? 0 : ret;
}

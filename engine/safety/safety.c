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
 * found through sysfs, so names like nvme0n1p1 need no special cases.  Mounts,
 * swap areas and loop devices come from a view read once per check (sysview.h).
 */
#include "engine/safety/safety.h"
#include "engine/safety/sysview.h"

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

/* Checks one block device node (the device itself or a partition of it). */
static int node_in_use(const struct sysview *v, const char *sysdir, dev_t dev, const char *name,
		       dev_t skip, char *why, size_t n)
{
	struct stat self = { .st_mode = S_IFBLK, .st_rdev = dev };
	char where[1024], holder[256];
	dev_t loop;

	if (sv_mounted_at(v, dev, where, sizeof(where)) == 0) {
		snprintf(why, n, "%s holds a filesystem mounted on %s", name, where);
		return -EBUSY;
	}
	if (sv_is_swap(v, &self) == 0) {
		snprintf(why, n, "%s is active swap", name);
		return -EBUSY;
	}
	if (sv_backs_a_loop(v, &self, skip, holder, sizeof(holder), &loop) == 0) {
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
static int device_in_use(const struct sysview *v, dev_t dev, bool siblings, dev_t skip, char *why,
			 size_t n);

/*
 * A loop device writes its backing file: when another loop device reads the
 * same file (device and inode compared) and that one is in use - a mounted
 * file system, swap, a holder - writing through this one corrupts it.
 */
static int loop_sibling_in_use(const struct sysview *v, dev_t dev, const char *name, char *why, size_t n)
{
	const struct sv_loop *l = sv_loop_of(v, dev);
	char other[256], busy[512];
	const struct stat *target;
	dev_t loop;

	if (!l || strncmp(name, "loop", 4))
		return 0;
	if (!l->named && !l->known)
		return 0;
	target = l->named ? &l->by_name : &l->by_kernel;
	/* A loop device over a block device writes that device: its mounts count too. */
	if (S_ISBLK(target->st_mode) && device_in_use(v, target->st_rdev, false, dev, busy, sizeof(busy))) {
		snprintf(why, n, "%s writes through to its backing device, and %s", name, busy);
		return -EBUSY;
	}
	if (sv_backs_a_loop(v, target, dev, other, sizeof(other), &loop) ||
	    device_in_use(v, loop, false, 0, busy, sizeof(busy)) == 0)
		return 0;
	snprintf(why, n, "%s shares its backing file %s with /dev/%s, and %s", name, l->named ? l->backing : "",
		 other, busy);
	return -EBUSY;
}

/* Every partition of the disk at sysdir: subdirectories with a "partition" file. */
static int partitions_in_use(const struct sysview *v, const char *sysdir, dev_t skip, char *why,
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
		if (sv_read_dev(path, &pdev) == 0)
			ret = node_in_use(v, sub, pdev, d->d_name, skip, why, n);
	}
	closedir(dir);
	return ret;
}

static int device_in_use(const struct sysview *v, dev_t dev, bool siblings, dev_t skip, char *why,
			 size_t n)
{
	char link[512], sysdir[1024], name[256];
	const char *base;
	int ret;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", v->env->sys_root, major(dev), minor(dev));
	if (!realpath(link, sysdir))
		snprintf(sysdir, sizeof(sysdir), "%s", link);
	base = strrchr(sysdir, '/');
	fmt(name, sizeof(name), "%s", base ? base + 1 : sysdir);
	ret = node_in_use(v, sysdir, dev, name, skip, why, n);
	if (!ret)
		ret = partitions_in_use(v, sysdir, skip, why, n);
	if (!ret && siblings)
		ret = loop_sibling_in_use(v, dev, name, why, n);
	return ret;
}

/* The view, or -ENOMEM with why saying so (a check that could not look refuses). */
static int view_load(const struct safety_env *env, struct sysview *v, char *why, size_t n)
{
	int ret = sv_load(env, v, SV_DEVICES);

	if (ret)
		snprintf(why, n, "cannot read the mounts, swap areas and loop devices: %s", strerror(-ret));
	return ret;
}

#define MEM_MAJOR 1		/* /dev/null 1:3, /dev/zero 1:5, /dev/full 1:7 */

bool safety_char_stores_nothing(dev_t rdev)
{
	unsigned min = minor(rdev);

	return major(rdev) == MEM_MAJOR && (min == 3 || min == 5 || min == 7);
}

int safety_device_in_use(const struct safety_env *env, dev_t dev, char *why, size_t n)
{
	struct sysview v;
	int ret = view_load(env, &v, why, n);

	if (ret)
		return ret;
	ret = device_in_use(&v, dev, true, 0, why, n);
	sv_free(&v);
	return ret;
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
	if (S_ISCHR(sb.st_mode) && safety_char_stores_nothing(sb.st_rdev))
		return 0;	/* fio's own examples write to /dev/null: nothing there to destroy */
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

/* One regular file the system uses: a swap file, or the backing file of a loop device. */
struct busy_file {
	dev_t dev;
	ino_t ino;
	dev_t ldev;			/* the loop device's number (0: its dev file did not read) */
	char loop[64];			/* "" = active swap */
};

/*
 * The view stays with the table: what a loop device holds is asked only of
 * the one whose backing file a check meets, not of every loop device at load.
 */
struct safety_files {
	struct busy_file *v;
	uint32_t n;
	struct sysview view;
};

static int busy_add(struct safety_files *sf, const struct stat *sb, const struct sv_loop *l)
{
	struct busy_file *v = realloc(sf->v, (sf->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	sf->v = v;
	v = &v[sf->n++];
	v->dev = sb->st_dev;
	v->ino = sb->st_ino;
	v->ldev = l ? l->dev : 0;
	snprintf(v->loop, sizeof(v->loop), "%s", l ? l->name : "");
	return 0;
}

static int load_swap_files(struct safety_files *sf)
{
	int ret = 0;

	for (uint32_t i = 0; !ret && i < sf->view.nr_swaps; i++)
		if (S_ISREG(sf->view.swaps[i].st_mode))
			ret = busy_add(sf, &sf->view.swaps[i], NULL);
	return ret;
}

/*
 * Every bound loop device's backing file: by its sysfs name and by the
 * kernel's inode (LOOP_GET_STATUS64), which differ when the name moved.
 */
static int load_loop_files(struct safety_files *sf)
{
	int ret = 0;

	for (uint32_t i = 0; !ret && i < sf->view.nr_loops; i++) {
		const struct sv_loop *l = &sf->view.loops[i];
		bool named = l->named && S_ISREG(l->by_name.st_mode), known = l->known && !l->by_kernel.st_rdev;

		if (named)
			ret = busy_add(sf, &l->by_name, l);
		if (!ret && known && (!named || l->by_kernel.st_ino != l->by_name.st_ino ||
				      l->by_kernel.st_dev != l->by_name.st_dev))
			ret = busy_add(sf, &l->by_kernel, l);
	}
	return ret;
}

int safety_files_load(const struct safety_env *env, struct safety_files **out)
{
	struct safety_files *sf = calloc(1, sizeof(*sf));
	int ret;

	*out = NULL;
	if (!sf)
		return -ENOMEM;
	ret = sv_load(env, &sf->view, SV_FILES);
	if (!ret)
		ret = load_swap_files(sf);
	if (!ret)
		ret = load_loop_files(sf);
	if (ret) {
		safety_files_free(sf);
		return ret;
	}
	*out = sf;
	return 0;
}

void safety_files_free(struct safety_files *sf)
{
	if (sf) {
		free(sf->v);
		sv_free(&sf->view);
	}
	free(sf);
}

/* Is sb one of the files of the table sf, as it was read: 0 or -EBUSY with the reason in why. */
static int table_check(const struct safety_files *sf, const char *path, const struct stat *sb, char *why, size_t n)
{
	char busy[448] = "";

	for (uint32_t i = 0; sf && i < sf->n; i++) {
		const struct busy_file *b = &sf->v[i];

		if (b->dev != sb->st_dev || b->ino != sb->st_ino)
			continue;
		if (!b->loop[0]) {
			snprintf(why, n, "%s is an active swap file", path);
			return -EBUSY;
		}
		if (b->ldev)
			device_in_use(&sf->view, b->ldev, false, 0, busy, sizeof(busy));
		snprintf(why, n, "%s is the backing file of /dev/%s%s%s: writing it bypasses what the "
			 "loop device holds (detach it with losetup -d first)", path, b->loop,
			 busy[0] ? ", and " : "", busy);
		return -EBUSY;
	}
	return 0;
}

/*
 * A table is read before the files it judges: a loop device detached since,
 * its backing file deleted, leaves an inode number the file system gives to
 * the next file made, a verify dump say (refused as "the backing file of
 * /dev/loop0" when the loop device held another file or none).  A match is
 * therefore asked of the system again; a miss stands, as a swap or loop
 * device set up after the read is not seen either.
 */
int safety_files_check(const struct safety_files *sf, const char *path, const struct stat *sb, char *why,
		       size_t n)
{
	struct safety_files *now;
	int ret = table_check(sf, path, sb, why, n);

	if (!ret || safety_files_load(sf->view.env, &now))
		return ret;	/* out of memory: the old answer, which refuses */
	ret = table_check(now, path, sb, why, n);
	safety_files_free(now);
	return ret;
}

int safety_file_in_use(const struct safety_env *env, const char *path, const struct stat *sb, char *why,
		       size_t n)
{
	struct safety_files *sf;
	int ret = safety_files_load(env, &sf);

	if (!ret)
		ret = table_check(sf, path, sb, why, n);
	safety_files_free(sf);
	return ret == -ENOMEM ? 0 : ret;
}

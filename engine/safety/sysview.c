/*
 * engine/safety/sysview.c - mountinfo, /proc/swaps and the bound loop devices, read once.
 *
 * Each source is read and each path in it stat()ed when the view is loaded, so
 * a check of many devices costs one pass over each source, not one per device
 * (sysview.h says why).  A source that cannot be read is empty, as a file that
 * could not be opened meant "not found" to the reads this replaces.
 */
#include "engine/safety/sysview.h"
#include "engine/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <linux/loop.h>
#include <unistd.h>

/* Room for element nr of the array *v (each size bytes), which doubles from 8: 0 or -ENOMEM. */
static int grow(void **v, uint32_t nr, size_t size)
{
	void *p;

	if (nr && (nr < 8 || (nr & (nr - 1))))
		return 0;
	p = realloc(*v, (nr ? 2 * (size_t)nr : 8) * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	return 0;
}

/*
 * The block device a mount source names, or 0.  Field 3 (major:minor) is not
 * enough: btrfs (and other multi-device file systems) show an anonymous 0:NN
 * there, so the source is kept too.
 */
static dev_t source_dev(const char *src)
{
	struct stat sb;

	return src[0] == '/' && stat(src, &sb) == 0 && S_ISBLK(sb.st_mode) ? sb.st_rdev : 0;
}

static int load_mounts(struct sysview *v)
{
	char path[512], line[8192];
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/self/mountinfo", v->env->proc_root);
	if (!(f = fopen(path, "re")))
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		struct mount_line ml;
		struct sv_mount *m;

		if (!procfs_mount_line(line, &ml))
			continue;
		if ((ret = grow((void **)&v->mounts, v->nr_mounts, sizeof(*m))))
			break;
		m = &v->mounts[v->nr_mounts];
		m->dev = makedev(ml.maj, ml.min);
		m->src = source_dev(ml.source);
		if (!(m->where = strdup(ml.point)))	/* the message names it as the user wrote it */
			ret = -ENOMEM;
		else
			v->nr_mounts++;
	}
	fclose(f);
	return ret;
}

static int load_swaps(struct sysview *v)
{
	char path[512], line[1024], name[512];
	struct stat sb;
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/swaps", v->env->proc_root);
	if (!(f = fopen(path, "re")))
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%511s", name) != 1 || name[0] != '/')
			continue;
		procfs_unescape(name);
		if (stat(name, &sb) || (ret = grow((void **)&v->swaps, v->nr_swaps, sizeof(sb))))
			continue;
		v->swaps[v->nr_swaps++] = sb;
	}
	fclose(f);
	return ret;
}

/* Reads "maj:min" from a sysfs dev file. */
int sv_read_dev(const char *path, dev_t *dev)
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

	if ((size_t)snprintf(node, sizeof(node), "/dev/%s", name) >= sizeof(node))
		return -ENAMETOOLONG;
	fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, LOOP_GET_STATUS64, &info) ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	memset(backing, 0, sizeof(*backing));
	/* The kernel's huge_encode_dev: minor's low byte, major, then minor's high bits. */
	backing->st_dev = makedev((unsigned)(info.lo_device >> 8) & 0xfff,
				  (unsigned)((info.lo_device & 0xff) | ((info.lo_device >> 12) & 0xfff00)));
	backing->st_rdev = makedev((unsigned)(info.lo_rdevice >> 8) & 0xfff,
				   (unsigned)((info.lo_rdevice & 0xff) | ((info.lo_rdevice >> 12) & 0xfff00)));
	backing->st_ino = (ino_t)info.lo_inode;
	/* The kernel's answer has no mode: a block device when it gave a device number. */
	backing->st_mode = backing->st_rdev ? S_IFBLK : S_IFREG;
	return 0;
}

/* One loop device's entry, when its loop/backing_file exists (it is bound): 1, 0 (not bound) or -ENOMEM. */
static int read_loop(const char *dir, const char *name, struct sv_loop *l)
{
	char path[1024], backing[PATH_MAX];
	size_t len = strlen(name);
	FILE *f;

	if (len >= sizeof(l->name) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s/loop/backing_file", dir, name) >= sizeof(path) ||
	    !(f = fopen(path, "re")))
		return 0;
	memset(l, 0, sizeof(*l));
	memcpy(l->name, name, len + 1);
	backing[0] = '\0';
	if (fgets(backing, sizeof(backing), f)) {
		backing[strcspn(backing, "\n")] = '\0';
		l->bound = true;
		l->named = stat(backing, &l->by_name) == 0;
	}
	fclose(f);
	l->known = loop_status(name, &l->by_kernel) == 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/dev", dir, name) >= sizeof(path) ||
	    sv_read_dev(path, &l->dev))
		l->dev = 0;
	return (l->backing = strdup(backing)) ? 1 : -ENOMEM;
}

static int load_loops(struct sysview *v)
{
	char dir[512];
	struct dirent *d;
	int ret = 0;
	DIR *b;

	snprintf(dir, sizeof(dir), "%s/block", v->env->sys_root);
	if (!(b = opendir(dir)))
		return 0;
	while (ret >= 0 && (d = readdir(b))) {
		struct sv_loop l;

		if (strncmp(d->d_name, "loop", 4) || (ret = read_loop(dir, d->d_name, &l)) <= 0)
			continue;
		if ((ret = grow((void **)&v->loops, v->nr_loops, sizeof(l))) == 0)
			v->loops[v->nr_loops++] = l;
		else
			free(l.backing);
	}
	closedir(b);
	return ret < 0 ? ret : 0;
}

int sv_load(const struct safety_env *env, struct sysview *v, enum sv_need need)
{
	int ret;

	memset(v, 0, sizeof(*v));
	v->env = env;
	ret = load_loops(v);
	if (!ret)
		ret = load_swaps(v);
	/* Only a loop device's state needs the mounts when files are checked. */
	if (!ret && (need == SV_DEVICES || v->nr_loops))
		ret = load_mounts(v);
	if (ret)
		sv_free(v);
	return ret;
}

void sv_free(struct sysview *v)
{
	for (uint32_t i = 0; i < v->nr_mounts; i++)
		free(v->mounts[i].where);
	for (uint32_t i = 0; i < v->nr_loops; i++)
		free(v->loops[i].backing);
	free(v->mounts);
	free(v->swaps);
	free(v->loops);
	memset(v, 0, sizeof(*v));
}

int sv_mounted_at(const struct sysview *v, dev_t dev, char *where, size_t n)
{
	for (uint32_t i = 0; i < v->nr_mounts; i++)
		if (v->mounts[i].dev == dev || v->mounts[i].src == dev) {
			snprintf(where, n, "%s", v->mounts[i].where);
			return 0;
		}
	return -ENOENT;
}

bool sv_same_file(const struct stat *a, const struct stat *sb)
{
	if (S_ISBLK(sb->st_mode))
		return S_ISBLK(a->st_mode) && a->st_rdev == sb->st_rdev;
	return !S_ISBLK(a->st_mode) && a->st_dev == sb->st_dev && a->st_ino == sb->st_ino;
}

int sv_is_swap(const struct sysview *v, const struct stat *target)
{
	for (uint32_t i = 0; i < v->nr_swaps; i++)
		if (sv_same_file(&v->swaps[i], target))
			return 0;
	return -ENOENT;
}

const struct sv_loop *sv_loop_of(const struct sysview *v, dev_t dev)
{
	for (uint32_t i = 0; i < v->nr_loops; i++)
		if (v->loops[i].dev && v->loops[i].dev == dev)
			return &v->loops[i];
	return NULL;
}

/*
 * Is the loop device l backed by target?  Its backing_file names it, and the
 * kernel's answer covers a name that moved, was deleted or lives in another
 * namespace.
 */
static bool loop_backed_by(const struct sv_loop *l, const struct stat *target)
{
	if (!l->bound)
		return false;
	if (l->named && sv_same_file(&l->by_name, target))
		return true;
	if (!l->known)
		return false;
	if (S_ISBLK(target->st_mode))
		return l->by_kernel.st_rdev == target->st_rdev;
	return l->by_kernel.st_dev == target->st_dev && l->by_kernel.st_ino == target->st_ino;
}

int sv_backs_a_loop(const struct sysview *v, const struct stat *target, dev_t skip, char *loop, size_t n,
		    dev_t *ldev)
{
	for (uint32_t i = 0; i < v->nr_loops; i++) {
		const struct sv_loop *l = &v->loops[i];

		if (!l->dev || l->dev == skip || !loop_backed_by(l, target))
			continue;
		snprintf(loop, n, "%s", l->name);
		*ldev = l->dev;
		return 0;
	}
	return -ENOENT;
}

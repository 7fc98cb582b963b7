/*
 * engine/diskstats.c - the devices under the files and their /sys counters (diskstats.h).
 *
 * /sys/dev/block/MAJ:MIN links to the device's sysfs directory; a partition's
 * directory holds a `partition` file and sits inside its disk's directory, whose
 * name is the one /sys/block knows.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "diskstats.h"

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int diskstats_disk_dir(dev_t dev, char *dir, size_t len)
{
	char link[64], real[PATH_MAX], part[PATH_MAX + 16];
	char *slash;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real))
		return -errno;
	snprintf(part, sizeof(part), "%s/partition", real);
	if (!access(part, F_OK)) {
		slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';
	}
	return snprintf(dir, len, "%s", real) < (int)len ? 0 : -ENAMETOOLONG;
}

int diskstats_dev_of(const char *path, char *name, uint32_t len)
{
	char dir[PATH_MAX], stat_file[PATH_MAX];
	struct stat st;
	int ret;

	if (stat(path, &st))
		return -errno;
	ret = diskstats_disk_dir(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev, dir, sizeof(dir));
	if (ret)
		return ret;
	snprintf(name, len, "%s", base_name(dir));
	snprintf(stat_file, sizeof(stat_file), "/sys/block/%s/stat", name);
	return access(stat_file, R_OK) ? -ENODEV : 0;
}

static int read_stat(const char *name, uint64_t v[DISKSTATS_FIELDS])
{
	char path[96];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = 0;
	while (n < DISKSTATS_FIELDS && fscanf(f, "%lu", (unsigned long *)&v[n]) == 1)
		n++;
	fclose(f);
	return n == DISKSTATS_FIELDS ? 0 : -EINVAL;
}

static bool known(const struct diskstats *ds, const char *name)
{
	for (uint32_t i = 0; i < ds->nr; i++)
		if (!strcmp(ds->names[i], name))
			return true;
	return false;
}

void diskstats_begin(struct diskstats *ds, const struct layout *l, bool fake)
{
	char name[32];
	struct stat st;
	const char *path;
	dev_t last = 0;
	bool blk = false, seen = false;

	memset(ds, 0, sizeof(*ds));
	if (fake || !l->nr)
		return;
	ds->names = calloc(l->nr, sizeof(*ds->names));
	ds->before = calloc(l->nr, sizeof(*ds->before));
	if (!ds->names || !ds->before)
		return;
	for (uint32_t i = 0; i < l->nr; i++) {
		if (!l->files[i].disk_util)
			continue;
		/* Files of one device follow each other: a stat() skips them
		 * before the walk of /sys that names the device. */
		if (!layout_file_where(l, &l->files[i], &st, &path))
			continue;	/* diskstats_dev_of would fail the same way */
		if (seen && S_ISBLK(st.st_mode) == blk && (blk ? st.st_rdev : st.st_dev) == last)
			continue;
		seen = true;
		blk = S_ISBLK(st.st_mode);
		last = blk ? st.st_rdev : st.st_dev;
		if (diskstats_dev_of(path, name, sizeof(name)) || known(ds, name))
			continue;
		if (read_stat(name, ds->before[ds->nr]))
			continue;
		memcpy(ds->names[ds->nr++], name, sizeof(name));
	}
	ds->t0 = clk_mono_raw();
}

void diskstats_end(struct diskstats *ds, struct results *r)
{
	uint64_t v[DISKSTATS_FIELDS], *b;
	struct res_disk *d;

	if (!ds->nr)
		return;
	r->disks = calloc(ds->nr, sizeof(*r->disks));
	if (!r->disks)
		return;
	for (uint32_t i = 0; i < ds->nr; i++) {
		if (read_stat(ds->names[i], v))
			continue;
		b = ds->before[i];
		d = &r->disks[r->nr_disks++];
		memcpy(d->name, ds->names[i], sizeof(d->name));
		/* Fields: rd ios, rd merges, rd sectors, rd ticks, wr ios, wr merges,
		 * wr sectors, wr ticks, in flight, io ticks, time in queue. */
		d->read_ios = v[0] - b[0];
		d->read_merges = v[1] - b[1];
		d->read_sectors = v[2] - b[2];
		d->read_ticks_ms = v[3] - b[3];
		d->write_ios = v[4] - b[4];
		d->write_merges = v[5] - b[5];
		d->write_sectors = v[6] - b[6];
		d->write_ticks_ms = v[7] - b[7];
		d->io_ticks_ms = v[9] - b[9];
		d->in_queue_ms = v[10] - b[10];
		d->elapsed_ns = clk_mono_raw() - ds->t0;
	}
}

void diskstats_release(struct diskstats *ds)
{
	free(ds->names);
	free(ds->before);
	memset(ds, 0, sizeof(*ds));
}

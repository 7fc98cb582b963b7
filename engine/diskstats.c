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
#include "engine/ioengine.h"

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

/* fio's thread order within a job: clone 0 (its first thread number), then clones n-1 .. 1. */
static uint32_t clone_in_thread_order(uint32_t k, uint32_t n)
{
	return k ? n - k : 0;
}

/* The devices already looked at (their number; a tmpfs's too, which names no disk). */
struct devs_seen {
	dev_t *dev;
	bool *blk;
	uint32_t nr;
};

static bool dev_seen(struct devs_seen *s, const struct stat *st)
{
	bool blk = S_ISBLK(st->st_mode);
	dev_t d = blk ? st->st_rdev : st->st_dev;

	for (uint32_t i = 0; i < s->nr; i++)
		if (s->dev[i] == d && s->blk[i] == blk)
			return true;
	s->dev[s->nr] = d;
	s->blk[s->nr++] = blk;
	return false;
}

/* The disk under one file of a job that samples disks, added once. */
static void add_disk_of(struct diskstats *ds, struct devs_seen *seen, const struct layout *l, const char *file)
{
	const struct layout_file *lf = layout_find(l, file);
	const char *path;
	struct stat st;
	char name[32];

	/* No stat: diskstats_dev_of would fail the same way. */
	if (!lf || !layout_file_where(l, lf, &st, &path) || dev_seen(seen, &st))
		return;
	if (diskstats_dev_of(path, name, sizeof(name)) || known(ds, name) || read_stat(name, ds->before[ds->nr]))
		return;
	memcpy(ds->names[ds->nr++], name, sizeof(name));
}

void diskstats_begin(struct diskstats *ds, const struct plan *p, const struct layout *l, bool fake)
{
	struct devs_seen seen = { 0 };

	memset(ds, 0, sizeof(*ds));
	if (fake || !l->nr)
		return;
	ds->names = calloc(l->nr, sizeof(*ds->names));
	ds->before = calloc(l->nr, sizeof(*ds->before));
	seen.dev = calloc(l->nr, sizeof(*seen.dev));
	seen.blk = calloc(l->nr, sizeof(*seen.blk));
	/* fio adds a disk as each thread starts, each thread's files in turn: in thread order. */
	for (uint32_t i = 0; ds->names && ds->before && seen.dev && seen.blk && i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		/* An engine that lays nothing out touches no disk (null), or makes its own files
		 * (filecreate), and fio samples none for them (diskless). */
		if (j->no_disk_util || !ioe_lays_out(j->ioengine))
			continue;
		for (uint32_t k = 0; k < j->nr_clones; k++) {
			const struct plan_clone *c = &j->clones[clone_in_thread_order(k, j->nr_clones)];

			for (uint32_t f = 0; f < c->nr_files && seen.nr < l->nr; f++)
				add_disk_of(ds, &seen, l, c->files[f].path);
		}
	}
	free(seen.dev);
	free(seen.blk);
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

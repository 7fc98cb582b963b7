/*
 * engine/diskstats.c - the devices under the files and their /sys counters (diskstats.h).
 *
 * /sys/dev/block/MAJ:MIN links to the device's sysfs directory; a partition's
 * directory holds a `partition` file and sits inside its disk's directory, whose
 * name is the one /sys/block knows.
 */
#include <errno.h>
#include <stdatomic.h>
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

/* fio's thread order within a job: clone 0 (its first thread number), then clones n-1 .. 1. */
static uint32_t clone_in_thread_order(uint32_t k, uint32_t n)
{
	return k ? n - k : 0;
}

/* The devices already looked at (their number; a tmpfs's too, which names no disk) and
 * the disk each is (-1: none). */
struct devs_seen {
	dev_t *dev;
	bool *blk;
	int32_t *disk;
	uint32_t nr;
};

/* The index in s of the device under st, added (with no disk yet) if new. */
static uint32_t dev_index(struct devs_seen *s, const struct stat *st, bool *fresh)
{
	bool blk = S_ISBLK(st->st_mode);
	dev_t d = blk ? st->st_rdev : st->st_dev;

	*fresh = false;
	for (uint32_t i = 0; i < s->nr; i++)
		if (s->dev[i] == d && s->blk[i] == blk)
			return i;
	*fresh = true;
	s->dev[s->nr] = d;
	s->blk[s->nr] = blk;
	s->disk[s->nr] = -1;
	return s->nr++;
}

static int32_t disk_index(const struct diskstats *ds, const char *name)
{
	for (uint32_t i = 0; i < ds->nr; i++)
		if (!strcmp(ds->names[i], name))
			return (int32_t)i;
	return -1;
}

/* The disk under one file of a job that samples disks (added the first time), or -1. */
static int32_t disk_of(struct diskstats *ds, struct devs_seen *seen, const struct layout *l, const char *file)
{
	const struct layout_file *lf = layout_find(l, file);
	const char *path;
	struct stat st;
	char name[32];
	uint32_t at;
	bool fresh;

	/* No stat: diskstats_dev_of would fail the same way. */
	if (!lf || !layout_file_where(l, lf, &st, &path))
		return -1;
	at = dev_index(seen, &st, &fresh);
	if (!fresh || diskstats_dev_of(path, name, sizeof(name)))
		return seen->disk[at];
	seen->disk[at] = disk_index(ds, name);
	if (seen->disk[at] < 0 && !read_stat(name, ds->before[ds->nr])) {
		memcpy(ds->names[ds->nr], name, sizeof(name));
		seen->disk[at] = (int32_t)ds->nr++;
	}
	return seen->disk[at];
}

/* Records that thread tn (0-based) adds disk d, unless it did already. */
static void thread_adds(struct diskstats *ds, uint32_t tn, int32_t d)
{
	for (uint32_t i = ds->thr_off[tn]; d >= 0 && i < ds->nr_thr_disks; i++)
		if (ds->thr_disks[i] == (uint32_t)d)
			return;
	if (d >= 0)
		ds->thr_disks[ds->nr_thr_disks++] = (uint32_t)d;
}

/* Each thread's disks in its files' order, in thread order (so the disks are numbered as
 * fio adds them when its threads start in that order). */
static void find_disks(struct diskstats *ds, const struct plan *p, const struct layout *l, struct devs_seen *seen)
{
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t k = 0; k < j->nr_clones; k++) {
			const struct plan_clone *c = &j->clones[clone_in_thread_order(k, j->nr_clones)];
			uint32_t tn = c->thread_number - 1;

			if (tn >= ds->nr_threads)
				continue;
			ds->thr_off[tn] = ds->nr_thr_disks;
			/* An engine that lays nothing out touches no disk (null), or makes its own files
			 * (filecreate), and fio samples none for them (diskless). */
			for (uint32_t f = 0; !j->no_disk_util && ioe_lays_out(j->ioengine) && f < c->nr_files; f++)
				thread_adds(ds, tn, disk_of(ds, seen, l, c->files[f].path));
			ds->thr_end[tn] = ds->nr_thr_disks;
		}
	}
}

void diskstats_begin(struct diskstats *ds, const struct plan *p, const struct layout *l, bool fake)
{
	struct devs_seen seen = { 0 };
	uint32_t files = plan_clone_files(p);

	memset(ds, 0, sizeof(*ds));
	if (fake || !l->nr)
		return;
	ds->nr_threads = p->nr_threads;
	ds->names = calloc(l->nr, sizeof(*ds->names));
	ds->before = calloc(l->nr, sizeof(*ds->before));
	ds->thr_off = calloc(ds->nr_threads + 1, sizeof(*ds->thr_off));
	ds->thr_end = calloc(ds->nr_threads + 1, sizeof(*ds->thr_end));
	ds->thr_disks = calloc(files ? files : 1, sizeof(*ds->thr_disks));
	seen.dev = calloc(l->nr, sizeof(*seen.dev));
	seen.blk = calloc(l->nr, sizeof(*seen.blk));
	seen.disk = calloc(l->nr, sizeof(*seen.disk));
	if (ds->names && ds->before && ds->thr_off && ds->thr_end && ds->thr_disks && seen.dev && seen.blk && seen.disk)
		find_disks(ds, p, l, &seen);
	else
		ds->nr = 0;
	free(seen.dev);
	free(seen.blk);
	free(seen.disk);
	ds->t0 = clk_mono_raw();
}

/* A thread and when fio would have created it (diskstats.h: started). */
struct thr_start {
	uint64_t at;
	uint32_t tn;
};

static int cmp_start(const void *a, const void *b)
{
	const struct thr_start *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->tn < y->tn ? -1 : x->tn > y->tn;
}

/*
 * order[k]: the disk listed k-th, of the n returned.  fio adds a thread's disks as
 * run_threads creates it: the threads that had started by now, in the order they
 * started (equal starts in thread order).  A thread still held back by startdelay=,
 * wait_for= or an earlier stonewall, or one a stop kept from starting, adds none (fio's
 * interim reports and a stopped run's last one leave its disks out).  No started: all,
 * in thread order.
 */
static uint32_t disk_order(const struct diskstats *ds, const _Atomic uint64_t *started, uint64_t now,
			   uint32_t *order, bool *placed)
{
	struct thr_start *t = calloc(ds->nr_threads ? ds->nr_threads : 1, sizeof(*t));
	uint32_t n = 0;

	for (uint32_t tn = 0; tn < ds->nr_threads; tn++)
		if (t)
			t[tn] = (struct thr_start){ started ? atomic_load(&started[tn]) : 0, tn };
	if (t)
		qsort(t, ds->nr_threads, sizeof(*t), cmp_start);
	for (uint32_t k = 0; t && k < ds->nr_threads && t[k].at <= now; k++)
		for (uint32_t i = ds->thr_off[t[k].tn]; i < ds->thr_end[t[k].tn]; i++)
			if (!placed[ds->thr_disks[i]]) {
				placed[ds->thr_disks[i]] = true;
				order[n++] = ds->thr_disks[i];
			}
	free(t);
	return n;
}

void diskstats_end(struct diskstats *ds, const _Atomic uint64_t *started, uint64_t now, struct results *r)
{
	uint64_t v[DISKSTATS_FIELDS], *b;
	struct res_disk *d;
	uint32_t *order, n = 0;
	bool *placed;

	if (!ds->nr)
		return;
	r->disks = calloc(ds->nr, sizeof(*r->disks));
	order = calloc(ds->nr, sizeof(*order));
	placed = calloc(ds->nr, sizeof(*placed));
	if (r->disks && order && placed)
		n = disk_order(ds, started, now, order, placed);
	for (uint32_t k = 0; r->disks && k < n; k++) {
		uint32_t i = order[k];

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
	free(order);
	free(placed);
}

void diskstats_release(struct diskstats *ds)
{
	free(ds->names);
	free(ds->before);
	free(ds->thr_off);
	free(ds->thr_end);
	free(ds->thr_disks);
	memset(ds, 0, sizeof(*ds));
}

/*
 * engine/iosched.c - ioscheduler=: switching a device's I/O scheduler and
 * putting it back (iosched.h).
 *
 * As fio's set_ioscheduler: the name is written into the whole disk's
 * queue/scheduler (a partition has none: its disk's is the one that acts)
 * and read back; the device must now show it as "[name]".  A kernel without
 * the file, or a device whose file reads "none" alone, is a note and the job
 * runs; a name the device does not offer is EINVAL, any other failure (EACCES
 * when not root) its errno.  fio's write goes through stdio, whose buffer
 * hides the kernel's EINVAL for an unknown name until the read-back finds it;
 * here the write's EINVAL is read back the same way, so both end in the same
 * error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/diskstats.h"
#include "engine/iosched.h"

/* sysfs is the machine's: one switch at a time in the process, whichever run asks. */
static pthread_mutex_t sched_lock = PTHREAD_MUTEX_INITIALIZER;

#define SCHED_TEXT_MAX 512	/* "none [mq-deadline] kyber bfq" and room to spare */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The file's first line, without the blank the kernel ends its list with: 0 or -errno. */
static int read_text(int fd, char *buf, size_t n)
{
	ssize_t r = pread(fd, buf, n - 1, 0);
	size_t len;

	if (r < 0)
		return -errno;
	buf[r] = '\0';
	len = strcspn(buf, "\n");
	while (len && buf[len - 1] == ' ')
		len--;
	buf[len] = '\0';
	return 0;
}

/* The scheduler a queue/scheduler text selects ("none [mq-deadline] kyber"): false if none is. */
static bool selected(const char *text, char *sel, size_t n)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (!b || (size_t)(b - a) > n)
		return false;
	snprintf(sel, n, "%.*s", (int)(b - a - 1), a + 1);
	return true;
}

static bool selects(const char *text, const char *name)
{
	char sel[IOSCHED_NAME_MAX];

	return selected(text, sel, sizeof(sel)) && !strcmp(sel, name);
}

/*
 * The device whose scheduler serves path (fio's get_device_numbers): a block
 * device's own number, else its file system's, a missing file's directory's.
 * 0 for a character device or FIFO and where nothing can be found: fio skips
 * those without a word, and the job's open says what is wrong with the file.
 */
static dev_t dev_of(const char *path)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	if (!stat(path, &st)) {
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return 0;
		return S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	return stat(slash ? dir : ".", &st) ? 0 : st.st_dev;
}

/* A note for job j about where, once per job, kind and place.  0 or -ENOMEM. */
static int note(struct iosched *s, const struct plan_job *j, enum iosched_note_kind kind, const char *where)
{
	struct iosched_note *v;

	for (uint32_t i = 0; i < s->nr_notes; i++)
		if (s->notes[i].job == j && s->notes[i].kind == kind && !strcmp(s->notes[i].where, where))
			return 0;
	if (s->nr_notes == s->cap_notes) {
		v = realloc(s->notes, (s->cap_notes * 2 + 4) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->notes = v;
		s->cap_notes = s->cap_notes * 2 + 4;
	}
	s->notes[s->nr_notes].where = strdup(where);
	if (!s->notes[s->nr_notes].where)
		return -ENOMEM;
	s->notes[s->nr_notes].job = j;
	s->notes[s->nr_notes++].kind = kind;
	return 0;
}

/* The record of the device at dir, or NULL; with room for one more before any switch (so none goes unrecorded). */
static struct iosched_dev *known(struct iosched *s, const char *dir, int *ret)
{
	struct iosched_dev *v;

	*ret = 0;
	for (uint32_t i = 0; i < s->nr_devs; i++)
		if (!strcmp(s->devs[i].dir, dir))
			return &s->devs[i];
	if (s->nr_devs == s->cap_devs) {
		v = realloc(s->devs, (s->cap_devs * 2 + 2) * sizeof(*v));
		if (!v)
			*ret = -ENOMEM;
		else
			s->devs = v, s->cap_devs = s->cap_devs * 2 + 2;
	}
	return NULL;
}

/* After a switch from was to set: the device recorded the first time ioplan changes it. */
static int remember(struct iosched *s, struct iosched_dev *d, const char *dir, const char *was, const char *set)
{
	if (!d) {
		if (!strcmp(was, set))
			return 0;	/* found on the name: whoever set it puts it back */
		d = &s->devs[s->nr_devs];
		d->dir = strdup(dir);
		if (!d->dir)
			return -ENOMEM;
		snprintf(d->was, sizeof(d->was), "%s", was);
		s->nr_devs++;
	}
	snprintf(d->set, sizeof(d->set), "%s", set);
	return 0;
}

/*
 * Writes sched into the open queue/scheduler file and reads back what the
 * device selects into now: 0, -EINVAL when it does not select sched (why
 * left to the caller, who names the disk), or -errno with why.
 */
static int exchange(int fd, const char *file, const char *sched, char *now, size_t len, char *why, size_t n)
{
	int ret = 0;

	if (write(fd, sched, strlen(sched)) < 0)
		ret = errno == EINVAL ? 0 : -errno;	/* EINVAL: not offered, which the read-back shows */
	if (ret) {
		snprintf(why, n, "ioscheduler: writing %s into %s", sched, file);
		return ret;
	}
	ret = read_text(fd, now, len);
	if (ret)
		snprintf(why, n, "ioscheduler: reading %s back", file);
	return ret ? ret : selects(now, sched) ? 0 : -EINVAL;
}

/* The switch of the disk at dir, under sched_lock. */
static int switch_disk(struct iosched *s, const struct plan_job *j, const char *dir, char *why, size_t n)
{
	char file[PATH_MAX + 32], before[SCHED_TEXT_MAX], now[SCHED_TEXT_MAX] = "", was[IOSCHED_NAME_MAX] = "";
	struct iosched_dev *d;
	int fd, ret;

	snprintf(file, sizeof(file), "%s/queue/scheduler", dir);
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return note(s, j, IOSCHED_NOTE_UNSUPPORTED, base_name(dir));
	if (fd < 0) {
		ret = -errno;
		snprintf(why, n, "ioscheduler: opening %s", file);
		return ret;
	}
	d = known(s, dir, &ret);
	if (!ret && (ret = read_text(fd, before, sizeof(before))))
		snprintf(why, n, "ioscheduler: reading %s", file);
	if (!ret && !strcmp(before, "none"))
		ret = note(s, j, IOSCHED_NOTE_NOT_TUNABLE, base_name(dir));
	else if (!ret && !(ret = exchange(fd, file, j->ioscheduler, now, sizeof(now), why, n))) {
		/* A list with no choice marked (no kernel writes one) leaves nothing known to put back. */
		if (selected(before, was, sizeof(was)))
			ret = remember(s, d, dir, was, j->ioscheduler);
	} else if (ret == -EINVAL && !why[0])
		snprintf(why, n, "ioscheduler: unable to set io scheduler to %s (not found: %s offers %s)",
			 j->ioscheduler, base_name(dir), now);
	close(fd);
	return ret;
}

int iosched_switch(struct iosched *s, const struct plan_job *j, const char *path, dev_t *last, char *why,
		   size_t n)
{
	char dir[PATH_MAX];
	dev_t dev = dev_of(path);
	int ret;

	why[0] = '\0';
	if (!dev || dev == *last)
		return 0;
	*last = dev;
	ret = diskstats_disk_dir(dev, dir, sizeof(dir));
	pthread_mutex_lock(&sched_lock);
	ret = ret ? note(s, j, IOSCHED_NOTE_NO_DEVICE, path) : switch_disk(s, j, dir, why, n);
	pthread_mutex_unlock(&sched_lock);
	if (ret == -ENOMEM && !why[0])
		snprintf(why, n, "ioscheduler: keeping the device's scheduler");
	return ret;
}

/* Puts one device back, unless someone else switched it during the run: 0, 1 (left), or -errno. */
static int put_back(const struct iosched_dev *d, char *now, size_t len)
{
	char file[PATH_MAX + 32];
	int fd, ret;

	snprintf(file, sizeof(file), "%s/queue/scheduler", d->dir);
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_text(fd, now, len);
	if (!ret && !selects(now, d->set))
		ret = 1;
	else if (!ret && write(fd, d->was, strlen(d->was)) < 0)
		ret = -errno;
	else if (!ret && !(ret = read_text(fd, now, len)) && !selects(now, d->was))
		ret = -EINVAL;
	close(fd);
	return ret;
}

static void restore_msgs(const struct iosched_dev *d, struct results *r)
{
	const char *disk = base_name(d->dir);
	char now[SCHED_TEXT_MAX] = "";
	int ret = put_back(d, now, sizeof(now));

	if (!ret)
		res_msg_add(r, RES_MSG_NOTE, "ioscheduler-restored", -1,
			    "ioscheduler: %s's I/O scheduler put back to %s after the run (ioplan had set %s)", disk,
			    d->was, d->set);
	else if (ret == 1)
		res_msg_add(r, RES_MSG_WARNING, "ioscheduler-restore", -1,
			    "ioscheduler: %s's I/O scheduler was switched by someone else during the run (it reads "
			    "\"%s\"): left as it is, not put back to %s", disk, now, d->was);
	else
		res_msg_add(r, RES_MSG_WARNING, "ioscheduler-restore", -1,
			    "ioscheduler: %s's I/O scheduler could not be put back to %s (ioplan set %s): %s", disk,
			    d->was, d->set, strerror(-ret));
}

static void note_msg(const struct iosched_note *o, struct results *r)
{
	const struct plan_job *j = o->job;

	if (o->kind == IOSCHED_NOTE_UNSUPPORTED)
		res_msg_add(r, RES_MSG_NOTE, "ioscheduler-unsupported", (int32_t)j->job_id,
			    "job '%s': ioscheduler=%s: %s has no queue/scheduler: the os or kernel doesn't support IO "
			    "scheduler switching (fio's note); the job ran on the device as it was",
			    j->name, j->ioscheduler, o->where);
	else if (o->kind == IOSCHED_NOTE_NOT_TUNABLE)
		res_msg_add(r, RES_MSG_NOTE, "ioscheduler-not-tunable", (int32_t)j->job_id,
			    "job '%s': ioscheduler=%s: %s's io scheduler is not tunable (its queue/scheduler reads "
			    "none; fio's note); the job ran on the device as it was", j->name, j->ioscheduler, o->where);
	else
		res_msg_add(r, RES_MSG_NOTE, "ioscheduler-no-device", (int32_t)j->job_id,
			    "job '%s': ioscheduler=%s: %s is on no block device (as on tmpfs, NFS or btrfs): "
			    "nothing to switch, as fio skips it", j->name, j->ioscheduler, o->where);
}

void iosched_end(struct iosched *s, struct results *r)
{
	pthread_mutex_lock(&sched_lock);
	for (uint32_t i = 0; i < s->nr_devs; i++)
		restore_msgs(&s->devs[i], r);
	pthread_mutex_unlock(&sched_lock);
	for (uint32_t i = 0; i < s->nr_notes; i++)
		note_msg(&s->notes[i], r);
	iosched_release(s);
}

void iosched_release(struct iosched *s)
{
	for (uint32_t i = 0; i < s->nr_devs; i++)
		free(s->devs[i].dir);
	for (uint32_t i = 0; i < s->nr_notes; i++)
		free(s->notes[i].where);
	free(s->devs);
	free(s->notes);
	*s = (struct iosched){ 0 };
}

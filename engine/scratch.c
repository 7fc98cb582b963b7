/*
 * engine/scratch.c - scratch files shared by the workers of a run (scratch.h).
 *
 * A file is known by device and inode, not by name: a path someone else
 * replaced between two opens is not ours, nor is it removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/target.h"
#include "scratch.h"

int scratch_init(struct scratch_files *s)
{
	memset(s, 0, sizeof(*s));
	return -pthread_mutex_init(&s->mu, NULL);
}

void scratch_release(struct scratch_files *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	pthread_mutex_destroy(&s->mu);
}

static struct scratch_file *find(struct scratch_files *s, const struct stat *st)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->v[i].dev == st->st_dev && s->v[i].ino == st->st_ino)
			return &s->v[i];
	return NULL;
}

static int add(struct scratch_files *s, const char *path, const struct stat *st)
{
	struct scratch_file *f;

	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 8;
		void *v = realloc(s->v, cap * sizeof(*s->v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	f = &s->v[s->n];
	*f = (struct scratch_file){ .dev = st->st_dev, .ino = st->st_ino, .users = 1, .path = strdup(path) };
	if (!f->path)
		return -ENOMEM;
	s->n++;
	return 0;
}

/* Under s->mu: the open of a path that exists already. */
static int open_existing(struct scratch_files *s, const char *path, int *fd)
{
	struct scratch_file *f;
	struct stat st;

	*fd = open(path, O_WRONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	if (fstat(*fd, &st))
		goto refuse;
	f = find(s, &st);
	if (f) {
		f->users++;
		return 0;
	}
	if (!st.st_size && !st.st_blocks)
		return 0;	/* empty: nothing of anyone's to destroy */
refuse:
	close(*fd);
	*fd = -1;
	return -EEXIST;
}

void scratch_path_beside(const char *first, const char *name, char *out, size_t n)
{
	const char *slash = strrchr(first, '/');

	if (slash)
		snprintf(out, n, "%.*s/%s", (int)(slash - first), first, name);
	else
		snprintf(out, n, "%s", name);
}

int scratch_open(struct scratch_files *s, const char *path, int *fd)
{
	struct stat st;
	int ret = 0;

	pthread_mutex_lock(&s->mu);
	*fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	if (*fd < 0)
		ret = errno == EEXIST ? open_existing(s, path, fd) : -errno;
	else if (fstat(*fd, &st)) {
		ret = -errno;	/* not known, so not removed: an empty file is left */
		close(*fd);
		*fd = -1;
	} else if ((ret = add(s, path, &st)) != 0) {
		close(*fd);
		(void)tgt_remove_same(AT_FDCWD, path, st.st_dev, st.st_ino, NULL, 0);
		*fd = -1;
	}
	pthread_mutex_unlock(&s->mu);
	return ret;
}

void scratch_close(struct scratch_files *s, int fd)
{
	struct scratch_file *f;
	struct stat st;

	if (fd < 0)
		return;
	pthread_mutex_lock(&s->mu);
	f = fstat(fd, &st) ? NULL : find(s, &st);
	if (f && !--f->users) {
		(void)tgt_remove_same(AT_FDCWD, f->path, st.st_dev, st.st_ino, NULL, 0);
		free(f->path);
		*f = s->v[--s->n];
	}
	close(fd);
	pthread_mutex_unlock(&s->mu);
}

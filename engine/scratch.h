/*
 * engine/scratch.h - scratch files this run created, shared by the workers that use them.
 *
 * Some engines need a file besides the job's own whose contents they destroy
 * (e4defrag's donor: the move gives it the file's old blocks).  ioplan never
 * destroys data it was not given, so such a file is one it creates itself; but
 * fio's job files share one donor among clones and jobs (examples/e4defrag2.fio:
 * numjobs=4 with one donorname).  The registry lets a worker open a scratch
 * file another worker of this run created - and only such a file - and removes
 * it when its last user closes it.  One registry per run (eng_shared), guarded
 * by a mutex: opened at set-up and closed at exit, never per I/O.
 */
#ifndef IOPLAN_ENGINE_SCRATCH_H
#define IOPLAN_ENGINE_SCRATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct scratch_file {
	dev_t dev;
	ino_t ino;
	uint32_t users;
	char *path;			/* unlinked when users drops to 0 */
};

struct scratch_files {
	pthread_mutex_t mu;
	struct scratch_file *v;
	uint32_t n, cap;
};

int scratch_init(struct scratch_files *s);
void scratch_release(struct scratch_files *s);

/*
 * Opens path for writing as a scratch file: created now (O_EXCL), or one this
 * run created and still uses, or an existing empty file (nothing to lose; it
 * is not removed).  *fd is the open descriptor.  0, -EEXIST when path holds
 * data ioplan was not given, or -errno.
 */
int scratch_open(struct scratch_files *s, const char *path, int *fd);

/*
 * The scratch file name in the directory of first (a job's first file), as
 * fio puts e4defrag's donorname in directory=; name alone when first has none.
 */
void scratch_path_beside(const char *first, const char *name, char *out, size_t n);

/* Closes fd; the last user of a file this run created removes it. */
void scratch_close(struct scratch_files *s, int fd);

#endif /* IOPLAN_ENGINE_SCRATCH_H */

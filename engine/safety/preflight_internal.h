/*
 * engine/safety/preflight_internal.h - the state preflight's checks share, and its two halves.
 *
 * preflight.c walks a plan's targets (kind, size, free space, O_DIRECT,
 * memory); preflight_aux.c checks what a job touches besides its targets
 * (side files, verify state files, the net peer, the nbd export);
 * preflight_seen.c remembers what was looked at.  They add findings to the
 * same report, so the state lives here; nothing outside those files includes
 * this header.
 */
#ifndef IOPLAN_ENGINE_PREFLIGHT_INTERNAL_H
#define IOPLAN_ENGINE_PREFLIGHT_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "engine/safety/preflight.h"

#define PF_MAX_FS 64

struct fs_need {
	dev_t dev;
	char dir[PATH_MAX];
	uint64_t need;
};

struct pf_state {
	const struct plan *p;
	const struct safety_env *env;
	struct safety_files *busy;	/* swap and loop backing files, read once (pf_busy_files) */
	bool busy_read;
	struct pf_report *r;
	uint32_t seen_cap;		/* slots allocated in r->seen */
	uint32_t findings_cap;		/* and in r->findings */
	struct fs_need fs[PF_MAX_FS];
	uint32_t nr_fs;
	uint64_t buffered_read_bytes;
	uint32_t memory_job;		/* job_id + 1 of the last job told it measures memory */
	/* memory_backed's last answer: every file of a directory is on the same
	 * file system, so one stat() answers for it instead of statfs and a walk of /sys. */
	bool mem_cached;
	dev_t mem_dev;
	const char *mem_what;
	/* The last directory looked at, and whether its device is a devtmpfs: a
	 * directory's files follow each other, so each is looked at once. */
	char dir[PATH_MAX];
	int dir_err;
	int dir_fd;			/* an O_PATH descriptor of dir, or -1 */
	struct stat dir_st;
	bool devtmpfs_known, devtmpfs;
	dev_t devtmpfs_dev;
	int oom;
};

/* Adds a finding; an error one stops the run. */
void pf_add(struct pf_state *s, enum res_msg_level level, const char *code, int32_t job,
	    const char *fmtstr, ...) __attribute__((format(printf, 5, 6)));

/* The paths already checked, by hash (engine/path_index.h; glibc's hsearch hashes
 * only a path's first characters, which all the files of a directory share). */
struct pf_paths {
	const char **paths;		/* each distinct path once, in the order first seen */
	uint64_t *need;			/* of paths[i]: the most bytes any of its uses needs */
	bool *checked;			/* paths[i] was checked (by its first use) */
	uint32_t nr;
	struct path_index index;	/* of paths */
};

/* Room for every file path of the plan, at most half full.  0 or -ENOMEM. */
int pf_paths_init(struct pf_paths *set, const struct plan *p);
/* The index of path in set->paths, added if new (shared files appear in many clones). */
uint32_t pf_paths_add(struct pf_paths *set, const char *path);
/* The index of a path pf_paths_add added. */
uint32_t pf_paths_find(const struct pf_paths *set, const char *path);
void pf_paths_free(struct pf_paths *set);

/* stat() of dir (0 or an errno), once for all the files of one directory in a row;
 * dir is kept open (s->dir_fd) for pf_note_seen's looks. */
int pf_look_dir(struct pf_state *s, const char *dir, struct stat *dsb);
/*
 * Notes what is at path now, for the layout to compare (target.h), with its
 * directory as dsb (NULL when it cannot be looked at); *sb gets the file,
 * *link whether the name is a symbolic link.  True when the file exists.
 */
bool pf_note_seen(struct pf_state *s, const char *path, const struct stat *dsb, struct stat *sb, bool *link);
/* Sorts what was noted by path, for the layout's walk, and indexes it (pf_seen_of).  0 or -ENOMEM. */
int pf_sort_seen(struct pf_report *r);

/* direct=1 on path (exists: the file is there, else dir is probed): O_DIRECT honoured, sizes
 * and offsets on its grain (preflight_direct.c). */
void pf_check_direct(struct pf_state *s, const struct plan_job *j, const char *path, const char *dir,
		     int exists);

/* Every check of preflight_aux.c on job j. */
void pf_check_aux(struct pf_state *s, const struct plan_job *j);
/* The engine, NUMA nodes, CPUs, buffer memory and kernel limits a job needs
 * (preflight_machine.c); avail: the memory available, 0 when unknown. */
void pf_check_machine(struct pf_state *s, const struct plan_job *j, uint64_t avail);
/*
 * An error of one job that fio finds only when the job starts (its report
 * then carries the job's error, and the other jobs run): an error finding
 * that does not stop the run, since the engine fails that job the same way.
 */
void pf_add_job_failure(struct pf_state *s, const char *code, int32_t job, const char *fmtstr, ...)
	__attribute__((format(printf, 4, 5)));

#endif

/*
 * engine/safety/safety.h - may ioplan write here?  The rules that keep a benchmark from
 * destroying data it was not given (docs/safety.md).
 *
 * Block devices (and character devices other than /dev/null, /dev/zero and
 * /dev/full): writing needs the exact device named in allow_device_write,
 * and even then a device that holds a mounted filesystem, has a mounted
 * partition, is active swap, is held by md/dm/LVM, or backs a loop device is
 * refused; so is a loop device whose backing device is in use or whose
 * backing file another loop device in use reads, and a regular file that is
 * swap or backs a loop device.  The checks
 * read the live system (/proc/self/mountinfo, /proc/swaps, /sys/dev/block) for
 * a message that names the mount, and ask the kernel (an O_EXCL open) for the
 * holders no file of ours shows; safety_env lets tests point the reads at
 * other roots.
 */
#ifndef IOPLAN_ENGINE_SAFETY_H
#define IOPLAN_ENGINE_SAFETY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "engine/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a refusal's reason: it may name two paths of up to PATH_MAX and say why. */
#define SAFETY_WHY_MAX (2 * PATH_MAX + 512)

struct safety_env {
	const char *proc_root;		/* "/proc" */
	const char *sys_root;		/* "/sys" */
};

/* The live system. */
extern const struct safety_env safety_system;

/*
 * 0 when the block device dev (major:minor) holds nothing in use; otherwise
 * -EBUSY with the reason in why ("/dev/vda1 is mounted on /", ...).
 */
int safety_device_in_use(const struct safety_env *env, dev_t dev, char *why, size_t n);

/*
 * Is the character device rdev one whose writes store nothing (/dev/null,
 * /dev/zero, /dev/full)?  Writing there destroys nothing, so neither a job
 * nor an output needs allow_device_write= for it.
 */
bool safety_char_stores_nothing(dev_t rdev);

/*
 * 0 when plan p may write to the block device at path (or a character device
 * other than those above); -EPERM (not allowed by
 * allow_device_write) or -EBUSY (in use, see above) with the reason in why.
 */
int safety_check_device_write(const struct safety_env *env, const struct plan *p, const char *path,
			      char *why, size_t n);

/*
 * Claims the block device at path exclusively (O_EXCL): the fd, kept open so
 * nothing can mount or assemble it while ioplan writes, or -EBUSY / -errno
 * with the reason in why.
 */
int safety_claim_device(const char *path, char *why, size_t n);

/*
 * 0 when the regular file at path (stat sb) may be written; -EBUSY with the
 * reason in why when it is an active swap file or the backing file of a loop
 * device (whatever allow_* says: the loop device may hold a mounted file
 * system).
 */
int safety_file_in_use(const struct safety_env *env, const char *path, const struct stat *sb, char *why,
		       size_t n);

/*
 * The same for many files: the swap files and loop backing files read once
 * (safety_files_load: 0 or -ENOMEM), then each file checked against them.
 * env must outlive the table: a check that meets a backing file reads what
 * its loop device holds then, and asks the system again whether the file is
 * busy (an inode number of a loop device detached since, its file deleted, is
 * the next new file's).
 */
struct safety_files;
int safety_files_load(const struct safety_env *env, struct safety_files **out);
int safety_files_check(const struct safety_files *sf, const char *path, const struct stat *sb, char *why,
		       size_t n);
void safety_files_free(struct safety_files *sf);

/* How a file besides the job's targets is written (safety_open_output). */
enum {
	SAFETY_OUT_REPLACES = 1,	/* its contents are replaced, not appended to */
	SAFETY_OUT_DERIVED = 2,		/* ioplan made the name up: only an empty file or ioplan's own is replaced */
	SAFETY_OUT_JUDGED = 4,		/* a name clones share: one this process holds open for writing is its own too */
	SAFETY_OUT_NEW = 8,		/* only a file made now (O_EXCL): whatever has the name is left alone (-EEXIST) */
	SAFETY_OUT_EXISTING = 16,	/* only what has the name now (no O_CREAT): -ENOENT when nothing has */
	SAFETY_OUT_WAIT_READER = 32,	/* a FIFO without a reader is waited for (a signal must be able to end it) */
};

/*
 * The rule for every file ioplan writes besides a job's targets (reports,
 * rank files, logs, iologs, verify state, exec redirects, prerun output):
 * 0 when path may be written as how says; -EPERM (a device), -EBUSY (swap,
 * a loop device's backing file), or -EEXIST (a user's
 * file under a name ioplan made up), with the reason in why.
 */
int safety_check_output(const struct safety_env *env, const char *path, unsigned how, char *why, size_t n);

/*
 * Whether path can be written at all: the file, or for one still to be made
 * its directory (a read-only file system, a directory the user may not
 * write): 0, or -EROFS / -EACCES with "cannot open for writing: ..." in why
 * (any other failure is left to the open).  The preflight asks it of the
 * side files a run writes only as it goes or at its end, so that a file the
 * run could never write refuses the run before any I/O, not after it.
 */
int safety_check_writable(const char *path, char *why, size_t n);

/*
 * Whether path is, or passes through, a symbolic link another user may have
 * put there for ioplan to write through: one in a world-writable sticky
 * directory (/tmp) owned by neither this user nor the directory's owner (the
 * kernel's fs.protected_symlinks rule, which judges each link a walk
 * follows).  -EACCES with the reason in why, else 0.
 */
int safety_planted_link(const char *path, char *why, size_t n);
/* As safety_planted_link, for a caller that knows path itself is no link: its directory's parts only. */
int safety_planted_way(const char *path, char *why, size_t n);

/*
 * Opens path for writing (created when missing, O_WRONLY | O_CLOEXEC plus
 * flags' O_APPEND / O_NONBLOCK) under the same rule, checked again on the
 * open descriptor, and only then truncated when flags has O_TRUNC: the fd, or
 * -errno with the reason in why (a file the open created is removed again).
 * A FIFO nobody reads is -ENXIO at once (unless how has
 * SAFETY_OUT_WAIT_READER): an open that waited for its reader in a thread
 * with the stop signals blocked could be ended by nothing but SIGKILL.
 */
int safety_open_output(const struct safety_env *env, const char *path, int flags, unsigned how, char *why,
		       size_t n);

/*
 * safety_open_output, with the swap and loop backing files judged against busy
 * (safety_files_load, read earlier by the caller) rather than read again for
 * this file, as safety_open_output does for each: for a writer of many files
 * (verify dumps).  busy NULL: read for this file.
 */
int safety_open_output_seen(const struct safety_env *env, const struct safety_files *busy, const char *path,
			    int flags, unsigned how, char *why, size_t n);

/*
 * Writes all n bytes at p to a side file's fd (through EINTR and short
 * writes): 0, or -errno (-ENOSPC for a write of 0), having cut what it wrote
 * of p off again, so a log or a line-by-line file ends at its last whole
 * entry when the disk fills (safety_cut_back: unless something was appended
 * after them).
 */
int safety_write_whole(int fd, const void *p, size_t n);

/*
 * Saves len bytes at p as the whole file at path, under the rule of
 * safety_open_output (how), never as a cut file: a regular file (or none) is
 * replaced by a new one written in full first (O_TMPFILE, or a named
 * temporary beside it) and marked as ioplan's, then put at path by an atomic
 * rename, so a full disk leaves what was there (the previous state) or
 * nothing.  What took the name since the look is judged again after an atomic
 * exchange and put back when it is not to be replaced.  A link, FIFO or
 * /dev/null at path is written in place, through it.  0, or -errno with why.
 */
int safety_save_whole(const struct safety_env *env, const char *path, const void *p, size_t len, unsigned how,
		      char *why, size_t n);
void safety_cut_back(int fd, size_t written);

/* Stamps the finished file fd as ioplan's, so a later run may replace it: 0 or -errno. */
int safety_mark_output(int fd);

/*
 * Whether the regular file open on fd has no name left: removed during the
 * run (its directory too), or another file renamed over its name.  What was
 * written to it went with it, so a log or a report must not be said to be
 * there.  False for anything else (a pipe, a device, a failed fstat).
 */
bool safety_output_removed(int fd);

/*
 * Is path a regular file that ioplan finished and stamped (safety_mark_output)
 * and nobody changed since?  The only files ioplan removes that it was not
 * asked to: its own, proven so.
 */
bool safety_output_is_ours(const char *path);

/*
 * Removes path only while it holds the file dev:ino that ioplan made, or
 * (safety_remove_own_output) a stamped output of ioplan's: judged under a
 * name set aside, so a file renamed over path meanwhile is never removed
 * (tgt_remove_if, engine/target.h).  0, or -errno (-ESTALE: another file is
 * there and stays).
 */
int safety_remove_made(const char *path, dev_t dev, ino_t ino);
int safety_remove_own_output(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_SAFETY_H */

/*
 * engine/mark.h - the mark that proves a file is one ioplan made, and in what state.
 *
 * A benchmark may rewrite its own test files but never a user's.  A constant
 * "this is ioplan's" tag is not proof: backup tools and `cp --preserve=xattr`
 * copy extended attributes onto other files, and a user may rewrite a test file
 * after ioplan made it.  So the mark (the xattr user.ioplan) binds itself to the
 * file it was written for - device, inode, size and modification time, with a
 * per-file random token - and any mismatch makes the file the user's.  ioplan
 * re-stamps the mark after each run that wrote the file, so its own writes do
 * not count against it; a run killed before that leaves a stale mark, which
 * errs towards refusing.
 *
 * The mark also says how far the layout got: a file is "partial" from its
 * creation until every byte of it is written (one written whole by a single
 * write is marked once, when whole), "sized" when it was only
 * truncated/fallocated for write-only jobs (or trimmed since), and "filled"
 * when its data is real.  Reads trust only a filled file: a partial or sized
 * one would be read from holes and unwritten extents at memory speed.
 */
#ifndef IOPLAN_ENGINE_MARK_H
#define IOPLAN_ENGINE_MARK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MARK_XATTR "user.ioplan"

enum mark_state {
	MARK_NONE,		/* no mark: the user's file */
	MARK_FOREIGN,		/* a mark that does not bind to this file: the user's */
	MARK_PARTIAL,		/* ioplan's, layout unfinished */
	MARK_SIZED,		/* ioplan's, sized but its data not all laid out */
	MARK_FILLED,		/* ioplan's, every byte written by its layout */
};

/* Is the file ioplan's own (any state that binds to it)? */
static inline int mark_is_ours(enum mark_state s)
{
	return s >= MARK_PARTIAL;
}

/*
 * The state of the mark on the open file fd.  For MARK_FOREIGN, why says what
 * did not match ("it was modified after ioplan last wrote it", ...).
 */
enum mark_state mark_read(int fd, char *why, size_t n);

/* The same for a path (opened read-only, without following into a FIFO's wait). */
enum mark_state mark_read_path(const char *path, char *why, size_t n);

/*
 * Writes the mark for state s (not MARK_NONE/MARK_FOREIGN), bound to fd's
 * current inode, size and mtime; keeps the token of an existing mark.  0 or
 * -errno (-EOPNOTSUPP where the file system refuses user xattrs).
 */
int mark_write(int fd, enum mark_state s);

/*
 * mark_write with what the caller already has, to spare the system calls:
 * token (0: keep the existing mark's, else a new random one) and sb, fd's
 * fstat made since its last change (NULL: fstat it now).
 */
int mark_write_as(int fd, enum mark_state s, uint64_t token, const struct stat *sb);

/*
 * A new token from *state, a generator seeded from getrandom on first use
 * (*state 0): one system call for all the files of a layout, not one a file.
 */
uint64_t mark_token(uint64_t *state);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_MARK_H */

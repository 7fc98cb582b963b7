/*
 * engine/target.h - opening a job's files so that what is written is what was checked.
 *
 * A path is a name, not a file: between the check of a target and its open,
 * anyone who can write its directory can swap it (rename, RENAME_EXCHANGE) for
 * a symbolic link or a hard link to a user's file, or swap the directory itself
 * for a link to a user's directory.  So each directory of the plan's files is
 * opened once, at layout, and every file is opened relative to that
 * descriptor; its last component is never followed through a symbolic link
 * unless it was one when ioplan first looked (the user named a link); and the
 * identity of the file first seen (device and inode, and one link for a file
 * ioplan made) is compared, on the open descriptor, at every later open.  A
 * mismatch refuses the open: nothing is written through it.  The checks cost
 * an fstat per open, never anything per I/O.
 */
#ifndef IOPLAN_ENGINE_TARGET_H
#define IOPLAN_ENGINE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a target was when first looked at; later opens must find the same file. */
struct tgt_id {
	dev_t dev;
	ino_t ino;
	bool known;		/* dev and ino hold the file first seen */
	bool follow;		/* its name was a symbolic link then: the user named a link */
	bool single;		/* ioplan created it: a second link means someone else's name on it */
};

/*
 * What the preflight saw at a target's path, for the layout to find the same:
 * between the two, a swapped name would have the layout write what nobody
 * checked.  Whether the name was a symbolic link is decided here, at the
 * first look of all: only then can it be the link the user named.
 */
struct tgt_seen {
	const char *path;	/* borrowed from the plan */
	dev_t dev, dir_dev;
	ino_t ino, dir_ino;	/* 0: nothing there (the file), not looked at (its directory) */
	uint64_t size;		/* the file's size then (links followed) */
	bool regular;		/* it was a regular file then (links followed) */
	bool link;		/* the name was a symbolic link */
};

/*
 * Fills s from path as it is now: the file (links followed) and its name; and
 * *st with the file (links followed).  Its directory is dir_st, which the
 * caller looked at once for all its files (NULL: not looked at), and dirfd
 * that directory opened (O_PATH), where the file is looked up by its last
 * name; -1: by its whole path.  0 or -errno of the file's stat (-ENOENT:
 * nothing there).
 */
int tgt_seen_now(struct tgt_seen *s, int dirfd, const char *path, const struct stat *dir_st, struct stat *st);

/*
 * Does what the layout found (looked: 0 with st and id, or -ENOENT) in the
 * directory whose descriptor's fstat is dir_st agree with s?  0; -EEXIST
 * when a file appeared where there was none (another ioplan process may have
 * made it); else -ESTALE or -ELOOP with why.  A descriptor's file never
 * changes, so one fstat of it serves every file looked up through it.
 */
int tgt_seen_same(const struct tgt_seen *s, const struct stat *dir_st, int looked, const struct stat *st,
		  const struct tgt_id *id, char *why, size_t n);

/* The directory part of path: "." when it has none.  0, or -ENAMETOOLONG when n is too small. */
int tgt_dir_name(const char *path, char *dir, size_t n);

/* The directory part of path, opened once: an O_PATH descriptor or -errno. */
int tgt_dir_open(const char *path);

/*
 * The longest leading part of path's directory that exists now, in top (which
 * holds n bytes), and the offset in path where the missing part begins.  0, or
 * -EPERM when a missing component is "..": ioplan creates directories only
 * beneath what exists, never by climbing out of it.
 */
int tgt_dir_existing(const char *path, char *top, size_t n, size_t *missing);

/*
 * Creates the missing directories of path's directory, one component at a
 * time beneath the longest existing one (tgt_dir_existing), each opened with
 * O_NOFOLLOW after its mkdir: a symbolic link found at a component (planted,
 * or dangling) is refused, not followed.  made(fd, ctx) is called on each
 * directory this call created (mode 0700, as fio's).  The innermost directory's
 * descriptor, or -errno with the reason in why.
 */
int tgt_dir_make(const char *path, int (*made)(int fd, void *ctx), void *ctx, char *why, size_t n);

/* The last component of path: what is opened relative to its directory's descriptor. */
const char *tgt_base(const char *path);

/*
 * The first look at base in dirfd, without following a symbolic link unless
 * it is one (then the user named a link, id->follow is set and its target is
 * looked at).  Fills *st and id.  0 or -errno (-ENOENT when nothing is there).
 */
int tgt_look(int dirfd, const char *base, struct tgt_id *id, struct stat *st);

/* Opens base in dirfd as id allows (O_NOFOLLOW unless id->follow): the fd or -errno. */
int tgt_openat(int dirfd, const char *base, const struct tgt_id *id, int flags, mode_t mode);

/*
 * Is the file open on fd the one id holds (when id->known; else it is recorded
 * now)?  0, or -ESTALE with what changed in why ("it was replaced: inode 12
 * is now 34", "it now has 2 links").  st (may be NULL) gets the fstat the
 * check made, so that callers need not make another.
 */
int tgt_check(int fd, struct tgt_id *id, char *why, size_t n, struct stat *st);

/*
 * Whether the file now at a name may go: st is its lstat, aside its name in
 * the directory for the moment (relative to the dirfd given, or a path).
 */
typedef bool (*tgt_removable)(int dirfd, const char *aside, const struct stat *st, void *arg);

/*
 * Removes name (in dirfd, or a path with AT_FDCWD) only while it holds a file
 * removable() accepts.  A look and then unlink(name) would remove whatever
 * another process renamed over the name in between; so the name is first
 * renamed (RENAME_NOREPLACE) to a random one beside it that nobody else knows,
 * judged there, and removed or put back.  0 removed; -ESTALE kept (put back
 * under its name); -EEXIST kept, but a new file took its name meanwhile, so
 * it stays under the random name, given in kept_as (n bytes; may be NULL);
 * -errno (-ENOENT: nothing there).  A put-back that fails for another reason
 * (EROFS, EIO, an immutable directory) returns its -errno, and the file stays
 * under the random name given in kept_as, as with -EEXIST.  Where the file
 * system has no RENAME_NOREPLACE, or the rename finds no room for a directory
 * entry (a full disk, whose space the removal gives back), the look and unlink.
 */
int tgt_remove_if(int dirfd, const char *name, tgt_removable removable, void *arg, char *kept_as, size_t n);

/* tgt_remove_if for the one file dev:ino (never through a symbolic link at name). */
int tgt_remove_same(int dirfd, const char *name, dev_t dev, ino_t ino, char *kept_as, size_t n);

/* Why an open that tgt_openat refused failed, in words a user can act on. */
const char *tgt_open_error(int err, const struct tgt_id *id);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_TARGET_H */

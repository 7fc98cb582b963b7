/*
 * engine/safety/guarded_open.h - an open by path that itself refuses a
 * symbolic link another user planted on the way (safety_output.c's rule).
 *
 * The checks before an open (planted_walk's lstat of each part) and the open
 * are two steps: a directory part that another user owns in a sticky
 * world-writable directory (/tmp/sub) could be swapped for a link between
 * them, and the open followed it.  This open reaches the directory itself,
 * judging each link it follows as the kernel's fs.protected_symlinks would,
 * so what the checks allowed is what is opened.
 */
#ifndef IOPLAN_ENGINE_SAFETY_GUARDED_OPEN_H
#define IOPLAN_ENGINE_SAFETY_GUARDED_OPEN_H

#include <stddef.h>
#include <sys/types.h>

/*
 * open(path, flags, mode), except that no link another user put in a sticky
 * world-writable directory is followed, in path's directory parts, nor at its
 * end unless flags hold O_NOFOLLOW (then ELOOP there, as open's).  Links the
 * user made (or root's, or the directory owner's) are followed as the kernel
 * follows them.  The fd, or -errno: -EACCES for a planted link, with why (n
 * bytes) naming it; why is left alone otherwise.
 */
int guarded_open(const char *path, int flags, mode_t mode, char *why, size_t n);

/*
 * The directory part of path reached as guarded_open reaches it: an O_PATH
 * descriptor of it (for the *at calls that make, name and rename files in
 * it), or -errno (-EACCES with why for a planted link).
 */
int guarded_dir_open(const char *path, char *why, size_t n);

#endif /* IOPLAN_ENGINE_SAFETY_GUARDED_OPEN_H */

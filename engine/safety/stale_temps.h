/*
 * engine/safety/stale_temps.h - the temporary names of files saved whole
 * (safety_save_whole), and the removal of those a killed run left behind.
 *
 * A file saved whole waits under ".BASE.ioplan-new.<16 hex digits>" beside
 * its name between being linked and renamed over it (or, where the file
 * system has no O_TMPFILE, while it is written).  A run killed in that moment
 * (SIGKILL, a power cut) left it there for good, since no later run looked
 * for it.  The writer now holds an exclusive flock on the file from before it
 * has a name until it is gone, and a later save removes what is certainly a
 * dead run's: its name has that form, it is a regular file of this user with
 * one name (no link, no hard link), it carries ioplan's mark (so it is
 * complete, ioplan's own data, never a user's file a killed exchange left
 * there), and no process holds its lock.
 */
#ifndef IOPLAN_ENGINE_SAFETY_STALE_TEMPS_H
#define IOPLAN_ENGINE_SAFETY_STALE_TEMPS_H

#include <stddef.h>

/* A fresh temporary name for a file to be named base, in out (n bytes): 0, or -ENAMETOOLONG. */
int stale_temp_name(const char *base, char *out, size_t n);

/* Takes the writer's lock on its temporary fd (before the file is named): 0 or -errno. */
int stale_temp_hold(int fd);

/*
 * Removes the stale temporaries (above) in the directory dfd (an O_PATH
 * descriptor will do), once per directory a process: the number removed (0
 * when none, or on any error: nothing of this is the save's failure).
 */
int stale_temps_sweep(int dfd);

#endif /* IOPLAN_ENGINE_SAFETY_STALE_TEMPS_H */

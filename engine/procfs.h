/*
 * engine/procfs.h - the text /proc shows: its octal escapes and a mountinfo line's fields.
 *
 * The environment snapshot (a target's file system layer) and the safety
 * checks (what is mounted where, which files are swap) read the same files;
 * one parser makes them read a mount point with a space, or a line whose
 * optional fields vary, alike.
 */
#ifndef IOPLAN_ENGINE_PROCFS_H
#define IOPLAN_ENGINE_PROCFS_H

#include <stdbool.h>
#include <stdint.h>

/* mountinfo and swaps escape space, tab, newline and backslash as \ooo: undone in place. */
void procfs_unescape(char *s);

/* One /proc/self/mountinfo line, its fields pointing into the line (unescaped). */
struct mount_line {
	uint64_t id;
	unsigned int maj, min;
	char *point, *options, *fstype, *source, *super;
};

/* Splits one mountinfo line in place; false when it is not one. */
bool procfs_mount_line(char *line, struct mount_line *m);

#endif

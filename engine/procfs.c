/*
 * engine/procfs.c - /proc's escapes undone and a mountinfo line split (procfs.h).
 */
#include "engine/procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void procfs_unescape(char *s)
{
	char *w = s;

	for (; *s; s++, w++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w = *s;
		}
	}
	*w = '\0';
}

bool procfs_mount_line(char *line, struct mount_line *m)
{
	char *save = NULL, *f[6], *t;
	int i;

	line[strcspn(line, "\n")] = '\0';
	for (i = 0; i < 6 && (f[i] = strtok_r(i ? NULL : line, " ", &save)); i++)
		;
	if (i < 6 || sscanf(f[2], "%u:%u", &m->maj, &m->min) != 2)
		return false;
	m->id = strtoull(f[0], NULL, 10);
	m->point = f[4];
	m->options = f[5];
	while ((t = strtok_r(NULL, " ", &save)) && strcmp(t, "-"))
		;
	if (!t || !(m->fstype = strtok_r(NULL, " ", &save)) || !(m->source = strtok_r(NULL, " ", &save)))
		return false;
	m->super = strtok_r(NULL, " ", &save);
	procfs_unescape(m->point);
	procfs_unescape(m->source);
	return true;
}

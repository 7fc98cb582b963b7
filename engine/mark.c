/*
 * engine/mark.c - writing and checking ioplan's file mark (mark.h).
 *
 * The mark is one line of text in the xattr, so `getfattr -n user.ioplan`
 * shows a person what ioplan believes about the file:
 *
 *   ioplan-mark 2 state=filled token=<16 hex> dev=<maj>:<min> ino=<n> size=<n> mtime=<s>.<ns>
 *
 * The token is random per file and kept across re-stamps, so two files never
 * carry the same mark even when their inode numbers are reused.  A partial
 * mark binds device and inode only: the layout is still changing size and
 * mtime, and such a file is laid out again from its first byte anyway.
 */
#include "engine/mark.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MARK_MAX 256

static const char *const state_names[] = {
	[MARK_PARTIAL] = "partial",
	[MARK_SIZED] = "sized",
	[MARK_FILLED] = "filled",
};

struct mark {
	enum mark_state state;
	uint64_t token, ino, size;
	unsigned maj, min;
	int64_t sec;
	long nsec;
};

static int parse(const char *text, struct mark *m)
{
	char state[16];
	long long sec;

	if (sscanf(text, "ioplan-mark 2 state=%15s token=%16" SCNx64 " dev=%u:%u ino=%" SCNu64
		   " size=%" SCNu64 " mtime=%lld.%ld", state, &m->token, &m->maj, &m->min, &m->ino,
		   &m->size, &sec, &m->nsec) != 8)
		return -EINVAL;
	m->sec = sec;
	for (int s = MARK_PARTIAL; s <= MARK_FILLED; s++)
		if (!strcmp(state, state_names[s])) {
			m->state = (enum mark_state)s;
			return 0;
		}
	return -EINVAL;
}

/* The verdict for a file whose stat is sb and whose xattr holds text (len bytes). */
static enum mark_state judge(const struct stat *sb, const char *text, ssize_t len, char *why, size_t n)
{
	struct mark m;

	if (len < 0)
		return MARK_NONE;
	if (parse(text, &m)) {
		snprintf(why, n, "its %s mark is not one this ioplan wrote (an older version, or edited)",
			 MARK_XATTR);
		return MARK_FOREIGN;
	}
	if (makedev(m.maj, m.min) != sb->st_dev || m.ino != (uint64_t)sb->st_ino) {
		snprintf(why, n, "its %s mark was made for another file (copied with the file's "
			 "attributes)", MARK_XATTR);
		return MARK_FOREIGN;
	}
	if (m.state != MARK_PARTIAL &&
	    (m.size != (uint64_t)sb->st_size || m.sec != (int64_t)sb->st_mtim.tv_sec ||
	     m.nsec != sb->st_mtim.tv_nsec)) {
		snprintf(why, n, "it was modified after ioplan last wrote it (or a run that wrote it "
			 "was killed); delete it to let ioplan lay it out again");
		return MARK_FOREIGN;
	}
	return m.state;
}

enum mark_state mark_read(int fd, char *why, size_t n)
{
	char text[MARK_MAX];
	struct stat sb;
	ssize_t len;

	if (fstat(fd, &sb))
		return MARK_NONE;
	len = fgetxattr(fd, MARK_XATTR, text, sizeof(text) - 1);
	if (len >= 0)
		text[len] = '\0';
	else if (errno == ERANGE)
		len = 0, text[0] = '\0';	/* too long to be ours: unparseable, foreign */
	return judge(&sb, text, len, why, n);
}

enum mark_state mark_read_path(const char *path, char *why, size_t n)
{
	/* O_NONBLOCK: the caller passes regular files, but a path can change under it. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	enum mark_state s;

	if (fd < 0)
		return MARK_NONE;
	s = mark_read(fd, why, n);
	close(fd);
	return s;
}

/* The token of fd's current mark if it is a valid one, else a new random one. */
static uint64_t token_for(int fd)
{
	char text[MARK_MAX];
	struct mark m;
	ssize_t len = fgetxattr(fd, MARK_XATTR, text, sizeof(text) - 1);
	uint64_t t = 0;

	if (len > 0) {
		text[len] = '\0';
		if (!parse(text, &m))
			return m.token;
	}
	while (getrandom(&t, sizeof(t), 0) < 0 && errno == EINTR)
		;
	return t;
}

uint64_t mark_token(uint64_t *state)
{
	uint64_t z;

	while (!*state && getrandom(state, sizeof(*state), 0) < 0 && errno == EINTR)
		;
	/* splitmix64: distinct tokens from one seed */
	z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int mark_write(int fd, enum mark_state s)
{
	return mark_write_as(fd, s, 0, NULL);
}

int mark_write_as(int fd, enum mark_state s, uint64_t token, const struct stat *given)
{
	char text[MARK_MAX];
	struct stat own;
	const struct stat *sb = given ? given : &own;
	int len;

	if (!mark_is_ours(s) || (!given && fstat(fd, &own)))
		return -EINVAL;
	len = snprintf(text, sizeof(text),
		       "ioplan-mark 2 state=%s token=%016" PRIx64 " dev=%u:%u ino=%" PRIu64 " size=%" PRIu64
		       " mtime=%lld.%09ld", state_names[s], token ? token : token_for(fd), major(sb->st_dev),
		       minor(sb->st_dev), (uint64_t)sb->st_ino, (uint64_t)sb->st_size,
		       (long long)sb->st_mtim.tv_sec, sb->st_mtim.tv_nsec);
	if (fsetxattr(fd, MARK_XATTR, text, (size_t)len, 0))
		return -errno;
	return 0;
}

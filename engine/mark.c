/*
 * engine/mark.c - writing and checking ioplan's file mark (mark.h).
 *
 * The mark is 48 bytes, little-endian:
 *
 *   "IOPM" | version 3 | state 'p'/'s'/'f' | 2 zero bytes | token | st_dev | st_ino | st_size | mtime ns
 *
 * (the last five 8 bytes each).  Binary because it must be small: ext4 keeps an
 * xattr inside a 256-byte inode only up to 64 bytes of value, and the text mark
 * of earlier versions (about 100 bytes) took a 4 KiB xattr block for every file,
 * a block of metadata fio does not write (1 000 files of 4 KiB used 8 028 KiB,
 * now 4 020 KiB as fio's).  Marks of version 2, one line of text,
 *
 *   ioplan-mark 2 state=<s> token=<16 hex> dev=<maj>:<min> ino=<n> size=<n> mtime=<s>.<ns>
 *
 * are still read (files laid out by an older ioplan stay its own), and a
 * re-stamp rewrites them as version 3 with the same token.
 *
 * The token is random per file and kept across re-stamps, so two files never
 * carry the same mark even when their inode numbers are reused.  A partial
 * mark binds device and inode only: the layout is still changing size and
 * mtime, and such a file is laid out again from its first byte anyway.
 */
#include "engine/mark.h"

#include <endian.h>
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
#define MARK_V3_LEN 48

static const char *const state_names[] = {
	[MARK_PARTIAL] = "partial",
	[MARK_SIZED] = "sized",
	[MARK_FILLED] = "filled",
};

static const char state_letters[] = {
	[MARK_PARTIAL] = 'p',
	[MARK_SIZED] = 's',
	[MARK_FILLED] = 'f',
};

struct mark {
	enum mark_state state;
	uint64_t token, ino, size;
	dev_t dev;
	int64_t sec;
	long nsec;
};

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static int parse_v3(const unsigned char *b, struct mark *m)
{
	int64_t ns;

	if (memcmp(b, "IOPM", 4) || b[4] != 3 || b[6] || b[7])
		return -EINVAL;
	for (int s = MARK_PARTIAL; s <= MARK_FILLED; s++)
		if (b[5] == (unsigned char)state_letters[s])
			m->state = (enum mark_state)s;
	if (!m->state)
		return -EINVAL;
	m->token = get64(b + 8);
	m->dev = (dev_t)get64(b + 16);
	m->ino = get64(b + 24);
	m->size = get64(b + 32);
	ns = (int64_t)get64(b + 40);
	m->sec = ns / 1000000000;
	m->nsec = (long)(ns % 1000000000);
	if (m->nsec < 0) {	/* before 1970: timespec's nsec is never negative */
		m->nsec += 1000000000;
		m->sec--;
	}
	return 0;
}

static int parse_v2(const char *text, struct mark *m)
{
	char state[16];
	unsigned maj, min;
	long long sec;

	if (sscanf(text, "ioplan-mark 2 state=%15s token=%16" SCNx64 " dev=%u:%u ino=%" SCNu64
		   " size=%" SCNu64 " mtime=%lld.%ld", state, &m->token, &maj, &min, &m->ino,
		   &m->size, &sec, &m->nsec) != 8)
		return -EINVAL;
	m->dev = makedev(maj, min);
	m->sec = sec;
	for (int s = MARK_PARTIAL; s <= MARK_FILLED; s++)
		if (!strcmp(state, state_names[s])) {
			m->state = (enum mark_state)s;
			return 0;
		}
	return -EINVAL;
}

/* The mark in the len bytes of value (NUL-terminated past them), either version. */
static int parse(const char *value, ssize_t len, struct mark *m)
{
	memset(m, 0, sizeof(*m));
	if (len == MARK_V3_LEN)
		return parse_v3((const unsigned char *)value, m);
	return parse_v2(value, m);
}

/* The verdict for a file whose stat is sb and whose xattr holds text (len bytes). */
static enum mark_state judge(const struct stat *sb, const char *text, ssize_t len, char *why, size_t n)
{
	struct mark m;

	if (len < 0)
		return MARK_NONE;
	if (parse(text, len, &m)) {
		snprintf(why, n, "its %s mark is not one this ioplan wrote (an older version, or edited)",
			 MARK_XATTR);
		return MARK_FOREIGN;
	}
	if (m.dev != sb->st_dev || m.ino != (uint64_t)sb->st_ino) {
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
		if (!parse(text, len, &m))
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
	unsigned char b[MARK_V3_LEN] = "IOPM";
	struct stat own;
	const struct stat *sb = given ? given : &own;

	if (!mark_is_ours(s) || (!given && fstat(fd, &own)))
		return -EINVAL;
	b[4] = 3;
	b[5] = (unsigned char)state_letters[s];
	put64(b + 8, token ? token : token_for(fd));
	put64(b + 16, (uint64_t)sb->st_dev);
	put64(b + 24, (uint64_t)sb->st_ino);
	put64(b + 32, (uint64_t)sb->st_size);
	put64(b + 40, (uint64_t)((int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec));
	if (fsetxattr(fd, MARK_XATTR, b, sizeof(b), 0))
		return -errno;
	return 0;
}

/*
 * parser/iolog/iolog_read.c - reading fio iologs (v2, v3) and blktrace binaries (iolog.h).
 *
 * Where fio 3.33 warns and skips (an unknown action, a line it cannot scan),
 * ioplan refuses the trace with the line at fault: a replay that silently
 * drops part of the production workload would measure something else.
 * Timing: v3 times are µs; v2 has none but its "wait" pauses; blktrace times
 * are ns.  Each I/O keeps the time since the trace's first I/O, never going
 * backwards (blktrace's per-CPU buffers interleave slightly out of order).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/iolog/iolog.h"

#define BT_MAGIC 0x65617400u
#define BT_REC 48u
#define BT_TA_QUEUE 1u
#define BT_TC(x) ((x) << 16)
#define BT_TC_WRITE BT_TC(1u << 1)
#define BT_TC_FLUSH BT_TC(1u << 2)
#define BT_TC_NOTIFY BT_TC(1u << 10)
#define BT_TC_DISCARD BT_TC(1u << 13)
#define LINE_MAX_TOKENS 6
/* Times are kept in ns in 64 bits; a later one would wrap round to an early one. */
#define TIME_US_MAX (UINT64_MAX / 1000u)
#define TIME_MAX_SAYS "584 years, the latest time a replay keeps"

static int fail(struct iolog_error *e, uint64_t where, bool record, const char *fmt, ...)
{
	va_list ap;

	e->where = where;
	e->record = record;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void iolog_trace_free(struct iolog_trace *t)
{
	for (uint32_t i = 0; i < t->nr_files; i++)
		free(t->files[i]);
	free(t->files);
	free(t->extent);
	free(t->first_src);
	free(t->ios);
	memset(t, 0, sizeof(*t));
}

static int find_file(const struct iolog_trace *t, const char *name)
{
	for (uint32_t i = 0; i < t->nr_files; i++)
		if (!strcmp(t->files[i], name))
			return (int)i;
	return -1;
}

static int add_file(struct iolog_trace *t, const char *name)
{
	int at = find_file(t, name);
	char **f;
	uint64_t *x;
	uint32_t *s;

	if (at >= 0)
		return at;
	if (t->nr_files >= 64)
		return -E2BIG;
	f = realloc(t->files, (t->nr_files + 1) * sizeof(*f));
	if (f)
		t->files = f;
	x = realloc(t->extent, (t->nr_files + 1) * sizeof(*x));
	if (x)
		t->extent = x;
	s = realloc(t->first_src, (t->nr_files + 1) * sizeof(*s));
	if (s)
		t->first_src = s;
	if (!f || !x || !s || !(f[t->nr_files] = strdup(name)))
		return -ENOMEM;
	x[t->nr_files] = 0;
	s[t->nr_files] = 0;
	return (int)t->nr_files++;
}

/* Appends one I/O after the replay options have had their say; 0 or -ENOMEM. */
static int push_io(struct iolog_trace *t, const struct iolog_opts *o, struct plan_replay_io io)
{
	if (o->skip & (1u << io.ddir))
		return 0;
	if (o->scale > 1)
		io.offset /= o->scale;
	if (o->align)
		io.offset -= io.offset % o->align;
	if (t->nr_ios && io.time_ns < t->ios[t->nr_ios - 1].time_ns)
		io.time_ns = t->ios[t->nr_ios - 1].time_ns;
	if (t->nr_ios == t->cap) {
		uint64_t cap = t->cap ? t->cap * 2 : 256;
		struct plan_replay_io *n = realloc(t->ios, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->ios = n;
		t->cap = cap;
	}
	t->ios[t->nr_ios++] = io;
	if (io.ddir < PLAN_DDIR_NR) {
		t->bytes[io.ddir] += io.len;
		if (io.offset + io.len > t->extent[io.file]) {
			t->extent[io.file] = io.offset + io.len;
			t->first_src[io.file] = io.source;
		}
	}
	return 0;
}

/* ---- text iologs ------------------------------------------------------------- */

static int io_action(const char *a)
{
	static const char *const names[] = { "read", "write", "trim", "sync", "datasync" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(a, names[i]))
			return i < 3 ? i : i == 3 ? (int)PLAN_REPLAY_SYNC : (int)PLAN_REPLAY_DATASYNC;
	return -1;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* Splits a line in place at blanks; the count of tokens, or LINE_MAX_TOKENS + 1 for too many. */
static int tokenize(char *line, char **tok)
{
	int n = 0;
	char *save = NULL;

	for (char *p = strtok_r(line, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save)) {
		if (n == LINE_MAX_TOKENS)
			return n + 1;
		tok[n++] = p;
	}
	return n;
}

struct text_state {
	struct iolog_trace *t;
	const struct iolog_opts *o;
	struct iolog_error *e;
	uint64_t line;
	uint64_t time_us;		/* v3: the line's time; v2: the sum of waits */
	uint64_t t0_us;
	bool have_t0;
	/* v3: fio appends each run's log after a header of its own, its times from 0
	 * again; that run follows the last line before it, as fio replays it. */
	uint64_t seg_first_us;		/* the appended run's own first time */
	uint64_t seg_base_us;		/* ... and where it starts in the trace */
	bool new_seg;
};

static int file_line(struct text_state *s, const char *name, const char *act)
{
	int f;

	if (strcmp(act, "add") && strcmp(act, "open") && strcmp(act, "close"))
		return fail(s->e, s->line, false, "unknown file action '%s' (add, open or close)", act);
	if (!strcmp(act, "add")) {
		f = add_file(s->t, s->o->redirect ? s->o->redirect : name);
		if (f == -E2BIG)
			return fail(s->e, s->line, false, "more than 64 files in one trace");
		return f < 0 ? f : 0;
	}
	if (!s->o->redirect && find_file(s->t, name) < 0)
		return fail(s->e, s->line, false, "file '%s' is used before an 'add' line", name);
	return 0;
}

static int io_line(struct text_state *s, char **tok, int ddir)
{
	struct plan_replay_io io = { 0 };
	uint64_t off, len;
	int f;

	if (!parse_u64(tok[2], &off) || !parse_u64(tok[3], &len))
		return fail(s->e, s->line, false, "offset and length must be unsigned integers, not '%s %s'",
			    tok[2], tok[3]);
	if (ddir < 0 && !strcmp(tok[1], "wait") && s->t->version == 2) {
		if (off > TIME_US_MAX - s->time_us)
			return fail(s->e, s->line, false, "a wait of %s µs takes the trace past %s",
				    tok[2], TIME_MAX_SAYS);
		s->time_us += off;
		return 0;
	}
	if (ddir < 0)
		return fail(s->e, s->line, false,
			    "unknown action '%s' (read, write, trim, sync, datasync%s)", tok[1],
			    s->t->version == 2 ? ", wait" : "");
	if (len > UINT32_MAX || off > UINT64_MAX - len)
		return fail(s->e, s->line, false, "length %llu at offset %llu is out of range",
			    (unsigned long long)len, (unsigned long long)off);
	/* Nothing to move: replayed, it would be counted as an I/O (a write of it
	 * made the job look read-only); fio 3.33 drops the whole replay. */
	if (!len && ddir < (int)PLAN_REPLAY_SYNC)
		return fail(s->e, s->line, false, "a %s of 0 bytes at offset %llu (a read, write or trim moves at least one)",
			    tok[1], (unsigned long long)off);
	f = find_file(s->t, s->o->redirect ? s->o->redirect : tok[0]);
	if (f < 0)
		return fail(s->e, s->line, false, "file '%s' is used before an 'add' line", tok[0]);
	if (!s->have_t0) {
		s->t0_us = s->time_us;
		s->have_t0 = true;
	}
	io.time_ns = (s->time_us >= s->t0_us ? s->time_us - s->t0_us : 0) * 1000u;
	io.offset = off;
	io.len = ddir >= (int)PLAN_REPLAY_SYNC ? 0 : (uint32_t)len;
	io.file = (uint32_t)f;
	io.source = (uint32_t)s->line;
	io.ddir = (uint8_t)ddir;
	return push_io(s->t, s->o, io);
}

/* A header after the first: another run's log appended, of the same version. */
static int appended_header(struct text_state *s, const char *line)
{
	if (strcmp(line, s->t->version == 3 ? "fio version 3 iolog" : "fio version 2 iolog"))
		return fail(s->e, s->line, false, "'%.40s' in a version %d iolog (fio appends only its own version)",
			    line, s->t->version);
	s->new_seg = true;
	return 0;
}

/* A v3 line's time, as the time in the whole trace; 0 or -EINVAL. */
static int line_time(struct text_state *s, const char *tok)
{
	uint64_t us;

	if (!parse_u64(tok, &us))
		return fail(s->e, s->line, false, "a version 3 line starts with its time in microseconds, not '%s'",
			    tok);
	if (s->new_seg) {
		s->seg_first_us = us;
		s->seg_base_us = s->time_us;
		s->new_seg = false;
	}
	/* Within a run a time a little before the last is an interleaving (clones share the log):
	 * push_io keeps it at the last one's time. */
	us = us > s->seg_first_us ? us - s->seg_first_us : 0;
	if (us > TIME_US_MAX - s->seg_base_us)
		return fail(s->e, s->line, false, "time %s µs is past %s", tok, TIME_MAX_SAYS);
	s->time_us = s->seg_base_us + us;
	return 0;
}

/* One line after the header; blank lines are skipped. */
static int text_line(struct text_state *s, char *line)
{
	char *tok[LINE_MAX_TOKENS];
	int n, lead = s->t->version == 3;

	if (!strncmp(line, "fio version ", 12))
		return appended_header(s, line);
	n = tokenize(line, tok);
	if (!n)
		return 0;
	if (lead && line_time(s, tok[0]))
		return -EINVAL;
	if (n == 2 + lead)
		return file_line(s, tok[lead], tok[lead + 1]);
	if (n == 4 + lead)
		return io_line(s, tok + lead, io_action(tok[lead + 1]));
	return fail(s->e, s->line, false, "expected '%sFILE ACTION [OFFSET LENGTH]', got %d field%s",
		    lead ? "TIME " : "", n, n == 1 ? "" : "s");
}

static int parse_text(const char *buf, size_t len, const struct iolog_opts *o,
		      struct iolog_trace *t, struct iolog_error *e)
{
	struct text_state s = { .t = t, .o = o, .e = e };
	/* A trace saved by a Windows editor: its byte-order mark and CRs are no part of the
	 * lines (fio reads CRLF lines; job files take both too). */
	size_t pos = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
	char line[4200];
	int ret = 0;

	while (pos < len && !ret) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos, used = n;

		s.line++;
		if (n && buf[pos + n - 1] == '\r')
			used--;
		if (used >= sizeof(line))
			return fail(e, s.line, false, "line longer than %zu bytes", sizeof(line) - 1);
		if (memchr(buf + pos, '\0', used))
			return fail(e, s.line, false, "a NUL byte in a text iolog");
		memcpy(line, buf + pos, used);
		line[used] = '\0';
		if (s.line == 1) {
			if (strcmp(line, "fio version 2 iolog") && strcmp(line, "fio version 3 iolog"))
				return fail(e, 1, false, "not a fio iolog (version 2 or 3) or blktrace file");
			t->version = line[12] - '0';
		} else {
			ret = text_line(&s, line);
		}
		pos += n + 1;
	}
	return ret;
}

/* ---- blktrace binaries ------------------------------------------------------- */

static uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const uint8_t *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static uint16_t rd16(const uint8_t *p, bool swap)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static void bt_decode(const uint8_t *p, bool swap, struct iolog_bt_rec *r)
{
	r->magic = rd32(p, swap);
	r->sequence = rd32(p + 4, swap);
	r->time = rd64(p + 8, swap);
	r->sector = rd64(p + 16, swap);
	r->bytes = rd32(p + 24, swap);
	r->action = rd32(p + 28, swap);
	r->pid = rd32(p + 32, swap);
	r->device = rd32(p + 36, swap);
	r->cpu = rd32(p + 40, swap);
	r->error = rd16(p + 44, swap);
	r->pdu_len = rd16(p + 46, swap);
}

bool iolog_is_blktrace(const uint8_t *buf, size_t len)
{
	return len >= 4 && ((rd32(buf, false) & 0xffffff00u) == BT_MAGIC ||
			    (rd32(buf, true) & 0xffffff00u) == BT_MAGIC);
}

static int bt_file(struct iolog_trace *t, const struct iolog_opts *o, uint32_t dev)
{
	char name[48];

	if (o->redirect)
		return add_file(t, o->redirect);
	/* The kernel's dev_t as blktrace records it: major in the top 12 bits. */
	snprintf(name, sizeof(name), "/dev/block/%u:%u", dev >> 20, dev & 0xfffffu);
	return add_file(t, name);
}

/* One queue event: an I/O (read, write, trim) or a flush; other events say nothing. */
static int bt_queue(struct iolog_trace *t, const struct iolog_opts *o, const struct iolog_bt_rec *r,
		    uint64_t rec, uint64_t *t0, struct iolog_error *e)
{
	struct plan_replay_io io = { 0 };
	int f;

	if ((r->action & 0xffffu) != BT_TA_QUEUE || (r->action & BT_TC_NOTIFY))
		return 0;
	if (r->action & BT_TC_DISCARD)
		io.ddir = PLAN_DDIR_TRIM;
	else if (r->action & BT_TC_FLUSH)
		io.ddir = PLAN_REPLAY_SYNC;
	else if (!r->bytes)
		return 0;	/* fio ignores zero-byte I/Os too */
	else
		io.ddir = (r->action & BT_TC_WRITE) ? PLAN_DDIR_WRITE : PLAN_DDIR_READ;
	if (r->sector > (UINT64_MAX - r->bytes) / 512)
		return fail(e, rec, true, "sector %llu is out of range", (unsigned long long)r->sector);
	f = bt_file(t, o, r->device);
	if (f == -E2BIG)
		return fail(e, rec, true, "more than 64 devices in one trace");
	if (f < 0)
		return f;
	if (*t0 == UINT64_MAX)
		*t0 = r->time;
	io.time_ns = r->time > *t0 ? r->time - *t0 : 0;
	io.offset = r->sector * 512u;
	io.len = io.ddir == PLAN_REPLAY_SYNC ? 0 : r->bytes;
	io.file = (uint32_t)f;
	io.source = (uint32_t)rec;
	return push_io(t, o, io);
}

bool iolog_bt_swapped(const uint8_t *buf)
{
	return (rd32(buf, false) & 0xffffff00u) != BT_MAGIC;
}

int iolog_bt_record(const uint8_t *buf, size_t len, size_t pos, bool swap, uint64_t rec,
		    struct iolog_bt_rec *r, struct iolog_error *e)
{
	if (len - pos < BT_REC)
		return fail(e, rec, true, "truncated: %zu of %u bytes at byte %zu", len - pos, BT_REC, pos);
	bt_decode(buf + pos, swap, r);
	if ((r->magic & 0xffffff00u) != BT_MAGIC)
		return fail(e, rec, true, "wrong magic 0x%08x at byte %zu (not a blktrace record)", r->magic, pos);
	if ((r->magic & 0xffu) != 0x07)
		return fail(e, rec, true, "blktrace version %u is not supported (7 is)", r->magic & 0xffu);
	if (r->pdu_len > len - pos - BT_REC)
		return fail(e, rec, true, "truncated: its %u-byte payload runs past the end", r->pdu_len);
	return 0;
}

static int parse_blktrace(const uint8_t *buf, size_t len, const struct iolog_opts *o,
			  struct iolog_trace *t, struct iolog_error *e)
{
	bool swap = iolog_bt_swapped(buf);
	uint64_t rec = 0, t0 = UINT64_MAX;
	size_t pos = 0;
	struct iolog_bt_rec r;
	int ret = 0;

	t->version = 0;
	while (pos < len && !ret) {
		ret = iolog_bt_record(buf, len, pos, swap, ++rec, &r, e);
		if (ret)
			return ret;
		ret = bt_queue(t, o, &r, rec, &t0, e);
		pos += BT_REC + r.pdu_len;
	}
	return ret;
}

int iolog_parse(const uint8_t *buf, size_t len, const struct iolog_opts *o,
		struct iolog_trace *t, struct iolog_error *e)
{
	int ret;

	memset(t, 0, sizeof(*t));
	memset(e, 0, sizeof(*e));
	if (!len)
		return fail(e, 0, false, "empty trace");
	if (iolog_is_blktrace(buf, len))
		ret = parse_blktrace(buf, len, o, t, e);
	else
		ret = parse_text((const char *)buf, len, o, t, e);
	if (!ret && !t->nr_ios)
		return fail(e, 0, t->version == 0, "the trace holds no I/O to replay");
	return ret;
}

/*
 * engine/logs/log_writer.c - the thread that writes fio's log files during the run.
 *
 * Clones hand full chunks of entries over (log_writer_swap); this thread turns them
 * into fio's text lines and writes them, so the I/O loop never formats or
 * writes.  A failed open or write marks that file failed (its later chunks are
 * dropped, nothing else is) and is returned by log_writer_stop with the file's
 * path, so the run's results are still reported and the exit status says a log is
 * incomplete; so is a file removed during the run, which took its lines with it.
 *
 * A log_store_compressed file gets fio's binary samples instead of text,
 * deflated with Debian's zlib into one stream per log_compression bytes of
 * samples: fio's own --inflate-log reads the streams one after another.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "engine/cpus.h"
#include "engine/logs/logs.h"
#include "engine/safety/safety.h"

#define WRITE_BUF 65536u

struct log_file {
	struct log_file *next;
	char *path;
	int fd;				/* -1 once failed */
	int err;			/* first error, positive errno */
	bool offset, prio_hex;
	bool replaced;			/* truncated at open: marked as ioplan's once written */
	bool said;			/* its path's failure was said (another file of the path) */
	bool cut;			/* a write failed: the file ends at its last whole line (stream) */
	char *why;			/* the open's refusal in words (safety_open_output), or NULL */
	unsigned char *gz;		/* log_store_compressed: samples not yet deflated */
	size_t gz_len, gz_cap;
};

struct log_writer {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t work;		/* chunks queued, or stop */
	pthread_cond_t room;		/* the queue shrank */
	struct log_chunk *head, *tail, *spare;
	uint32_t queued;
	bool stop;
	struct log_file *files;
	char buf[WRITE_BUF];
};

/* The formatting of a line is inlined whole: called per entry, the calls were a fifth of it. */
#define LINE_INLINE static inline __attribute__((always_inline))

/*
 * How many decimal digits v has: from its bit length, one compare to settle
 * it.  Counting by division took a dependent multiply per digit, which was
 * the writer's largest cost once per-I/O logs made the writer the limit.
 */
LINE_INLINE size_t digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull
	};
	/* log10(2) ~ 1233/4096: n is the digit count, or one fewer (at most 19). */
	size_t n = (size_t)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return n + (v >= pow10[n]) + (v == 0);
}

/*
 * Decimal digits of v at p: its length.  Two digits per division, since the
 * writer formats every entry of a per-I/O log and this is most of its time.
 */
LINE_INLINE size_t put_u64(char *p, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	size_t n = digits(v);
	char *q;

	q = p + n;
	while (v >= 100) {
		q -= 2;
		q[0] = pairs[(v % 100) * 2];
		q[1] = pairs[(v % 100) * 2 + 1];
		v /= 100;
	}
	if (v >= 10) {
		q[-2] = pairs[v * 2];
		q[-1] = pairs[v * 2 + 1];
	} else {
		q[-1] = (char)('0' + v);
	}
	return n;
}

LINE_INLINE size_t put_sep(char *p, uint64_t v)
{
	size_t n = put_u64(p, v);

	p[n] = ',';
	p[n + 1] = ' ';
	return n + 2;
}

/*
 * A number's text kept from the entry before: consecutive entries mostly share
 * their time and block size, so those are copied (a fixed 24 bytes, the
 * buffer has room past the line) rather than formatted again.
 */
struct num_cache {
	uint64_t v;
	size_t n;			/* 0 = empty */
	char s[24];
};

LINE_INLINE size_t put_cached(char *p, uint64_t v, struct num_cache *c)
{
	if (!c)
		return put_sep(p, v);
	if (!c->n || c->v != v) {
		c->v = v;
		c->n = put_sep(c->s, v);
	}
	memcpy(p, c->s, sizeof(c->s));
	return c->n;
}

LINE_INLINE size_t format_line(char *buf, const struct log_entry *e, bool offset, bool prio_hex,
			  struct num_cache cache[2])
{
	size_t n = 0;

	n += put_cached(buf + n, e->t_ms, cache ? &cache[0] : NULL);
	n += put_sep(buf + n, e->value);
	buf[n] = (char)('0' + log_entry_ddir(e));
	buf[n + 1] = ',';
	buf[n + 2] = ' ';
	n += 3;
	n += put_cached(buf + n, log_entry_bs(e), cache ? &cache[1] : NULL);
	if (offset)
		n += put_sep(buf + n, e->offset);
	/* The priority column: log_prio's ioprio value, else 1 for the real-time class (fio's). */
	if (prio_hex) {
		static const char hex[] = "0123456789abcdef";
		uint16_t ioprio = log_entry_ioprio(e);

		memcpy(buf + n, "0x", 2);
		for (int i = 0; i < 4; i++)
			buf[n + 2 + i] = hex[(ioprio >> (12 - 4 * i)) & 0xf];
		n += 6;
	} else {
		buf[n++] = (log_entry_ioprio(e) >> PLAN_IOPRIO_CLASS_SHIFT) == 1 ? '1' : '0';
	}
	buf[n++] = '\n';
	return n;
}

size_t log_format(char *buf, const struct log_entry *e, bool offset, bool prio_hex)
{
	return format_line(buf, e, offset, prio_hex, NULL);
}

static void file_fail(struct log_file *f, int err)
{
	if (!f->err)
		f->err = err;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/*
 * A write failed and f was cut back to a whole entry: it stays ioplan's own, so
 * the run after the disk is freed may replace it (unmarked, it was refused as
 * a user's file).
 */
static void file_cut(struct log_file *f, int err)
{
	f->cut = true;
	if (f->replaced)
		(void)safety_mark_output(f->fd);
	file_fail(f, err);
}

static void file_write(struct log_file *f, const char *p, size_t n)
{
	int ret = f->fd >= 0 ? safety_write_whole(f->fd, p, n) : 0;

	if (ret)
		file_cut(f, -ret);
}

size_t log_sample(unsigned char *p, const struct log_entry *e, bool offset, bool prio_hex)
{
	uint64_t t = e->t_ms, v = e->value, bs = log_entry_bs(e);
	uint16_t ioprio = log_entry_ioprio(e);
	uint32_t ddir = log_entry_ddir(e) | (offset ? LOG_SAMPLE_OFFSET_BIT : 0) | (prio_hex ? LOG_SAMPLE_PRIO_BIT : 0);

	/* struct io_sample on fio's 64-bit Linux builds: the priority is the 16 bits after ddir. */
	memset(p, 0, LOG_SAMPLE_BYTES);
	memcpy(p, &t, 8);
	memcpy(p + 8, &v, 8);
	memcpy(p + 16, &ddir, 4);
	memcpy(p + 20, &ioprio, 2);
	memcpy(p + 24, &bs, 8);
	if (!offset)
		return LOG_SAMPLE_BYTES;
	memcpy(p + 32, &e->offset, 8);
	return LOG_SAMPLE_OFFSET_BYTES;
}

/* Deflates the pending samples as one zlib stream and writes it. */
static void gz_flush(struct log_writer *lw, struct log_file *f)
{
	z_stream zs;
	int ret;

	if (!f->gz_len || f->fd < 0)
		return;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, Z_DEFAULT_COMPRESSION) != Z_OK) {
		file_fail(f, ENOMEM);
		return;
	}
	zs.next_in = f->gz;
	zs.avail_in = (uInt)f->gz_len;
	do {
		zs.next_out = (Bytef *)lw->buf;
		zs.avail_out = WRITE_BUF;
		ret = deflate(&zs, Z_FINISH);
		size_t n = WRITE_BUF - zs.avail_out;
		int w = safety_write_whole(f->fd, lw->buf, n);

		if (w) {
			/* The stream's earlier pieces go too: an inflate stops at a cut stream. */
			safety_cut_back(f->fd, (size_t)zs.total_out - n);
			file_cut(f, -w);
			break;
		}
	} while (ret == Z_OK);
	deflateEnd(&zs);
	if (ret != Z_STREAM_END)
		file_fail(f, EIO);
	f->gz_len = 0;
}

/* Entry i of c; of a chunk of records, the line it makes in the log of kind k. */
LINE_INLINE struct log_entry chunk_entry(const struct log_chunk *c, uint32_t i, enum log_kind k)
{
	const struct log_rec *r = &c->r[i];

	if (!c->recs)
		return c->e[i];
	return (struct log_entry){ r->t_ms, log_rec_value(r, k), r->offset, r->io };
}

static void write_chunk_gz(struct log_writer *lw, const struct log_chunk *c, struct log_file *f,
			   enum log_kind k)
{
	for (uint32_t i = 0; i < c->nr && f->fd >= 0; i++) {
		struct log_entry e = chunk_entry(c, i, k);

		if (f->gz_len + LOG_SAMPLE_OFFSET_BYTES > f->gz_cap)
			gz_flush(lw, f);
		f->gz_len += log_sample(f->gz + f->gz_len, &e, f->offset, f->prio_hex);
	}
}

/* c's lines in f: its entries, or the lines of kind k its records make. */
static void write_lines(struct log_writer *lw, const struct log_chunk *c, struct log_file *f,
			enum log_kind k)
{
	struct num_cache cache[2] = { { 0, 0, { 0 } }, { 0, 0, { 0 } } };
	size_t n = 0;

	if (f->gz) {
		write_chunk_gz(lw, c, f, k);
		return;
	}
	for (uint32_t i = 0; i < c->nr && f->fd >= 0; i++) {
		struct log_entry e = chunk_entry(c, i, k);

		n += format_line(lw->buf + n, &e, f->offset, f->prio_hex, cache);
		if (n > WRITE_BUF - 128) {
			file_write(f, lw->buf, n);
			n = 0;
		}
	}
	if (n)
		file_write(f, lw->buf, n);
}

static void write_chunk(struct log_writer *lw, const struct log_chunk *c)
{
	if (c->raw) {
		file_write(c->file, (const char *)c->e, c->nr);
		return;
	}
	if (!c->recs) {
		write_lines(lw, c, c->file, LOG_KIND_NR);
		return;
	}
	for (int k = 0; k < LOG_REC_KINDS; k++)
		if (c->fan[k])
			write_lines(lw, c, c->fan[k], (enum log_kind)k);
}

/* Takes the whole queue, writes it unlocked, returns the chunks as spares. */
static void drain(struct log_writer *lw)
{
	struct log_chunk *c = lw->head, *last = NULL;

	lw->head = lw->tail = NULL;
	lw->queued = 0;
	pthread_cond_broadcast(&lw->room);
	pthread_mutex_unlock(&lw->mu);
	for (struct log_chunk *p = c; p; p = p->next) {
		write_chunk(lw, p);
		last = p;
	}
	pthread_mutex_lock(&lw->mu);
	if (last) {
		last->next = lw->spare;
		lw->spare = c;
	}
}

static void *writer_main(void *arg)
{
	struct log_writer *lw = arg;

	pthread_mutex_lock(&lw->mu);
	for (;;) {
		while (!lw->head && !lw->stop)
			pthread_cond_wait(&lw->work, &lw->mu);
		if (!lw->head)
			break;
		drain(lw);
	}
	pthread_mutex_unlock(&lw->mu);
	return NULL;
}

int log_writer_start(struct log_writer **out, const struct plan_cpus *cpus)
{
	struct log_writer *lw = calloc(1, sizeof(*lw));
	int ret;

	*out = NULL;
	if (!lw)
		return -ENOMEM;
	pthread_mutex_init(&lw->mu, NULL);
	pthread_cond_init(&lw->work, NULL);
	pthread_cond_init(&lw->room, NULL);
	if ((ret = pthread_create(&lw->tid, NULL, writer_main, lw))) {
		free(lw);
		return -ret;
	}
	*out = lw;
	pthread_setname_np(lw->tid, "ioplan-logs");	/* top -H and /proc name it */
	/* A pin that fails is the run's error, as a worker's: never silently unpinned. */
	return cpus_pin(lw->tid, cpus, false, 0);
}

static struct log_file *file_new(const char *path, bool append, bool offset, bool prio_hex)
{
	struct log_file *f = calloc(1, sizeof(*f));
	char why[512] = "";

	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->offset = offset;
	f->prio_hex = prio_hex;
	/* The open judges it again: a user's file that took the name since the preflight is kept. */
	f->replaced = !append;
	f->fd = safety_open_output(&safety_system, path, append ? O_APPEND : O_TRUNC,
				   SAFETY_OUT_DERIVED | SAFETY_OUT_JUDGED | (append ? 0 : SAFETY_OUT_REPLACES),
				   why, sizeof(why));
	if (f->fd < 0) {
		f->err = -f->fd;
		f->why = *why ? strdup(why) : NULL;	/* a planted link on its way: said by name */
	}
	return f;
}

/*
 * One per path and columns: jobs sharing a per_job_logs=0 file may differ in
 * log_offset or log_prio, and fio writes each thread's lines with its own
 * (and each thread's compressed streams of its own samples, which fio's
 * --inflate-log reads with the first sample's columns).
 */
struct log_file *log_writer_file(struct log_writer *lw, const char *path, bool append,
				 bool offset, bool prio_hex)
{
	struct log_file *f;

	pthread_mutex_lock(&lw->mu);
	for (f = lw->files; f && (strcmp(f->path, path) || f->offset != offset || f->prio_hex != prio_hex);
	     f = f->next)
		;
	if (!f && (f = file_new(path, append, offset, prio_hex))) {
		struct log_file **end = &lw->files;

		while (*end)
			end = &(*end)->next;
		*end = f;
	}
	pthread_mutex_unlock(&lw->mu);
	return f;
}

void log_writer_file_gz(struct log_file *f, uint32_t chunk_bytes)
{
	size_t cap = chunk_bytes ? chunk_bytes : 1u << 20;

	if (f->gz || f->fd < 0)
		return;
	/* Room for at least one sample; fio deflates its log once it holds chunk_bytes. */
	if (cap < LOG_SAMPLE_OFFSET_BYTES)
		cap = LOG_SAMPLE_OFFSET_BYTES;
	f->gz = malloc(cap);
	if (!f->gz)
		file_fail(f, ENOMEM);
	f->gz_cap = cap;
}

struct log_chunk *log_writer_swap(struct log_writer *lw, struct log_chunk *full)
{
	struct log_chunk *c;

	pthread_mutex_lock(&lw->mu);
	if (full && full->nr) {
		while (lw->queued >= LOG_QUEUE_MAX)
			pthread_cond_wait(&lw->room, &lw->mu);
		full->next = NULL;
		if (lw->tail)
			lw->tail->next = full;
		else
			lw->head = full;
		lw->tail = full;
		lw->queued++;
		pthread_cond_signal(&lw->work);
		full = NULL;
	}
	c = full ? full : lw->spare;
	if (c == lw->spare && c)
		lw->spare = c->next;
	pthread_mutex_unlock(&lw->mu);
	if (!c)
		c = malloc(sizeof(*c));
	if (c) {
		c->nr = 0;
		c->raw = false;
		c->recs = false;
		c->next = NULL;
	}
	return c;
}

/* f's failure said: a later file of its path (other columns) says nothing more of it. */
static void said_of_path(struct log_file *f)
{
	for (struct log_file *g = f->next; g; g = g->next)
		if (!strcmp(g->path, f->path))
			g->said = true;
}

int log_writer_stop(struct log_writer *lw, log_writer_fail_fn fail, void *arg)
{
	int ret = 0;

	if (!lw)
		return 0;
	pthread_mutex_lock(&lw->mu);
	lw->stop = true;
	pthread_cond_signal(&lw->work);
	pthread_mutex_unlock(&lw->mu);
	pthread_join(lw->tid, NULL);
	while (lw->files) {
		struct log_file *f = lw->files;

		gz_flush(lw, f);
		free(f->gz);
		bool removed = !f->err && safety_output_removed(f->fd);

		if (f->fd >= 0 && f->replaced && !f->err && !removed)
			safety_mark_output(f->fd);	/* so that the job can run here again */
		if (f->fd >= 0 && close(f->fd) && !f->err)
			f->err = errno;
		if (removed && !f->err)
			f->err = ENOENT;
		if (f->err && !ret)
			ret = -f->err;
		if (f->err && !f->said) {
			fail(arg, f->path, f->err, removed ? LOG_FAIL_REMOVED : f->cut ? LOG_FAIL_WRITE : LOG_FAIL_OPEN,
			     f->why ? f->why : "");
			said_of_path(f);
		}
		lw->files = f->next;
		free(f->why);
		free(f->path);
		free(f);
	}
	while (lw->spare) {
		struct log_chunk *c = lw->spare;

		lw->spare = c->next;
		free(c);
	}
	pthread_cond_destroy(&lw->room);
	pthread_cond_destroy(&lw->work);
	pthread_mutex_destroy(&lw->mu);
	free(lw);
	return ret;
}

/*
 * parser/iolog/iolog_merge.c - several blktrace files merged into one (fio's merge_blktrace_file).
 *
 * Why: replaying traces of several servers in concurrent jobs lets the
 * scheduler decide their interleaving; one merged trace fixes the order of
 * every event.  As fio's blktrace.c merge_blktrace_iologs: only queue events
 * of reads, writes and discards are kept, each written as its 48-byte header
 * in host byte order without its payload (pdu_len 0); each source's times are
 * scaled by its merge_blktrace_scalars percentage and the source is repeated
 * merge_blktrace_iters times; the next record out is the earliest of the
 * sources' next records (the lowest source on a tie; a finished source's
 * place is taken by the last one, as fio's cursor array does).
 *
 * Where fio's code differs from its documentation, this follows the
 * documentation (man COMPATIBILITY): iteration k of a source starts where
 * iteration k-1 ended (time + k * the last I/O's unscaled time, then scaled),
 * and no record is written twice.  fio 3.33 itself writes an empty merged file
 * (its reader fills a pointer instead of the record and fails with "iolog short
 * read"; fixed upstream after 3.33).  No packaged library reads blktrace
 * binaries, so this is written here, on iolog_read.c's record decoder.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/iolog/iolog.h"

#define BT_REC 48u
#define BT_TA_QUEUE 1u
#define BT_TC_IO (((1u << 0) | (1u << 1) | (1u << 13)) << 16)	/* read, write, discard */

struct cursor {
	const struct iolog_merge_src *s;
	uint32_t src;			/* index given by the caller, for errors */
	bool swap;
	size_t pos;
	uint64_t rec;			/* 1-based record number of the last one read */
	int32_t iter;
	uint64_t length;		/* unscaled time of the source's last I/O */
	uint64_t nr_io;			/* I/O records seen in the first iteration */
	struct iolog_bt_rec t;		/* the next record out, time already scaled */
};

static int bad(struct iolog_error *e, uint64_t where, const char *msg)
{
	e->where = where;
	e->record = where != 0;
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	return -EINVAL;
}

/* The next I/O record of the current iteration: 1, 0 at its end, or -EINVAL. */
static int cursor_scan(struct cursor *c, struct iolog_error *e)
{
	while (c->pos < c->s->len) {
		int ret = iolog_bt_record(c->s->buf, c->s->len, c->pos, c->swap, ++c->rec, &c->t, e);

		if (ret)
			return ret;
		c->pos += BT_REC + c->t.pdu_len;
		if ((c->t.action & 0xffffu) == BT_TA_QUEUE && (c->t.action & BT_TC_IO))
			return 1;
	}
	return 0;
}

/* Moves c to its next record to write: 1, 0 when every iteration is done, or -EINVAL. */
static int cursor_next(struct cursor *c, struct iolog_error *e)
{
	unsigned __int128 t;
	int ret;

	while (!(ret = cursor_scan(c, e))) {
		if (!c->nr_io)
			return bad(e, 0, "the trace holds no read, write or discard to merge");
		if (++c->iter >= c->s->iters)
			return 0;
		c->pos = 0;
		c->rec = 0;
	}
	if (ret < 0)
		return ret;
	if (!c->iter) {
		c->nr_io++;
		c->length = c->t.time;
	}
	t = ((unsigned __int128)c->t.time + (unsigned __int128)c->iter * c->length) *
	    (uint32_t)c->s->scalar_pct / 100;
	if (t > UINT64_MAX)
		return bad(e, c->rec, "its scaled time does not fit in 64 bits");
	c->t.time = (uint64_t)t;
	return 1;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

/* The record in host order, without its payload (fio's write_trace). */
static void encode(uint8_t *p, const struct iolog_bt_rec *r)
{
	put32(p, r->magic);
	put32(p + 4, r->sequence);
	put64(p + 8, r->time);
	put64(p + 16, r->sector);
	put32(p + 24, r->bytes);
	put32(p + 28, r->action);
	put32(p + 32, r->pid);
	put32(p + 36, r->device);
	put32(p + 40, r->cpu);
	put16(p + 44, r->error);
	put16(p + 46, 0);
}

static int emit(uint8_t **out, size_t *len, size_t *cap, const struct iolog_bt_rec *r)
{
	if (*len + BT_REC > *cap) {
		size_t ncap = *cap ? *cap * 2 : 64 * BT_REC;
		uint8_t *n = realloc(*out, ncap);

		if (!n)
			return -ENOMEM;
		*out = n;
		*cap = ncap;
	}
	encode(*out + *len, r);
	*len += BT_REC;
	return 0;
}

/* fio's find_earliest_io: the first cursor holding the smallest time. */
static uint32_t earliest(const struct cursor *c, uint32_t n)
{
	uint32_t best = 0;

	for (uint32_t i = 1; i < n; i++)
		if (c[i].t.time < c[best].t.time)
			best = i;
	return best;
}

static int merge_all(struct cursor *c, uint32_t n, uint8_t **out, size_t *len, uint32_t *bad_src,
		     struct iolog_error *e)
{
	size_t cap = 0;
	int ret = 0;

	while (n && ret >= 0) {
		uint32_t i = earliest(c, n);

		ret = emit(out, len, &cap, &c[i].t);
		if (!ret)
			ret = cursor_next(&c[i], e);
		if (ret < 0)
			*bad_src = c[i].src;
		else if (!ret)
			c[i] = c[--n];	/* fio's merge_finish_file keeps the live cursors contiguous */
	}
	return ret < 0 ? ret : 0;
}

int iolog_merge(const struct iolog_merge_src *src, uint32_t n, uint8_t **out, size_t *out_len,
		uint32_t *bad_src, struct iolog_error *e)
{
	struct cursor *c = calloc(n ? n : 1, sizeof(*c));
	int ret = 0;

	memset(e, 0, sizeof(*e));
	*out = NULL;
	*out_len = 0;
	if (!c)
		return -ENOMEM;
	for (uint32_t i = 0; i < n && !ret; i++) {
		c[i] = (struct cursor){ .s = &src[i], .src = i };
		*bad_src = i;
		if (!iolog_is_blktrace(src[i].buf, src[i].len))
			ret = bad(e, 0, "not a blktrace file (merge_blktrace_file merges blktrace binaries)");
		else if (src[i].scalar_pct <= 0 || src[i].iters <= 0)
			ret = bad(e, 0, "its merge_blktrace_scalars and merge_blktrace_iters must be positive");
		else
			c[i].swap = iolog_bt_swapped(src[i].buf);
		if (!ret && cursor_next(&c[i], e) <= 0)
			ret = -EINVAL;	/* a source with no I/O at all is refused in cursor_next */
	}
	if (!ret)
		ret = merge_all(c, n, out, out_len, bad_src, e);
	free(c);
	if (ret) {
		free(*out);
		*out = NULL;
		*out_len = 0;
	}
	return ret;
}

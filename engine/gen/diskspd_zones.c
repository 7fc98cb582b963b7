/*
 * engine/gen/diskspd_zones.c - DISKSPD's effective distribution of -rdpct/-rdabs
 * ranges over a region, and its draw of an offset from it (diskspd_zones.h says
 * the rules and where this differs from DISKSPD's failures).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "engine/gen/diskspd_zones.h"
#include "engine/gen/rng.h"

/* Draws of one range before its start is taken: a drawn -rdabs I/O past the region's end is rare. */
#define DZ_TRIES 64

static void push(struct res_zones *out, uint32_t io_first, uint32_t io_pct, uint64_t offset, uint64_t bytes)
{
	struct res_zone *z = &out->zone[out->nr++];

	z->io_first = io_first;
	z->io_pct = io_pct;
	z->offset = offset;
	z->bytes = bytes;
}

/* -rdpct's walk: the ranges placed so far, and the I/O of ranges that had no aligned offset. */
struct pct_walk {
	struct res_zones *out;
	uint64_t aligned;		/* DISKSPD's aligned size: one past the last offset */
	uint64_t align;
	uint32_t carry;
};

/*
 * A range placed at b starts where the previous one starts (which had no length,
 * or one unit): the previous one grows by a unit and this one starts after it.
 * True when nothing is left of this one (its I/O went to a neighbour).
 */
static bool bump_past_previous(struct pct_walk *w, struct res_zone *prev, uint64_t *b, uint64_t e, uint32_t io)
{
	*b += w->align;
	prev->bytes += w->align;
	if (*b == w->aligned) {
		w->carry += io;	/* nothing left at the end: to the last range, extended */
		return true;
	}
	if (*b == e) {
		prev->io_pct += io;
		return true;
	}
	return false;
}

/* One -rdpct range: io percent of the I/O (shares from io_first) to [first, first + span) percent. */
static void pct_place(struct pct_walk *w, uint32_t io_first, uint32_t io, uint64_t first, uint64_t span)
{
	struct res_zone *prev = w->out->nr ? &w->out->zone[w->out->nr - 1] : NULL;
	uint64_t b = first * w->aligned / 100;
	uint64_t e = first + span == 100 ? w->aligned : b + span * w->aligned / 100;

	e -= e % w->align;
	if (e < b) {	/* no aligned offset inside: its I/O goes to a neighbour */
		if (prev && prev->offset == e)
			prev->io_pct += io;
		else
			w->carry += io;
		return;
	}
	b -= b % w->align;
	if (b < e && prev && prev->offset == b && bump_past_previous(w, prev, &b, e, io))
		return;
	/* carried I/O goes to the smaller of the previous range and this one */
	if (w->carry && prev && prev->io_pct < io) {
		prev->io_pct += w->carry;
		w->carry = 0;
	}
	push(w->out, io_first - w->carry, io + w->carry, b, e - b);
	w->carry = 0;
}

static int pct_ranges(const struct plan_job *j, uint64_t aligned, uint64_t align, struct res_zones *out)
{
	struct pct_walk w = { out, aligned, align, 0 };
	uint32_t io_first = 0;
	uint64_t first = 0;

	for (uint32_t i = 0; i < j->nr_rand_zones; i++) {
		const struct plan_rand_zone *z = &j->rand_zones[i];

		if (z->io_pct)	/* 0% of the I/O: a hole, no range */
			pct_place(&w, io_first, z->io_pct, first, z->range_pct);
		io_first += z->io_pct;
		first += z->range_pct;
	}
	if (!out->nr)
		return -ERANGE;
	if (w.carry) {	/* the last range takes what is left, to the aligned end */
		struct res_zone *last = &out->zone[out->nr - 1];

		last->io_pct += w.carry;
		last->bytes = aligned - last->offset;
	}
	for (uint32_t i = 0; i < out->nr; i++)
		out->io_span += out->zone[i].io_pct;
	return 0;
}

static int abs_ranges(const struct plan_job *j, uint64_t size, uint64_t bs, struct res_zones *out)
{
	uint32_t io_first = 0;
	uint64_t at = 0;

	for (uint32_t i = 0; i < j->nr_rand_zones; i++) {
		const struct plan_rand_zone *z = &j->rand_zones[i];
		uint64_t len = z->range_bytes, start = at;
		uint32_t from = io_first;

		at += z->range_bytes;
		io_first += z->io_pct;
		if (!z->io_pct)
			continue;
		if (start >= size)
			break;
		if (!len || len > size - start) {	/* the rest, or past the end: cut at the end */
			len = size - start;
			if (len < bs)
				break;
		}
		push(out, from, z->io_pct, start, len);
		out->io_span += z->io_pct;
	}
	return out->io_span ? 0 : -ERANGE;
}

int dz_effective(const struct plan_job *j, uint64_t size, uint64_t bs, uint64_t align, struct res_zones *out)
{
	memset(out, 0, sizeof(*out));
	if (!bs || !align || size < bs)
		return -EINVAL;
	if (j->rand_zone_rule == PLAN_ZONES_DISKSPD_ABS)
		return abs_ranges(j, size, bs, out);
	return pct_ranges(j, (size - bs) / align * align + align, align, out);
}

uint64_t dz_draw(const struct res_zones *z, uint64_t *rng, uint64_t align, uint64_t bs, uint64_t size)
{
	uint64_t v = rng_next(rng) % z->io_span, acc = 0;
	const struct res_zone *r = &z->zone[z->nr - 1];

	for (uint32_t i = 0; i < z->nr; i++) {
		acc += z->zone[i].io_pct;
		if (v < acc) {
			r = &z->zone[i];
			break;
		}
	}
	for (int i = 0; r->bytes && i < DZ_TRIES; i++) {
		uint64_t x = rng_next(rng), off = r->offset + (x - x % align) % r->bytes;

		if (off <= size - bs)
			return off;
	}
	return r->offset;
}

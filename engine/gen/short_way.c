/*
 * engine/gen/short_way.c - when gen_next_ddir's short way may draw, and how many
 * draws it may make before it asks again (gen.fast_left).
 *
 * The short way (iogen.h) gives a plain job's I/Os with one countdown and one
 * step each; this is the rarer half, asked once per countdown: the pass's draws
 * left, number_ios, the bytes bound and the round's bound cut it, so the draws
 * between test none of them.  Apart from iogen.c, which keeps the general way.
 */
#include "engine/gen/iogen.h"

bool gen_fast_refill(struct gen *g)
{
	const struct gen_file *f = g->files;
	uint64_t n, len = 0;

	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
		len = g->plain_len[d] > len ? g->plain_len[d] : len;
	if (!g->fast || !len || (g->limit_ios && g->done_ios >= g->limit_ios) ||
	    (g->limit_bytes && g->done_bytes >= g->limit_bytes))
		return false;
	/* The pass: the permutation's draws left (draws without a map never end one), or
	 * every direction's whole blocks to the end. */
	n = g->random && !g->fast_draw ? f->perm.left : UINT64_MAX;
	for (uint8_t d = 0; !g->random && d < PLAN_DDIR_NR; d++) {
		uint64_t whole = g->plain_len[d] && f->pos[d] < f->end[d] ? (f->end[d] - f->pos[d]) / g->plain_len[d] : 0;

		n = whole < n ? whole : n;
	}
	if (!n)
		return false;
	if (g->limit_ios && g->limit_ios - g->done_ios < n)
		n = g->limit_ios - g->done_ios;
	/* A draw goes while done_bytes < limit_bytes, and adds at most len (less at the end of the file). */
	if (g->limit_bytes && (g->limit_bytes - g->done_bytes - 1) / len + 1 < n)
		n = (g->limit_bytes - g->done_bytes - 1) / len + 1;
	/* So does the round's bound (gen_bound_rounds); at it, the general way starts the next round. */
	if (g->round_limit) {
		uint64_t left = g->round_base + g->round_limit - g->done_bytes;

		if (g->done_bytes - g->round_base >= g->round_limit)
			return false;
		if ((left - 1) / len + 1 < n)
			n = (left - 1) / len + 1;
	}
	g->fast_left = n;
	return true;
}

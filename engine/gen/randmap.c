/*
 * engine/gen/randmap.c - fio's random map (see randmap.h for why ioplan keeps one).
 *
 * Level 0 holds a bit per block; a bit of level i is set when its word of level
 * i-1 is full, up to a single top word.  The unused bits of each level's last
 * word are kept set, so "full" and "free" never see past the map's end.
 */
#include "engine/gen/randmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t low_bits(uint64_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* The unused tail of each level's last word, set. */
static void fill_tails(struct randmap *m)
{
	uint64_t bits = m->nr_bits;

	for (uint32_t l = 0; l < m->nr_levels; l++) {
		if (bits % 64)
			m->level[l][m->words[l] - 1] |= ~low_bits(bits % 64);
		bits = m->words[l];
	}
}

int randmap_init(struct randmap *m, uint64_t nr_bits)
{
	uint64_t bits = nr_bits;

	memset(m, 0, sizeof(*m));
	if (!nr_bits)
		return -EINVAL;
	m->nr_bits = nr_bits;
	do {
		if (m->nr_levels == RANDMAP_LEVELS_MAX) {
			randmap_free(m);
			return -EINVAL;
		}
		m->words[m->nr_levels] = (bits + 63) / 64;
		m->level[m->nr_levels] = calloc(m->words[m->nr_levels], sizeof(uint64_t));
		if (!m->level[m->nr_levels]) {
			randmap_free(m);
			return -ENOMEM;
		}
		bits = m->words[m->nr_levels++];
	} while (bits > 1);
	fill_tails(m);
	return 0;
}

void randmap_free(struct randmap *m)
{
	for (uint32_t l = 0; l < RANDMAP_LEVELS_MAX; l++)
		free(m->level[l]);
	memset(m, 0, sizeof(*m));
}

/*
 * A new pass frees the blocks a run took past the end within the last word, as
 * fio's axmap_reset clears its words; not those in the word after a map that
 * ends on a word's end (ghost_room), which fio's reset never clears, so they
 * stay taken for the job (fio 3.33: of eight strided zones of 64 blocks, only
 * the first run across a zone's end goes past it, the later ones stop there).
 */
void randmap_reset(struct randmap *m)
{
	if (m->nr_bits % 64)
		m->ghost = 0;
	for (uint32_t l = 0; l < m->nr_levels; l++)
		memset(m->level[l], 0, m->words[l] * sizeof(uint64_t));
	fill_tails(m);
}

bool randmap_isset(const struct randmap *m, uint64_t bit)
{
	return bit < m->nr_bits && (m->level[0][bit / 64] >> (bit % 64) & 1);
}

/* Sets mask in word w of level l and marks the word full above, as far as it goes. */
static void set_bits(struct randmap *m, uint32_t l, uint64_t w, uint64_t mask)
{
	for (; l < m->nr_levels; l++) {
		m->level[l][w] |= mask;
		if (m->level[l][w] != ~0ull)
			return;
		mask = 1ull << (w % 64);
		w /= 64;
	}
}

/*
 * How many blocks past the end a run may take.  fio's axmap bounds a run by
 * its last word, not by the map's end: the rest of that word.  A map ending on
 * a word's end has no such rest, and fio's unchecked bound lets the run go on
 * into the heap word after the map's (glibc's malloc of 8 * words bytes).  For
 * an odd number of words from three on, that word is the next chunk's size,
 * whose low bit (the previous chunk in use) is set: the run stops at the end.
 * Otherwise it is the chunk's spare word, zero when first reached (seen in
 * fio 3.33 on Debian 12 with 1, 2 and 4 words) and never cleared by a reset.
 */
static uint64_t ghost_room(const struct randmap *m)
{
	uint64_t words = m->nr_bits / 64;

	if (m->nr_bits % 64)
		return 64 - m->nr_bits % 64;
	return words >= 3 && words % 2 ? 0 : 64;
}

/*
 * The blocks past the end a run may take: never drawn, only reached by a run
 * from before the end (bit 0 of ghost is block nr_bits).
 */
static uint64_t set_ghosts(struct randmap *m, uint64_t bit, uint64_t n)
{
	uint64_t room = ghost_room(m), at = bit - m->nr_bits, taken;

	if (at >= room)
		return 0;
	if (n > room - at)
		n = room - at;
	taken = m->ghost & (low_bits(n) << at);
	if (taken)
		n = (uint64_t)__builtin_ctzll(taken) - at;
	m->ghost |= low_bits(n) << at;
	return n;
}

uint64_t randmap_set_run(struct randmap *m, uint64_t bit, uint64_t n)
{
	uint64_t done = 0, past = 0;

	if (bit >= m->nr_bits)
		return set_ghosts(m, bit, n);
	if (n > m->nr_bits - bit) {
		past = n - (m->nr_bits - bit);
		n = m->nr_bits - bit;
	}
	while (n) {
		uint64_t w = bit / 64, o = bit % 64, k = n < 64 - o ? n : 64 - o;
		uint64_t mask = low_bits(k) << o, taken = m->level[0][w] & mask;

		if (taken)
			k = (uint64_t)__builtin_ctzll(taken) - o;
		if (k)
			set_bits(m, 0, w, low_bits(k) << o);
		done += k;
		if (taken)
			return done;
		n -= k;
		bit += k;
	}
	return past ? done + set_ghosts(m, m->nr_bits, past) : done;
}

/* The first clear bit of level l at or after start, or RANDMAP_NONE. */
static uint64_t first_clear(const struct randmap *m, uint32_t l, uint64_t start)
{
	uint64_t w = start / 64, clear;

	if (w >= m->words[l])
		return RANDMAP_NONE;
	clear = ~m->level[l][w] & (~0ull << (start % 64));
	if (!clear) {
		/* A word with a clear bit is a clear bit one level up. */
		if (l + 1 == m->nr_levels)
			return RANDMAP_NONE;
		w = first_clear(m, l + 1, w + 1);
		if (w == RANDMAP_NONE)
			return RANDMAP_NONE;
		clear = ~m->level[l][w];
	}
	return w * 64 + (uint64_t)__builtin_ctzll(clear);
}

uint64_t randmap_next_free(const struct randmap *m, uint64_t bit)
{
	uint64_t next = bit + 1, r;

	if (bit >= m->nr_bits)
		return RANDMAP_NONE;
	if (next == m->nr_bits)
		next = 0;
	r = first_clear(m, 0, next);
	if (r == RANDMAP_NONE && next)
		r = first_clear(m, 0, 0);
	return r;
}

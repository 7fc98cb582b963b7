/*
 * engine/gen/offsets.c - permutation set-up and the zoned table of strided zones (offsets.h).
 *
 * The hot functions (perm_next, perm_mix) are inline in the header; this file keeps
 * what runs once per pass or per zoned draw.
 */
#include <errno.h>
#include <string.h>

#include "engine/gen/offsets.h"
#include "engine/gen/rng.h"

void perm_new_pass(struct perm *p, uint64_t *rng)
{
	p->k0 = rng_next(rng);
	p->k1 = rng_next(rng);
	p->i = 0;
	p->left = p->n;
}

void perm_init(struct perm *p, uint64_t n, uint64_t *rng)
{
	uint32_t k = 0;

	memset(p, 0, sizeof(*p));
	p->n = n;
	if (n > 1)
		k = 64u - (uint32_t)__builtin_clzll(n - 1);
	p->mask = k >= 64 ? UINT64_MAX : ((uint64_t)1 << k) - 1;
	p->shift = (k + 1) / 2 ? (k + 1) / 2 : 1;
	perm_new_pass(p, rng);
}

uint64_t perm_map(const struct perm *p, uint64_t x)
{
	/* Cycle-walking: a bijection of [0, 2^k) restricted to [0, n) stays one. */
	do
		x = perm_mix(p, x);
	while (x >= p->n);
	return x;
}

int dist_init_zones(struct dist *d, uint64_t n, uint64_t block_bytes, const struct plan_rand_zone *z,
		    uint32_t nz)
{
	uint64_t lo = 0;
	uint32_t cum = 0;

	memset(d, 0, sizeof(*d));
	if (!n || !nz || nz > PLAN_RAND_ZONES_MAX || !block_bytes)
		return -EINVAL;
	d->n = n;
	d->nr_zones = nz;
	for (uint32_t i = 0; i < nz; i++) {
		uint64_t len = z[i].range_bytes ? z[i].range_bytes / block_bytes : n * z[i].range_pct / 100;

		if (lo + len > n || (z[i].io_pct && !len))
			return -EINVAL;
		cum += z[i].io_pct;
		d->zone_cum[i] = cum;
		d->zone_lo[i] = lo;
		d->zone_hi[i] = lo + len;
		lo += len;
	}
	return cum == 100 ? 0 : -EINVAL;
}

uint64_t dist_next(struct dist *d, uint64_t *rng)
{
	uint32_t pick = (uint32_t)rng_below(rng, 100), i = 0;

	while (i + 1 < d->nr_zones && pick >= d->zone_cum[i])
		i++;
	return d->zone_lo[i] + rng_below(rng, d->zone_hi[i] - d->zone_lo[i]);
}

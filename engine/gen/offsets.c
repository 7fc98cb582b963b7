/*
 * engine/gen/offsets.c - permutation set-up and the skewed distributions (offsets.h).
 *
 * The hot functions (perm_next, perm_mix) are inline in the header; this file keeps
 * what runs once per pass or per skewed draw.  Zipf follows Gray et al., "Quickly
 * generating billion-record synthetic databases" (SIGMOD 1994), with zeta(n) summed
 * exactly for the first terms and by Euler-Maclaurin for the tail, so set-up stays
 * in microseconds for any n.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "engine/gen/offsets.h"
#include "engine/gen/rng.h"

#define ZETA_EXACT 10000u

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

double dist_zeta(uint64_t n, double theta)
{
	uint64_t m = n < ZETA_EXACT ? n : ZETA_EXACT;
	double s = 0.0, fm, fn, integral, dm, dn;

	for (uint64_t i = 1; i < m; i++)
		s += pow((double)i, -theta);
	if (n < ZETA_EXACT)
		return s + pow((double)n, -theta);
	/* sum_{i=m..n} f(i) ~ int_m^n f + (f(m) + f(n))/2 + (f'(n) - f'(m))/12 */
	dm = (double)m;
	dn = (double)n;
	fm = pow(dm, -theta);
	fn = pow(dn, -theta);
	if (fabs(theta - 1.0) < 1e-12)
		integral = log(dn / dm);
	else
		integral = (pow(dn, 1.0 - theta) - pow(dm, 1.0 - theta)) / (1.0 - theta);
	return s + integral + (fm + fn) / 2.0 +
	       (-theta * pow(dn, -theta - 1.0) + theta * pow(dm, -theta - 1.0)) / 12.0;
}

static int zipf_init(struct dist *d, double theta)
{
	if (!(theta > 0.0) || fabs(theta - 1.0) < 1e-9)
		return -EINVAL;
	d->theta = theta;
	d->zetan = dist_zeta(d->n, theta);
	d->zeta2 = 1.0 + pow(0.5, theta);
	d->alpha = 1.0 / (1.0 - theta);
	d->eta = (1.0 - pow(2.0 / (double)d->n, 1.0 - theta)) / (1.0 - d->zeta2 / d->zetan);
	return 0;
}

int dist_init(struct dist *d, enum plan_random_dist kind, uint64_t n, double param,
	      double center, uint64_t seed)
{
	uint64_t rng = rng_seed(seed, 0x5c7a3b1e);

	memset(d, 0, sizeof(*d));
	if (!n || center < 0.0 || center >= 1.0)
		return -EINVAL;
	d->kind = kind;
	d->n = n;
	perm_init(&d->scramble, n, &rng);
	switch (kind) {
	case PLAN_RAND_ZIPF:
		d->rank_shift = (uint64_t)(center * (double)n);
		return n < 3 ? 0 : zipf_init(d, param);
	case PLAN_RAND_PARETO:
		if (!(param > 0.0 && param < 1.0))
			return -EINVAL;
		d->rank_shift = (uint64_t)(center * (double)n);
		d->pareto_pow = log(param) / log(1.0 - param);
		return 0;
	case PLAN_RAND_NORMAL:
		if (!(param > 0.0))
			return -EINVAL;
		d->sigma = (double)n * param / 100.0;
		if (d->sigma > (double)n / 2.0)
			d->sigma = (double)n / 2.0;
		d->center = (center > 0.0 ? center : 0.5) * (double)n;
		return 0;
	default:
		return -EINVAL;
	}
}

int dist_init_zones(struct dist *d, uint64_t n, uint64_t block_bytes, const struct plan_rand_zone *z,
		    uint32_t nz)
{
	uint64_t lo = 0;
	uint32_t cum = 0;

	memset(d, 0, sizeof(*d));
	if (!n || !nz || nz > PLAN_RAND_ZONES_MAX || !block_bytes)
		return -EINVAL;
	d->kind = PLAN_RAND_ZONED;
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

static uint64_t zoned_block(struct dist *d, uint64_t *rng)
{
	uint32_t pick = (uint32_t)rng_below(rng, 100), i = 0;

	while (i + 1 < d->nr_zones && pick >= d->zone_cum[i])
		i++;
	return d->zone_lo[i] + rng_below(rng, d->zone_hi[i] - d->zone_lo[i]);
}

static uint64_t zipf_rank(struct dist *d, uint64_t *rng)
{
	double u = rng_unit(rng), uz = u * d->zetan, r;

	if (d->n < 3)
		return rng_below(rng, d->n);
	if (uz < 1.0)
		return 0;
	if (uz < d->zeta2)
		return 1;
	r = (double)d->n * pow(d->eta * u - d->eta + 1.0, d->alpha);
	return r >= (double)d->n ? d->n - 1 : (uint64_t)r;
}

static uint64_t normal_rank(struct dist *d, uint64_t *rng)
{
	for (;;) {
		/* Box-Muller; one of the pair is enough here. */
		double u1 = rng_unit(rng), u2 = rng_unit(rng);
		double z = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
		double r = floor(d->center + d->sigma * z + 0.5);

		if (r >= 0.0 && r < (double)d->n)
			return (uint64_t)r;
	}
}

uint64_t dist_rank(struct dist *d, uint64_t *rng)
{
	double r;

	switch (d->kind) {
	case PLAN_RAND_ZIPF:
		return zipf_rank(d, rng);
	case PLAN_RAND_PARETO:
		/* P(rank < (1-h) n) = h: "pareto:0.9" sends 90% of I/O to 10% of blocks. */
		r = (double)(d->n - 1) * pow(rng_unit(rng), d->pareto_pow);
		return d->n - 1 - (r >= (double)(d->n - 1) ? d->n - 1 : (uint64_t)r);
	case PLAN_RAND_NORMAL:
		return normal_rank(d, rng);
	default:
		return rng_below(rng, d->n);
	}
}

uint64_t dist_next(struct dist *d, uint64_t *rng)
{
	uint64_t r;

	if (d->kind == PLAN_RAND_ZONED)
		return zoned_block(d, rng); /* zones are places on disk: no scrambling */
	r = dist_rank(d, rng);

	if (d->kind != PLAN_RAND_NORMAL && d->rank_shift)
		r = (r + d->rank_shift) % d->n;
	return perm_map(&d->scramble, r);
}

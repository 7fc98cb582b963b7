/*
 * engine/gen/file_pick.c - fio 3.33's file_service_type draws (file_pick.h).
 *
 * Hand-written: the point is fio's exact sequence (lib/zipf.c, lib/gauss.c and
 * io_u.c's __get_next_fileno_rand at the fio-3.33 tag), including its integer
 * conversions, which no packaged library reproduces.  The generators run once
 * per file pick, not per block, so their pow() calls cost nothing that shows.
 */
#include <math.h>
#include <string.h>

#include "engine/gen/file_pick.h"

#define FILE_PICK_SHIFT	10		/* fio's FIO_FSERVICE_SHIFT: ranks per file */
#define ZIPF_MAX_GEN	10000000ull	/* fio sums zeta(n) over at most this many terms */
#define GAUSS_ITERS	12
#define FRAND32_MAX	4294967295.0

static void zipf_init(struct file_pick *p, double theta)
{
	uint64_t to_gen = p->nranges < ZIPF_MAX_GEN ? p->nranges : ZIPF_MAX_GEN;

	p->theta = theta;
	p->zeta2 = pow(1.0, theta) + pow(0.5, theta);
	for (uint64_t i = 0; i < to_gen; i++)
		p->zetan += pow(1.0 / (double)(i + 1), theta);
}

/*
 * fio's gauss_init.  Its offset is an unsigned int set from a double that is
 * negative for a centre below the middle; x86-64 converts through a 64-bit
 * signed integer and keeps the low half, so the offset wraps, and this does so
 * the same way.
 */
static void gauss_init(struct file_pick *p, double dev, double center)
{
	if (dev != 0.0) {
		p->stddev = (uint32_t)ceil((double)p->nranges * dev / 100.0);
		if (p->stddev > p->nranges / 2)
			p->stddev = (uint32_t)(p->nranges / 2);
	}
	p->gauss_off = center == -1 ? 0 : (uint32_t)(int64_t)((double)p->nranges * (center - 0.5));
}

void file_pick_init(struct file_pick *p, const struct plan_job *j, uint32_t nr_files, uint32_t seed)
{
	double center = j->file_service_center;

	memset(p, 0, sizeof(*p));
	p->kind = j->file_service;
	p->nr_files = nr_files;
	p->nranges = (uint64_t)nr_files << FILE_PICK_SHIFT;
	taus88_seed(&p->rng, seed);
	if (p->kind == PLAN_FILE_SERVICE_NORMAL) {
		gauss_init(p, j->file_service_param, center);
		return;
	}
	if (p->kind != PLAN_FILE_SERVICE_ZIPF && p->kind != PLAN_FILE_SERVICE_PARETO)
		return;
	/* fio's shared_rand_init: the start is drawn even when a centre replaces it. */
	p->rand_off = taus88_next(&p->rng);
	if (center != -1)
		p->rand_off = (uint64_t)((double)p->nranges * center);
	if (p->kind == PLAN_FILE_SERVICE_ZIPF)
		zipf_init(p, j->file_service_param);
	else
		p->pareto_pow = log(j->file_service_param) / log(1.0 - j->file_service_param);
}

static uint64_t zipf_next(struct file_pick *p)
{
	double n = (double)p->nranges;
	double alpha = 1.0 / (1.0 - p->theta);
	double eta = (1.0 - pow(2.0 / n, 1.0 - p->theta)) / (1.0 - p->zeta2 / p->zetan);
	double u = (double)taus88_next(&p->rng) / FRAND32_MAX, z = u * p->zetan;
	uint64_t val;

	if (z < 1.0)
		val = 1;
	else if (z < 1.0 + pow(0.5, p->theta))
		val = 2;
	else
		val = 1 + (uint64_t)(n * pow(eta * u - eta + 1.0, alpha));
	return (val - 1 + p->rand_off) % p->nranges;
}

static uint64_t pareto_next(struct file_pick *p)
{
	double u = (double)taus88_next(&p->rng) / FRAND32_MAX;
	uint64_t r = (uint64_t)((double)(p->nranges - 1) * pow(u, p->pareto_pow));

	return (r + p->rand_off) % p->nranges;
}

/* fio's gauss_dev: an int from unsigned arithmetic, as fio's return converts it. */
static int gauss_dev(struct file_pick *p)
{
	uint32_t r = taus88_next(&p->rng);
	int vr = (int)(p->stddev * (r / (FRAND32_MAX + 1.0)));

	return (int)((uint32_t)vr - p->stddev / 2);
}

/* fio's gauss_next: the mean of twelve draws, moved by a deviation that keeps it in range. */
static uint64_t gauss_next(struct file_pick *p)
{
	uint64_t sum = 0;

	for (int i = 0; i < GAUSS_ITERS; i++)
		sum += taus88_next(&p->rng) % (p->nranges + 1);
	sum = (sum + GAUSS_ITERS - 1) / GAUSS_ITERS;
	if (p->stddev) {
		int dev = gauss_dev(p);

		while ((uint64_t)(int64_t)dev + sum >= p->nranges)
			dev /= 2;
		sum += (uint64_t)(int64_t)dev;
	}
	return (sum + p->gauss_off) % p->nranges;
}

uint32_t file_pick_next(struct file_pick *p)
{
	switch (p->kind) {
	case PLAN_FILE_SERVICE_ZIPF:
		return (uint32_t)(zipf_next(p) >> FILE_PICK_SHIFT);
	case PLAN_FILE_SERVICE_PARETO:
		return (uint32_t)(pareto_next(p) >> FILE_PICK_SHIFT);
	case PLAN_FILE_SERVICE_NORMAL:
		return (uint32_t)(gauss_next(p) >> FILE_PICK_SHIFT);
	default:
		/* fio's uniform pick: one 32-bit draw scaled to the file count. */
		return (uint32_t)((double)p->nr_files * (taus88_next(&p->rng) / (FRAND32_MAX + 1.0)));
	}
}

/*
 * engine/gen/fio_dist.h - fio 3.33's skewed generators: zipf, pareto and gauss.
 *
 * Two of fio's choices follow these laws, and a job sends its I/O where fio
 * sends it only if each draw is fio's: random_distribution='s offsets (one
 * generator per file over its blocks, the rank hashed so the hot blocks lie
 * scattered, seeded from the file's name and the thread's number) and
 * file_service_type's picks (ranks in file order, hash off).  fio_dist.c says
 * where each formula comes from.
 */
#ifndef IOPLAN_ENGINE_FIO_DIST_H
#define IOPLAN_ENGINE_FIO_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/gen/taus88.h"

enum fio_dist_kind {
	FIO_DIST_ZIPF,
	FIO_DIST_PARETO,
	FIO_DIST_GAUSS,
};

struct fio_dist {
	enum fio_dist_kind kind;
	uint64_t nranges;
	struct taus88 rng;
	double theta, zeta2, zetan;	/* zipf */
	double alpha, eta, half_theta;	/* zipf: what fio's zipf_next computes again each draw */
	double pareto_pow;		/* pareto */
	uint64_t rand_off;		/* the rank the law starts at (gauss: fio's unsigned int) */
	uint32_t stddev;		/* gauss, in ranks */
	bool hash;			/* fio's __hash_u64 on the rank (off for file picks) */
};

/*
 * Sets d up over nranges ranks as fio's zipf_init, pareto_init or gauss_init:
 * param is zipf's theta, pareto's h or gauss's deviation in percent; center
 * -1 for none.  zetan: zipf's sum over the ranks when the caller has it (a
 * sum of up to 10 million powers, the same for every file of one size), else
 * a negative value to have it summed.
 */
void fio_dist_init(struct fio_dist *d, enum fio_dist_kind kind, uint64_t nranges, double param,
		   double center, uint32_t seed, bool hash, double zetan);

/* fio's zipf_update: zeta(nranges) of theta, as fio sums it. */
double fio_dist_zetan(uint64_t nranges, double theta);

/* The next rank, below nranges. */
uint64_t fio_dist_next(struct fio_dist *d);

/* fio's jhash (hash.h) of a file name: a repeatable job's distribution seed is it times the thread number. */
uint32_t fio_dist_name_hash(const char *name);

#endif /* IOPLAN_ENGINE_FIO_DIST_H */

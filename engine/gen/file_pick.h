/*
 * engine/gen/file_pick.h - fio 3.33's file_service_type draws: which file a
 * random, zipf, pareto or normal file service picks next.
 *
 * A job over many files (nrfiles=, a filename list) that picks them at random
 * or by a skewed law sends its I/O where fio sends it only if each pick is
 * fio's, draw for draw: its taus88 seeded from rand_seeds[FIO_RAND_FILE_OFF],
 * and for the skewed laws its zipf, pareto and gauss generators over
 * nr_files << 10 ranks with the hash turned off (so rank order is file order),
 * a zipf or pareto law starting at a drawn rank unless a centre is given.
 */
#ifndef IOPLAN_ENGINE_FILE_PICK_H
#define IOPLAN_ENGINE_FILE_PICK_H

#include <stdint.h>

#include "engine/gen/fio_dist.h"
#include "engine/gen/taus258.h"
#include "engine/plan.h"

struct file_pick {
	enum plan_file_service kind;
	uint32_t nr_files;
	struct frand rng;		/* random (64-bit: random_generator=tausworthe64) */
	struct fio_dist law;		/* zipf, pareto, normal: over nr_files << 10 ranks */
};

/* Sets p up for job j's law over nr_files files from fio's file seed (its low half for the skewed laws). */
void file_pick_init(struct file_pick *p, const struct plan_job *j, uint32_t nr_files, uint64_t seed);

/* The index of the next file drawn, below nr_files. */
uint32_t file_pick_next(struct file_pick *p);

#endif /* IOPLAN_ENGINE_FILE_PICK_H */

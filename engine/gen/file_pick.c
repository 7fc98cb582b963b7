/*
 * engine/gen/file_pick.c - fio 3.33's file_service_type draws (file_pick.h).
 *
 * fio's random pick is one draw scaled to the file count; its skewed laws are
 * fio's generators (fio_dist.c) over nr_files << 10 ranks with the hash turned
 * off, so rank order is file order, seeded from the file seed (io_u.c's
 * __get_next_fileno_rand at the fio-3.33 tag).
 */
#include <string.h>

#include "engine/gen/file_pick.h"

#define FILE_PICK_SHIFT	10		/* fio's FIO_FSERVICE_SHIFT: ranks per file */

void file_pick_init(struct file_pick *p, const struct plan_job *j, uint32_t nr_files, uint64_t seed)
{
	memset(p, 0, sizeof(*p));
	p->kind = j->file_service;
	p->nr_files = nr_files;
	frand_seed(&p->rng, seed, j->random_tausworthe64);
	if (p->kind == PLAN_FILE_SERVICE_ZIPF || p->kind == PLAN_FILE_SERVICE_PARETO ||
	    p->kind == PLAN_FILE_SERVICE_NORMAL)
		fio_dist_init(&p->law,
			      p->kind == PLAN_FILE_SERVICE_ZIPF ? FIO_DIST_ZIPF :
			      p->kind == PLAN_FILE_SERVICE_PARETO ? FIO_DIST_PARETO : FIO_DIST_GAUSS,
			      (uint64_t)nr_files << FILE_PICK_SHIFT, j->file_service_param,
			      j->file_service_center, (uint32_t)seed, false, -1.0);
}

uint32_t file_pick_next(struct file_pick *p)
{
	if (p->kind == PLAN_FILE_SERVICE_ZIPF || p->kind == PLAN_FILE_SERVICE_PARETO ||
	    p->kind == PLAN_FILE_SERVICE_NORMAL)
		return (uint32_t)(fio_dist_next(&p->law) >> FILE_PICK_SHIFT);
	/* fio's uniform pick: one draw scaled to the file count. */
	return (uint32_t)frand_below(&p->rng, p->nr_files);
}

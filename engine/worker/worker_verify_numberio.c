/*
 * engine/worker/worker_verify_numberio.c - fio's check of a block header's write number.
 *
 * Each header carries the number of the write that stamped it (fio's numberio:
 * the writes issued before it, 16 bits).  fio 3.33 compares it with the number
 * of the last write it logged to the block, in a job that writes, with one
 * block size over every direction, not time_based, not verify_only
 * (verify_header).  So a block that holds an earlier write's data, whole and
 * consistent (a lost write, or another writer's copy: numjobs clones writing
 * one file at random), fails there: "bad header numberio 52, wanted 0".
 * Without it such a block read back clean.  The number is kept per chunk of
 * each file (two bytes a chunk, only where fio checks), taken from the write's
 * own header as it completes, so it is the one the file should hold.  Past
 * NIO_MAX chunks (256 MiB of numbers; fio keeps over 100 bytes a write), or
 * out of memory, the job runs without this check, as before.
 */
#include <stdlib.h>

#include "engine/worker/worker.h"

/* fio's condition: td_write, td_min_bs == td_max_bs, not time_based, not verify_only. */
static bool fio_checks_numberio(const struct plan_job *j)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	if (!plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) || j->time_based || j->verify_only)
		return false;
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		if (j->bs[d].min_bytes < lo)
			lo = j->bs[d].min_bytes;
		if (j->bs[d].max_bytes > hi)
			hi = j->bs[d].max_bytes;
	}
	return lo == hi;
}

#define NIO_MAX (128ull << 20)

void worker_verify_numberio_setup(struct worker *w)
{
	uint64_t chunks = 0;

	if (!w->vf.maps || !w->vf.starts || !fio_checks_numberio(w->job))
		return;
	for (uint32_t f = 0; f < w->gen.nr_files; f++)
		chunks += w->vf.maps[f].nbits;
	if (chunks > NIO_MAX || !(w->vf.nio = calloc(w->gen.nr_files, sizeof(*w->vf.nio))))
		return;
	for (uint32_t f = 0; f < w->gen.nr_files; f++)
		if (w->vf.maps[f].nbits && !(w->vf.nio[f] = calloc(w->vf.maps[f].nbits, sizeof(uint16_t)))) {
			worker_verify_numberio_release(w);
			return;
		}
}

/*
 * A write completed over chunks from first.  fio keeps the last write issued
 * to a block; where two were in flight at once and the later one completed
 * first, the one still unchecked on the map is the newer: it stays.
 */
void worker_verify_numberio_note(struct worker *w, uint32_t f, uint64_t first, uint64_t n, uint16_t numberio)
{
	uint16_t *v = w->vf.nio[f];

	if (!v || first >= w->vf.maps[f].nbits)
		return;
	if (vfy_map_test(&w->vf.maps[f], first) && (int16_t)(uint16_t)(numberio - v[first]) < 0)
		return;
	for (uint64_t i = first; v && i < first + n && i < w->vf.maps[f].nbits; i++)
		v[i] = numberio;
}

/* The number a run of written chunks from `chunk` must hold; -1 to check none (trimmed, or no check). */
int32_t worker_verify_numberio_want(const struct worker *w, uint32_t f, uint64_t chunk, bool zero)
{
	if (!w->vf.nio || zero || !w->vf.nio[f] || chunk >= w->vf.maps[f].nbits)
		return -1;
	return w->vf.nio[f][chunk];
}

void worker_verify_numberio_release(struct worker *w)
{
	for (uint32_t f = 0; w->vf.nio && f < w->gen.nr_files; f++)
		free(w->vf.nio[f]);
	free(w->vf.nio);
	w->vf.nio = NULL;
}

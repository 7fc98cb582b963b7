/*
 * engine/worker/worker_verify_order.c - the order a verifying job's writes are read back in.
 *
 * fio logs each write it will read back (log_io_piece): on a list, in the
 * order made, where the job keeps a random map; else in a tree sorted by file
 * and offset.  Its read-back and its verify_backlog checks take them from the
 * front.  ioplan's maps (worker_verify.c) give the offset order; for the list
 * they are walked in the order kept here, each write by the chunk it starts
 * at, so a random write's read-back is random reads as fio's, and of two bad
 * blocks it names the one fio names.  An entry whose write a later one
 * replaced, or that was read back already, is passed over.
 * Eight bytes a write (fio keeps more than a hundred), at most
 * VFY_ORDER_MAX of them unread at once (256 MiB): past that, out of memory,
 * or a chunk or file number too large to pack, the list stops growing and
 * what it misses is read back by offset after it.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/worker/worker.h"

#define VFY_ORDER_MAX (32ull << 20)

void worker_verify_order_setup(struct worker *w)
{
	memset(&w->vf.order, 0, sizeof(w->vf.order));
	/* openfiles closes files between writes: that read-back goes file by file. */
	w->vf.order.on = w->vf.starts && gen_keeps_random_map(&w->gen) && !w->job->openfiles;
}

void worker_verify_order_add(struct worker *w, uint32_t f, uint64_t chunk)
{
	struct vfy_order *o = &w->vf.order;

	if (!o->on || o->lost)
		return;
	if (chunk >> VFY_ORDER_FILE_SHIFT || (uint64_t)f >> (64 - VFY_ORDER_FILE_SHIFT)) {
		o->lost = true;
		return;
	}
	if (o->n == o->cap) {
		uint64_t cap = o->cap ? o->cap * 2 : 1024, *v = NULL;

		if (cap <= VFY_ORDER_MAX)
			v = realloc(o->v, cap * sizeof(*v));
		if (!v) {
			o->lost = true;
			return;
		}
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = (uint64_t)f << VFY_ORDER_FILE_SHIFT | chunk;
}

/*
 * fio's tree (no random map: norandommap, lfsr): the writes drawn again are
 * read back by file and offset, so its stop rule meets them in that order.
 */
static uint64_t tree_stop(const struct worker *w)
{
	uint64_t iv = w->vf.vfy->interval, k = 0;

	for (uint32_t f = 0; f < w->gen.nr_files; f++) {
		const struct vfy_map *st = &w->vf.starts[f];

		for (uint64_t i = 0; i < st->nbits; i++) {
			if (!vfy_map_test(st, i))
				continue;
			if (vstate_should_stop(w->vf.load, k, f, w->gen.files[f].start + i * iv))
				return k;
			k++;
		}
	}
	return UINT64_MAX;
}

/*
 * verify_state_load over the writes drawn again: how many of them, in the
 * order they are read back (made, with fio's list; else by file and offset,
 * fio's tree), fio's stop rule lets the check read (the k-th read is the k-th
 * write on it), UINT64_MAX for all.
 */
uint64_t worker_verify_order_stop(const struct worker *w)
{
	const struct vfy_order *o = &w->vf.order;
	uint64_t iv = w->vf.vfy->interval;

	if (!o->on)
		return tree_stop(w);
	for (uint64_t k = 0; o->head + k < o->n; k++) {
		uint64_t e = o->v[o->head + k];
		uint32_t f = (uint32_t)(e >> VFY_ORDER_FILE_SHIFT);
		uint64_t chunk = e & ((1ull << VFY_ORDER_FILE_SHIFT) - 1);

		if (vstate_should_stop(w->vf.load, k, f, w->gen.files[f].start + chunk * iv))
			return k;
	}
	return UINT64_MAX;
}

/* A walk ended at head: what it passed is gone; a list read to its end starts again empty. */
void worker_verify_order_taken(struct worker *w)
{
	struct vfy_order *o = &w->vf.order;

	if (o->head == o->n) {
		o->head = o->n = 0;
	} else if (o->head >= 4096 && o->head * 2 >= o->n) {
		memmove(o->v, o->v + o->head, (o->n - o->head) * sizeof(*o->v));
		o->n -= o->head;
		o->head = 0;
	}
}

void worker_verify_order_release(struct worker *w)
{
	free(w->vf.order.v);
	memset(&w->vf.order, 0, sizeof(w->vf.order));
}

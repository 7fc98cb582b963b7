/*
 * engine/worker/worker_trim.c - trim_percentage, trim_backlog and trim_verify_zero: trims among verified writes.
 *
 * fio 3.33 puts trim_percentage percent of a verifying job's writes on a
 * list (each write one draw of its trim_state, seeded as fio seeds it:
 * listed when the draw is at most rand_max / 100 * P, so the same writes as
 * fio's at iodepth=1); every trim_backlog writes it trims the blocks listed with the job's
 * trim operation, and whatever is still listed when the workload ends is
 * trimmed then.  fio's trim_backlog_batch bounds one round of trims, but fio
 * starts another round as long as no write came in between, so every listed
 * block goes (the same trims, in the same order, whatever the batch; ioplan
 * accepts the option and does the same).  With
 * trim_verify_zero (the default) the read-back checks that a trimmed block
 * reads as zeroes instead of checking its header; without it, a trimmed
 * block is not read back.  Without trim_backlog nothing is trimmed, as in
 * fio.  The trims are I/Os of the job (its trim figures count them); the
 * blocks come from completed writes, so a trim never races its own write.
 * A block written again after its trim holds data again and is checked as
 * written.
 */
#include <errno.h>
#include <stdlib.h>

#include "engine/gen/taus258.h"
#include "engine/worker/worker.h"

struct vtrim_ent {
	uint64_t offset;
	uint32_t len;
	uint32_t file;
};

struct vtrim {
	struct frand rng;		/* fio's trim_state */
	struct vtrim_ent *q;		/* ring of blocks waiting to be trimmed */
	uint64_t head, nr, cap;
	uint64_t writes;		/* since the last round of trims */
	bool due;			/* a round of trims: until the list is empty */
	struct vfy_map *zeroed;		/* trim_verify_zero: per file, written chunks trimmed since */
};

int worker_trim_setup(struct worker *w)
{
	const struct plan_job *j = w->job;
	struct vtrim *t;

	if (!j->trim_percentage || !j->trim_backlog || !w->vf.maps)
		return 0;
	if (!(w->vf.trim = t = calloc(1, sizeof(*t))))
		return -ENOMEM;
	frand_seed(&t->rng, w->clone->trim_seed, j->random_tausworthe64);
	if (!j->trim_verify_zero)
		return 0;
	if (!(t->zeroed = calloc(w->gen.nr_files, sizeof(*t->zeroed))))
		return -ENOMEM;
	for (uint32_t f = 0; f < w->gen.nr_files; f++)
		if (vfy_map_init(&t->zeroed[f], gen_file_span(&w->gen, f), w->vf.vfy->interval))
			return -ENOMEM;
	return 0;
}

void worker_trim_release(struct worker *w)
{
	struct vtrim *t = w->vf.trim;

	if (!t)
		return;
	for (uint32_t f = 0; t->zeroed && f < w->gen.nr_files; f++)
		vfy_map_release(&t->zeroed[f]);
	free(t->zeroed);
	free(t->q);
	free(t);
	w->vf.trim = NULL;
}

/* Appends a block; the ring doubles when full (false without memory: the block is not trimmed). */
static bool push(struct vtrim *t, const struct io_u *u)
{
	if (t->nr == t->cap) {
		uint64_t cap = t->cap ? 2 * t->cap : 64;
		struct vtrim_ent *q = malloc(cap * sizeof(*q));

		if (!q)
			return false;
		for (uint64_t i = 0; i < t->nr; i++)
			q[i] = t->q[(t->head + i) % t->cap];
		free(t->q);
		t->q = q;
		t->head = 0;
		t->cap = cap;
	}
	t->q[(t->head + t->nr++) % t->cap] =
		(struct vtrim_ent){ .offset = u->offset, .len = u->len, .file = u->file };
	return true;
}

/* A completed write: maybe listed for a trim; it holds data again. */
static void written(struct worker *w, const struct io_u *u, uint64_t rel)
{
	const struct plan_job *j = w->job;
	struct vtrim *t = w->vf.trim;
	uint64_t iv = w->vf.vfy->interval;

	if (t->zeroed && !(rel % iv))
		vfy_map_set(&t->zeroed[u->file], rel / iv, u->len / iv, false);
	/* fio's io_u_should_trim: rand_max / 100 * P, in whole numbers, bounds the draw. */
	if (frand_next(&t->rng) <= frand_max(&t->rng) / 100 * j->trim_percentage)
		push(t, u);
	if (++t->writes >= j->trim_backlog) {
		t->writes = 0;
		t->due = true;
	}
}

bool worker_trim_done(struct worker *w, const struct io_u *u, uint64_t rel)
{
	struct vtrim *t = w->vf.trim;
	uint64_t iv = w->vf.vfy->interval;

	if (u->ddir == PLAN_DDIR_WRITE) {
		written(w, u, rel);
		return false;
	}
	if (u->ddir != PLAN_DDIR_TRIM || !t->zeroed)
		return false;	/* not read back: the trim leaves the written map */
	for (uint64_t i = rel / iv; i < (rel + u->len) / iv; i++)
		if (vfy_map_test(&w->vf.maps[u->file], i))
			vfy_map_set(&t->zeroed[u->file], i, 1, true);
	return true;
}

bool worker_trim_zeroed(const struct worker *w, uint32_t f, uint64_t chunk)
{
	return w->vf.trim && w->vf.trim->zeroed && vfy_map_test(&w->vf.trim->zeroed[f], chunk);
}

bool worker_trim_next(struct worker *w, struct gen_io *io, bool gen_ended)
{
	struct vtrim *t = w->vf.trim;
	struct vtrim_ent e;

	if (!t->nr) {
		t->due = false;
		return false;
	}
	if (!t->due && !gen_ended)
		return false;
	e = t->q[t->head];
	t->head = (t->head + 1) % t->cap;
	t->nr--;
	*io = (struct gen_io){ .offset = e.offset, .len = e.len, .file = e.file,
			       .ddir = PLAN_DDIR_TRIM };
	return true;
}

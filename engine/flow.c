/*
 * engine/flow.c - fio's flow control (flow=, flow_id=): shared counters that
 * keep jobs of one flow id issuing in proportion to their weights.  See flow.h.
 */
#include "flow.h"

#include <errno.h>
#include <stdlib.h>

int flows_init(struct flows *f, uint32_t cap)
{
	f->v = calloc(cap ? cap : 1, sizeof(*f->v));
	if (!f->v)
		return -ENOMEM;
	f->cap = cap ? cap : 1;
	f->nr = 0;
	pthread_mutex_init(&f->mu, NULL);
	return 0;
}

void flows_release(struct flows *f)
{
	if (!f->v)
		return;
	pthread_mutex_destroy(&f->mu);
	free(f->v);
	f->v = NULL;
}

/* Called with f->mu held: the flow of id, made (empty) if it is new. */
static struct flow *flow_find(struct flows *f, uint32_t id)
{
	for (uint32_t i = 0; i < f->nr; i++)
		if (f->v[i].id == id && f->v[i].refs)
			return &f->v[i];
	for (uint32_t i = 0; i < f->cap; i++) {
		struct flow *fl = &f->v[i];

		if (i < f->nr && fl->refs)
			continue;
		fl->id = id;
		fl->refs = 0;
		atomic_store(&fl->counter, 1);
		atomic_store(&fl->weight, 0);
		if (i >= f->nr)
			f->nr = i + 1;
		return fl;
	}
	return NULL;
}

struct flow *flow_join(struct flows *f, uint32_t id, uint32_t weight)
{
	struct flow *fl;

	pthread_mutex_lock(&f->mu);
	fl = flow_find(f, id);
	if (fl) {
		fl->refs++;
		atomic_fetch_add(&fl->weight, weight);
	}
	pthread_mutex_unlock(&f->mu);
	return fl;
}

void flow_leave(struct flows *f, struct flow *fl, uint64_t count, uint32_t weight)
{
	pthread_mutex_lock(&f->mu);
	atomic_fetch_sub(&fl->counter, count);
	atomic_fetch_sub(&fl->weight, weight);
	fl->refs--;
	pthread_mutex_unlock(&f->mu);
}

bool flow_may_issue(struct flow *fl, uint64_t *count, uint32_t weight)
{
	uint64_t total = atomic_load_explicit(&fl->counter, memory_order_relaxed);
	uint32_t wsum = atomic_load_explicit(&fl->weight, memory_order_relaxed);

	/* count/total > weight/wsum, without division (total >= 1, wsum >= weight > 0). */
	if ((double)*count * wsum > (double)weight * total)
		return false;
	atomic_fetch_add_explicit(&fl->counter, 1, memory_order_relaxed);
	++*count;
	return true;
}

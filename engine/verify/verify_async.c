/*
 * engine/verify/verify_async.c - verify_async's checker threads and their slot lists (verify_async.h).
 *
 * One mutex guards three singly linked lists (free, submitted, checked); the
 * checkers take submitted slots one at a time and check them outside the
 * lock.  Slots move between lists, never get allocated after the start.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cpus.h"
#include "engine/verify/verify_async.h"

struct vasync_thread {
	struct vasync *a;
	pthread_t tid;
	bool started;
	struct vfy ctx;
};

static void push(struct vasync_slot **head, struct vasync_slot **tail, struct vasync_slot *s)
{
	s->next = NULL;
	if (*tail)
		(*tail)->next = s;
	else
		*head = s;
	*tail = s;
}

static struct vasync_slot *pop(struct vasync_slot **head, struct vasync_slot **tail)
{
	struct vasync_slot *s = *head;

	if (s && !(*head = s->next) && tail)
		*tail = NULL;
	return s;
}

static void check_slot(struct vfy *v, struct vasync_slot *s)
{
	v->want_numberio = s->numberio;
	s->nbad = s->zero ? vfy_check_zero(v, s->buf, s->len, s->offset, s->bad, VASYNC_BAD_MAX)
			  : vfy_check(v, s->buf, s->len, s->offset, s->io_len, s->bad, VASYNC_BAD_MAX);
}

static void *checker(void *arg)
{
	struct vasync_thread *t = arg;
	struct vasync *a = t->a;
	struct vasync_slot *s;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->todo && !a->exit)
			pthread_cond_wait(&a->work_cv, &a->mu);
		if (!(s = pop(&a->todo, &a->todo_tail)))
			break;	/* exit, and nothing left to check */
		pthread_mutex_unlock(&a->mu);
		check_slot(&t->ctx, s);
		pthread_mutex_lock(&a->mu);
		push(&a->done, &a->done_tail, s);
		pthread_cond_signal(&a->done_cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

static int alloc_slots(struct vasync *a, uint32_t n, uint64_t buf_bytes)
{
	a->nr_slots = 2 * n + 1;	/* each checker busy, one batch waiting for it, one being read */
	a->buf_bytes = buf_bytes;
	if (!(a->slots = calloc(a->nr_slots, sizeof(*a->slots))))
		return -ENOMEM;
	for (uint32_t i = 0; i < a->nr_slots; i++) {
		if (posix_memalign((void **)&a->slots[i].buf, 4096, buf_bytes))
			return -ENOMEM;
		a->slots[i].next = a->free_list;
		a->free_list = &a->slots[i];
	}
	return 0;
}

static int start_threads(struct vasync *a, const struct vfy *proto, uint32_t n,
			 const struct plan_cpus *cpus)
{
	int ret;

	if (!(a->thr = calloc(n, sizeof(*a->thr))))
		return -ENOMEM;
	a->nr_threads = n;
	for (uint32_t i = 0; i < n; i++) {
		struct vasync_thread *t = &a->thr[i];

		t->a = a;
		if ((ret = vfy_clone(&t->ctx, proto)))
			return ret;
		if ((ret = pthread_create(&t->tid, NULL, checker, t)))
			return -ret;
		t->started = true;
		pthread_setname_np(t->tid, "ioplan-verify");	/* top -H and /proc name them */
		/* Pinned to verify_async_cpus, as fio sets their affinity; a pin that fails fails the start. */
		if ((ret = cpus_pin(t->tid, cpus, false, 0)))
			return ret;
	}
	return 0;
}

int vasync_start(struct vasync *a, const struct vfy *proto, uint32_t n, const struct plan_cpus *cpus,
		 uint64_t buf_bytes)
{
	int ret;

	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->work_cv, NULL);
	pthread_cond_init(&a->done_cv, NULL);
	ret = alloc_slots(a, n, buf_bytes);
	if (!ret)
		ret = start_threads(a, proto, n, cpus);
	if (ret)
		vasync_stop(a);
	return ret;
}

void vasync_stop(struct vasync *a)
{
	pthread_mutex_lock(&a->mu);
	a->exit = true;
	pthread_cond_broadcast(&a->work_cv);
	pthread_mutex_unlock(&a->mu);
	for (uint32_t i = 0; a->thr && i < a->nr_threads; i++) {
		if (a->thr[i].started)
			pthread_join(a->thr[i].tid, NULL);
		vfy_release(&a->thr[i].ctx);
	}
	free(a->thr);
	for (uint32_t i = 0; a->slots && i < a->nr_slots; i++)
		free(a->slots[i].buf);
	free(a->slots);
	pthread_cond_destroy(&a->done_cv);
	pthread_cond_destroy(&a->work_cv);
	pthread_mutex_destroy(&a->mu);
	memset(a, 0, sizeof(*a));
}

struct vasync_slot *vasync_get(struct vasync *a)
{
	struct vasync_slot *s;

	pthread_mutex_lock(&a->mu);
	s = pop(&a->free_list, NULL);
	pthread_mutex_unlock(&a->mu);
	return s;
}

void vasync_submit(struct vasync *a, struct vasync_slot *s)
{
	pthread_mutex_lock(&a->mu);
	a->out++;
	push(&a->todo, &a->todo_tail, s);
	pthread_cond_signal(&a->work_cv);
	pthread_mutex_unlock(&a->mu);
}

struct vasync_slot *vasync_reap(struct vasync *a, bool wait)
{
	struct vasync_slot *s;

	pthread_mutex_lock(&a->mu);
	while (wait && !a->done && a->out)
		pthread_cond_wait(&a->done_cv, &a->mu);
	if ((s = pop(&a->done, &a->done_tail)))
		a->out--;
	pthread_mutex_unlock(&a->mu);
	return s;
}

void vasync_put(struct vasync *a, struct vasync_slot *s)
{
	pthread_mutex_lock(&a->mu);
	s->next = a->free_list;
	a->free_list = s;
	pthread_mutex_unlock(&a->mu);
}

uint64_t vasync_checks(struct vasync *a)
{
	uint64_t n = 0;

	pthread_mutex_lock(&a->mu);
	for (uint32_t i = 0; i < a->nr_threads; i++)
		n += a->thr[i].ctx.checks;
	pthread_mutex_unlock(&a->mu);
	return n;
}

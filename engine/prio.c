/*
 * engine/prio.c - I/O priorities (prio.h): the thread's ioprio_set() and the
 * per-I/O draw of fio 3.33's cmdprio options (its engines/cmdprio.c rules).
 *
 * glibc has no ioprio_set() wrapper, so the syscall is made directly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/prio.h"

#define IOPRIO_WHO_PROCESS 1

uint16_t prio_of_job(const struct plan_job *j)
{
	return j->ioprio_set ? prio_value(j->ioprio_class, j->ioprio_level) : 0;
}

int prio_set_thread(const struct plan_job *j)
{
	/* who = 0: the calling thread (each clone is a thread, as fio's threads). */
	if (j->ioprio_set && syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, (int)prio_of_job(j)))
		return -errno;
	return 0;
}

/* Index of ioprio among d's priorities, added (with a histogram if hist) on first use. */
static int prio_index(struct res_ddir *d, uint16_t ioprio, bool hist, uint8_t *idx)
{
	struct res_prio *p;
	uint32_t i;

	for (i = 0; i < d->nr_prios; i++)
		if (d->prios[i].ioprio == ioprio)
			break;
	if (i == d->nr_prios) {
		if (i >= RES_PRIO_MAX)
			return -EINVAL;
		p = &d->prios[d->nr_prios++];
		memset(p, 0, sizeof(*p));
		p->ioprio = ioprio;
		p->lat.min_ns = UINT64_MAX;
		if (hist && !(p->lat.hist = calloc(RES_HIST_NR, sizeof(uint64_t))))
			return -ENOMEM;
	}
	*idx = (uint8_t)i;
	return 0;
}

/* fio's implicit priority: cmdprio_class (real-time when unset) and cmdprio. */
static uint16_t implicit_prio(const struct plan_cmdprio *c)
{
	return prio_value(c->prio_class ? c->prio_class : PRIO_CLASS_RT, c->level);
}

/* One direction's choices, from cmdprio_bssplit (sorted by size) or cmdprio_percentage. */
static void fill_dir(const struct plan_job *j, const struct plan_cmdprio *c, struct prio_dir *pd)
{
	pd->nr = 0;
	if (!j->cmdprio_bssplit) {
		if (c->pct)
			pd->ch[pd->nr++] = (struct prio_choice){ 0, c->pct, c->pct, implicit_prio(c), 0 };
		return;
	}
	for (uint32_t i = 0; i < c->nr_split; i++) {
		const struct plan_cmdprio_split *s = &c->split[i];
		struct prio_choice *ch = &pd->ch[pd->nr];
		bool same = pd->nr && pd->ch[pd->nr - 1].bs == s->bs_bytes;

		ch->bs = s->bs_bytes;
		ch->upto = (same ? pd->ch[pd->nr - 1].upto : 0) + s->pct;
		ch->ioprio = s->ioprio < 0 ? implicit_prio(c) : (uint16_t)s->ioprio;
		pd->nr++;
	}
	/* Each choice carries its size's total, so one lookup decides an I/O. */
	for (uint32_t i = pd->nr; i-- > 0;)
		pd->ch[i].total = i + 1 < pd->nr && pd->ch[i + 1].bs == pd->ch[i].bs ? pd->ch[i + 1].total
										    : pd->ch[i].upto;
}

static int index_dir(const struct plan_job *j, struct prio_dir *pd, uint16_t def, struct res_ddir *d)
{
	bool hist = j->clat_percentiles || j->lat_percentiles;
	uint8_t idx;
	int ret = prio_index(d, def, hist, &idx);	/* entry 0: the thread's own priority */

	for (uint32_t i = 0; i < pd->nr && !ret; i++)
		ret = prio_index(d, pd->ch[i].ioprio, hist, &pd->ch[i].idx);
	return ret;
}

int prio_pick_new(const struct plan_job *j, uint64_t seed, struct res_clone *res, struct prio_pick **out)
{
	struct prio_pick *p;
	bool any = false;
	int ret = 0;

	*out = NULL;
	res->ioprio = prio_of_job(j);
	if (j->ioengine != PLAN_IOENGINE_LIBAIO && j->ioengine != PLAN_IOENGINE_IO_URING)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->rng = rng_seed(seed, RNG_PRIO);
	p->def = (uint16_t)res->ioprio;
	for (int d = 0; d < 2; d++) {
		if (!plan_rw_has_ddir(j->rw, (enum plan_ddir)d))
			continue;
		fill_dir(j, &j->cmdprio[d], &p->dir[d]);
		if (p->dir[d].nr && !ret)
			ret = index_dir(j, &p->dir[d], p->def, &res->ddir[d]);
		any = any || p->dir[d].nr;
	}
	if (ret || !any) {
		free(p);
		return ret;
	}
	*out = p;
	return 0;
}

void prio_pick_io(struct prio_pick *p, struct io_u *u)
{
	const struct prio_dir *pd;
	uint32_t i = 0, r;

	u->ioprio = p->def;
	u->prio_idx = 0;
	if (u->ddir > PLAN_DDIR_WRITE)
		return;
	pd = &p->dir[u->ddir];
	while (i < pd->nr && pd->ch[i].bs && pd->ch[i].bs != u->len)
		i++;
	if (i == pd->nr)
		return;
	r = (uint32_t)rng_below(&p->rng, 100);
	if (r >= pd->ch[i].total)
		return;
	while (r >= pd->ch[i].upto)
		i++;
	u->ioprio = pd->ch[i].ioprio;
	u->prio_idx = pd->ch[i].idx;
}

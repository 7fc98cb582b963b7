/*
 * engine/ioengines.c - the engine registry and what every engine shares.
 *
 * The registry is one static const array expanded from the engine list
 * (engine/plan_ioengines.h): deterministic, and checked once (ioe_open refuses an ops struct missing what its kind needs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "ioengine.h"

#define IOE_REGISTRY_ENTRY(token, suffix, help, opts) &ioe_##token,
static const struct ioe_ops *const registry[] = { PLAN_IOENGINES(IOE_REGISTRY_ENTRY) };
#undef IOE_REGISTRY_ENTRY

#define NR_ENGINES (sizeof(registry) / sizeof(registry[0]))

uint32_t ioe_count(void)
{
	return NR_ENGINES;
}

const struct ioe_ops *ioe_at(uint32_t i)
{
	return i < NR_ENGINES ? registry[i] : NULL;
}

const struct ioe_ops *ioe_find(enum plan_ioengine id)
{
	for (uint32_t i = 0; i < NR_ENGINES; i++)
		if (registry[i]->id == id)
			return registry[i];
	return NULL;
}

static const char *ops_unavailable(const struct ioe_ops *o)
{
	if (o->unavailable)
		return o->unavailable;
	return o->load ? o->load() : NULL;
}

const char *eng_ioengine_unavailable(enum plan_ioengine e)
{
	const struct ioe_ops *o = ioe_find(e);

	return o ? ops_unavailable(o) : "built without its library";
}

bool eng_ioengine_opens_files(enum plan_ioengine e)
{
	return ioe_opens_files(e);
}

bool ioe_opens_files(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && !o->no_open;
}

bool ioe_lays_out(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && !o->no_layout;
}

bool eng_ioengine_lays_out(enum plan_ioengine e)
{
	return ioe_lays_out(e);
}

bool ioe_files_as_found(const struct plan_job *j)
{
	return j->create_on_open && ioe_lays_out(j->ioengine) && !ioe_opens_files(j->ioengine) &&
	       !ioe_removes_files(j->ioengine);
}

bool ioe_files_made_on_open(const struct plan_job *j)
{
	return j->create_on_open && ioe_lays_out(j->ioengine) && ioe_opens_files(j->ioengine) &&
	       !ioe_cannot_extend(j->ioengine) && !plan_rw_has_ddir(j->rw, PLAN_DDIR_READ);
}

bool ioe_removes_files(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && o->removes;
}

bool ioe_cannot_extend(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && o->no_extend;
}

bool ioe_names_entries(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && o->names_entries;
}

bool ioe_is_remote(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && o->remote;
}

bool ioe_fakes_io(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && o->fake_io;
}

bool ioe_does_no_io(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && o->no_io;
}

bool ioe_is_sync(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && o->sync;
}

bool ioe_is_fio_syncio(enum plan_ioengine id)
{
	const struct ioe_ops *o = ioe_find(id);

	return o && (o->sync || o->clat_at_queue);
}

static bool ops_are_complete(const struct ioe_ops *o)
{
	if (!o->queue)
		return false;
	return o->sync || (o->commit && o->getevents);
}

int ioe_open(struct ioe *e, enum plan_ioengine id, const struct ioe_cfg *cfg)
{
	const struct ioe_ops *o = ioe_find(id);
	int ret;

	memset(e, 0, sizeof(*e));
	if (o && ops_unavailable(o))
		return -ENOSYS;
	if (!o || !ops_are_complete(o))
		return -EINVAL;
	e->ops = o;
	e->cfg = *cfg;
	if (!e->cfg.depth)
		e->cfg.depth = 1;
	e->is_sync = o->sync;
	e->events = calloc(e->cfg.depth, sizeof(*e->events));
	if (!e->events)
		return -ENOMEM;
	ret = o->init ? o->init(e) : 0;
	if (ret) {
		free(e->events);
		e->events = NULL;
	}
	return ret;
}

void ioe_close(struct ioe *e)
{
	if (e->ops && e->ops->exit)
		e->ops->exit(e);
	free(e->events);
	memset(e, 0, sizeof(*e));
}

uint32_t ioe_hand_back(struct ioe *e, struct io_u **q, uint32_t *nr, uint32_t done, uint32_t max)
{
	uint32_t n = done < max ? done : max;

	memcpy(e->events, q, n * sizeof(*q));
	memmove(q, q + n, (*nr - n) * sizeof(*q));
	*nr -= n;
	return n;
}

int64_t ioe_pread(struct ioe *e, int fd, void *buf, uint32_t len, uint64_t off)
{
	ssize_t r;

	if (e->ops && e->ops->pread_sync)
		return e->ops->pread_sync(e, buf, len, off);
	r = pread(fd, buf, len, (off_t)off);
	return r < 0 ? -errno : r;
}

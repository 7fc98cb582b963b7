/*
 * engine/plan_engopts.c - finds an engine's options table and reads and frees
 * a job's options blob by that table, so that code outside the engine's file
 * (plan_free, the parser's planning, preflight) never names the engine's struct.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/plan.h"

const struct plan_engopts plan_engopts_none = { 0, NULL, 0 };

const struct plan_engopts *plan_engopts_of(enum plan_ioengine e)
{
#define PLAN_ENGOPTS_ENTRY(token, suffix, help, opts) &plan_engopts_##opts,
	static const struct plan_engopts *const tables[PLAN_IOENGINE_NR] = { PLAN_IOENGINES(PLAN_ENGOPTS_ENTRY) };
#undef PLAN_ENGOPTS_ENTRY

	return (unsigned)e < PLAN_IOENGINE_NR ? tables[e] : &plan_engopts_none;
}

const struct plan_engopt *plan_engopt_find(enum plan_ioengine e, const char *name)
{
	const struct plan_engopts *t = plan_engopts_of(e);

	for (uint32_t i = 0; i < t->nr; i++)
		if (!strcmp(t->opts[i].name, name))
			return &t->opts[i];
	return NULL;
}

long long plan_engopt_int(const void *blob, enum plan_ioengine e, const char *name)
{
	const struct plan_engopt *o = plan_engopt_find(e, name);
	const char *at = (const char *)blob;

	if (!o || !blob || o->type == PLAN_ENGOPT_STRING)
		return 0;
	if (o->type == PLAN_ENGOPT_BOOL || o->type == PLAN_ENGOPT_FLAG)
		return *(const bool *)(at + o->off);
	return *(const long long *)(at + o->off);
}

const char *plan_engopt_str(const void *blob, enum plan_ioengine e, const char *name)
{
	const struct plan_engopt *o = plan_engopt_find(e, name);

	if (!o || !blob || o->type != PLAN_ENGOPT_STRING)
		return NULL;
	return *(char *const *)((const char *)blob + o->off);
}

void plan_engopts_free(void *blob, enum plan_ioengine e)
{
	const struct plan_engopts *t = plan_engopts_of(e);

	for (uint32_t i = 0; blob && i < t->nr; i++)
		if (t->opts[i].type == PLAN_ENGOPT_STRING)
			free(*(char **)((char *)blob + t->opts[i].off));
	free(blob);
}

/*
 * engine/plan_engopts.h - an engine's own options, declared in the engine's file.
 *
 * fio's engines bring their options with them; here too: an engine file in
 * engine/ioengines/ defines a struct of its options, a table saying each
 * option's name, type, default, range, help and where in that struct the
 * value goes, and names the table in its line of the engine list
 * (engine/plan_ioengines.h).  The parser merges every table into its one
 * option table at start-up (help, schema, man lists come from there), and a
 * plan job carries the struct, filled for the job's engine only, as an opaque
 * blob the engine casts back.  Nothing outside the engine's file names its
 * options, so the parser stays out of engine/ code: these are plain data
 * behind the plan contract.
 */
#ifndef IOPLAN_ENGINE_PLAN_ENGOPTS_H
#define IOPLAN_ENGINE_PLAN_ENGOPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a value is written and stored: BOOL, FLAG as bool; INT, CHOICE, SIZE as long long; STRING as char *. */
enum plan_engopt_type {
	PLAN_ENGOPT_BOOL,		/* 0 or 1 */
	PLAN_ENGOPT_FLAG,		/* a bare name means 1 */
	PLAN_ENGOPT_INT,
	PLAN_ENGOPT_CHOICE,		/* one of choices; stores the choice's value */
	PLAN_ENGOPT_STRING,		/* owned by the plan (plan_free) */
	PLAN_ENGOPT_SIZE		/* bytes, with fio's suffixes (64k) */
};

/* A choice and the value it stands for. */
struct plan_engopt_choice {
	const char *name;
	const char *help;
	long long value;
};

struct plan_engopt {
	const char *name;
	const char *alias;		/* a second name fio takes too; NULL: none */
	enum plan_engopt_type type;
	const char *unit;		/* "s", "us", "%" ...; NULL: none */
	const char *def;		/* default as the user would write it; NULL: unset (zero) */
	double min, max;		/* range of an INT; min > max: unchecked */
	const struct plan_engopt_choice *choices;	/* CHOICE: ends at a NULL name */
	const char *help;
	size_t off;			/* offsetof() the value in the engine's options struct */
	/* The job needs it set, non-zero or non-empty; the error's reason ("the program to run"). */
	const char *required;
};

/* One engine file's options: its struct's size and its table. */
struct plan_engopts {
	size_t size;
	const struct plan_engopt *opts;
	uint32_t nr;
};

/* Each table named in the engine list; "none" is the empty one. */
#define PLAN_ENGOPTS_EXTERN(token, suffix, help, opts) extern const struct plan_engopts plan_engopts_##opts;
PLAN_IOENGINES(PLAN_ENGOPTS_EXTERN)
#undef PLAN_ENGOPTS_EXTERN

/* An engine file's table: PLAN_ENGOPTS_DEFINE(cpuio, struct cpuio_opts, table). */
#define PLAN_ENGOPTS_DEFINE(name, type, table) \
	const struct plan_engopts plan_engopts_##name = { sizeof(type), table, sizeof(table) / sizeof(table[0]) }

/* The options engine e brings (an empty table when it brings none). */
const struct plan_engopts *plan_engopts_of(enum plan_ioengine e);

/* Its option called name, or NULL. */
const struct plan_engopt *plan_engopt_find(enum plan_ioengine e, const char *name);

/* A job's value of its engine's INT, CHOICE, BOOL or FLAG option name; 0 when unset or not its engine's. */
long long plan_engopt_int(const void *blob, enum plan_ioengine e, const char *name);

/* A job's value of its engine's STRING option name; NULL when unset or not its engine's. */
const char *plan_engopt_str(const void *blob, enum plan_ioengine e, const char *name);

/* Frees a job's engine options blob and the strings in it. */
void plan_engopts_free(void *blob, enum plan_ioengine e);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_PLAN_ENGOPTS_H */

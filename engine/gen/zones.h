/*
 * engine/gen/zones.h - zonemode=strided for the I/O generator (zones.c).
 *
 * Internal to engine/gen/iogen.c, as draw.h is: the state is iogen.h's struct gen.
 */
#ifndef IOPLAN_ENGINE_ZONES_H
#define IOPLAN_ENGINE_ZONES_H

#include "engine/gen/iogen.h"

/* zonerange in bytes: the distance between zone starts, and the span I/O stays in. */
uint64_t gen_zone_range(const struct gen *g, const struct gen_file *f);

/* zoned_draws: fio's last_block for d in a zone (zonerange's blocks, not cut at the end). */
uint64_t gen_zone_last_block(const struct gen *g, const struct gen_file *f, uint8_t d);

/* f's I/O starts over at its zone's start with an empty random map (fio's file reset). */
void gen_zone_reset(struct gen *g, struct gen_file *f);

/* Moves f on to its next zone when due; false when a sequential job's last zone is done. */
bool gen_zone_next(struct gen *g, struct gen_file *f, uint8_t d);

#endif /* IOPLAN_ENGINE_ZONES_H */

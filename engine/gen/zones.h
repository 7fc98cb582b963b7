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

/*
 * Whether f's strided zones walk past its region: in a file larger than the
 * region (an existing one, a device) fio's zones wrap at the file's end, its
 * real_file_size, not the region's; size= then bounds the bytes moved only.
 */
static inline bool gen_zones_walk(const struct gen *g, const struct gen_file *f)
{
	return g->job->zone_size_bytes && f->room > f->io_size;
}

/*
 * Where f's zones wrap and a fill in them fails, from the region's start: the
 * file's end, as fio's real_file_size, which is the unrounded region's in a
 * file laid out for it (f->len is cut to whole blocks there).
 */
static inline uint64_t gen_zone_end(const struct gen *g, const struct gen_file *f)
{
	return g->job->zone_size_bytes ? f->room : f->len;
}

/*
 * Where an I/O must end, from the region's start: fio's real_file_size in
 * strided zones (past the region in a file larger than it), else the region's.
 */
static inline uint64_t gen_fill_end(const struct gen *g, const struct gen_file *f)
{
	return g->job->zone_size_bytes ? f->room : f->io_size;
}

/*
 * Whether a sequential fill of len bytes at f's position in a zone fails, as
 * fio's does: a drawn length needs the least size to fit the region (its
 * io_u_fits), and no I/O may pass the file's end (the region's in a file laid
 * out for it).
 */
bool gen_zone_fill_fails(const struct gen *g, const struct gen_file *f, uint8_t d, uint64_t len);

/* f's I/O starts over at its zone's start with an empty random map (fio's file reset). */
void gen_zone_reset(struct gen *g, struct gen_file *f);

/* Moves f on to its next zone when due; false when a sequential job's last zone is done. */
bool gen_zone_next(struct gen *g, struct gen_file *f, uint8_t d);

#endif /* IOPLAN_ENGINE_ZONES_H */

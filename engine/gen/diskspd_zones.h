/*
 * engine/gen/diskspd_zones.h - DISKSPD's effective random distribution (-rdpct, -rdabs).
 *
 * DISKSPD does not draw from its -rd ranges as written: each thread, when it
 * opens a target, turns them into byte ranges of that target's region (its
 * "effective distribution", which its result prints), and draws from those.
 * fio's zones (zoned_block in draw.c) round differently, so a DISKSPD line run
 * with fio's rule missed the target's last blocks (-rdpct10/1:90/99 on 1 MiB:
 * [8K, 1020K) instead of DISKSPD's [8K, 1024K)).  These are DISKSPD 2.2's rules
 * (Common.h ThreadTargetState), for a region of `size` bytes, -b `bs` and
 * alignment `align`, where A is DISKSPD's aligned size
 * ((size - bs) rounded down to align, plus align: one past the last offset):
 *
 * -rdpct: a range from p% to p+q% starts at p * A / 100 and ends q * A / 100
 * later (at A exactly when p + q = 100), both rounded down to align.  0% of the
 * I/O is a hole: no range.  A range left with no aligned offset (its end below
 * its start) gives its I/O to the range before when that one has no length
 * and starts there, else to the next placed range, or to the range before
 * when that one has less I/O, or to the last range, which then reaches A.  A
 * range starting where a range of no length starts pushes it one align up,
 * which is then that range's length.
 *
 * -rdabs: ranges in bytes, unaligned as given; 0% is a hole; a range starting
 * at or past size ends the distribution (it and those after are dropped); one
 * left open (the rest) or running past size ends at size, unless less than bs
 * is left there, which drops it too.  The I/O shares left then count out of
 * their sum (io_span): -rdabs10/50K:20/10K:30/1G on 100 KiB is 10:20:30 of 60.
 *
 * An offset is drawn as DISKSPD draws it: a range by a draw below io_span, then
 * a 64-bit draw rounded down to align, modulo the range's length, from its
 * start.  Where DISKSPD would fail, these say what happens instead: a range of
 * no length (DISKSPD divides by it) gets I/O at its start only; a second range
 * in a row without an offset adds its I/O to the carried one (DISKSPD's carry
 * dropped the first: its draws then found no range); an -rdabs range DISKSPD
 * would issue past the region's end (a length not a multiple of align, or -b
 * above align, at the end) is drawn again, so every I/O fits.
 */
#ifndef IOPLAN_ENGINE_DISKSPD_ZONES_H
#define IOPLAN_ENGINE_DISKSPD_ZONES_H

#include <stdint.h>

#include "engine/plan.h"
#include "engine/results.h"

/*
 * The effective distribution of j's zones (j->rand_zone_rule DISKSPD's) over a
 * region of size bytes.  Returns 0, -EINVAL when the region holds no block of bs
 * bytes (or bs or align is 0), or -ERANGE when no range with I/O lies in it.
 */
int dz_effective(const struct plan_job *j, uint64_t size, uint64_t bs, uint64_t align, struct res_zones *out);

/*
 * A region-relative offset drawn from z (io_span > 0) with the 64-bit generator
 * *rng, its I/O of bs bytes ending within the region's size bytes.
 */
uint64_t dz_draw(const struct res_zones *z, uint64_t *rng, uint64_t align, uint64_t bs, uint64_t size);

#endif /* IOPLAN_ENGINE_DISKSPD_ZONES_H */

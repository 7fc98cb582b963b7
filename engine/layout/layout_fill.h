/*
 * engine/layout/layout_fill.h - writing a file's layout data as fast as the device takes it.
 *
 * Separate from layout.c (which decides what to lay out and whether it may) so
 * the write loop can be tuned on its own.  With O_DIRECT the range is written
 * in LAYOUT_FILL_CHUNK writes kept LAYOUT_FILL_DEPTH deep through io_uring, so
 * the device never waits for the next write; without it (or without io_uring)
 * one pwrite() after another.  The data is the job's write content (random,
 * every chunk differing, unless the job asks for zeroes, a pattern, or
 * compressible or deduplicable data).
 */
#ifndef IOPLAN_ENGINE_LAYOUT_FILL_H
#define IOPLAN_ENGINE_LAYOUT_FILL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/plan.h"

/* The unit tests call this from C++, where C11's _Atomic is spelled std::atomic. */
#ifdef __cplusplus
#include <atomic>
#define LAYOUT_ATOMIC(t) std::atomic<t>
extern "C" {
#else
#include <stdatomic.h>
#define LAYOUT_ATOMIC(t) _Atomic t
#endif

#define LAYOUT_FILL_CHUNK (1u << 20)	/* bytes per write, as dd bs=1M */
#define LAYOUT_FILL_DEPTH 4u		/* O_DIRECT writes in flight */

/*
 * Writes [from, to) of fd (opened O_DIRECT when direct; from, to and the chunk
 * must then be aligned) with job's write content (NULL: random).  *done grows
 * by the bytes written as they complete; *stop is polled between writes.  0,
 * -EINTR when stopped, -ENOSPC when the file system took nothing more, or -errno.
 */
int layout_fill(int fd, uint64_t from, uint64_t to, bool direct, const struct plan_job *job,
		LAYOUT_ATOMIC(uint64_t) *done, const LAYOUT_ATOMIC(int) *stop);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_LAYOUT_FILL_H */

/*
 * engine/ioengines/io_uring.h - what only the io_uring engine can tell: whether
 * its files and buffers ended up registered.  Registration is tried quietly
 * and may be refused (io_uring.c), so a test reads here which path a ring took;
 * the generic contract (engine/ioengine.h) has no such notion.
 */
#ifndef IOPLAN_ENGINE_IOENGINES_IO_URING_H
#define IOPLAN_ENGINE_IOENGINES_IO_URING_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/ioengine.h"

/*
 * The flags, rw_flags and opcode of the last SQE the instance filled (fio's
 * nowait, uncached, force_async and nonvectored act there); false when e is
 * not an open io_uring instance.
 */
bool ioe_uring_last_sqe(const struct ioe *e, uint8_t *flags, uint32_t *rw_flags, uint8_t *opcode);

/* False when e is not an open io_uring instance; else *files and *bufs. */
bool ioe_uring_registered(const struct ioe *e, bool *files, bool *bufs);

#endif /* IOPLAN_ENGINE_IOENGINES_IO_URING_H */

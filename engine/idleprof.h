/*
 * engine/idleprof.h - CPU idleness over the measured run (fio's --idle-prof).
 *
 * One thread per CPU, pinned to it and at the lowest priority (SCHED_IDLE), so
 * it runs only when nothing else wants that CPU.  Before the run each thread
 * times a unit of work (writing one page of bytes) on an otherwise idle CPU;
 * during the run it does units back to back.  A CPU's idleness is the units it
 * did times the calibrated unit time over the run's length: 100% when the run
 * left the CPU wholly to the idle thread, 0% when the run used all of it.
 * This is fio's method and fio's figures (idletime.c), so both tools agree.
 */
#ifndef IOPLAN_ENGINE_IDLEPROF_H
#define IOPLAN_ENGINE_IDLEPROF_H

#include "engine/results.h"

struct idleprof;

/*
 * Starts one thread per configured CPU, waits for their calibration and leaves
 * them waiting for idleprof_go.  mode is RES_IDLE_SYSTEM or RES_IDLE_PERCPU.
 * 0 or -errno (-ENOMEM, or a thread that could not be created).
 */
int idleprof_start(enum res_idle_mode mode, struct idleprof **out);

/* The measured run begins: the threads start counting units. */
void idleprof_go(struct idleprof *ip);

/*
 * The run ended: stops the threads, stores the idleness in r->idle and frees
 * ip.  NULL is a no-op.
 */
void idleprof_stop(struct idleprof *ip, struct results *r);

/* eng_idle_calibrate (engine.h) is here too: the same threads, calibration only. */

#endif /* IOPLAN_ENGINE_IDLEPROF_H */

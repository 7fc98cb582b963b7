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

#ifdef __cplusplus
extern "C" {
#endif

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

/*
 * A CPU's idleness in percent: units done at unit_us each over run_us (fio's
 * formula), at most 100.  The unit is timed before the run; when that timing
 * ran slower than the CPU runs the units later (another load on the machine,
 * a hypervisor's steal, a frequency change), the formula goes past 100, far
 * past on a run of a few microseconds: a 4 KiB null job printed 'cpu-0:
 * 1007.95%'.  fio 3.33 prints such figures as they come; no CPU is idle more
 * than all of the run.  0 for a run of no length.
 */
double idleprof_pct(double units, double unit_us, double run_us);

/* eng_idle_calibrate (engine.h) is here too: the same threads, calibration only. */

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_IDLEPROF_H */

/*
 * engine/clock.h - the engine's one time source: calibrated TSC, CLOCK_MONOTONIC or fake.
 *
 * Every timestamp in a run is ns since the clock's base (the run's start), so results
 * need no conversion.  Workers copy the struct and read it with clk_now(), which is
 * inline and branches only on a predictable mode: a rdtsc and one multiply on x86
 * with a TSC the kernel and our own checks trust, clock_gettime() otherwise, and a
 * counter that advances a fixed step per read for golden tests (deterministic per
 * thread).
 *
 * Measured (2-core KVM guest, Linux 6.18, shared and loaded; tests/engine/test_clock.cpp
 * checks the bounds): a TSC read costs 10.7-10.9 ns, clock_gettime(CLOCK_MONOTONIC)
 * 25.7-28.0 ns (kvm-clock through the vDSO).  The TSC is calibrated against
 * CLOCK_MONOTONIC over 5 ms with bracketed pairs (~50 ns each end), so its rate error
 * is at most ~10 ppm by construction; measured over three calibrations: -22 .. -178 ns
 * after 100 ms, -40 .. -1202 ns after 1 s, 139 .. -2339 ns after 2 s, i.e. <= 1.2 ppm:
 * 1.2 ns on a 1 ms latency, 72 us on a 60 s window.  The hot loop reads the clock
 * once per back-to-back I/O, not twice (worker_io.c explains when a read is reused);
 * on the null engine that puts the tool's ~20 ns of bookkeeping between two I/Os into
 * the next I/O's latency (clat p50 30 ns instead of 10 ns), invisible on a device.
 */
#ifndef IOPLAN_ENGINE_CLOCK_H
#define IOPLAN_ENGINE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

enum clk_mode {
	CLK_TSC = 0,
	CLK_MONO,
	CLK_FAKE
};

struct clk {
	enum clk_mode mode;
	uint64_t tsc0;			/* TSC at the base */
	uint64_t mult;			/* ns per tick, 32.32 fixed point */
	uint64_t mono0;			/* CLOCK_MONOTONIC ns at the base */
	uint64_t fake_now;		/* CLK_FAKE: last value handed out */
	uint64_t fake_step;
};

static inline uint64_t clk_mono_raw(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clk_rdtsc(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return 0;
#endif
}

/* ns since the base. */
static inline uint64_t clk_now(struct clk *c)
{
	if (__builtin_expect(c->mode == CLK_TSC, 1)) {
		int64_t d = (int64_t)(clk_rdtsc() - c->tsc0);

		/* Another CPU's TSC may trail ours by a few ticks near the base. */
		if (d < 0)
			d = 0;
		return (uint64_t)(((unsigned __int128)(uint64_t)d * c->mult) >> 32);
	}
	if (c->mode == CLK_FAKE)
		return c->fake_now += c->fake_step;
	return clk_mono_raw() - c->mono0;
}

/*
 * Sets up a clock whose base is now.  With fake set, the clock is a counter that
 * starts at 0; otherwise the TSC is used when it is invariant, consistent across
 * the CPUs we may run on and calibrates sanely against CLOCK_MONOTONIC (this takes
 * ~20 ms), else CLOCK_MONOTONIC.  Returns 0 (it cannot fail: the fallback always works).
 */
int clk_init(struct clk *c, bool fake, uint64_t fake_step_ns);

/* A fixed-base clock for tests that want a given mode (CLK_TSC falls back if unusable). */
int clk_init_mode(struct clk *c, enum clk_mode mode);

/* Stable name for results.clock_source: "tsc", "clock_gettime", "fake". */
const char *clk_name(const struct clk *c);

/* Average cost of one clk_now() in ns, measured over n reads. */
double clk_cost_ns(struct clk *c, unsigned int n);

/*
 * Sleeps until clock time t (ns since base), at most max_ns at a time so callers
 * can check for a stop request.  The fake clock jumps to t instead of sleeping.
 * Returns the clock time afterwards.
 */
uint64_t clk_sleep_until(struct clk *c, uint64_t t, uint64_t max_ns);

/*
 * How late a 1 us sleep wakes up here, in ns (fio's ns_granularity).  A wait shorter than this is spun, not slept, and a longer
 * one sleeps to this much before its end and spins the rest: a sleep alone
 * overshoots by the timer slack and the wake-up (~60-100 us on a VM), which
 * made thinktime=20 cost ~120 us.  The worst but one of ten tries; 0 for the
 * fake clock.
 */
uint64_t clk_sleep_granularity_ns(struct clk *c);

#endif /* IOPLAN_ENGINE_CLOCK_H */

/*
 * engine/clock.c - choosing, calibrating and checking the engine's time source.
 *
 * The TSC is used only when the CPU says it is invariant (CPUID 0x80000007 EDX
 * bit 8), a 20 ms calibration against CLOCK_MONOTONIC gives a plausible frequency,
 * and every CPU this thread may run on agrees with CLOCK_MONOTONIC to within 50 us
 * when its TSC is converted.  Anything else falls back to clock_gettime(), which
 * is always right, only slower.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "clock.h"

#define CAL_NS 5000000ull		/* calibration interval: +-50 ns ends, so ~10 ppm */
#define CPU_AGREE_NS 50000		/* per-CPU disagreement we accept */
#define CPUS_CHECKED 256

static bool tsc_is_invariant(void)
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return false;
	return d & (1u << 8);
#else
	return false;
#endif
}

/* A (tsc, mono) pair read as close together as we can manage. */
static void tsc_pair(uint64_t *tsc, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t t1 = clk_rdtsc();
		uint64_t m = clk_mono_raw();
		uint64_t t2 = clk_rdtsc();

		if (t2 - t1 < best) {
			best = t2 - t1;
			*tsc = t1 + (t2 - t1) / 2;
			*mono = m;
		}
	}
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int64_t tsc_error_here(const struct clk *c)
{
	uint64_t tsc, mono, pred;

	tsc_pair(&tsc, &mono);
	if (tsc < c->tsc0)
		return INT64_MAX;
	pred = (uint64_t)(((unsigned __int128)(tsc - c->tsc0) * c->mult) >> 32);
	return (int64_t)(pred - (mono - c->mono0));
}

/* Every CPU we may be scheduled on must agree; restores the affinity it found. */
static bool tsc_agrees_on_all_cpus(const struct clk *c)
{
	cpu_set_t orig, one;
	bool ok = true;
	int64_t err;

	if (sched_getaffinity(0, sizeof(orig), &orig))
		return true;	/* cannot move: this CPU was checked by the caller */
	for (int cpu = 0; cpu < CPUS_CHECKED && ok; cpu++) {
		if (!CPU_ISSET(cpu, &orig))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		err = tsc_error_here(c);
		ok = err > -CPU_AGREE_NS && err < CPU_AGREE_NS;
	}
	sched_setaffinity(0, sizeof(orig), &orig);
	return ok;
}

static bool tsc_calibrate(struct clk *c)
{
	uint64_t t1, m1, t2, m2, khz;

	if (!tsc_is_invariant())
		return false;
	tsc_pair(&t1, &m1);
	sleep_ns(CAL_NS);
	tsc_pair(&t2, &m2);
	if (t2 <= t1 || m2 <= m1)
		return false;
	khz = (t2 - t1) * 1000000ull / (m2 - m1);
	if (khz < 100000 || khz > 20000000)	/* 100 MHz .. 20 GHz */
		return false;
	c->mode = CLK_TSC;
	c->tsc0 = t1;
	c->mono0 = m1;
	c->mult = (uint64_t)((((unsigned __int128)(m2 - m1)) << 32) / (t2 - t1));
	return tsc_agrees_on_all_cpus(c);
}

static void mono_init(struct clk *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = CLK_MONO;
	c->mono0 = clk_mono_raw();
}

int clk_init(struct clk *c, bool fake, uint64_t fake_step_ns)
{
	memset(c, 0, sizeof(*c));
	if (fake) {
		c->mode = CLK_FAKE;
		c->fake_step = fake_step_ns ? fake_step_ns : 1000;
		return 0;
	}
	if (!tsc_calibrate(c))
		mono_init(c);
	return 0;
}

int clk_init_mode(struct clk *c, enum clk_mode mode)
{
	if (mode == CLK_FAKE)
		return clk_init(c, true, 1000);
	memset(c, 0, sizeof(*c));
	if (mode == CLK_TSC && tsc_calibrate(c))
		return 0;
	mono_init(c);
	return mode == CLK_TSC ? -ENOTSUP : 0;
}

const char *clk_name(const struct clk *c)
{
	switch (c->mode) {
	case CLK_TSC:
		return "tsc";
	case CLK_FAKE:
		return "fake";
	default:
		return "clock_gettime";
	}
}

double clk_cost_ns(struct clk *c, unsigned int n)
{
	uint64_t m0, m1, sink = 0;

	if (c->mode == CLK_FAKE || !n)
		return 0.0;
	m0 = clk_mono_raw();
	for (unsigned int i = 0; i < n; i++)
		sink += clk_now(c);
	m1 = clk_mono_raw();
	__asm__ volatile("" : : "r"(sink));
	return (double)(m1 - m0) / (double)n;
}

uint64_t clk_sleep_until(struct clk *c, uint64_t t, uint64_t max_ns)
{
	uint64_t now = clk_now(c), abs;
	struct timespec ts;

	if (c->mode == CLK_FAKE) {
		if (t > c->fake_now)
			c->fake_now = t;
		return c->fake_now;
	}
	if (t <= now)
		return now;
	if (t - now > max_ns)
		t = now + max_ns;
	/* Relative to a fresh CLOCK_MONOTONIC read: TSC time may drift from it by ppm. */
	abs = clk_mono_raw() + (t - now);
	ts.tv_sec = (time_t)(abs / 1000000000ull);
	ts.tv_nsec = (long)(abs % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return clk_now(c);
}

/* The worst but one of ten: one preemption while measuring does not turn every think into a spin. */
uint64_t clk_sleep_granularity_ns(struct clk *c)
{
	uint64_t worst = 0, next = 0, d;

	if (c->mode == CLK_FAKE)
		return 0;
	for (int i = 0; i < 10; i++) {
		uint64_t t0 = clk_now(c);

		sleep_ns(1000);
		d = clk_now(c) - t0;
		if (d > worst) {
			next = worst;
			worst = d;
		} else if (d > next) {
			next = d;
		}
	}
	return next;
}

// tests/engine/test_idleprof.cpp - --idle-prof's per-CPU figure (engine/idleprof.c):
// fio's formula, never above all of the run.
#include <doctest/doctest.h>

#include "engine/idleprof.h"

TEST_CASE("idleprof: a CPU's idleness is fio's units times the unit over the run, at most 100%")
{
	// 500 units of 2 us over 4 ms: a CPU idle a quarter of the run.
	CHECK(idleprof_pct(500, 2.0, 4000) == doctest::Approx(25.0));
	CHECK(idleprof_pct(2000, 2.0, 4000) == doctest::Approx(100.0));
	// A unit timed slower than the run then went (a loaded machine as it
	// calibrated): a 4 KiB null job printed 1007.95% for cpu-0.
	CHECK(idleprof_pct(1.0, 82.35, 8.17) == 100.0);
	CHECK(idleprof_pct(2100, 2.0, 4000) == 100.0);
	CHECK(idleprof_pct(0, 2.0, 4000) == 0.0);
	CHECK(idleprof_pct(3, 2.0, 0) == 0.0);
}

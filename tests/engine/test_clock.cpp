// tests/engine/test_clock.cpp - the engine's time source (engine/clock.c): the TSC's
// short calibration stays within a few ppm of CLOCK_MONOTONIC, reads never go back,
// the fake clock steps, and a read costs what clock.h says (well under a microsecond).
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <thread>

extern "C" {
#include "engine/clock.h"
}

namespace {

// TSC time minus CLOCK_MONOTONIC time since the same base, best of a few pairs.
long long tsc_error_ns(clk &c)
{
	long long best = 1LL << 62;
	for (int i = 0; i < 16; i++) {
		long long t = (long long)clk_now(&c);
		long long m = (long long)(clk_mono_raw() - c.mono0);
		if (std::llabs(t - m) < std::llabs(best))
			best = t - m;
	}
	return best;
}

} // namespace

TEST_CASE("clock: a calibrated TSC agrees with CLOCK_MONOTONIC to 25 ppm")
{
	clk c;
	if (clk_init_mode(&c, CLK_TSC) != 0) {
		MESSAGE("no trustworthy TSC here: skipped");
		return;
	}
	CHECK(c.mode == CLK_TSC);
	std::this_thread::sleep_for(std::chrono::milliseconds(400));
	long long err = tsc_error_ns(c);
	CAPTURE(err);
	CHECK(std::llabs(err) < 10000);	// 10 us over 400 ms
}

TEST_CASE("clock: reads never go back and cost well under a microsecond, in every real mode")
{
	for (clk_mode mode : { CLK_TSC, CLK_MONO }) {
		clk c;
		clk_init_mode(&c, mode);
		uint64_t last = clk_now(&c);
		bool back = false;
		for (int i = 0; i < 200000; i++) {
			uint64_t t = clk_now(&c);
			back = back || t < last;
			last = t;
		}
		CHECK_FALSE(back);
		double cost = clk_cost_ns(&c, 100000);
		CHECK(cost > 0.0);
		CHECK(cost < 1000.0);
	}
}

TEST_CASE("clock: the fake clock advances one step per read and jumps when it sleeps")
{
	clk c;
	clk_init(&c, true, 250);
	CHECK(clk_now(&c) == 250);
	CHECK(clk_now(&c) == 500);
	CHECK(clk_sleep_until(&c, 10000, 1000000) == 10000);
	CHECK(clk_now(&c) == 10250);
	CHECK(std::string(clk_name(&c)) == "fake");
}

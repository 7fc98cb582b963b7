// tests/engine/test_stats.cpp - the per-I/O maps of engine/stats.h against
// fio 3.33's own rules, written out here the slow way: io_u_mark_depth's depth
// buckets and __io_u_mark_map's submit/complete buckets, at every boundary;
// and the bounded time series' growth and merging.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>

extern "C" {
#include "engine/stats.h"
}

namespace {

// fio's io_u_mark_depth: 1, 2, 4, 8, 16, 32, >=64.
uint32_t fio_depth_bucket(uint32_t depth)
{
	const uint32_t lower[] = { 64, 32, 16, 8, 4, 2 };

	for (uint32_t i = 0; i < 6; i++)
		if (depth >= lower[i])
			return 6 - i;
	return 0;
}

// fio's __io_u_mark_map: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64.
uint32_t fio_batch_bucket(uint32_t nr)
{
	const uint32_t upper[] = { 0, 4, 8, 16, 32, 64 };

	for (uint32_t i = 0; i < 6; i++)
		if (nr <= upper[i])
			return i;
	return 6;
}

} // namespace

TEST_CASE("stats: the depth and batch maps bucket as fio's do, at every boundary")
{
	for (uint32_t v = 1; v <= 300; v++) {
		CAPTURE(v);
		CHECK(depth_bucket(v) == fio_depth_bucket(v));
	}
	for (uint32_t v = 0; v <= 300; v++) {
		CAPTURE(v);
		CHECK(batch_bucket(v) == fio_batch_bucket(v));
	}
	CHECK(depth_bucket(UINT32_MAX) == 6);
	CHECK(batch_bucket(UINT32_MAX) == 6);
}

TEST_CASE("series: a short run keeps a few samples' memory; a long one merges neighbours at SERIES_CAP as before")
{
	series s;
	res_series out{};
	uint64_t bytes[PLAN_DDIR_NR] = {}, ios[PLAN_DDIR_NR] = {}, lat[PLAN_DDIR_NR] = {};
	const uint64_t step = 1000;	/* ns per interval */

	REQUIRE(series_start(&s, &out, step, 0) == 0);
	CHECK(out.cap == SERIES_FIRST);	/* a file of 10 000 jobs made 10 000 series of 512 */
	auto tick = [&](uint32_t intervals) {
		for (uint32_t i = 0; i < intervals; i++) {
			ios[PLAN_DDIR_READ] += 3;
			bytes[PLAN_DDIR_READ] += 3 * 4096;
			series_close_until(&s, s.next_end + 1, bytes, ios, lat);
		}
	};
	tick(3);
	CHECK((out.nr == 3 && out.cap == SERIES_FIRST && out.interval_ns == step));
	tick(SERIES_CAP - 1 - 3);	/* one short of the cap: grown, never merged */
	CHECK((out.nr == SERIES_CAP - 1 && out.cap == SERIES_CAP && out.interval_ns == step));
	tick(1);			/* the cap: neighbours merge, the interval doubles */
	CHECK((out.nr == SERIES_CAP / 2 && out.cap == SERIES_CAP && out.interval_ns == 2 * step));
	uint64_t sum = 0;
	for (uint32_t i = 0; i < out.nr; i++)
		sum += out.samples[i].ios[PLAN_DDIR_READ];
	CHECK(sum == ios[PLAN_DDIR_READ]);
	free(out.samples);
}

// tests/engine/test_stats.cpp - the per-I/O maps of engine/stats.h against
// fio 3.33's own rules, written out here the slow way: io_u_mark_depth's depth
// buckets and __io_u_mark_map's submit/complete buckets, at every boundary.
#include <doctest/doctest.h>

#include <cstdint>

#include "engine/stats.h"

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

// tests/engine/test_results.cpp - percentile ties in engine/results.c decide
// as fio 3.33's binary does (the fio oracle in tests/report/ checks the same
// on real runs; this pins it without fio's timing).
#include <doctest/doctest.h>

#include <cstdlib>

#include "engine/results.h"

namespace {

// n_lo samples in the bucket of lo, n_hi in the bucket of hi.
struct two_buckets {
	res_lat l = {};
	two_buckets(uint64_t lo, uint64_t n_lo, uint64_t hi, uint64_t n_hi)
	{
		l.hist = (uint64_t *)std::calloc(RES_HIST_NR, sizeof(uint64_t));
		l.hist[res_hist_index(lo)] = n_lo;
		l.hist[res_hist_index(hi)] = n_hi;
		l.n = n_lo + n_hi;
		l.min_ns = lo;
		l.max_ns = hi;
	}
	~two_buckets() { std::free(l.hist); }
};

} // namespace

TEST_CASE("results: a percentile that lands exactly on a bucket edge takes that bucket, as fio")
{
	// 60% of 400 = 240 samples: fio reports the bucket that reaches 240.
	two_buckets a(8, 240, 30, 160);
	CHECK(res_lat_percentile(&a.l, 60.0) == 8);
	CHECK(res_lat_percentile(&a.l, 60.5) == 30);
	// 30% of 200 = 60.
	two_buckets b(4, 60, 100, 140);
	CHECK(res_lat_percentile(&b.l, 30.0) == 4);
	CHECK(res_lat_percentile(&b.l, 40.0) == 100);
}

// tests/contract/test_plan.cpp - the C++17 side of the plan/results contract.
//
// plan_c11.c builds a plan and records latencies from C11 (-pedantic); here C++17
// reads the same structs, checks the histogram arithmetic against fio's published
// bucket values and exact statistics, and frees everything through the C API.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "engine/engine.h"
#include "engine/plan.h"
#include "engine/results.h"

extern "C" {
struct plan *t_c11_build_plan(void);
void t_c11_record(struct res_lat *l, uint64_t v);
size_t t_c11_sizeof_plan_job(void);
size_t t_c11_sizeof_res_clone(void);
}

TEST_CASE("contract: a plan built in C11 is read and freed from C++17")
{
	struct plan *p = t_c11_build_plan();
	REQUIRE(p != nullptr);
	CHECK(p->abi_version == PLAN_ABI_VERSION);
	CHECK(t_c11_sizeof_plan_job() == sizeof(struct plan_job));
	CHECK(t_c11_sizeof_res_clone() == sizeof(struct res_clone));
	const struct plan_job *j = plan_job_at(p, 0);
	REQUIRE(j != nullptr);
	CHECK(plan_job_at(p, 1) == nullptr);
	CHECK(std::string(j->name) == "c11job");
	CHECK(j->nr_clones == 2);
	CHECK(std::string(j->clones[1].files[0].path) == "c11job.1.0");
	CHECK(plan_rw_is_random(j->rw));
	CHECK(plan_rw_has_ddir(j->rw, PLAN_DDIR_READ));
	CHECK_FALSE(plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE));
	CHECK(std::string(plan_rw_name(j->rw)) == "randread");
	plan_free(p);
	plan_free(nullptr);
}

TEST_CASE("contract: histogram buckets match fio's bucketing")
{
	// Exact below 128 ns.
	for (uint64_t v = 0; v < 128; v++) {
		CHECK(res_hist_index(v) == v);
		CHECK(res_hist_value((uint32_t)v) == v);
	}
	// fio's documented example: 27520 ns = 2^14 + 43.5 * 2^8.
	CHECK(res_hist_value(res_hist_index(27520)) == 27520);
	// json+ bins seen in fio output: 4192 is a bucket value.
	CHECK(res_hist_value(res_hist_index(4192)) == 4192);
	// Index and value are monotonic and within 1/128 everywhere they are tracked.
	std::mt19937_64 rng(42);
	for (int i = 0; i < 200000; i++) {
		uint64_t v = rng() >> (rng() % 64);
		if (v >= (1ull << 42))
			continue;
		uint64_t b = res_hist_value(res_hist_index(v));
		double err = std::fabs((double)b - (double)v) / (double)(v ? v : 1);
		CHECK(err <= 1.0 / 128.0);
	}
	CHECK(res_hist_index(UINT64_MAX) == RES_HIST_NR - 1);
}

TEST_CASE("contract: exact mean and stddev, percentiles within 1/128, merging")
{
	struct res_clone a, b;
	res_clone_init(&a);
	res_clone_init(&b);
	a.ddir[0].clat.hist = (uint64_t *)calloc(RES_HIST_NR, sizeof(uint64_t));
	b.ddir[0].clat.hist = (uint64_t *)calloc(RES_HIST_NR, sizeof(uint64_t));

	std::mt19937_64 rng(7);
	std::lognormal_distribution<double> dist(10.0, 1.5);
	std::vector<uint64_t> all;
	for (int i = 0; i < 50000; i++) {
		uint64_t v = (uint64_t)dist(rng) + 1;
		all.push_back(v);
		t_c11_record(i % 3 ? &a.ddir[0].clat : &b.ddir[0].clat, v);
	}
	REQUIRE(res_clone_merge(&a, &b) == 0);
	const struct res_lat *l = &a.ddir[0].clat;
	REQUIRE(l->n == all.size());

	long double sum = 0;
	for (auto v : all)
		sum += v;
	long double mean = sum / all.size(), m2 = 0;
	for (auto v : all)
		m2 += (v - mean) * (v - mean);
	CHECK(res_lat_mean(l) == doctest::Approx((double)mean).epsilon(1e-12));
	CHECK(res_lat_stddev(l) == doctest::Approx((double)std::sqrt(m2 / (all.size() - 1))).epsilon(1e-9));

	std::sort(all.begin(), all.end());
	CHECK(l->min_ns == all.front());
	CHECK(l->max_ns == all.back());
	for (double p : {1.0, 5.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
		size_t rank = (size_t)std::ceil(p / 100.0 * all.size());
		uint64_t exact = all[rank - 1];
		uint64_t got = res_lat_percentile(l, p);
		CHECK(std::fabs((double)got - (double)exact) / (double)exact <= 1.0 / 128.0);
	}
	CHECK(res_lat_percentile(l, 100.0) == all.back());
	res_clone_release(&a);
	res_clone_release(&b);
}

TEST_CASE("contract: group_reporting sums sample statistics as fio does")
{
	struct res_sample_stat x = {}, y = {};
	for (double v : {100.0, 110.0, 90.0})
		res_sample_stat_add(&x, v);
	for (double v : {50.0, 70.0})
		res_sample_stat_add(&y, v);
	CHECK(res_sample_stat_mean(&x) == doctest::Approx(100.0));
	CHECK(res_sample_stat_stddev(&x) == doctest::Approx(10.0));
	res_sample_stat_merge_sum(&x, &y);
	CHECK(x.min == doctest::Approx(140.0));
	CHECK(x.max == doctest::Approx(180.0));
	CHECK(res_sample_stat_mean(&x) == doctest::Approx(160.0));
	CHECK(x.n == 5);
}

// tests/engine/test_diskspd_zones.cpp - DISKSPD's effective distribution (engine/gen/diskspd_zones.c):
// the ranges -rdpct and -rdabs become over a region, by DISKSPD 2.2's rules (the cases of its
// ThreadTargetState tests, with expectations worked out here), the offsets a run draws from them,
// and the ranges its results keep for DISKSPD's report.
#include <doctest/doctest.h>

#include <cerrno>
#include <initializer_list>
#include <map>
#include <sstream>
#include <set>
#include <vector>

#include "tests/engine/plan_builder.hpp"

extern "C" {
#include "engine/gen/diskspd_zones.h"
}

namespace {

constexpr uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;

// A job whose zones are {io%, range} pairs: range in percent (-rdpct) or bytes (-rdabs, 0 = the rest).
plan_job job_of(enum plan_zone_rule rule, std::initializer_list<std::pair<uint32_t, uint64_t>> zones)
{
	plan_job j{};
	j.random_distribution = PLAN_RAND_ZONED;
	j.rand_zone_rule = rule;
	for (auto &z : zones) {
		plan_rand_zone &r = j.rand_zones[j.nr_rand_zones++];
		r.io_pct = z.first;
		if (rule == PLAN_ZONES_DISKSPD_ABS)
			r.range_bytes = z.second;
		else
			r.range_pct = (uint32_t)z.second;
	}
	return j;
}

struct range {
	uint32_t io_first, io_pct;
	uint64_t offset, bytes;
	bool operator==(const range &o) const
	{
		return io_first == o.io_first && io_pct == o.io_pct && offset == o.offset && bytes == o.bytes;
	}
};


} // namespace

// A failed CHECK shows the ranges: io_first+io% [offset, +bytes).
template <> struct doctest::StringMaker<std::vector<range>> {
	static doctest::String convert(const std::vector<range> &v)
	{
		std::ostringstream o;
		for (const range &r : v)
			o << r.io_first << "+" << r.io_pct << "% [" << r.offset << ", +" << r.bytes << ") ";
		return o.str().c_str();
	}
};

namespace {

std::vector<range> effective(const plan_job &j, uint64_t size, uint64_t bs, uint64_t align, uint32_t *span = nullptr)
{
	res_zones z;
	REQUIRE(dz_effective(&j, size, bs, align, &z) == 0);
	if (span)
		*span = z.io_span;
	std::vector<range> v;
	for (uint32_t i = 0; i < z.nr; i++)
		v.push_back({ z.zone[i].io_first, z.zone[i].io_pct, z.zone[i].offset, z.zone[i].bytes });
	return v;
}

std::vector<range> pct(std::initializer_list<std::pair<uint32_t, uint64_t>> zones, uint64_t size)
{
	uint32_t span = 0;
	auto v = effective(job_of(PLAN_ZONES_DISKSPD_PCT, zones), size, 4 * KiB, 4 * KiB, &span);
	CHECK(span == 100);
	return v;
}

} // namespace

TEST_CASE("diskspd zones: -rdpct bounds are rounded down to the alignment, the last one to the aligned end")
{
	// The gap in ioplan's DISKSPD lines: fio's rule ended the 99% range at 1020K.
	CHECK(pct({ { 10, 1 }, { 90, 99 } }, MiB) ==
	      std::vector<range>{ { 0, 10, 0, 8 * KiB }, { 10, 90, 8 * KiB, 1016 * KiB } });
	// A hole (0% of the I/O) is no range; 10% of 100 KiB is 10240 bytes, 8K aligned down.
	CHECK(pct({ { 10, 10 }, { 10, 10 }, { 0, 10 }, { 80, 70 } }, 100 * KiB) ==
	      std::vector<range>{ { 0, 10, 0, 8 * KiB }, { 10, 10, 8 * KiB, 12 * KiB }, { 20, 80, 28 * KiB, 72 * KiB } });
	// The same percentages over 1 MiB: each bound its own share of the size.
	CHECK(pct({ { 10, 10 }, { 10, 10 }, { 0, 10 }, { 80, 70 } }, MiB) ==
	      std::vector<range>{ { 0, 10, 0, 100 * KiB }, { 10, 10, 100 * KiB, 104 * KiB },
				  { 20, 80, 304 * KiB, 720 * KiB } });
	// -b above the alignment: the aligned end (1020K) is one step past where the last whole
	// block starts, and half of it (510K) is aligned down.
	auto v = effective(job_of(PLAN_ZONES_DISKSPD_PCT, { { 50, 50 }, { 50, 50 } }), MiB, 8 * KiB, 4 * KiB);
	CHECK(v == std::vector<range>{ { 0, 50, 0, 508 * KiB }, { 50, 50, 508 * KiB, 512 * KiB } });
}

TEST_CASE("diskspd zones: -rdpct ranges with no aligned offset give their I/O to a neighbour")
{
	// 1% of 100 KiB holds no 4K offset of its own: it starts where a range of no length
	// starts, which grows by one step, and the next range starts after it.
	CHECK(pct({ { 10, 10 }, { 10, 10 }, { 10, 1 }, { 70, 79 } }, 100 * KiB) ==
	      std::vector<range>{ { 0, 10, 0, 8 * KiB }, { 10, 10, 8 * KiB, 12 * KiB }, { 20, 10, 20 * KiB, 4 * KiB },
				  { 30, 70, 24 * KiB, 76 * KiB } });
	// The last range has no offset: its I/O goes to the one before, which reaches the end.
	CHECK(pct({ { 10, 96 }, { 10, 3 }, { 80, 1 } }, 100 * KiB) ==
	      std::vector<range>{ { 0, 10, 0, 96 * KiB }, { 10, 90, 96 * KiB, 4 * KiB } });
	// Carried I/O goes to the smaller of the range before and the next.
	CHECK(pct({ { 10, 5 }, { 10, 1 }, { 80, 94 } }, 100 * KiB) ==
	      std::vector<range>{ { 0, 20, 0, 4 * KiB }, { 20, 80, 4 * KiB, 96 * KiB } });
	CHECK(pct({ { 10, 1 }, { 10, 1 }, { 80, 98 } }, 100 * KiB) ==
	      std::vector<range>{ { 0, 20, 0, 4 * KiB }, { 20, 80, 4 * KiB, 96 * KiB } });
	// n ranges of 1%: four share the first 4K step, a fifth has one of its own.
	for (uint32_t n = 1; n <= 4; n++) {
		plan_job j = job_of(PLAN_ZONES_DISKSPD_PCT, {});
		for (uint32_t i = 0; i < n; i++)
			j.rand_zones[j.nr_rand_zones++] = { 10, 1, 0 };
		j.rand_zones[j.nr_rand_zones++] = { 100 - 10 * n, 100 - n, 0 };
		CAPTURE(n);
		CHECK(effective(j, 100 * KiB, 4 * KiB, 4 * KiB) ==
		      std::vector<range>{ { 0, 10 * n, 0, 4 * KiB }, { 10 * n, 100 - 10 * n, 4 * KiB, 96 * KiB } });
	}
	CHECK(pct({ { 10, 1 }, { 10, 1 }, { 10, 1 }, { 10, 1 }, { 10, 1 }, { 50, 95 } }, 100 * KiB) ==
	      std::vector<range>{ { 0, 40, 0, 4 * KiB }, { 40, 10, 4 * KiB, 4 * KiB }, { 50, 50, 8 * KiB, 92 * KiB } });
}

TEST_CASE("diskspd zones: -rdabs ranges are cut at the region's end; those past it drop their I/O share")
{
	uint32_t span = 0;
	auto abs = [&](std::initializer_list<std::pair<uint32_t, uint64_t>> z, uint64_t size, uint64_t bs) {
		return effective(job_of(PLAN_ZONES_DISKSPD_ABS, z), size, bs, bs, &span);
	};
	// The rest (0) reaches the end; a hole is no range but keeps its bytes.
	CHECK(abs({ { 10, GiB }, { 10, GiB }, { 0, 100 * GiB }, { 80, 0 } }, 200 * GiB, 4 * KiB) ==
	      std::vector<range>{ { 0, 10, 0, GiB }, { 10, 10, GiB, GiB }, { 20, 80, 102 * GiB, 98 * GiB } });
	CHECK(span == 100);
	CHECK(abs({ { 10, GiB }, { 10, GiB }, { 0, 100 * GiB }, { 80, 1024 * GiB } }, 200 * GiB, 4 * KiB) ==
	      std::vector<range>{ { 0, 10, 0, GiB }, { 10, 10, GiB, GiB }, { 20, 80, 102 * GiB, 98 * GiB } });
	// A range starting at the end is dropped with its 80%: the others count out of 20.
	CHECK(abs({ { 10, 100 * GiB }, { 10, 100 * GiB }, { 80, 0 } }, 200 * GiB, 4 * KiB) ==
	      std::vector<range>{ { 0, 10, 0, 100 * GiB }, { 10, 10, 100 * GiB, 100 * GiB } });
	CHECK(span == 20);
	CHECK(abs({ { 10, 50 * KiB }, { 20, 10 * KiB }, { 30, GiB }, { 40, 0 } }, 100 * KiB, 4 * KiB) ==
	      std::vector<range>{ { 0, 10, 0, 50 * KiB }, { 10, 20, 50 * KiB, 10 * KiB }, { 30, 30, 60 * KiB, 40 * KiB } });
	CHECK(span == 60);
	// Lengths stay as given, aligned or not; the rest must hold a block of -b.
	CHECK(abs({ { 10, 98 * KiB }, { 90, 0 } }, 100 * KiB, 3 * KiB) == std::vector<range>{ { 0, 10, 0, 98 * KiB } });
	CHECK(span == 10);
	CHECK(abs({ { 10, 96 * KiB }, { 90, 0 } }, 100 * KiB, 3 * KiB) ==
	      std::vector<range>{ { 0, 10, 0, 96 * KiB }, { 10, 90, 96 * KiB, 4 * KiB } });
	CHECK(span == 100);
}

TEST_CASE("diskspd zones: a region without a block or without a range is refused")
{
	res_zones z;
	plan_job p = job_of(PLAN_ZONES_DISKSPD_PCT, { { 100, 100 } });
	CHECK(dz_effective(&p, 2 * KiB, 4 * KiB, 4 * KiB, &z) == -EINVAL);
	plan_job a = job_of(PLAN_ZONES_DISKSPD_ABS, { { 0, 2 * MiB }, { 100, MiB } });
	CHECK(dz_effective(&a, MiB, 4 * KiB, 4 * KiB, &z) == -ERANGE);
}

TEST_CASE("diskspd zones: a draw picks a range by its I/O share, then an aligned offset in it that fits")
{
	res_zones z;
	plan_job j = job_of(PLAN_ZONES_DISKSPD_ABS, { { 10, 48 * KiB }, { 20, 12 * KiB }, { 30, GiB }, { 40, 0 } });
	REQUIRE(dz_effective(&j, 100 * KiB, 4 * KiB, 4 * KiB, &z) == 0);
	uint64_t rng = 42;
	std::map<int, uint64_t> in;
	std::set<uint64_t> seen;
	const int n = 60000;
	for (int i = 0; i < n; i++) {
		uint64_t off = dz_draw(&z, &rng, 4 * KiB, 4 * KiB, 100 * KiB);
		REQUIRE(off % (4 * KiB) == 0);
		REQUIRE(off + 4 * KiB <= 100 * KiB);
		in[off < 48 * KiB ? 0 : off < 60 * KiB ? 1 : 2]++;
		seen.insert(off);
	}
	CHECK(seen.size() == 25);	// every block of the 100 KiB
	// 10:20:30 of the 60 left
	CHECK((double)in[0] / n == doctest::Approx(1.0 / 6).epsilon(0.05));
	CHECK((double)in[1] / n == doctest::Approx(2.0 / 6).epsilon(0.05));
	CHECK((double)in[2] / n == doctest::Approx(3.0 / 6).epsilon(0.05));
	// A length that is no multiple of the alignment: DISKSPD's aligned draw modulo 50K
	// gives offsets on 2K steps, as it gives them.
	plan_job h = job_of(PLAN_ZONES_DISKSPD_ABS, { { 100, 50 * KiB } });
	REQUIRE(dz_effective(&h, 100 * KiB, 4 * KiB, 4 * KiB, &z) == 0);
	uint64_t half = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t off = dz_draw(&z, &rng, 4 * KiB, 4 * KiB, 100 * KiB);
		REQUIRE(off % (2 * KiB) == 0);
		REQUIRE(off < 50 * KiB);
		half += off % (4 * KiB) != 0;
	}
	CHECK(half > 300);
	// An unaligned length at the end: DISKSPD's draw would pass the end, this one draws again.
	plan_job u = job_of(PLAN_ZONES_DISKSPD_ABS, { { 50, 6 * KiB }, { 50, 0 } });
	REQUIRE(dz_effective(&u, 16 * KiB + 512, 4 * KiB, 4 * KiB, &z) == 0);
	for (int i = 0; i < 10000; i++)
		REQUIRE(dz_draw(&z, &rng, 4 * KiB, 4 * KiB, 16 * KiB + 512) + 4 * KiB <= 16 * KiB + 512);
}

TEST_CASE("diskspd zones: a run's offsets stay in the effective ranges and reach the last block")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { pb::job_spec("z", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, MiB)
					       .opt("norandommap", "1")
					       .opt("random_distribution", "zoned:10/1:90/99")
					       .opt("zoned_ranges", "diskspd")
					       .opt("io_size", "200m")
					       .opt("number_ios", "20000")
					       .with([](plan_job &j) { j.io_trace_max = 20000; }) });
	REQUIRE(p->groups[0].jobs[0].rand_zone_rule == PLAN_ZONES_DISKSPD_PCT);
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	const res_clone &c = pb::find_job(*r, 0)->clones[0];
	REQUIRE(c.trace_nr == 20000);
	uint64_t first = 0;
	std::set<uint64_t> offs;
	for (uint64_t i = 0; i < c.trace_nr; i++) {
		REQUIRE(c.trace[i].offset + c.trace[i].bytes <= MiB);
		first += c.trace[i].offset < 8 * KiB;
		offs.insert(c.trace[i].offset);
	}
	CHECK((double)first / 20000 == doctest::Approx(0.10).epsilon(0.1));
	CHECK(offs.count(MiB - 4 * KiB) == 1);	// fio's rule ended at 1020K
	CHECK(offs.size() == 256);
	// The results keep the ranges drawn from, for DISKSPD's report; a copy (a snapshot) its own.
	REQUIRE(c.nr_zones == 1);
	REQUIRE(c.zones);
	CHECK(c.zones[0].nr == 2);
	CHECK(c.zones[0].zone[1].offset == 8 * KiB);
	CHECK(c.zones[0].zone[1].bytes == MiB - 8 * KiB);
	res_clone copy;
	REQUIRE(res_clone_copy(&copy, &c) == 0);
	REQUIRE(copy.nr_zones == 1);
	CHECK(copy.zones != c.zones);
	CHECK(copy.zones[0].zone[1].bytes == MiB - 8 * KiB);
	res_clone_release(&copy);
}

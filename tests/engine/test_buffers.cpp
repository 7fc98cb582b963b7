// tests/engine/test_buffers.cpp - buffer contents (engine/buffers.h): buf_vary changes every
// 512-byte sector of a random buffer on every call and keeps it random; dedupe_percentage
// repeats write seeds.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "engine/buffers.h"
}

TEST_CASE("buffers: buf_vary makes every sector differ from all its earlier contents")
{
	const size_t len = 16384 + 512 + 100;	// whole sectors and a partial one
	std::vector<uint64_t> mem(len / 8 + 1);
	char *buf = reinterpret_cast<char *>(mem.data());
	uint64_t rng = 42;
	buf_fill_random(buf, len, &rng);
	std::set<std::string> seen;
	size_t sectors = 0;
	for (int call = 0; call < 200; call++) {
		for (size_t o = 0; o < len; o += 512, sectors++)
			seen.insert(std::string(buf + o, std::min<size_t>(512, len - o)));
		buf_vary(buf, len, &rng);
	}
	CHECK(seen.size() == sectors);
	// Still random: about half the bits set.
	size_t bits = 0;
	for (size_t i = 0; i < len; i++)
		bits += (size_t)__builtin_popcount((unsigned char)buf[i]);
	CHECK(bits > len * 8 * 45 / 100);
	CHECK(bits < len * 8 * 55 / 100);
}

// dedupe_percentage: the share of write seeds that repeat an earlier one; the
// content made from a seed is the same every time, so the blocks repeat.
static size_t unique_of(const plan_job &j, size_t writes)
{
	struct dedupe d;
	std::set<uint64_t> seeds;
	dedupe_init(&d, &j, 1234, 64ull << 20, 4096);
	for (size_t i = 0; i < writes; i++)
		seeds.insert(dedupe_next_seed(&d));
	return seeds.size();
}

// Seeds that clones 1 and 2 of job j both draw in 5000 writes each.
static size_t shared_seeds(const plan_job &j)
{
	struct dedupe a, b;
	std::set<uint64_t> sa, sb;
	size_t both = 0;

	dedupe_init(&a, &j, 1, 64ull << 20, 4096);
	dedupe_init(&b, &j, 2, 64ull << 20, 4096);
	for (int i = 0; i < 5000; i++) {
		sa.insert(dedupe_next_seed(&a));
		sb.insert(dedupe_next_seed(&b));
	}
	for (uint64_t s : sa)
		both += sb.count(s);
	return both;
}

TEST_CASE("buffers: dedupe_percentage repeats that share of the writes; working_set draws repeats from its set")
{
	plan_job j;
	memset(&j, 0, sizeof j);
	CHECK(unique_of(j, 10000) == 10000);
	j.dedupe_pct = 30;
	size_t u = unique_of(j, 10000);
	CHECK(u > 6700);
	CHECK(u < 7300);
	j.dedupe_pct = 100;
	CHECK(unique_of(j, 1000) == 1);
	// working_set: 1% of 64 MiB in 4 KiB blocks is 163 buffers the 60% repeats
	// come from: the first unique ones, as fio's, so they add no distinct block.
	j.dedupe_pct = 60;
	j.dedupe_working_set = true;
	j.dedupe_working_set_pct = 1;
	u = unique_of(j, 10000);
	CHECK(u > 3800);
	CHECK(u < 4200);
	// dedupe_global: two clones share the working set, so their repeats coincide.
	j.dedupe_global = true;
	CHECK(shared_seeds(j) > 150);
	j.dedupe_global = false;
	CHECK(shared_seeds(j) == 0);
}

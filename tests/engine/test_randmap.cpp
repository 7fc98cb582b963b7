// tests/engine/test_randmap.cpp - fio's random map (engine/gen/randmap.c): runs stop at a
// done block, the next free block wraps once, and the levels above the blocks stay
// right across word and level boundaries (checked against a plain bit vector).
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <random>
#include <vector>

extern "C" {
#include "engine/gen/randmap.h"
}

namespace {

// The reference: a vector of bools with the same rules, written the obvious way.
struct naive {
	std::vector<bool> bits;

	std::vector<bool> past = std::vector<bool>(64 - bits.size() % 64);	// to the end of the last word

	uint64_t set_run(uint64_t b, uint64_t n)
	{
		uint64_t k = 0;
		while (k < n && b + k < bits.size() && !bits[b + k])
			bits[b + k++] = true;
		while (k < n && b + k >= bits.size() && b + k - bits.size() < past.size() &&
		       !past[b + k - bits.size()])
			past[b + k++ - bits.size()] = true;
		return k;
	}
	uint64_t next_free(uint64_t b) const
	{
		if (b >= bits.size())
			return RANDMAP_NONE;
		for (uint64_t i = 1; i <= bits.size(); i++) {
			uint64_t x = (b + i) % bits.size();
			if (!bits[x])
				return x;
		}
		return RANDMAP_NONE;
	}
};

} // namespace

TEST_CASE("randmap: a run stops at the first done block and at the end of the map's last word")
{
	randmap m;
	REQUIRE(randmap_init(&m, 100) == 0);
	CHECK(randmap_set_run(&m, 10, 5) == 5);
	CHECK(randmap_set_run(&m, 8, 16) == 2);		// 8, 9: then 10 is done
	CHECK(randmap_set_run(&m, 10, 1) == 0);
	// fio's axmap sets a run past the map's end as far as the end of its word:
	// 95..99 and 100..110, which are never drawn but are done for this pass.
	CHECK(randmap_set_run(&m, 95, 16) == 16);
	CHECK(randmap_set_run(&m, 100, 1) == 0);
	CHECK(randmap_set_run(&m, 111, 40) == 17);	// 111..127: the word ends
	CHECK(randmap_next_free(&m, 93) == 94);		// blocks past the end are never free ones
	CHECK(randmap_set_run(&m, 94, 2) == 1);
	CHECK(randmap_isset(&m, 9));
	CHECK(!randmap_isset(&m, 15));
	CHECK(!randmap_isset(&m, 1000));		// past the end reads free, as fio's
	randmap_reset(&m);
	CHECK(!randmap_isset(&m, 10));
	CHECK(randmap_set_run(&m, 60, 10) == 10);	// across a word boundary
	CHECK(randmap_set_run(&m, 99, 3) == 3);		// a new pass: past the end again
	randmap_free(&m);
	REQUIRE(randmap_init(&m, 128) == 0);		// the end on a word's end: a word's worth past it
	CHECK(randmap_set_run(&m, 120, 100) == 72);
	randmap_reset(&m);				// which fio's reset never clears
	CHECK(randmap_set_run(&m, 126, 4) == 2);
	CHECK(randmap_set_run(&m, 100, 4) == 4);
	randmap_free(&m);
	REQUIRE(randmap_init(&m, 192) == 0);		// three words: fio's run meets malloc's next chunk
	CHECK(randmap_set_run(&m, 190, 4) == 2);
	randmap_free(&m);
}

TEST_CASE("randmap: the next free block is after the given one, wrapping once; none when full")
{
	randmap m;
	REQUIRE(randmap_init(&m, 130) == 0);
	CHECK(randmap_set_run(&m, 0, 130) == 130);
	CHECK(randmap_next_free(&m, 5) == RANDMAP_NONE);
	randmap_reset(&m);
	randmap_set_run(&m, 0, 130);
	m.level[0][0] &= ~(1ull << 3);			// free block 3 only, by hand
	m.level[1][0] &= ~1ull;
	CHECK(randmap_next_free(&m, 3) == 3);		// wrapped all the way round
	CHECK(randmap_next_free(&m, 129) == 3);		// from the last block: starts at 0
	CHECK(randmap_next_free(&m, 130) == RANDMAP_NONE);
	randmap_free(&m);
}

TEST_CASE("randmap: random runs over three levels agree with a plain bit vector")
{
	const uint64_t n = 64 * 64 * 3 + 17;		// three levels, ragged last words
	randmap m;
	REQUIRE(randmap_init(&m, n) == 0);
	CHECK(m.nr_levels == 3);
	naive ref{std::vector<bool>(n)};
	std::mt19937_64 rng(42);
	uint64_t set = 0;
	while (set < n) {
		uint64_t b = rng() % n, len = 1 + rng() % 200;
		if (randmap_isset(&m, b)) {
			uint64_t f = randmap_next_free(&m, b);
			REQUIRE(f == ref.next_free(b));
			b = f;
		}
		uint64_t got = randmap_set_run(&m, b, len);
		REQUIRE(got == ref.set_run(b, len));
		REQUIRE(got > 0);
		set = (uint64_t)std::count(ref.bits.begin(), ref.bits.end(), true);	// not those past the end
	}
	CHECK(randmap_next_free(&m, 0) == RANDMAP_NONE);
	for (uint64_t i = 0; i < n; i += 97)
		CHECK(randmap_isset(&m, i));
	randmap_free(&m);
}

TEST_CASE("randmap: an empty map is refused")
{
	randmap m;
	CHECK(randmap_init(&m, 0) == -EINVAL);
}

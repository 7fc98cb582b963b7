// tests/engine/test_buffers.cpp - buffer contents (engine/buffers.h): buf_vary changes every
// 512-byte sector of a random buffer on every call and keeps it random.
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

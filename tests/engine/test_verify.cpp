// tests/engine/test_verify.cpp - checksums, chunk headers and maps (engine/verify.c).
//
// XXH64 values come from the reference library (libxxhash 0.8.1, called once
// through ctypes when the test was written); CRC-32C values are the standard
// check value and the RFC 3720 (iSCSI) test vectors.
#include <doctest/doctest.h>

#include <cstring>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "engine/verify.h"

namespace {

std::unique_ptr<vfy> make(enum plan_verify kind, uint64_t interval, const uint8_t *pat = nullptr,
			  uint32_t pat_len = 0)
{
	std::unique_ptr<vfy> v(new vfy);
	REQUIRE(vfy_init(v.get(), kind, interval, 0x1234, pat, pat_len) == 0);
	return v;
}

std::vector<uint8_t> ramp(size_t n)
{
	std::vector<uint8_t> b(n);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + 3);
	return b;
}

} // namespace

TEST_CASE("verify: XXH64 matches the reference implementation on every tail and stripe path")
{
	CHECK(vfy_xxh64("", 0, 0) == 0xef46db3751d8e999ull);
	CHECK(vfy_xxh64("a", 1, 0) == 0xd24ec4f1a98c6e5bull);
	CHECK(vfy_xxh64("abc", 3, 0) == 0x44bc2cf5ad770999ull);
	std::vector<uint8_t> d = ramp(100);
	const uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct {
		size_t n;
		uint64_t h0, hs;
	} want[] = { { 31, 0xa2aa5f33cc4a6119ull, 0x755437271d1d0a84ull },
		     { 32, 0x23c3c17ef790fd97ull, 0xbf624b932c090428ull },
		     { 33, 0x50a7cfc7ba588784ull, 0x7aceaf1e9d34ea35ull },
		     { 35, 0xa5b3456011d2913bull, 0x5f3a81e47e467fe2ull },
		     { 100, 0xa61f8d4c170fe531ull, 0xf6d8f65c625abb4full } };
	for (auto &w : want) {
		CAPTURE(w.n);
		CHECK(vfy_xxh64(d.data(), w.n, 0) == w.h0);
		CHECK(vfy_xxh64(d.data(), w.n, seed) == w.hs);
	}
}

TEST_CASE("verify: CRC-32C gives the check value and the iSCSI vectors, in hardware and in tables")
{
	auto v = make(PLAN_VERIFY_CRC32C, 4096);
	std::vector<uint8_t> zeros(32, 0), ones(32, 0xff), big = ramp(4099);
	for (bool hw : { false, true }) {
		if (hw && !v->hw_crc)
			continue;
		bool saved = v->hw_crc;
		v->hw_crc = hw;
		CHECK(vfy_crc32c(v.get(), 0, "123456789", 9) == 0xe3069283u);
		CHECK(vfy_crc32c(v.get(), 0, zeros.data(), 32) == 0x8a9136aau);
		CHECK(vfy_crc32c(v.get(), 0, ones.data(), 32) == 0x62a8ab43u);
		// Chaining two pieces equals one pass over both.
		uint32_t whole = vfy_crc32c(v.get(), 0, big.data(), big.size());
		CHECK(vfy_crc32c(v.get(), vfy_crc32c(v.get(), 0, big.data(), 1001), big.data() + 1001,
				 big.size() - 1001) == whole);
		v->hw_crc = saved;
	}
}

TEST_CASE("verify: a stamped block checks clean, and any flipped byte is found in its chunk")
{
	for (auto kind : { PLAN_VERIFY_CRC32C, PLAN_VERIFY_XXH64 }) {
		CAPTURE(vfy_kind_name(kind));
		auto v = make(kind, 512);
		std::vector<uint8_t> buf = ramp(4096 + 100); // a trailing piece is never stamped
		vfy_stamp(v.get(), buf.data(), buf.size(), 1 << 20);
		vfy_bad bad[4];
		REQUIRE(vfy_check(v.get(), buf.data(), buf.size(), 1 << 20, bad, 4) == 0);
		// Every byte of a chunk, header and data alike, is covered.
		for (size_t pos : { (size_t)0, (size_t)17, (size_t)40, (size_t)47, (size_t)48, (size_t)2047,
				    (size_t)4095 }) {
			CAPTURE(pos);
			std::vector<uint8_t> c = buf;
			c[pos] ^= 0x10;
			REQUIRE(vfy_check(v.get(), c.data(), c.size(), 1 << 20, bad, 4) == 1);
			CHECK(bad[0].offset == (1u << 20) + pos / 512 * 512);
		}
		std::vector<uint8_t> c = buf;
		c[4096 + 50] ^= 1; // the unstamped tail
		CHECK(vfy_check(v.get(), c.data(), c.size(), 1 << 20, bad, 4) == 0);
	}
}

TEST_CASE("verify: a block read from the wrong place names the offset it holds")
{
	auto v = make(PLAN_VERIFY_CRC32C, 4096);
	std::vector<uint8_t> buf(8192);
	vfy_stamp(v.get(), buf.data(), buf.size(), 65536);
	vfy_bad bad[2];
	REQUIRE(vfy_check(v.get(), buf.data(), buf.size(), 0, bad, 2) == 2);
	CHECK(std::string(bad[0].field) == "offset");
	CHECK(bad[0].want == 0);
	CHECK(bad[0].got == 65536);
	CHECK(bad[1].got == 65536 + 4096);
	char text[64];
	vfy_describe(v.get(), &bad[0], text, sizeof(text));
	CHECK(std::string(text) == "verify crc32c: bad offset: want 0 got 65536");
	std::vector<uint8_t> zero(4096);
	REQUIRE(vfy_check(v.get(), zero.data(), zero.size(), 0, bad, 2) == 1);
	CHECK(std::string(bad[0].field) == "magic");
}

TEST_CASE("verify: pattern chunks repeat the pattern and name the first differing byte")
{
	const uint8_t pat[3] = { 0xde, 0xad, 0x01 };
	auto v = make(PLAN_VERIFY_PATTERN, 1000, pat, 3);
	std::vector<uint8_t> buf(3000);
	vfy_stamp(v.get(), buf.data(), buf.size(), 0);
	CHECK(buf[1000] == 0xde);
	CHECK(buf[1002] == 0x01);
	vfy_bad bad[2];
	CHECK(vfy_check(v.get(), buf.data(), buf.size(), 0, bad, 2) == 0);
	buf[2500] = 0;
	REQUIRE(vfy_check(v.get(), buf.data(), buf.size(), 4096, bad, 2) == 1);
	CHECK(bad[0].offset == 4096 + 2500);
	CHECK(bad[0].want == pat[(2500 - 2000) % 3]);
	CHECK(bad[0].got == 0);
}

TEST_CASE("verify: intervals too small for the header and patterns without bytes are refused")
{
	std::unique_ptr<vfy> v(new vfy);
	CHECK(vfy_init(v.get(), PLAN_VERIFY_CRC32C, 48, 0, nullptr, 0) == -EINVAL);
	CHECK(vfy_init(v.get(), PLAN_VERIFY_PATTERN, 4096, 0, nullptr, 0) == -EINVAL);
	CHECK(vfy_init(v.get(), PLAN_VERIFY_XXH64, 64, 0, nullptr, 0) == 0);
}

TEST_CASE("verify: the written-chunk map sets and clears ranges and ignores what lies past it")
{
	vfy_map m;
	REQUIRE(vfy_map_init(&m, 200 * 4096 + 100, 4096) == 0);
	CHECK(m.nbits == 200);
	vfy_map_set(&m, 60, 10, true);
	vfy_map_set(&m, 195, 20, true);
	vfy_map_set(&m, 62, 2, false);
	for (uint64_t i = 0; i < 210; i++) {
		bool want = (i >= 60 && i < 70 && i != 62 && i != 63) || (i >= 195 && i < 200);
		CAPTURE(i);
		CHECK(vfy_map_test(&m, i) == want);
	}
	vfy_map_release(&m);
}

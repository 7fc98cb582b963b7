// tests/engine/test_verify.cpp - checksums, fio's block headers and maps (engine/verify/checksum.c, verify.c).
//
// Expected digests are what fio 3.33's own crc/ code computes on the same
// bytes, so blocks written by either tool verify in the other.
#include <doctest/doctest.h>

#include <cstring>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/verify/verify.h"

namespace {

// vfy_release frees the checksum context (OpenSSL's) that vfy_init made.
struct vfy_delete {
	void operator()(vfy *v) const
	{
		vfy_release(v);
		delete v;
	}
};
using vfy_ptr = std::unique_ptr<vfy, vfy_delete>;

vfy_ptr make(enum plan_verify kind, uint64_t interval, const uint8_t *pat = nullptr, uint32_t pat_len = 0)
{
	vfy_ptr v(new vfy);
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

// Check values from fio 3.33's own crc/ sources (compiled once on the same
// bytes when this test was written): "123456789", and 4096 bytes of
// (i * 2654435761) >> 24.
std::vector<uint8_t> golden_bytes()
{
	std::vector<uint8_t> b(4096);
	for (size_t i = 0; i < b.size(); i++)
		b[i] = (uint8_t)((uint32_t)(i * 2654435761u) >> 24);
	return b;
}

std::string digest_hex(enum plan_verify kind, const void *p, size_t n)
{
	csum_ctx ctx;
	REQUIRE(csum_init(&ctx, kind) == 0);
	uint8_t out[CSUM_AREA_MAX];
	REQUIRE(csum_compute(&ctx, p, n, out) == 0);
	csum_release(&ctx);
	std::string h;
	char two[3];
	for (uint32_t i = 0; i < csum_digest_len(kind); i++) {
		snprintf(two, sizeof(two), "%02x", out[i]);
		h += two;
	}
	return h;
}

const enum plan_verify all_digests[] = {
	PLAN_VERIFY_MD5,      PLAN_VERIFY_CRC64,    PLAN_VERIFY_CRC32,    PLAN_VERIFY_CRC32C,
	PLAN_VERIFY_CRC32C_INTEL, PLAN_VERIFY_CRC16, PLAN_VERIFY_CRC7,   PLAN_VERIFY_SHA256,
	PLAN_VERIFY_SHA512,   PLAN_VERIFY_SHA3_224, PLAN_VERIFY_SHA3_256, PLAN_VERIFY_SHA3_384,
	PLAN_VERIFY_SHA3_512, PLAN_VERIFY_XXHASH,   PLAN_VERIFY_SHA1,
};

} // namespace

TEST_CASE("verify: the CRCs store what fio 3.33 computes (little-endian, fio's polynomials and seeds)")
{
	const char *s = "123456789";
	CHECK(digest_hex(PLAN_VERIFY_CRC64, s, 9) == "cad9b8c414d9c6e9");	// 0xe9c6d914c4b8d9ca
	CHECK(digest_hex(PLAN_VERIFY_CRC32, s, 9) == "7f89a189");		// 0x89a1897f
	CHECK(digest_hex(PLAN_VERIFY_CRC32C, s, 9) == "7c6df91c");		// 0x1cf96d7c
	CHECK(digest_hex(PLAN_VERIFY_CRC16, s, 9) == "3dbb");			// 0xbb3d
	CHECK(digest_hex(PLAN_VERIFY_CRC7, s, 9) == "75");
	std::vector<uint8_t> b = golden_bytes();
	CHECK(digest_hex(PLAN_VERIFY_CRC64, b.data(), 4096) == "0b901db84761ae71");
	CHECK(digest_hex(PLAN_VERIFY_CRC32, b.data(), 4096) == "3006d217");
	CHECK(digest_hex(PLAN_VERIFY_CRC32C, b.data(), 4096) == "acea27b5");
	CHECK(digest_hex(PLAN_VERIFY_CRC16, b.data(), 4096) == "7d42");
	CHECK(digest_hex(PLAN_VERIFY_CRC7, b.data(), 4096) == "25");
	CHECK(csum_crc32c(s, 9) == 0x1cf96d7cu);
}

TEST_CASE("verify: the hashes store what fio 3.33 stores (sha1 as host-order words, xxhash as XXH32 seed 1)")
{
	std::vector<uint8_t> b = golden_bytes();
	const uint8_t *p = b.data() + 104;	// the data of a 4 KiB md5/sha256 chunk
	CHECK(digest_hex(PLAN_VERIFY_MD5, p, 3992) == "292709c36640850dc9e779183c27b62e");
	CHECK(digest_hex(PLAN_VERIFY_SHA1, p, 3992) == "12919542a4c8f1cf9ad9d14dee718e1d3ef99010");
	CHECK(digest_hex(PLAN_VERIFY_SHA3_256, p, 3992) ==
	      "f1f559320aa6aa578a3e41e1f93ecf1eaf0317935e251f843c810e727281f83f");
	CHECK(digest_hex(PLAN_VERIFY_XXHASH, p, 3992) == "1f17b28b");
	// sha256 and sha512: the real digests (fio 3.33 stores neither, see checksum.c).
	CHECK(digest_hex(PLAN_VERIFY_SHA256, "abc", 3) ==
	      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK(digest_hex(PLAN_VERIFY_SHA512, "abc", 3).substr(0, 32) == "ddaf35a193617abacc417349ae204131");
}

TEST_CASE("verify: the header is fio's: magic 0xacca, method number, length, offset, crc32c of the fields")
{
	auto v = make(PLAN_VERIFY_MD5, 4096);
	std::vector<uint8_t> buf = ramp(4096);
	vfy_stamp(v.get(), buf.data(), buf.size(), 1 << 20);
	vfy_hdr h;
	memcpy(&h, buf.data(), sizeof(h));
	CHECK(sizeof(vfy_hdr) == 40);
	CHECK(buf[0] == 0xca);
	CHECK(buf[1] == 0xac);
	CHECK(h.verify_type == 2);	// fio's VERIFY_MD5
	CHECK(h.len == 4096);
	CHECK(h.offset == 1u << 20);
	CHECK(h.rand_seed == 0x1234);
	CHECK(h.crc32 == csum_crc32c(buf.data(), 36));
	uint8_t area[16];
	memcpy(area, buf.data() + 40, 16);
	csum_ctx ctx;
	REQUIRE(csum_init(&ctx, PLAN_VERIFY_MD5) == 0);
	uint8_t want[CSUM_AREA_MAX];
	csum_compute(&ctx, buf.data() + 56, 4096 - 56, want);
	csum_release(&ctx);
	CHECK(memcmp(area, want, 16) == 0);
}

TEST_CASE("verify: for every method a stamped block checks clean, and any flipped byte is found in its chunk")
{
	for (auto kind : all_digests) {
		CAPTURE(vfy_kind_name(kind));
		auto v = make(kind, 512);
		std::vector<uint8_t> buf = ramp(4096 + 100); // a trailing piece is never stamped
		vfy_stamp(v.get(), buf.data(), buf.size(), 1 << 20);
		vfy_bad bad[4];
		REQUIRE(vfy_check(v.get(), buf.data(), buf.size(), 1 << 20, 0, bad, 4) == 0);
		// Every byte of a chunk - header, digest area (sha512's unused half too) and data - is covered.
		for (size_t pos : { (size_t)0, (size_t)17, (size_t)39, (size_t)40, (size_t)100, (size_t)167,
				    (size_t)168, (size_t)2047 + 256, (size_t)4095 }) {
			CAPTURE(pos);
			std::vector<uint8_t> c = buf;
			c[pos] ^= 0x10;
			REQUIRE(vfy_check(v.get(), c.data(), c.size(), 1 << 20, 0, bad, 4) == 1);
			CHECK(bad[0].offset == (1u << 20) + pos / 512 * 512);
		}
		std::vector<uint8_t> c = buf;
		c[4096 + 50] ^= 1; // the unstamped tail
		CHECK(vfy_check(v.get(), c.data(), c.size(), 1 << 20, 0, bad, 4) == 0);
		vfy_release(v.get());
	}
}

TEST_CASE("verify: a mismatch names the method with the stored and computed digests")
{
	auto v = make(PLAN_VERIFY_CRC32, 4096);
	std::vector<uint8_t> buf = golden_bytes();
	vfy_stamp(v.get(), buf.data(), buf.size(), 0);
	buf[2048] ^= 1;
	vfy_bad bad[1];
	REQUIRE(vfy_check(v.get(), buf.data(), buf.size(), 0, 0, bad, 1) == 1);
	char text[320];
	vfy_describe(v.get(), &bad[0], text, sizeof(text));
	std::string t = text;
	CHECK(t.rfind("verify crc32: want ", 0) == 0);
	CHECK(t.size() == strlen("verify crc32: want 01234567 got 01234567"));
	CHECK(t.substr(19, 8) != t.substr(32, 8));
}

TEST_CASE("verify: meta checks the header alone, and verify_pattern's bytes when given")
{
	auto v = make(PLAN_VERIFY_META, 4096);
	std::vector<uint8_t> buf = ramp(4096);
	vfy_stamp(v.get(), buf.data(), buf.size(), 0);
	vfy_bad bad[1];
	std::vector<uint8_t> c = buf;
	c[2000] ^= 1;
	CHECK(vfy_check(v.get(), c.data(), c.size(), 0, 0, bad, 1) == 0);
	c = buf;
	c[8] ^= 1; // rand_seed
	REQUIRE(vfy_check(v.get(), c.data(), c.size(), 0, 0, bad, 1) == 1);
	CHECK(std::string(bad[0].field) == "header crc32c");
	const uint8_t pat[2] = { 0xab, 0xcd };
	auto p = make(PLAN_VERIFY_META, 4096, pat, 2);
	vfy_stamp(p.get(), buf.data(), buf.size(), 0);
	CHECK(buf[41] == 0xcd);
	CHECK(vfy_check(p.get(), buf.data(), buf.size(), 0, 0, bad, 1) == 0);
	buf[2001] ^= 1;
	REQUIRE(vfy_check(p.get(), buf.data(), buf.size(), 0, 0, bad, 1) == 1);
	CHECK(bad[0].offset == 2001);
	CHECK(std::string(bad[0].field) == "pattern");
}

TEST_CASE("verify: verify_offset keeps the header at that offset of each chunk and checks as before")
{
	auto v = make(PLAN_VERIFY_CRC32C, 4096);
	REQUIRE(vfy_set_offset(v.get(), 512) == 0);
	CHECK(vfy_set_offset(v.get(), 4096 - 40) == -EINVAL);
	// Inside the header and digest the two swapped ranges overlap: refused, not checked falsely.
	CHECK(vfy_set_offset(v.get(), v->hdr_size - 1) == -EINVAL);
	CHECK(vfy_set_offset(v.get(), v->hdr_size) == 0);
	REQUIRE(vfy_set_offset(v.get(), 512) == 0);
	std::vector<uint8_t> buf = ramp(8192);
	vfy_stamp(v.get(), buf.data(), buf.size(), 0);
	CHECK(buf[512] == 0xca);
	CHECK(buf[513] == 0xac);
	CHECK(buf[4096 + 512] == 0xca);
	vfy_bad bad[2];
	std::vector<uint8_t> c = buf;
	CHECK(vfy_check(v.get(), c.data(), c.size(), 0, 0, bad, 2) == 0);
	c = buf;
	c[4096 + 520] ^= 1; // the second chunk's header, where verify_offset put it
	REQUIRE(vfy_check(v.get(), c.data(), c.size(), 0, 0, bad, 2) == 1);
	CHECK(bad[0].offset == 4096);
}

TEST_CASE("verify: a block read from the wrong place names the offset it holds")
{
	auto v = make(PLAN_VERIFY_CRC32C, 4096);
	std::vector<uint8_t> buf(8192);
	vfy_stamp(v.get(), buf.data(), buf.size(), 65536);
	vfy_bad bad[2];
	REQUIRE(vfy_check(v.get(), buf.data(), buf.size(), 0, 0, bad, 2) == 2);
	CHECK(std::string(bad[0].field) == "offset");
	CHECK(bad[0].want == 0);
	CHECK(bad[0].got == 65536);
	CHECK(bad[1].got == 65536 + 4096);
	char text[320];
	vfy_describe(v.get(), &bad[0], text, sizeof(text));
	CHECK(std::string(text) == "verify crc32c: bad header offset: want 0x0 got 0x10000");
	std::vector<uint8_t> zero(4096);
	REQUIRE(vfy_check(v.get(), zero.data(), zero.size(), 0, 0, bad, 2) == 1);
	CHECK(std::string(bad[0].field) == "magic");
}

TEST_CASE("verify: a pattern runs on through the I/O's chunks, as fio's, and names the first differing byte")
{
	const uint8_t pat[3] = { 0xde, 0xad, 0x01 };
	auto v = make(PLAN_VERIFY_PATTERN, 1000, pat, 3);
	std::vector<uint8_t> buf(3000);
	vfy_stamp(v.get(), buf.data(), buf.size(), 0);
	CHECK(buf[1000] == pat[1000 % 3]);	/* fio: abcabcab across a chunk's end, not abca|abca */
	CHECK(buf[1002] == pat[1002 % 3]);
	vfy_bad bad[2];
	CHECK(vfy_check(v.get(), buf.data(), buf.size(), 0, 0, bad, 2) == 0);
	buf[2500] = 0;
	REQUIRE(vfy_check(v.get(), buf.data(), buf.size(), 4096, 0, bad, 2) == 1);
	CHECK(bad[0].offset == 4096 + 2500);
	CHECK(bad[0].want == pat[2500 % 3]);
	CHECK(bad[0].got == 0);
}

TEST_CASE("verify: a pattern starts again at each I/O a read block holds")
{
	const uint8_t pat[3] = { 0xde, 0xad, 0x01 };
	auto v = make(PLAN_VERIFY_PATTERN, 500, pat, 3);
	std::vector<uint8_t> buf(3000);
	for (size_t at = 0; at < buf.size(); at += 1000)	/* three writes of 1000 bytes */
		vfy_stamp(v.get(), buf.data() + at, 1000, at);
	CHECK(buf[1000] == pat[0]);
	vfy_bad bad[4];
	CHECK(vfy_check(v.get(), buf.data(), buf.size(), 0, 1000, bad, 4) == 0);	/* read back as one block */
	CHECK(vfy_check(v.get(), buf.data(), buf.size(), 0, 0, bad, 4) == 4);	/* taken for one I/O: wrong */
}

TEST_CASE("verify: intervals too small for the header and patterns without bytes are refused")
{
	vfy_ptr v(new vfy);
	CHECK(vfy_init(v.get(), PLAN_VERIFY_CRC32C, 44, 0, nullptr, 0) == -EINVAL);
	CHECK(vfy_init(v.get(), PLAN_VERIFY_SHA512, 168, 0, nullptr, 0) == -EINVAL);
	CHECK(vfy_init(v.get(), PLAN_VERIFY_PATTERN, 4096, 0, nullptr, 0) == -EINVAL);
	CHECK(vfy_init(v.get(), PLAN_VERIFY_XXHASH, 64, 0, nullptr, 0) == 0);
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

// tests/engine/test_verify_async.cpp - verify_async's checker threads and the trim_* options
// (engine/verify/verify_async.c, engine/worker/worker_trim.c): checks run off the I/O thread and still catch a
// flipped byte; trims among verified writes are counted and read back as zeroes.
#include <doctest/doctest.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "engine/verify/verify_async.h"
#include "tests/engine/plan_builder.hpp"
#include "tests/engine/flip_byte.hpp"

using pb::job_spec;

namespace {

// verify= with its checker threads, as a job file says them (the parser then
// draws the verify reads' sizes from the writes' seed, as fio does).
job_spec verified(job_spec s, enum plan_verify kind, uint32_t async, bool only = false)
{
	s.opt("verify", plan_verify_name(kind)).opt("verify_async", std::to_string(async));
	if (only)
		s.opt("verify_only");
	return s;
}

job_spec trimmed(job_spec s, uint32_t pct, uint64_t backlog, bool zero = true)
{
	return verified(std::move(s), PLAN_VERIFY_CRC32C, 0)
		.opt("trim_percentage", std::to_string(pct))
		.opt("trim_backlog", std::to_string(backlog))
		.opt("trim_verify_zero", zero ? "1" : "0");
}

// Thread CPU time of the job's I/O thread (usr + sys), as the results report it.
uint64_t io_thread_cpu_ns(const res_clone &k)
{
	return k.usr_ns + k.sys_ns;
}

} // namespace

TEST_CASE("verify_async: the checker threads find a flipped byte and the caller's context checks nothing")
{
	vfy proto, stamper;
	REQUIRE(vfy_init(&stamper, PLAN_VERIFY_SHA256, 4096, 77, nullptr, 0) == 0);
	REQUIRE(vfy_init(&proto, PLAN_VERIFY_SHA256, 4096, 77, nullptr, 0) == 0);
	std::vector<uint8_t> data(64 * 4096, 0x3c);
	vfy_stamp(&stamper, data.data(), data.size(), 1 << 20);
	data[10 * 4096 + 2000] ^= 1;

	vasync a;
	plan_cpus any{};

	REQUIRE(vasync_start(&a, &proto, 2, &any, 16 * 4096) == 0);
	uint32_t bad = 0;
	uint64_t bad_at = 0;
	auto take = [&](vasync_slot *s) {
		if (s->nbad) {
			bad += s->nbad;
			bad_at = s->bad[0].offset;
		}
		vasync_put(&a, s);
	};
	for (uint64_t at = 0; at < data.size(); at += 16 * 4096) {
		vasync_slot *s;
		while (!(s = vasync_get(&a)))
			take(vasync_reap(&a, true));
		std::memcpy(s->buf, data.data() + at, 16 * 4096);
		s->len = 16 * 4096;
		s->offset = (1 << 20) + at;
		s->file = 0;
		s->zero = false;
		vasync_submit(&a, s);
	}
	while (vasync_slot *s = vasync_reap(&a, true))
		take(s);
	CHECK(bad == 1);
	CHECK(bad_at == (1 << 20) + 10 * 4096);
	CHECK(vasync_checks(&a) == 64);	// every chunk, by the checkers
	CHECK(proto.checks == 0);		// none by the context the caller holds
	vasync_stop(&a);
	vfy_release(&proto);
	vfy_release(&stamper);
}

TEST_CASE("verify_async: checkers that cannot be pinned to verify_async_cpus fail the start, none left running")
{
	vfy proto;
	REQUIRE(vfy_init(&proto, PLAN_VERIFY_CRC32C, 4096, 77, nullptr, 0) == 0);
	plan_cpus absent{};
	absent.word[PLAN_CPUS_MAX / 64 - 1] = 1ull << 63;	/* CPU 1023: no test machine has it */
	vasync a;

	// The pin's error used to be dropped: the checkers then ran on every CPU.
	CHECK(vasync_start(&a, &proto, 2, &absent, 4096) == -EINVAL);
	vfy_release(&proto);
}

TEST_CASE("verify_async: a write job's read-back is clean, and a flipped byte is one mismatch at its block")
{
	pb::tmpdir d;
	auto w = pb::build(d.path(), { verified(job_spec("v", PLAN_RW_RANDWRITE, PLAN_IOENGINE_LIBAIO, 1 << 20), PLAN_VERIFY_MD5, 3).opt("iodepth", "8").with([](plan_job &j) {
					       }) });
	int ret = -1;
	auto r = pb::run(*w, &ret);
	REQUIRE(ret == 0);
	CHECK(pb::first_clone(*r).ddir[PLAN_DDIR_READ].bytes == 1u << 20);
	CHECK(pb::first_clone(*r).verify_failures == 0);
	for (off_t at : { 5000, 300000, 900000 })
		flip_byte(d.file("v.0.0"), at);
	// The first mismatch reported ends the job (verify_fatal or not); continue_on_error=verify reports all three.
	for (int mode : { 0, 1, 2 }) {
		auto v = pb::build(d.path(), { verified(job_spec("v", PLAN_RW_RANDWRITE, PLAN_IOENGINE_PSYNC, 1 << 20), PLAN_VERIFY_MD5, 2, true).with([&](plan_job &j) {
							       j.verify_fatal = mode == 1;
							       j.continue_on_error = mode == 2 ? PLAN_COE_VERIFY : 0;
						       }) });
		r = pb::run(*v, &ret);
		CHECK(ret == (mode == 2 ? 0 : -EILSEQ));
		const res_clone &k = pb::first_clone(*r);
		CHECK(k.verify_failures == (mode == 2 ? 3u : 1u));
		REQUIRE(k.nr_errors >= 1);
		// Read back in the order written (fio's, under a random map): the first bad block met is any of the three.
		const std::set<uint64_t> bad = { 4096, 300000 / 4096 * 4096, 900000 / 4096 * 4096 };
		CHECK(bad.count(k.errors[0].offset) == 1);
		CHECK(std::string(k.errors[0].what).rfind("verify md5: want ", 0) == 0);
		if (mode == 2) {
			REQUIRE(k.nr_errors == 3);
			CHECK(std::set<uint64_t>{ k.errors[0].offset, k.errors[1].offset, k.errors[2].offset } == bad);
		}
	}
}

TEST_CASE("verify_async: a read job's checksums are computed off its I/O thread")
{
	pb::tmpdir d;
	const uint64_t size = 64ull << 20;
	auto w = pb::build(d.path(), { verified(job_spec("c", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, size), PLAN_VERIFY_SHA3_512, 0)
					       .file("data").with([](plan_job &j) {
						       j.do_verify = false;
						       j.bs[PLAN_DDIR_WRITE].min_bytes = j.bs[PLAN_DDIR_WRITE].max_bytes = 65536;
					       }) });
	int ret = -1;
	pb::run(*w, &ret);
	REQUIRE(ret == 0);
	// The async run again (up to three times, its least kept) when a busy machine made
	// its I/O thread slow: once 170 ms against the inline run's 331 (26-47 ms idle).
	uint64_t cpu[2] = { UINT64_MAX, UINT64_MAX };
	for (uint32_t async : { 0u, 2u, 2u, 2u }) {
		if (async && cpu[1] < cpu[0] / 2)
			break;
		auto p = pb::build(d.path(), { verified(job_spec("c", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, size), PLAN_VERIFY_SHA3_512, async)
						       .file("data").with([&](plan_job &j) {
							       for (auto &b : j.bs)	// the interval is the write size
								       b.min_bytes = b.max_bytes = 65536;
						       }) });
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		const res_clone &k = pb::first_clone(*r);
		CHECK(k.verify_failures == 0);
		CHECK(k.ddir[PLAN_DDIR_READ].bytes == size);
		cpu[async ? 1 : 0] = std::min(cpu[async ? 1 : 0], io_thread_cpu_ns(k));
	}
	MESSAGE("I/O thread CPU: inline " << cpu[0] / 1000000 << " ms, verify_async=2 " << cpu[1] / 1000000 << " ms");
	// sha3-512 over 64 MiB costs the inline thread ~350 ms; with the checkers it only reads and copies.
	CHECK(cpu[1] < cpu[0] / 2);
}

TEST_CASE("trim_percentage: every listed write is trimmed, counted as a trim, and reads back as zeroes")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { trimmed(job_spec("t", PLAN_RW_RANDWRITE, PLAN_IOENGINE_PSYNC, 1 << 20), 100, 8) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	const res_clone &k = pb::first_clone(*r);
	CHECK(k.ddir[PLAN_DDIR_WRITE].ios == 256);
	CHECK(k.ddir[PLAN_DDIR_TRIM].ios == 256);
	CHECK(k.ddir[PLAN_DDIR_TRIM].bytes == 1u << 20);
	CHECK(k.ddir[PLAN_DDIR_READ].ios == 256);	// trim_verify_zero: read back, as zeroes
	CHECK(k.verify_failures == 0);
	// The file holds zeroes where the data was: the trims really reached it.
	int fd = open(d.file("t.0.0").c_str(), O_RDONLY);
	REQUIRE(fd >= 0);
	std::vector<uint8_t> buf(1 << 20, 0xff);
	CHECK(pread(fd, buf.data(), buf.size(), 0) == (ssize_t)buf.size());
	close(fd);
	CHECK(std::count(buf.begin(), buf.end(), 0) == (long)buf.size());
}

TEST_CASE("trim_percentage: a share of the writes; without trim_verify_zero trimmed blocks are not read back")
{
	pb::tmpdir d;
	for (bool zero : { true, false }) {
		auto p = pb::build(d.path(), { trimmed(job_spec("h", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 1 << 20), 50, 8, zero) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		const res_clone &k = pb::first_clone(*r);
		uint64_t trims = k.ddir[PLAN_DDIR_TRIM].ios;
		CHECK(trims > 256 / 4);	// 128 expected; binomial(256, 0.5) stays far inside
		CHECK(trims < 256 * 3 / 4);
		CHECK(k.ddir[PLAN_DDIR_READ].ios == (zero ? 256 : 256 - trims));
		CHECK(k.verify_failures == 0);
		unlink(d.file("h.0.0").c_str());
	}
	// trim_backlog=0: nothing is trimmed, as fio.
	auto p = pb::build(d.path(), { trimmed(job_spec("n", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 1 << 20), 50, 0) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	CHECK(ret == 0);
	CHECK(pb::first_clone(*r).ddir[PLAN_DDIR_TRIM].ios == 0);
}

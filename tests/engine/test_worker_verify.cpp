// tests/engine/test_worker_verify.cpp - verification in real runs (engine/worker/worker_verify.c):
// write then read back, verify_only over an earlier run's file, verify_fatal, read jobs,
// patterns, and the error messages that name job, file and offset.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "tests/engine/plan_builder.hpp"
#include "tests/engine/flip_byte.hpp"

using pb::job_spec;

namespace {

// verify= (and verify_only) as a job file says them: the parser then draws the
// verify reads' sizes from the writes' seed, as fio does.
job_spec verified(job_spec s, enum plan_verify kind, bool only = false)
{
	s.opt("verify", plan_verify_name(kind));
	if (only)
		s.opt("verify_only");
	return s;
}

bool has_msg(const results &r, const std::string &code, const std::string &part)
{
	for (uint32_t i = 0; i < r.nr_msgs; i++)
		if (code == r.msgs[i].code && std::string(r.msgs[i].text).find(part) != std::string::npos)
			return true;
	return false;
}

} // namespace

TEST_CASE("worker verify: a write job's blocks read back clean (sequential, random, queued, time-based)")
{
	pb::tmpdir d;
	struct {
		enum plan_rw rw;
		enum plan_ioengine e;
		enum plan_verify kind;
		bool time_based;
	} cases[] = { { PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, PLAN_VERIFY_CRC32C, false },
		      { PLAN_RW_RANDWRITE, PLAN_IOENGINE_LIBAIO, PLAN_VERIFY_XXHASH, false },
		      { PLAN_RW_RANDWRITE, PLAN_IOENGINE_PSYNC, PLAN_VERIFY_CRC32C, true } };
	for (auto &c : cases) {
		CAPTURE(plan_rw_name(c.rw));
		auto p = pb::build(d.path(), { verified(job_spec("w", c.rw, c.e, 1 << 20), c.kind).opt("iodepth", "8").with([&](plan_job &j) {
			j.bs[PLAN_DDIR_WRITE].min_bytes = 4096;
			j.bs[PLAN_DDIR_WRITE].max_bytes = 16384;	// bsrange: chunks stay 4 KiB
			if (c.time_based) {
				// Plain random: some blocks twice, some never; only written ones are checked.
				j.norandommap = true;
				j.time_based = true;
				j.runtime_ns = 100000000ull;
			}
		}) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		CHECK(ret == 0);
		const res_clone &k = pb::first_clone(*r);
		CHECK(k.verify_failures == 0);
		CHECK(k.nr_errors == 0);
		CHECK(k.ddir[PLAN_DDIR_WRITE].bytes >= (c.time_based ? 4096u : 1u << 20));
		// The read-back counts as fio's verify reads: every write still listed, once, one I/O of its
		// own length (a sequential pass writes every block; random bsrange blocks and time_based ones
		// may skip some, and a write over earlier ones replaces them).
		if (c.rw == PLAN_RW_WRITE)
			CHECK(k.ddir[PLAN_DDIR_READ].bytes == 1u << 20);
		else
			CHECK((k.ddir[PLAN_DDIR_READ].bytes > 0 && k.ddir[PLAN_DDIR_READ].bytes <= 1u << 20));
		if (c.time_based)
			CHECK(k.ddir[PLAN_DDIR_READ].ios <= k.ddir[PLAN_DDIR_WRITE].ios);
		else
			CHECK(k.ddir[PLAN_DDIR_READ].ios == k.ddir[PLAN_DDIR_WRITE].ios);
		CHECK(k.ddir[PLAN_DDIR_READ].ios * 4096 < k.ddir[PLAN_DDIR_READ].bytes);
		CHECK(k.ddir[PLAN_DDIR_READ].clat.n == k.ddir[PLAN_DDIR_READ].ios);
		CHECK(k.ddir[PLAN_DDIR_READ].runtime_ns > 0);
		unlink(d.file("w.0.0").c_str());
	}
}

TEST_CASE("worker verify: one flipped byte between a write job and a verify_only job is one mismatch at its block")
{
	pb::tmpdir d;
	auto w = pb::build(d.path(), { verified(job_spec("v", PLAN_RW_RANDWRITE, PLAN_IOENGINE_PSYNC, 1 << 20), PLAN_VERIFY_CRC32C) });
	int ret = -1;
	auto r = pb::run(*w, &ret);
	REQUIRE(ret == 0);
	std::string path = d.file("v.0.0");
	flip_byte(path, 300000);

	auto v = pb::build(d.path(), { verified(job_spec("v", PLAN_RW_RANDWRITE, PLAN_IOENGINE_PSYNC, 1 << 20), PLAN_VERIFY_CRC32C, true) });
	r = pb::run(*v, &ret);
	CHECK(ret == -EILSEQ);
	const res_clone &k = pb::first_clone(*r);
	CHECK(k.verify_failures == 1);
	CHECK(k.error == EILSEQ);
	CHECK(k.ddir[PLAN_DDIR_WRITE].ios == 0);	// verify_only writes nothing
	REQUIRE(k.nr_errors == 1);
	CHECK(k.errors[0].offset == 300000 / 4096 * 4096);
	CHECK(k.errors[0].err == EILSEQ);
	CHECK(std::string(k.errors[0].what).rfind("verify crc32c: want ", 0) == 0);
	CHECK(has_msg(*r, "verify", "job 'v': " + path + ": offset 299008: verify crc32c"));
}

TEST_CASE("worker verify: the first bad read ends the job unless continue_on_error=verify, which reports every bad block")
{
	pb::tmpdir d;
	auto w = pb::build(d.path(), { verified(job_spec("f", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 256 << 10), PLAN_VERIFY_XXHASH) });
	int ret = -1;
	pb::run(*w, &ret);
	REQUIRE(ret == 0);
	for (off_t at : { 5000, 70000, 200000 })
		flip_byte(d.file("f.0.0"), at);
	// As fio's: the read of the second block fails the job, and nothing is read after it.
	for (bool fatal : { false, true }) {
		auto v = pb::build(d.path(), { verified(job_spec("f", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 256 << 10), PLAN_VERIFY_XXHASH, true).with([&](plan_job &j) {
							       j.verify_fatal = fatal;
						       }) });
		auto r = pb::run(*v, &ret);
		const res_clone &k = pb::first_clone(*r);
		CHECK(ret == -EILSEQ);
		CHECK(k.verify_failures == 1);
		CHECK(k.ddir[PLAN_DDIR_READ].bytes == 8192);
		REQUIRE(k.nr_errors == 1);
		CHECK(k.errors[0].offset == 4096);
	}
	// continue_on_error=verify keeps the job successful while still counting every one;
	// with verify_fatal it ends at the first, still not the job's error (fio exits 0).
	for (bool fatal : { false, true }) {
		auto c = pb::build(d.path(), { verified(job_spec("f", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 256 << 10), PLAN_VERIFY_XXHASH, true).with([&](plan_job &j) {
			j.continue_on_error = PLAN_COE_VERIFY;
			j.verify_fatal = fatal;
		}) });
		auto r = pb::run(*c, &ret);
		const res_clone &k = pb::first_clone(*r);
		CHECK(ret == 0);
		CHECK(k.error == 0);
		CHECK(k.verify_failures == (fatal ? 1u : 3u));
		CHECK(k.ddir[PLAN_DDIR_READ].bytes == (fatal ? 8192u : 256u << 10));
		if (!fatal) {
			REQUIRE(k.nr_errors == 3);
			CHECK(k.errors[2].offset == 200000 / 4096 * 4096);
		}
	}
}

TEST_CASE("worker verify: a read job with verify= checks each block it reads")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { verified(job_spec("rw", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 128 << 10), PLAN_VERIFY_CRC32C)
					       .file("shared"),
				       verified(job_spec("rw", PLAN_RW_RANDREAD, PLAN_IOENGINE_IO_URING, 128 << 10), PLAN_VERIFY_CRC32C)
					       .file("shared")
					       .stonewalled() });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	if (ret == -ENOSYS || ret == -EPERM) {
		MESSAGE("io_uring refused by the kernel: skipped");
		return;
	}
	CHECK(ret == 0);
	CHECK(pb::first_clone(*r, 1).ddir[PLAN_DDIR_READ].ios == 32);
	CHECK(pb::first_clone(*r, 1).verify_failures == 0);

	flip_byte(d.file("shared"), 4096 * 9 + 100);
	auto q = pb::build(d.path(), { verified(job_spec("rd", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, 128 << 10), PLAN_VERIFY_CRC32C)
					       .file("shared") });
	r = pb::run(*q, &ret);
	CHECK(ret == -EILSEQ);
	const res_clone &k = pb::first_clone(*r);
	CHECK(k.verify_failures == 1);
	REQUIRE(k.nr_errors == 1);
	CHECK(k.errors[0].offset == 4096 * 9);
}

TEST_CASE("worker verify: verify=pattern writes the pattern and names the first wrong byte")
{
	pb::tmpdir d;
	auto job = [](bool only) {
		return verified(job_spec("p", PLAN_RW_RANDWRITE, PLAN_IOENGINE_PSYNC, 64 << 10), PLAN_VERIFY_PATTERN, only)
			.opt("verify_pattern", "0xcafebabe")
			.opt("buffer_pattern", "0xcafebabe");
	};
	auto w = pb::build(d.path(), { job(false) });
	int ret = -1;
	pb::run(*w, &ret);
	REQUIRE(ret == 0);
	flip_byte(d.file("p.0.0"), 12345);
	auto v = pb::build(d.path(), { job(true) });
	auto r = pb::run(*v, &ret);
	CHECK(ret == -EILSEQ);
	REQUIRE(pb::first_clone(*r).nr_errors == 1);
	CHECK(pb::first_clone(*r).errors[0].offset == 12345);
	CHECK(std::string(pb::first_clone(*r).errors[0].what) == "verify pattern: pattern byte want fe got a4");
}

TEST_CASE("worker verify: writes off the verify_interval grid are refused before any I/O")
{
	pb::tmpdir d;
	/* An interval that does not divide the block is fio's gcd of the writes (4 KiB here): checked. */
	auto p = pb::build(d.path(), { verified(job_spec("g", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 64 << 10), PLAN_VERIFY_CRC32C).with([](plan_job &j) {
		j.verify_interval_bytes = 3000;
	}) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	CHECK(ret == 0);
	const res_clone &k = pb::first_clone(*r);
	CHECK(k.nr_errors == 0);
	CHECK(k.ddir[PLAN_DDIR_READ].bytes == 64 << 10);
	/* rw=write:2: 2-byte gaps put every write after the first off the 4 KiB grid. */
	auto q = pb::build(d.path(), { verified(job_spec("h", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 64 << 10), PLAN_VERIFY_CRC32C).with([](plan_job &j) {
		j.rw_seq_skip_bytes = 2;
	}) });
	r = pb::run(*q, &ret);
	CHECK(ret == -EINVAL);
	REQUIRE(pb::first_clone(*r).nr_errors == 1);
	CHECK(std::string(pb::first_clone(*r).errors[0].what).find("and the gap of rw=...:N is not a multiple") !=
	      std::string::npos);
}

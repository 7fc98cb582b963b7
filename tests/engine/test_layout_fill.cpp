// tests/engine/test_layout_fill.cpp - the layout's write loop (engine/layout/layout_fill.c) on real
// files: exact range, distinct random sectors, progress, stop, a full file system; and the
// layout around it (engine/layout/layout.c): O_DIRECT fills checked for space first, create_fsync.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/layout/layout_fill.h"
#include "tests/engine/plan_builder.hpp"

// engine/layout/layout.h uses C11 atomics C++ cannot parse; the one function tested here.
extern "C" void layout_region(const struct plan_job *j, const struct plan_clone *c, const struct plan_file *f,
			      uint64_t actual, uint64_t *start, uint64_t *len);

namespace {

std::vector<char> read_file(const std::string &path)
{
	std::vector<char> v;
	int fd = open(path.c_str(), O_RDONLY);
	REQUIRE(fd >= 0);
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		v.insert(v.end(), buf, buf + n);
	close(fd);
	return v;
}

// Sectors of 512 bytes in [from, to) that occur more than once.
size_t repeated_sectors(const std::vector<char> &v, size_t from, size_t to)
{
	std::set<std::string> seen;
	size_t dup = 0;
	for (size_t o = from; o + 512 <= to; o += 512)
		dup += !seen.insert(std::string(v.data() + o, 512)).second;
	return dup;
}

} // namespace

TEST_CASE("layout_fill: writes exactly [from, to) with distinct random sectors, direct or not")
{
	pb::tmpdir d;
	for (bool direct : { true, false }) {
		CAPTURE(direct);
		std::string path = d.file(direct ? "direct" : "buffered");
		int fd = open(path.c_str(), O_RDWR | O_CREAT, 0644);
		REQUIRE(fd >= 0);
		std::vector<char> head(4096, 'h');
		REQUIRE(pwrite(fd, head.data(), head.size(), 0) == 4096);
		close(fd);
		fd = open(path.c_str(), O_RDWR | (direct ? O_DIRECT : 0));
		REQUIRE(fd >= 0);
		std::atomic<uint64_t> done{0};
		std::atomic<int> stop{0};
		// 5.25 MiB: several chunks per buffer, and a short last one.
		uint64_t from = 4096, to = from + 5 * LAYOUT_FILL_CHUNK + 256 * 1024;
		CHECK(layout_fill(fd, from, to, direct, nullptr, &done, &stop) == 0);
		close(fd);
		CHECK(done == to - from);
		std::vector<char> v = read_file(path);
		REQUIRE(v.size() == to);
		CHECK(std::string(v.data(), 4096) == std::string(4096, 'h'));
		CHECK(repeated_sectors(v, from, to) == 0);
		CHECK(std::count(v.begin() + (long)from, v.end(), '\0') < (long)(to - from) / 64);
	}
}

// fio fills each block of each file from its running random state: two files laid out
// alike (same range, same job) were byte-identical in ioplan, one copy to a deduplicating
// device.
TEST_CASE("layout_fill: files laid out alike hold different data")
{
	pb::tmpdir d;
	std::set<std::string> sectors;
	size_t total = 0;
	for (const char *name : { "one", "two", "three" }) {
		std::string path = d.file(name);
		int fd = open(path.c_str(), O_RDWR | O_CREAT, 0644);
		REQUIRE(fd >= 0);
		std::atomic<uint64_t> done{0};
		std::atomic<int> stop{0};
		CHECK(layout_fill(fd, 0, 64 * 1024, false, nullptr, &done, &stop) == 0);
		close(fd);
		std::vector<char> v = read_file(path);
		REQUIRE(v.size() == 64 * 1024);
		for (size_t o = 0; o < v.size(); o += 512, total++)
			sectors.insert(std::string(v.data() + o, 512));
	}
	CHECK(sectors.size() == total);
}

// Lays out [0, len) of a new file with j's content, direct or not; the file's bytes.
std::vector<char> filled_with(pb::tmpdir &d, const plan_job &j, uint64_t len, bool direct)
{
	std::string path = d.file(direct ? "content-direct" : "content");
	unlink(path.c_str());
	int fd = open(path.c_str(), O_RDWR | O_CREAT | (direct ? O_DIRECT : 0), 0644);
	REQUIRE(fd >= 0);
	std::atomic<uint64_t> done{0};
	std::atomic<int> stop{0};
	CHECK(layout_fill(fd, 0, len, direct, &j, &done, &stop) == 0);
	close(fd);
	return read_file(path);
}

TEST_CASE("layout_fill: the data is the job's write content, a pattern going on across the 1 MiB writes")
{
	pb::tmpdir d;
	plan_job j;
	memset(&j, 0, sizeof j);
	j.bs[PLAN_DDIR_WRITE].min_bytes = j.bs[PLAN_DDIR_WRITE].max_bytes = 3072;
	uint64_t len = 3 * LAYOUT_FILL_CHUNK;
	for (bool direct : { false, true }) {
		CAPTURE(direct);
		j.buffer_fill = PLAN_BUF_ZERO;
		std::vector<char> v = filled_with(d, j, len, direct);
		REQUIRE(v.size() == len);
		CHECK(std::count(v.begin(), v.end(), '\0') == (long)len);
		// fio restarts buffer_pattern at every write of its layout (the job's largest,
		// 3 KiB here): byte x is pattern[x % 3072 % 5], across ioplan's 1 MiB writes too.
		uint8_t pat[] = { 'a', 'b', 'c', 'd', 'e' };
		j.buffer_fill = PLAN_BUF_PATTERN;
		j.buffer_pattern = pat;
		j.buffer_pattern_len = sizeof pat;
		v = filled_with(d, j, len, direct);
		REQUIRE(v.size() == len);
		size_t wrong = 0;
		for (size_t x = 0; x < len; x++)
			wrong += v[x] != (char)pat[x % 3072 % 5];
		CHECK(wrong == 0);
		j.buffer_pattern = nullptr;
		j.buffer_pattern_len = 0;
		// buffer_compress_percentage=40: 40% of each 512-byte chunk is zeroes.
		j.buffer_fill = PLAN_BUF_RANDOM;
		j.buffer_compress_pct = 40;
		v = filled_with(d, j, len, direct);
		long zeros = std::count(v.begin(), v.end(), '\0');
		CHECK(zeros > (long)(len * 39 / 100));
		CHECK(zeros < (long)(len * 42 / 100));
		j.buffer_compress_pct = 0;
		// dedupe_percentage=50: about half the 3 KiB pieces repeat an earlier one.
		j.dedupe_pct = 50;
		v = filled_with(d, j, len, direct);
		std::set<std::string> seen;
		size_t pieces = 0, dup = 0;
		for (size_t o = 0; o + 3072 <= len; o += 3072, pieces++)
			dup += !seen.insert(std::string(v.data() + o, 3072)).second;
		CHECK(dup > pieces * 40 / 100);
		CHECK(dup < pieces * 60 / 100);
		j.dedupe_pct = 0;
	}
}

TEST_CASE("layout_fill: a stop request ends it before the next write")
{
	pb::tmpdir d;
	std::string path = d.file("stopped");
	int fd = open(path.c_str(), O_RDWR | O_CREAT | O_DIRECT, 0644);
	REQUIRE(fd >= 0);
	std::atomic<uint64_t> done{0};
	std::atomic<int> stop{1};
	CHECK(layout_fill(fd, 0, 8 * LAYOUT_FILL_CHUNK, true, nullptr, &done, &stop) == -EINTR);
	CHECK(done == 0);
	struct stat st;
	REQUIRE(fstat(fd, &st) == 0);
	CHECK(st.st_size == 0);
	close(fd);
}

TEST_CASE("layout_fill: a full file system is -ENOSPC after what fitted, and the layout checks space first")
{
	pb::tmpdir d;
	std::string mnt = d.file("small");
	mkdir(mnt.c_str(), 0755);
	if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m")) {
		MESSAGE("cannot mount a small tmpfs here: skipped");
		return;
	}
	std::string path = mnt + "/f";
	int fd = open(path.c_str(), O_RDWR | O_CREAT | O_DIRECT, 0644);
	bool direct = fd >= 0;
	if (!direct)
		fd = open(path.c_str(), O_RDWR | O_CREAT, 0644);
	REQUIRE(fd >= 0);
	std::atomic<uint64_t> done{0};
	std::atomic<int> stop{0};
	CHECK(layout_fill(fd, 0, 4 * LAYOUT_FILL_CHUNK, direct, nullptr, &done, &stop) == -ENOSPC);
	CHECK(done <= 1u << 20);
	close(fd);
	unlink(path.c_str());

	// Through the engine: a direct read job that cannot fit fails before writing.
	auto p = pb::build(mnt, { pb::job_spec("big", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, 4 << 20).with([](plan_job &j) {
		j.direct = true;
	}) });
	int ret = 0;
	auto r = pb::run(*p, &ret);
	CHECK(ret == -ENOSPC);
	REQUIRE(r->nr_msgs >= 1);
	CHECK(std::string(r->msgs[0].code) == "no-space");
	struct stat st;
	CHECK(stat((mnt + "/big.0.0").c_str(), &st) != 0);	// what it created is gone
	umount2(mnt.c_str(), MNT_DETACH);
}

TEST_CASE("layout: with filesize= the region runs from offset= to the file's end, as fio's")
{
	plan_job j{};
	plan_clone c{};
	plan_file f{};
	uint64_t start = 0, len = 0;

	j.offset_bytes = f.offset_bytes = 32 << 10;
	f.size_bytes = 64 << 10;
	// size=64k offset=32k: 64 KiB from 32 KiB on, the file grows to 96 KiB.
	layout_region(&j, &c, &f, 0, &start, &len);
	CHECK(start == 32u << 10);
	CHECK(len == 64u << 10);
	// filesize=64k offset=32k: the file is 64 KiB, so 32 KiB are left (fio 3.33 reads 8 blocks).
	j.filesize_min_bytes = j.filesize_max_bytes = 64 << 10;
	layout_region(&j, &c, &f, 0, &start, &len);
	CHECK(start == 32u << 10);
	CHECK(len == 32u << 10);
	f.offset_bytes = 64 << 10;
	layout_region(&j, &c, &f, 0, &start, &len);
	CHECK(len == 0);
}

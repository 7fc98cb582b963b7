// tests/engine/test_local_engines.cpp - the local data engines beyond psync (pvsync, pvsync2,
// vsync, posixaio, mmap, falloc, ftruncate): registry, flags, and each engine driven
// directly through the ioe_ops contract on a real file.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/engine/plan_builder.hpp"

extern "C" {
#include "engine/ioengine.h"
}

namespace {

struct file {
	pb::tmpdir d;
	std::string path = d.path() + "/f";
	int fd = open(path.c_str(), O_RDWR | O_CREAT, 0600);
	explicit file(off_t size) { REQUIRE(ftruncate(fd, size) == 0); }
	~file() { close(fd); }
};

io_u make_io(int fd, void *buf, uint64_t off, uint32_t len, plan_ddir dd, uint32_t slot)
{
	io_u u{};
	u.buf = buf;
	u.fd = fd;
	u.offset = off;
	u.len = len;
	u.ddir = (uint8_t)dd;
	u.slot = slot;
	return u;
}

// Runs ios through engine id (queue, commit, getevents as the worker would); every result.
std::vector<int64_t> drive(plan_ioengine id, std::vector<io_u> &ios, uint32_t depth)
{
	ioe e;
	ioe_cfg cfg{};
	cfg.depth = depth;
	REQUIRE(ioe_open(&e, id, &cfg) == 0);
	size_t next = 0, done = 0;
	while (done < ios.size()) {
		int q = IOE_Q_QUEUED;
		while (next < ios.size() && (q = e.ops->queue(&e, &ios[next])) != IOE_Q_BUSY) {
			done += q == IOE_Q_COMPLETED;
			next++;
		}
		if (e.is_sync)
			continue;
		REQUIRE(e.ops->commit(&e) >= 0);
		int n = e.ops->getevents(&e, 1, depth, 1000000000ull);
		REQUIRE(n >= 0);
		done += (size_t)n;
	}
	ioe_close(&e);
	std::vector<int64_t> out;
	for (auto &u : ios)
		out.push_back(u.result);
	return out;
}

} // namespace

TEST_CASE("every engine id is registered once, in the engine list's order")
{
	CHECK(ioe_count() == PLAN_IOENGINE_NR);
	for (int id = 0; id < PLAN_IOENGINE_NR; id++) {
		const ioe_ops *o = ioe_find((plan_ioengine)id);
		REQUIRE(o);
		CHECK(ioe_at((uint32_t)id) == o);
		CHECK(o->id == id);
	}
}

TEST_CASE("pvsync2's fixed flags follow fio 3.33: uncached only when buffered")
{
	CHECK(ioe_rwf_flags(false, false, false) == 0);
	CHECK(ioe_rwf_flags(true, false, false) == 0x40);
	CHECK(ioe_rwf_flags(true, false, true) == 0);
	CHECK(ioe_rwf_flags(false, true, true) == 0x08);
}

TEST_CASE("the data engines write what they are given and read it back")
{
	for (plan_ioengine id : { PLAN_IOENGINE_SYNC, PLAN_IOENGINE_PVSYNC, PLAN_IOENGINE_PVSYNC2, PLAN_IOENGINE_VSYNC,
				  PLAN_IOENGINE_POSIXAIO, PLAN_IOENGINE_MMAP }) {
		CAPTURE(plan_ioengine_name(id));
		file f(64 << 10);
		std::vector<char> wbuf(64 << 10), rbuf(64 << 10, 0);
		for (size_t i = 0; i < wbuf.size(); i++)
			wbuf[i] = (char)(i * 7 + id);
		std::vector<io_u> w, r;
		for (uint32_t i = 0; i < 16; i++) {
			w.push_back(make_io(f.fd, &wbuf[i * 4096], i * 4096, 4096, PLAN_DDIR_WRITE, i));
			r.push_back(make_io(f.fd, &rbuf[i * 4096], i * 4096, 4096, PLAN_DDIR_READ, i));
		}
		for (int64_t res : drive(id, w, 16))
			CHECK(res == 4096);
		for (int64_t res : drive(id, r, 16))
			CHECK(res == 4096);
		CHECK(memcmp(wbuf.data(), rbuf.data(), wbuf.size()) == 0);
	}
}

TEST_CASE("vsync shares a short read out in order: the I/Os past the end get what is left")
{
	file f(6144);
	std::vector<char> buf(8192);
	std::vector<io_u> ios = { make_io(f.fd, &buf[0], 0, 4096, PLAN_DDIR_READ, 0),
				  make_io(f.fd, &buf[4096], 4096, 4096, PLAN_DDIR_READ, 1) };
	auto res = drive(PLAN_IOENGINE_VSYNC, ios, 2);
	CHECK(res[0] == 4096);
	CHECK(res[1] == 2048);
}

TEST_CASE("mmap fails an I/O past the end of the file with EINVAL instead of faulting")
{
	file f(4096);
	std::vector<char> buf(4096);
	std::vector<io_u> ios = { make_io(f.fd, buf.data(), 4096, 4096, PLAN_DDIR_READ, 0) };
	CHECK(drive(PLAN_IOENGINE_MMAP, ios, 1)[0] == -EINVAL);
}

TEST_CASE("falloc allocates on writes and reads, punches on trims; ftruncate sets the size to the offset")
{
	file f(0);
	std::vector<io_u> ios = { make_io(f.fd, nullptr, 0, 8192, PLAN_DDIR_WRITE, 0),
				  make_io(f.fd, nullptr, 65536, 4096, PLAN_DDIR_READ, 0) };
	auto res = drive(PLAN_IOENGINE_FALLOC, ios, 1);
	CHECK(res == std::vector<int64_t>{ 8192, 4096 });
	struct stat st;
	REQUIRE(fstat(f.fd, &st) == 0);
	CHECK(st.st_size == 8192);		/* the read kept the size */
	CHECK(st.st_blocks * 512 >= 8192 + 4096);
	std::vector<io_u> t = { make_io(f.fd, nullptr, 12288, 4096, PLAN_DDIR_WRITE, 0),
				make_io(f.fd, nullptr, 0, 4096, PLAN_DDIR_READ, 0) };
	res = drive(PLAN_IOENGINE_FTRUNCATE, t, 1);
	CHECK(res == std::vector<int64_t>{ 4096, -EINVAL });
	REQUIRE(fstat(f.fd, &st) == 0);
	CHECK(st.st_size == 12288);
}

TEST_CASE("mmap maps a block device by its device size (its st_size is 0)")
{
	if (geteuid() != 0 || access("/dev/loop-control", F_OK) != 0) {
		MESSAGE("skipped: needs root and loop devices");
		return;
	}
	file f(1 << 20);
	std::string dev;
	if (FILE *p = popen(("losetup -f --show " + f.path + " 2>/dev/null").c_str(), "r")) {
		char line[256] = "";
		if (fgets(line, sizeof(line), p))
			dev = std::string(line, strcspn(line, "\n"));
		pclose(p);
	}
	if (dev.empty()) {
		MESSAGE("skipped: losetup refused");
		return;
	}
	int fd = open(dev.c_str(), O_RDONLY);
	std::vector<char> buf(4096, 1);
	std::vector<io_u> ios = { make_io(fd, buf.data(), (1 << 20) - 4096, 4096, PLAN_DDIR_READ, 0) };
	int64_t res = fd >= 0 ? drive(PLAN_IOENGINE_MMAP, ios, 1)[0] : -errno;
	if (fd >= 0)
		close(fd);
	CHECK(system(("losetup -d " + dev).c_str()) == 0);
	CHECK(res == 4096);
	CHECK(buf[0] == 0);
}

// tests/engine/test_remote_engines.cpp - the net engine driven directly through the
// ioe_ops contract: a receiver and a sender on a unix socket in two threads; the
// bytes that arrive are the bytes sent, and the sender's close ends the receiver.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/engine/plan_builder.hpp"

extern "C" {
#include "engine/engine.h"
#include "engine/ioengine.h"
}

namespace {

// A net job over the unix socket sock: its options struct filled through net's
// own table (engine/plan_engopts.h), as the parser fills it; plan_engopts_free frees it.
plan_job net_job(const std::string &sock, plan_rw rw)
{
	plan_job j{};
	j.ioengine = PLAN_IOENGINE_NET;
	j.rw = rw;
	char *blob = (char *)calloc(1, plan_engopts_of(PLAN_IOENGINE_NET)->size);
	REQUIRE(blob);
	*(long long *)(blob + plan_engopt_find(PLAN_IOENGINE_NET, "protocol")->off) = PLAN_NET_UNIX;
	*(char **)(blob + plan_engopt_find(PLAN_IOENGINE_NET, "hostname")->off) = strdup(sock.c_str());
	j.engine_opts = blob;
	return j;
}

int64_t one_io(ioe &e, void *buf, uint32_t len, plan_ddir dd)
{
	io_u u{};
	u.buf = buf;
	u.len = len;
	u.fd = -1;
	u.ddir = (uint8_t)dd;
	REQUIRE(e.ops->queue(&e, &u) == IOE_Q_COMPLETED);
	return u.result;
}

} // namespace

TEST_CASE("null and the remote engines use no local file; the file engines do")
{
	const enum plan_ioengine fileless[] = { PLAN_IOENGINE_NULL, PLAN_IOENGINE_NET, PLAN_IOENGINE_NETSPLICE,
						PLAN_IOENGINE_NBD };

	for (enum plan_ioengine e : fileless) {
		CHECK_FALSE(ioe_opens_files(e));
		CHECK_FALSE(ioe_lays_out(e));
	}
	CHECK(ioe_is_remote(PLAN_IOENGINE_NET));
	CHECK(ioe_is_remote(PLAN_IOENGINE_NBD));
	CHECK_FALSE(ioe_is_remote(PLAN_IOENGINE_NULL));
	CHECK(ioe_opens_files(PLAN_IOENGINE_PSYNC));
	CHECK(ioe_lays_out(PLAN_IOENGINE_IO_URING));
}

TEST_CASE("nbd is available exactly when the build found libnbd; net always is")
{
#ifdef IOPLAN_HAVE_LIBNBD
	CHECK(eng_ioengine_unavailable(PLAN_IOENGINE_NBD) == nullptr);
#else
	CHECK(eng_ioengine_unavailable(PLAN_IOENGINE_NBD) != nullptr);
#endif
	CHECK(eng_ioengine_unavailable(PLAN_IOENGINE_NET) == nullptr);
	CHECK(eng_ioengine_unavailable(PLAN_IOENGINE_NETSPLICE) == nullptr);
	CHECK(eng_ioengine_unavailable(PLAN_IOENGINE_NR) != nullptr);
}

TEST_CASE("net over a unix socket: whole blocks arrive intact, and the sender's close ends the receiver")
{
	pb::tmpdir d;
	std::string sock = d.path() + "/s";
	plan_job rj = net_job(sock, PLAN_RW_READ), sj = net_job(sock, PLAN_RW_WRITE);
	std::vector<uint8_t> out(3 * 65536), in(out.size());
	for (size_t i = 0; i < out.size(); i++)
		out[i] = (uint8_t)(i * 7 + i / 251);
	ioe r, s;
	ioe_cfg rc{}, sc{};
	rc.job = &rj;
	sc.job = &sj;
	int rret = 1;
	std::thread receiver([&] { rret = ioe_open(&r, PLAN_IOENGINE_NET, &rc); });
	int sret = -1;
	for (int tries = 0; tries < 200 && sret; tries++) {	// until the receiver listens
		sret = ioe_open(&s, PLAN_IOENGINE_NET, &sc);
		if (sret)
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	receiver.join();
	REQUIRE(sret == 0);
	REQUIRE(rret == 0);
	std::thread sender([&] {
		for (size_t off = 0; off < out.size(); off += 65536)
			one_io(s, out.data() + off, 65536, PLAN_DDIR_WRITE);
		ioe_close(&s);
	});
	for (size_t off = 0; off < in.size(); off += 65536)
		CHECK(one_io(r, in.data() + off, 65536, PLAN_DDIR_READ) == 65536);
	sender.join();
	CHECK(std::memcmp(in.data(), out.data(), in.size()) == 0);
	CHECK_FALSE(r.peer_done);
	CHECK(one_io(r, in.data(), 65536, PLAN_DDIR_READ) == 0);
	CHECK(r.peer_done);
	ioe_close(&r);
	plan_engopts_free(rj.engine_opts, PLAN_IOENGINE_NET);
	plan_engopts_free(sj.engine_opts, PLAN_IOENGINE_NET);
}

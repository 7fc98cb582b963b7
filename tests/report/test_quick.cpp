// tests/report/test_quick.cpp - winsat, hdparm, dd and GNOME Disks summaries
// (report/quick.cpp) in exact layout from known per-run results and I/O traces;
// the means and ranges are computed from every measured run.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include "report/quick.hpp"
#include "tests/report/fixture.hpp"

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * 1024;

t::job_spec job(const char *name, enum plan_rw rw, uint64_t bs, std::function<void(plan_job &)> more = nullptr)
{
	t::job_spec s{ name, rw, 0, 1, false, {}, nullptr };
	s.tweak = [=](plan_job &j) {
		for (int d = 0; d < PLAN_DDIR_NR; d++)
			j.bs[d].min_bytes = j.bs[d].max_bytes = bs;
		if (more)
			more(j);
	};
	return s;
}

void give(res_clone &c, int d, uint64_t n, uint64_t bs, uint64_t window_ns)
{
	t::add_ios(c, d, n, bs, window_ns, [](uint64_t) { return 1000; });
}

// Records I/Os of bs bytes at offsets, one after the other, with latencies lat_ns.
void trace(res_clone &c, uint64_t bs, const std::vector<uint64_t> &offsets,
	   const std::vector<uint64_t> &lat_ns)
{
	c.trace = (res_io_rec *)std::calloc(offsets.size(), sizeof(res_io_rec));
	c.trace_cap = c.trace_nr = offsets.size();
	uint64_t now = 1000;
	for (size_t i = 0; i < offsets.size(); i++) {
		now += lat_ns[i];
		c.trace[i].t_ns = now;
		c.trace[i].offset = offsets[i];
		c.trace[i].lat_ns = lat_ns[i];
		c.trace[i].bytes = (uint32_t)bs;
	}
}

template <typename F> std::string text(F writer, const results &r, const plan &p)
{
	std::ostringstream out;
	writer(out, r, p);
	return out.str();
}

} // namespace

TEST_CASE("quick: dd's human sizes")
{
	CHECK(report::dd_human(1048576000, true) == "1.0 GB");
	CHECK(report::dd_human(1048576000, false) == "1000 MiB");
	CHECK(report::dd_human(180883773.6, true) == "181 MB");
	CHECK(report::dd_human(2.5e9, true) == "2.5 GB");
	CHECK(report::dd_human(999.7e6, true) == "1.0 GB");
	CHECK(report::dd_human(9.96e6, true) == "10 MB");
	CHECK(report::dd_human(1500, true) == "1.5 kB");
	CHECK(report::dd_human(1536, false) == "1.5 KiB");
	CHECK(report::dd_human(512, true) == "512 B");
}

TEST_CASE("quick: winsat lines put the figure in winsat's column")
{
	t::plan_holder ph({ job("seq", PLAN_RW_READ, 64 * KiB), job("ran", PLAN_RW_RANDREAD, 16 * KiB),
			    job("seqw", PLAN_RW_WRITE, 64 * KiB), job("ran4w", PLAN_RW_RANDWRITE, 4 * KiB) });
	t::results_holder rh(ph.get(), 1);
	give(rh.clone(0, 0), PLAN_DDIR_READ, 9000, 64 * KiB, 5000000000ull);	// 117.9648 MB/s
	give(rh.clone(1, 0), PLAN_DDIR_READ, 450, 16 * KiB, 5000000000ull);	// 1.47456
	give(rh.clone(2, 0), PLAN_DDIR_WRITE, 5700, 64 * KiB, 5000000000ull);	// 74.7110
	give(rh.clone(3, 0), PLAN_DDIR_WRITE, 16000, 4 * KiB, 5000000000ull);	// 13.1072
	CHECK(text(report::write_winsat, rh.get(), ph.get()) ==
	      "Disk  Sequential 64.0 Read                   117.96 MB/s\n"
	      "Disk  Random 16.0 Read                       1.47 MB/s\n"
	      "Disk  Sequential 64.0 Write                  74.71 MB/s\n"
	      "Disk  Random 4.0 Write                       13.11 MB/s\n");
}

TEST_CASE("quick: hdparm prints each measured run, then mean and range of all of them")
{
	t::plan_holder ph({ job("buffered-disk-reads", PLAN_RW_READ, 2 * MiB) });
	t::results_holder rh(ph.get(), 4);
	rh.job_run(0, 0).discarded = true;
	give(rh.clone(0, 0, 0), PLAN_DDIR_READ, 9999, MiB, 3000000000ull);	// not shown, not counted
	give(rh.clone(0, 0, 1), PLAN_DDIR_READ, 532, MiB, 3006000000ull);
	give(rh.clone(0, 0, 2), PLAN_DDIR_READ, 514, MiB, 3008000000ull);
	give(rh.clone(0, 0, 3), PLAN_DDIR_READ, 546, MiB, 3000000000ull);
	CHECK(text(report::write_hdparm, rh.get(), ph.get()) ==
	      "\n/tmp/buffered-disk-reads.0.0:\n"
	      " Timing buffered disk reads: 532 MB in  3.01 seconds = 176.98 MB/sec\n"
	      " Timing buffered disk reads: 514 MB in  3.01 seconds = 170.88 MB/sec\n"
	      " Timing buffered disk reads: 546 MB in  3.00 seconds = 182.00 MB/sec\n"
	      "  mean 176.62 MB/sec, range 170.88 - 182.00 MB/sec (3 runs)\n");

	ph.job(0).direct = true;
	CHECK(text(report::write_hdparm, rh.get(), ph.get()).find(" Timing O_DIRECT disk reads: 532 MB") !=
	      std::string::npos);
}

TEST_CASE("quick: dd prints dd's line per run, then mean and range")
{
	t::plan_holder ph({ job("dd-write", PLAN_RW_WRITE, MiB) });
	t::results_holder rh(ph.get(), 2);
	give(rh.clone(0, 0, 0), PLAN_DDIR_WRITE, 1000, MiB, 5796960000ull);
	give(rh.clone(0, 0, 1), PLAN_DDIR_WRITE, 1000, MiB, 5729400000ull);
	CHECK(text(report::write_dd, rh.get(), ph.get()) ==
	      "dd-write:\n"
	      "1048576000 bytes (1.0 GB, 1000 MiB) copied, 5.79696 s, 181 MB/s\n"
	      "1048576000 bytes (1.0 GB, 1000 MiB) copied, 5.7294 s, 183 MB/s\n"
	      "  mean 181.95 MB/s, range 180.88 - 183.02 MB/s (2 runs)\n");
}

TEST_CASE("quick: GNOME Disks - sweep samples per zone from the trace, access time from latencies")
{
	auto sweep = [](plan_job &j) {
		j.zone_size_bytes = j.zone_range_bytes = 10 * MiB;
		j.clones[0].files[0].size_bytes = 40 * MiB;
		j.io_trace_max = 100;
	};
	t::plan_holder ph({ job("transfer-rate-read", PLAN_RW_READ, 10 * MiB, sweep),
			    job("access-time", PLAN_RW_RANDREAD, 4 * KiB) });
	t::results_holder rh(ph.get(), 1);
	trace(rh.clone(0, 0), 10 * MiB, { 0, 10 * MiB, 20 * MiB, 30 * MiB },
	      { 50000000, 55000000, 60000000, 100000000 });
	trace(rh.clone(1, 0), 4 * KiB, { 12345 * 4096, 7 * 4096, 999 * 4096, 3 * 4096 },
	      { 10000000, 12000000, 14000000, 16000000 });
	CHECK(text(report::write_gnome_disks, rh.get(), ph.get()) ==
	      "transfer-rate-read: Read rate, 4 samples of 10.0 MiB\n"
	      "  sample   offset (MB)  position      MB/s\n"
	      "       1           0.0      0.0%    209.72\n"
	      "       2          10.5     25.0%    190.65\n"
	      "       3          21.0     50.0%    174.76\n"
	      "       4          31.5     75.0%    104.86\n"
	      "Average Read Rate: 170.0 MB/s (min 104.9, max 209.7)\n"
	      "\n"
	      "access-time: 4 random reads of 4096 bytes\n"
	      "Average Access Time: 13.00 msec (min 10.00, max 16.00)\n");
}

TEST_CASE("quick: a sample made of several I/Os spans first issue to last completion")
{
	auto sweep = [](plan_job &j) {
		j.zone_size_bytes = MiB * 2;
		j.zone_range_bytes = MiB * 8;
		j.clones[0].files[0].size_bytes = 16 * MiB;
	};
	t::plan_holder ph({ job("sweep", PLAN_RW_READ, MiB, sweep) });
	t::results_holder rh(ph.get(), 1);
	// Zone 0: two 1 MiB reads of 5 ms each, back to back = 2 MiB in 10 ms.
	// Zone 1 (8 MiB on): one read of 5 ms and one of 15 ms = 2 MiB in 20 ms.
	trace(rh.clone(0, 0), MiB, { 0, MiB, 8 * MiB, 9 * MiB }, { 5000000, 5000000, 5000000, 15000000 });
	std::string s = text(report::write_gnome_disks, rh.get(), ph.get());
	CHECK(s.find("sweep: Read rate, 2 samples of 2.0 MiB\n") != std::string::npos);
	CHECK(s.find("       1           0.0      0.0%    209.72\n") != std::string::npos);
	CHECK(s.find("       2           8.4     50.0%    104.86\n") != std::string::npos);
}

TEST_CASE("quick: the dispatcher knows the four names and nothing else")
{
	t::plan_holder ph({ job("j", PLAN_RW_READ, 4 * KiB) });
	t::results_holder rh(ph.get(), 1);
	std::ostringstream out;
	for (const char *n : { "winsat", "hdparm", "dd", "gnome-disks" }) {
		CHECK(report::is_quick_format(n));
		CHECK(report::write_quick(n, out, rh.get(), ph.get()));
	}
	size_t before = out.str().size();
	CHECK_FALSE(report::is_quick_format("cdm"));
	CHECK_FALSE(report::write_quick("normal", out, rh.get(), ph.get()));
	CHECK(out.str().size() == before);
}

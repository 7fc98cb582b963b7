// tests/report/test_cdm.cpp - --output-format=cdm (report/cdm.cpp): the exact
// CrystalDiskMark export layout from known per-run results, the max-MB/s /
// min-latency score over measured runs only, and the profile names.
#include <doctest/doctest.h>

#include <cstdlib>
#include <ctime>
#include <sstream>

#include "report/cdm.hpp"
#include "tests/report/fixture.hpp"

namespace {

constexpr uint64_t S5 = 5000000000ull;
constexpr uint64_t KiB = 1024, MiB = 1024 * 1024, GiB = 1024 * MiB;

void give(res_clone &c, int d, uint64_t n, uint64_t bs, uint64_t clat_ns)
{
	t::add_ios(c, d, n, bs, S5, [=](uint64_t) { return clat_ns; });
}

// A CrystalDiskMark test: one job, its own group, 1 GiB shared file, 5 s runs.
t::job_spec cdm_job(const char *name, enum plan_rw rw, uint64_t bs, uint32_t q, uint32_t threads,
		    uint32_t group, uint32_t repeat)
{
	t::job_spec s{ name, rw, group, threads, true, {}, nullptr };
	s.tweak = [=](plan_job &j) {
		for (int d = 0; d < PLAN_DDIR_NR; d++)
			j.bs[d].min_bytes = j.bs[d].max_bytes = bs;
		j.iodepth = q;
		j.repeat = repeat;
		j.repeat_discard = 1;
		j.repeat_aggregate = PLAN_AGG_MAX;
		j.runtime_ns = S5;
		j.time_based = true;
		j.group_pause_ns = group ? S5 : 0;
		j.size_bytes = GiB;
		for (uint32_t c = 0; c < j.nr_clones; c++)
			j.clones[c].files[0].size_bytes = GiB;
	};
	return s;
}

std::string cdm(const results &r, const plan &p, const report::cdm_options &o = {})
{
	std::ostringstream out;
	report::write_cdm(out, r, p, o);
	return out.str();
}

void set_utc()
{
	setenv("TZ", "UTC", 1);
	tzset();
}

} // namespace

TEST_CASE("cdm: Peak profile, exact layout; max MB/s and min latency from measured runs only")
{
	set_utc();
	t::plan_holder ph({ cdm_job("SEQ1M_Q8T1_READ", PLAN_RW_READ, MiB, 8, 1, 0, 2),
			    cdm_job("RND4K_Q32T1_READ", PLAN_RW_RANDREAD, 4 * KiB, 32, 1, 1, 2),
			    cdm_job("SEQ1M_Q8T1_WRITE", PLAN_RW_WRITE, MiB, 8, 1, 2, 2),
			    cdm_job("RND4K_Q32T1_WRITE", PLAN_RW_RANDWRITE, 4 * KiB, 32, 1, 3, 2) });
	t::results_holder rh(ph.get(), 3);
	for (uint32_t j = 0; j < 4; j++)
		rh.job_run(j, 0).discarded = true;
	const int R = PLAN_DDIR_READ, W = PLAN_DDIR_WRITE;
	// Discarded first runs that would win both figures if they counted.
	give(rh.clone(0, 0, 0), R, 4000, MiB, 1000000);
	give(rh.clone(1, 0, 0), R, 500000, 4 * KiB, 100000);
	give(rh.clone(2, 0, 0), W, 100, MiB, 1000000);
	give(rh.clone(3, 0, 0), W, 10, 4 * KiB, 1000000);
	// SEQ read: run 1 is faster, run 2 has the lower latency.
	give(rh.clone(0, 0, 1), R, 2600, MiB, 15000000);
	give(rh.clone(0, 0, 2), R, 2500, MiB, 14881160);
	// RND read: run 2 wins both.
	give(rh.clone(1, 0, 1), R, 400000, 4 * KiB, 390000);
	give(rh.clone(1, 0, 2), R, 405000, 4 * KiB, 381420);
	// SEQ write: run 2 faster, run 1 lower latency.
	give(rh.clone(2, 0, 1), W, 2400, MiB, 16186800);
	give(rh.clone(2, 0, 2), W, 2450, MiB, 16500000);
	// RND write: run 2 faster, run 1 lower latency.
	give(rh.clone(3, 0, 1), W, 300000, 4 * KiB, 500000);
	give(rh.clone(3, 0, 2), W, 310000, 4 * KiB, 520000);

	report::cdm_options o;
	o.target = "/mnt/ssd: 50% (1/2GiB)";
	o.admin = true;
	// 2600 MiB / 5 s = 545.260 MB/s, 520 IOPS; 405000 x 4 KiB / 5 s = 331.776 MB/s;
	// 2450 MiB / 5 s = 513.802 MB/s; 310000 x 4 KiB / 5 s = 253.952 MB/s.
	// Latency = completion + 100 ns (the fixture's total latency).
	CHECK(cdm(rh.get(), ph.get(), o) ==
	      "ioplan " IOPLAN_VERSION " - results in CrystalDiskMark's layout\n"
	      "* MB/s = 1,000,000 bytes/s\n"
	      "* KB = 1000 bytes, KiB = 1024 bytes\n"
	      "* Each figure is the best of 2 runs; (low - high MB/s) of the runs follows it\n"
	      "\n"
	      "[Read]\n"
	      "  SEQ    1MiB (Q=  8, T= 1):   545.260 MB/s [    520.0 IOPS] < 14881.26 us>  (524.288 - 545.260 MB/s)\n"
	      "  RND    4KiB (Q= 32, T= 1):   331.776 MB/s [  81000.0 IOPS] <   381.52 us>  (327.680 - 331.776 MB/s)\n"
	      "\n"
	      "[Write]\n"
	      "  SEQ    1MiB (Q=  8, T= 1):   513.802 MB/s [    490.0 IOPS] < 16186.90 us>  (503.316 - 513.802 MB/s)\n"
	      "  RND    4KiB (Q= 32, T= 1):   253.952 MB/s [  62000.0 IOPS] <   500.10 us>  (245.760 - 253.952 MB/s)\n"
	      "\n"
	      "Profile: Peak Performance\n"
	      "   Test: 1 GiB (x2) [/mnt/ssd: 50% (1/2GiB)]\n"
	      "   Mode: [Admin]\n"
	      "   Time: Measure 5 sec / Interval 5 sec\n"
	      "   Date: 2026/11/22 11:32:25\n"
	      "     OS: Linux 6.1.0-test\n");
}

TEST_CASE("cdm: 16 threads make one row; a mixed job gets a [Mix] section with its ratio")
{
	set_utc();
	t::job_spec mix = cdm_job("MIX", PLAN_RW_RANDRW, 4 * KiB, 1, 1, 1, 1);
	auto base = mix.tweak;
	mix.tweak = [=](plan_job &j) {
		base(j);
		j.rwmixread_pct = 70;
	};
	t::plan_holder ph({ cdm_job("RND4K_Q32T16_READ", PLAN_RW_RANDREAD, 4 * KiB, 32, 16, 0, 1), mix });
	t::results_holder rh(ph.get(), 2);
	rh.job_run(0, 0).discarded = rh.job_run(1, 0).discarded = true;
	for (uint32_t c = 0; c < 16; c++)
		give(rh.clone(0, c, 1), PLAN_DDIR_READ, 1000, 4 * KiB, c < 8 ? 1000000 : 3000000);
	give(rh.clone(1, 0, 1), PLAN_DDIR_READ, 7000, 4 * KiB, 200000);
	give(rh.clone(1, 0, 1), PLAN_DDIR_WRITE, 3000, 4 * KiB, 400000);

	std::string s = cdm(rh.get(), ph.get());
	// 16 x 1000 x 4 KiB / 5 s = 13.107 MB/s, 3200 IOPS, mean 2000.10 us.
	CHECK(s.find("[Read]\n  RND    4KiB (Q= 32, T=16):    13.107 MB/s [   3200.0 IOPS] <"
		     "  2000.10 us>\n") != std::string::npos);
	// 10000 x 4 KiB / 5 s = 8.192 MB/s, 2000 IOPS, (7000 x 200.1 + 3000 x 400.1) / 10000.
	CHECK(s.find("\n[Mix] Read 70%/Write 30%\n  RND    4KiB (Q=  1, T= 1):     8.192 MB/s "
		     "[   2000.0 IOPS] <   260.10 us>\n") != std::string::npos);
	CHECK(s.find("Profile: Custom + Mix\n") != std::string::npos);
	CHECK(s.find("   Test: 1 GiB (x1)\n   Mode: [User]\n") != std::string::npos);
}

TEST_CASE("cdm: profiles are named from their rows, and an explicit name wins")
{
	set_utc();
	auto profile_of = [](const std::vector<t::job_spec> &jobs, const std::string &given = "") {
		t::plan_holder ph(jobs);
		t::results_holder rh(ph.get(), 1);
		report::cdm_options o;
		o.profile = given;
		std::string s = cdm(rh.get(), ph.get(), o);
		size_t at = s.find("Profile: ");
		return s.substr(at + 9, s.find('\n', at) - at - 9);
	};
	auto four = [](uint64_t seq2_bs, uint32_t seq2_q, uint32_t rnd_t) {
		return std::vector<t::job_spec>{
			cdm_job("a", PLAN_RW_READ, MiB, 8, 1, 0, 5),
			cdm_job("b", PLAN_RW_READ, seq2_bs, seq2_q, 1, 1, 5),
			cdm_job("c", PLAN_RW_RANDREAD, 4 * KiB, 32, rnd_t, 2, 5),
			cdm_job("d", PLAN_RW_RANDREAD, 4 * KiB, 1, 1, 3, 5),
			cdm_job("e", PLAN_RW_WRITE, MiB, 8, 1, 4, 5),
		};
	};
	CHECK(profile_of(four(MiB, 1, 1)) == "Default");
	CHECK(profile_of(four(128 * KiB, 32, 16)) == "Default (NVMe SSD)");
	CHECK(profile_of(four(128 * KiB, 32, 1)) == "Custom");
	CHECK(profile_of({ cdm_job("a", PLAN_RW_READ, MiB, 1, 1, 0, 5),
			   cdm_job("b", PLAN_RW_RANDWRITE, 4 * KiB, 1, 1, 1, 5) }) ==
	      "Real World Performance");
	CHECK(profile_of({ cdm_job("a", PLAN_RW_READ, MiB, 8, 1, 0, 5) }) == "Demo");
	CHECK(profile_of({ cdm_job("a", PLAN_RW_READ, MiB, 8, 1, 0, 5) }, "Mine") == "Mine");
}

TEST_CASE("cdm: errors and interruptions are said, not hidden behind a zero")
{
	set_utc();
	t::plan_holder ph({ cdm_job("SEQ1M_Q8T1_READ", PLAN_RW_READ, MiB, 8, 1, 0, 1) });
	t::results_holder rh(ph.get(), 2);
	rh.job_run(0, 0).discarded = true;
	rh.clone(0, 0, 1).error = EIO;
	rh.get().interrupted = true;
	std::string s = cdm(rh.get(), ph.get());
	CHECK(s.find("  SEQ    1MiB (Q=  8, T= 1): failed: Input/output error\n") != std::string::npos);
	CHECK(s.find("0.000 MB/s") == std::string::npos);
	CHECK(s.find("  Error: SEQ1M_Q8T1_READ (run 1): Input/output error\n") != std::string::npos);
	CHECK(s.find("  Note: interrupted") != std::string::npos);
}

TEST_CASE("cdm: target usage of a real directory")
{
	std::string u = report::cdm_target_usage("/tmp");
	CHECK(u.rfind("/tmp: ", 0) == 0);
	CHECK(u.find("GiB)") != std::string::npos);
	CHECK(report::cdm_target_usage("/nonexistent/dir") == "");
}

TEST_CASE("cdm: caveats mark their rows and are footnoted under the table")
{
	set_utc();
	t::plan_holder ph({ cdm_job("SEQ1M_Q8T1_READ", PLAN_RW_READ, MiB, 8, 1, 0, 3),
			    cdm_job("RND4K_Q32T1_READ", PLAN_RW_RANDREAD, 4 * KiB, 32, 1, 1, 3),
			    cdm_job("SEQ1M_Q8T1_WRITE", PLAN_RW_WRITE, MiB, 8, 1, 2, 3) });
	// The presets' jobs share one file: the preflight speaks of it once, for job 0.
	// The planner marks a path that more than one clone uses as shared.
	for (uint32_t j = 0; j < 3; j++) {
		if (j) {
			free(ph.job(j).clones[0].files[0].path);
			ph.job(j).clones[0].files[0].path = plan_strdup(ph.job(0).clones[0].files[0].path);
		}
		ph.job(j).clones[0].files[0].shared = true;
	}
	t::results_holder rh(ph.get(), 3);
	for (uint32_t j = 0; j < 3; j++) {
		rh.job_run(j, 0).discarded = true;
		for (uint32_t run = 1; run < 3; run++)
			give(rh.clone(j, 0, run), j == 2 ? PLAN_DDIR_WRITE : PLAN_DDIR_READ, 1000, MiB, 100000);
	}
	// RND read: the second run is twice the first (a spread of 67% of the median).
	give(rh.clone(1, 0, 2), PLAN_DDIR_READ, 1000, MiB, 100000);
	rh.clone(2, 0, 2).cpu_bound = true;
	rh.add_msg(RES_MSG_WARNING, "preflight/memory-backed",
		   "job 'SEQ1M_Q8T1_READ': /tmp/x is on tmpfs, which keeps its data in memory", 0);
	std::string s = cdm(rh.get(), ph.get());
	INFO(s);
	CHECK(s.find("* Each figure is the best of 2 runs") != std::string::npos);
	CHECK(s.find("<   100.10 us>  (209.715 - 209.715 MB/s) *1\n") != std::string::npos);
	CHECK(s.find("(209.715 - 419.430 MB/s) *1,3\n") != std::string::npos);
	CHECK(s.find("(209.715 - 209.715 MB/s) *1,2\n") != std::string::npos);
	size_t table_end = s.find("Profile: ");
	size_t n1 = s.find("*1 job 'SEQ1M_Q8T1_READ': /tmp/x is on tmpfs");
	size_t n2 = s.find("*2 CPU-bound: a worker thread of 'SEQ1M_Q8T1_WRITE'");
	size_t n3 = s.find("*3 job 'RND4K_Q32T1_READ': its 2 runs spread from 209.7 to 419.4 MB/s");
	CHECK(n1 < n2);
	CHECK(n2 < n3);
	CHECK(n3 < table_end);
}

TEST_CASE("cdm: a job that failed before moving a byte says so instead of zeros")
{
	set_utc();
	t::plan_holder ph({ cdm_job("SEQ1M_Q8T1_READ", PLAN_RW_READ, MiB, 8, 1, 0, 1),
			    cdm_job("SEQ1M_Q8T1_WRITE", PLAN_RW_WRITE, MiB, 8, 1, 1, 1) });
	t::results_holder rh(ph.get(), 1);
	give(rh.clone(0, 0, 0), PLAN_DDIR_READ, 100, MiB, 100000);
	rh.get().error = EACCES;	// the run stopped before the write job opened its file
	std::string s = cdm(rh.get(), ph.get());
	CHECK(s.find("  SEQ    1MiB (Q=  8, T= 1):    20.972 MB/s") != std::string::npos);
	CHECK(s.find("  SEQ    1MiB (Q=  8, T= 1): failed: Permission denied\n") != std::string::npos);
	CHECK(s.find("0.000 MB/s") == std::string::npos);
}

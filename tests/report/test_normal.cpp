// tests/report/test_normal.cpp - the normal text output (report/fio/normal.cpp): the
// CPU-bound warning ioplan adds to a job's block when the tool set the pace, and
// the late-start caveat when a thread ran well into its group's window.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "report/report.hpp"
#include "tests/report/fixture.hpp"

namespace {

std::string report_of(bool cpu_bound, uint64_t late_start_ns, unsigned formats)
{
	t::job_spec j;
	j.name = "busy";
	t::plan_holder ph{ { j } };
	t::results_holder rh{ ph.get(), 1 };
	res_clone &c = rh.clone(0, 0);
	t::add_ios(c, PLAN_DDIR_READ, 1000, 4096, 1000000000ull, [](uint64_t) { return 500; });
	c.usr_ns = 40000000;	// 40 ms of CPU for 1000 I/Os: 40000 ns each
	c.sys_ns = 2000000;
	c.cpu_bound = cpu_bound;
	c.late_start_ns = late_start_ns;
	report::options o;
	o.formats = formats;
	std::ostringstream out;
	report::write(rh.get(), ph.get(), o, out);
	return out.str();
}

std::string normal_of(bool cpu_bound)
{
	return report_of(cpu_bound, 0, report::FORMAT_NORMAL);
}

} // namespace

TEST_CASE("normal: a CPU-bound worker gets a warning line with its CPU per I/O, others none")
{
	std::string busy = normal_of(true), calm = normal_of(false);
	CHECK(busy.find("  warning      : CPU-bound: a worker thread was busy the whole run "
			"(42000 ns of CPU per I/O); the tool, not the device, set the pace\n") !=
	      std::string::npos);
	// Right after fio's cpu line, so fio-style parsers keep their line order.
	CHECK(busy.find("minf=0\n  warning      : CPU-bound") != std::string::npos);
	CHECK(calm.find("CPU-bound") == std::string::npos);
	CHECK(busy.size() > calm.size());
}

TEST_CASE("normal and json: a thread that first ran 30% into its 1 s window is named, one at 5% is not")
{
	std::string late = report_of(false, 300000000ull, report::FORMAT_NORMAL);
	std::string json = report_of(false, 300000000ull, report::FORMAT_JSON);
	std::string calm = report_of(false, 50000000ull, report::FORMAT_NORMAL);
	CHECK(late.find("ioplan: warning: job 'busy': a worker thread first ran 300.0 ms after its group "
			"started, 30% of its 1000.0 ms window: its rates count time it could not run (a "
			"busy machine, or a window too short for its threads to start in)\n") != std::string::npos);
	CHECK(json.find("\"code\" : \"late-start\"") != std::string::npos);
	CHECK(calm.find("first ran") == std::string::npos);
	CHECK(late.find("first ran") != std::string::npos);
}

// Three runs of 8 MiB in 2.4, 7.0 and 2.5 ms: the repeats line rates them as
// fio does, over whole milliseconds (3, 7, 3 ms) by kb_base, and the spread
// warning printed the exact windows in MB/s (3495.3 MB/s where the line said
// max=2667MiB/s).  Both now say the same figures in the same unit.
TEST_CASE("normal: the repeat-spread warning rates the runs as the repeats line does")
{
	t::job_spec j;
	j.name = "m";
	j.tweak = [](plan_job &pj) {
		pj.repeat = 3;
		pj.repeat_aggregate = PLAN_AGG_MAX;
	};
	t::plan_holder ph{ { j } };
	t::results_holder rh{ ph.get(), 3 };
	const uint64_t window_ns[] = { 2400000, 7000000, 2500000 };
	for (uint32_t run = 0; run < 3; run++)
		t::add_ios(rh.clone(0, 0, run), PLAN_DDIR_READ, 2048, 4096, window_ns[run], [](uint64_t) { return 900; });
	report::options o;
	o.formats = report::FORMAT_NORMAL;
	std::ostringstream out;
	report::write(rh.get(), ph.get(), o, out);
	std::string s = out.str();
	INFO(s);
	CHECK(s.find("BW min=1143MiB/s, median=2667MiB/s, max=2667MiB/s") != std::string::npos);
	CHECK(s.find("its 3 runs spread from 1142.9 to 2666.7 MiB/s (57.1% of the median") != std::string::npos);
	CHECK(report::caveat_lines(rh.get(), ph.get()).find("spread from 1142.9 to 2666.7 MiB/s") != std::string::npos);
}

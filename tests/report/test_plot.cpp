// tests/report/test_plot.cpp - `ioplan plot` (report/plot/plot.cpp, plot_data.cpp):
// time series and traces as JSON, then real gnuplot drawing an SVG and a PNG
// from a result document; the SVG must be well-formed XML with every series
// title and axis label in it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "report/plot/plot.hpp"
#include "report/report.hpp"
#include "tests/report/fixture.hpp"

namespace {

constexpr uint64_t MiB = 1024 * 1024, MS = 1000000;

// A result's text as `ioplan plot` hands it on: parsed, a discarded value when it is no JSON.
report::ojson parsed(const std::string &text)
{
	return report::ojson::parse(text, nullptr, false);
}

// n samples of width iv_ns, sample k moving (k + 1) * bytes in direction d.
void series(res_clone &c, int d, uint32_t n, uint64_t iv_ns, uint64_t bytes, uint64_t bs)
{
	res_series &s = c.bw_series;
	if (!s.samples) {
		s.samples = (res_sample *)std::calloc(64, sizeof(res_sample));
		s.cap = 64;
	}
	s.interval_ns = iv_ns;
	for (uint32_t k = 0; k < n; k++) {
		res_sample &smp = s.samples[k];
		smp.t_start_ns = k * iv_ns;
		smp.t_end_ns = (k + 1) * iv_ns;
		smp.bytes[d] += (k + 1) * bytes;
		smp.ios[d] += (k + 1) * bytes / bs;
	}
	s.nr = std::max(s.nr, n);
	c.iops_series = s;
}

void trace(res_clone &c, uint64_t bs, const std::vector<uint64_t> &offsets, const std::vector<uint64_t> &lat)
{
	c.trace = (res_io_rec *)std::calloc(offsets.size(), sizeof(res_io_rec));
	c.trace_nr = c.trace_cap = offsets.size();
	uint64_t now = 0;
	for (size_t i = 0; i < offsets.size(); i++) {
		now += lat[i];
		c.trace[i] = res_io_rec{ now, offsets[i], lat[i], (uint32_t)bs, 0, 0, 0 };
	}
}

t::job_spec job(const char *name, enum plan_rw rw, uint32_t numjobs, std::function<void(plan_job &)> tw = nullptr)
{
	return t::job_spec{ name, rw, 0, numjobs, false, {}, tw };
}

struct scene {
	t::plan_holder ph{ { job("seq_read", PLAN_RW_READ, 2), job("mixed", PLAN_RW_RANDRW, 1),
			     job("transfer-rate-read", PLAN_RW_READ, 1,
				 [](plan_job &j) {
					 j.zone_size_bytes = j.zone_range_bytes = 10 * MiB;
					 j.clones[0].files[0].size_bytes = 40 * MiB;
				 }),
			     job("access-time", PLAN_RW_RANDREAD, 1,
				 [](plan_job &j) { j.clones[0].files[0].size_bytes = 40 * MiB; }) } };
	t::results_holder rh{ ph.get(), 1 };

	scene()
	{
		auto lat = [](uint64_t i) { return 100000 + 1000 * (i % 50); };
		// Clone 0 keeps 500 ms samples, clone 1 has merged to 1 s ones.
		series(rh.clone(0, 0), PLAN_DDIR_READ, 4, 500 * MS, 10 * MiB, MiB);
		series(rh.clone(0, 1), PLAN_DDIR_READ, 2, 1000 * MS, 30 * MiB, MiB);
		t::add_ios(rh.clone(0, 0), PLAN_DDIR_READ, 100, MiB, 2000 * MS, lat);
		t::add_ios(rh.clone(0, 1), PLAN_DDIR_READ, 90, MiB, 2000 * MS, lat);
		series(rh.clone(1, 0), PLAN_DDIR_READ, 3, 500 * MS, MiB, 4096);
		series(rh.clone(1, 0), PLAN_DDIR_WRITE, 3, 500 * MS, MiB / 2, 4096);
		t::add_ios(rh.clone(1, 0), PLAN_DDIR_READ, 700, 4096, 1500 * MS, lat);
		t::add_ios(rh.clone(1, 0), PLAN_DDIR_WRITE, 300, 4096, 1500 * MS, lat);
		trace(rh.clone(2, 0), 10 * MiB, { 0, 10 * MiB, 20 * MiB, 30 * MiB }, { 50 * MS, 55 * MS, 60 * MS, 100 * MS });
		t::add_ios(rh.clone(2, 0), PLAN_DDIR_READ, 4, 10 * MiB, 265 * MS, [](uint64_t) { return 60 * MS; });
		trace(rh.clone(3, 0), 4096, { 7 * 4096, 9000 * 4096, 1000 * 4096 }, { 10 * MS, 12 * MS, 14 * MS });
		t::add_ios(rh.clone(3, 0), PLAN_DDIR_READ, 3, 4096, 36 * MS, [](uint64_t) { return 12 * MS; });
	}

	std::string json()
	{
		std::ostringstream out;
		report::options o;
		o.formats = report::FORMAT_JSON;
		report::write(rh.get(), ph.get(), o, out);
		report::ojson doc = report::ojson::parse(out.str());
		doc["ioplan"]["series"] = report::series_json(rh.get(), ph.get());
		doc["ioplan"]["traces"] = report::traces_json(rh.get(), ph.get());
		return doc.dump();
	}
};

std::string tmpdir()
{
	char tmpl[] = "/tmp/ioplan-plot-XXXXXX";
	REQUIRE(mkdtemp(tmpl) != nullptr);
	return tmpl;
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return std::string(std::istreambuf_iterator<char>(f), {});
}

} // namespace

TEST_CASE("plot: series add clones up per interval, at the coarsest interval")
{
	scene s;
	report::ojson ser = report::series_json(s.rh.get(), s.ph.get());
	REQUIRE(ser.size() == 2);	// the traced jobs keep no series
	const report::ojson &a = ser[0];
	CHECK(a["jobname"] == "seq_read");
	CHECK(a["interval_ns"] == 1000 * MS);
	CHECK(a["t_ns"] == report::ojson({ 1000 * MS, 2000 * MS }));
	// Second 1: clone 0's 10+20 MiB and clone 1's 30 MiB; second 2: 30+40 and 60.
	CHECK(a["read"]["bytes"] == report::ojson({ 60 * MiB, 130 * MiB }));
	CHECK(a["read"]["bw_bytes_per_s"][1].get<double>() == doctest::Approx(130.0 * MiB));
	CHECK_FALSE(a.contains("write"));
	CHECK(ser[1]["write"]["iops"][2].get<double>() == doctest::Approx(3.0 * MiB / 2 / 4096 / 0.5));
}

TEST_CASE("plot: traces carry the I/Os and, for sweeps, the per-zone rates")
{
	scene s;
	report::ojson tr = report::traces_json(s.rh.get(), s.ph.get());
	REQUIRE(tr.size() == 2);
	CHECK(tr[0]["kind"] == "sweep");
	CHECK(tr[0]["region_bytes"] == 40 * MiB);
	REQUIRE(tr[0]["samples"].size() == 4);
	CHECK(tr[0]["samples"][3]["bytes_per_s"].get<double>() == doctest::Approx(10.0 * MiB / 0.1));
	CHECK(tr[1]["kind"] == "io");
	CHECK(tr[1]["ios"]["lat_ns"] == report::ojson({ 10 * MS, 12 * MS, 14 * MS }));
	CHECK(tr[1]["ios"]["ddir"][0] == "read");
}

TEST_CASE("plot: gnuplot draws a well-formed SVG with every series and axis, and a PNG")
{
	scene s;
	std::string dir = tmpdir();
	report::plot_options o;
	o.output = dir + "/chart.svg";
	std::string err;
	REQUIRE_MESSAGE(report::plot_document(parsed(s.json()), o, &err), err);

	std::string svg = slurp(o.output);
	CHECK(svg.size() > 5000);
	int st = -1;
	t::run("/usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' " +
		       o.output + " 2>&1",
	       &st);
	CHECK(st == 0);
	for (const char *want : { "seq_read read", "mixed read", "mixed write", "Bandwidth (MB/s)", "IOPS",
				  "Latency (us)", "Percentile (%)", "Time (s)", "transfer-rate-read transfer rate",
				  "access-time access time", "Transfer rate (MB/s)", "Access time (ms)",
				  "Position (%)" })
		CHECK_MESSAGE(svg.find(want) != std::string::npos, want);
	CHECK(slurp(o.output + ".gp").find("set terminal svg") != std::string::npos);

	o.output = dir + "/chart.png";
	REQUIRE_MESSAGE(report::plot_document(parsed(s.json()), o, &err), err);
	std::string png = slurp(o.output);
	CHECK(png.size() > 5000);
	CHECK(png.compare(0, 4, "\x89PNG") == 0);
	t::run("rm -rf " + dir);
}

TEST_CASE("plot: fio's own JSON, without ioplan's series, still gives the percentile panel")
{
	scene s;
	report::ojson doc = report::ojson::parse(s.json());
	doc.erase("ioplan");
	report::plot_options o;
	o.output = "/tmp/x.svg";
	std::string script, err;
	REQUIRE(report::plot_script(doc, o, &script, &err));
	CHECK(script.find("set multiplot layout 1,1") != std::string::npos);
	CHECK(script.find("'Latency percentiles'") != std::string::npos);
	CHECK(script.find("Bandwidth") == std::string::npos);
}

TEST_CASE("plot: what it cannot do is said")
{
	scene s;
	report::plot_options o;
	std::string err;
	o.output = "/tmp/chart.pdf";
	CHECK_FALSE(report::plot_document(parsed(s.json()), o, &err));
	CHECK(err == "the chart file must end in .svg or .png: '/tmp/chart.pdf'");
	o.output = "/tmp/chart.svg";
	CHECK_FALSE(report::plot_document(parsed("{\"jobs\": []}"), o, &err));
	CHECK(err.rfind("nothing to plot", 0) == 0);
	bool bad_input = false;
	CHECK_FALSE(report::plot_document(parsed("{not json"), o, &err, &bad_input));
	CHECK(err == "the input is not a JSON result document");
	CHECK(bad_input);
	std::string dir = tmpdir();
	o.output = dir + "/c.svg";
	o.gnuplot = "/nonexistent/gnuplot";
	CHECK_FALSE(report::plot_document(parsed(s.json()), o, &err, &bad_input));
	CHECK(err.find("cannot run /nonexistent/gnuplot") == 0);
	CHECK_FALSE(bad_input);	// the input was fine: the run of gnuplot failed
	t::run("rm -rf " + dir);
}

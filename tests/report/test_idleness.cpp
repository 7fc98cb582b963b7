// tests/report/test_idleness.cpp - the CPU idleness report (report/idleness.cpp):
// fio 3.33's text block and JSON object for given figures, exactly, and
// nothing at all when idleness was not measured.
#include <doctest/doctest.h>

#include <sstream>

#include "report/idleness.hpp"

namespace {

res_idle figures(res_idle_mode mode, res_idle_cpu *cpus)
{
	cpus[0] = { 0, 12.345 };
	cpus[1] = { 3, 99.999 };
	res_idle idle{};
	idle.mode = mode;
	idle.system_pct = 56.172;
	idle.cpus = cpus;
	idle.nr_cpus = 2;
	idle.unit_mean_us = 15.83;
	idle.unit_stddev_us = 8.5612;
	return idle;
}

} // namespace

TEST_CASE("idleness: fio's normal block, percpu and system")
{
	res_idle_cpu cpus[2];
	std::ostringstream out;
	report::write_idleness(out, figures(RES_IDLE_PERCPU, cpus));
	CHECK(out.str() == "\nCPU idleness:\n  system: 56.17%\n  percpu: 12.35%, 100.00%\n"
			   "  unit work: mean=15.83us, stddev=8.56\n");
	out.str("");
	report::write_idleness(out, figures(RES_IDLE_SYSTEM, cpus));
	CHECK(out.str() == "\nCPU idleness:\n  system: 56.17%\n  unit work: mean=15.83us, stddev=8.56\n");
	out.str("");
	report::write_idleness(out, figures(RES_IDLE_NONE, cpus));
	CHECK(out.str().empty());
}

TEST_CASE("idleness: fio's JSON keys in fio's order, CPUs by their number")
{
	res_idle_cpu cpus[2];
	std::string text = report::fio_json_text(report::idleness_json(figures(RES_IDLE_PERCPU, cpus)));
	CHECK(text == "{\n  \"system\" : 56.172000,\n  \"cpu-0\" : 12.345000,\n  \"cpu-3\" : 99.999000,\n"
		      "  \"unit_mean\" : 15.830000,\n  \"unit_stddev\" : 8.561200\n}");
	text = report::fio_json_text(report::idleness_json(figures(RES_IDLE_SYSTEM, cpus)));
	CHECK(text.find("cpu-") == std::string::npos);
}

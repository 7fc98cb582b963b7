// tests/report/test_json_text.cpp - fio's JSON text layout (report/fio/json_text.cpp)
// and the personality rule (report/personality.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "report/fio/json_util.hpp"
#include "report/personality.hpp"
#include "report/report.hpp"

using report::ojson;

TEST_CASE("json text: fio's spacing, indentation and number formats")
{
	ojson o = ojson::object();
	o["name"] = "j";
	o["n"] = 16384u;
	o["neg"] = -3;
	o["iops"] = 4096000.0;
	o["mean"] = 23.8624271;
	o["jobs"] = ojson::array({ ojson{ { "a", 1 } } });
	CHECK(report::fio_json_text(o) == "{\n"
					  "  \"name\" : \"j\",\n"
					  "  \"n\" : 16384,\n"
					  "  \"neg\" : -3,\n"
					  "  \"iops\" : 4096000.000000,\n"
					  "  \"mean\" : 23.862427,\n"
					  "  \"jobs\" : [\n"
					  "    {\n"
					  "      \"a\" : 1\n"
					  "    }\n"
					  "  ]\n"
					  "}");
}

TEST_CASE("json text: a percentage on a tie rounds as fio's %f does, half to even")
{
	// 2 of 1024 I/Os at depth 2 (fio 3.33 prints 0.195312), 10 of 1024 (0.976562);
	// rounding v * 1e6 away from zero printed 0.195313 and 0.976563 (and 23.862428
	// for 23.8624275, which is stored just under the tie and %f takes down).
	ojson o = ojson::object();
	o["a"] = report::f6(2.0 / 1024 * 100);
	o["b"] = report::f6(10.0 / 1024 * 100);
	o["c"] = report::f6(23.8624275);
	CHECK(report::fio_json_text(o) == "{\n  \"a\" : 0.195312,\n  \"b\" : 0.976562,\n  \"c\" : 23.862427\n}");
}

TEST_CASE("json text: empty containers as fio 3.33 prints them, strings strictly escaped")
{
	ojson o = ojson::object();
	o["job options"] = ojson::object();
	o["list"] = ojson::array();
	o["s"] = std::string("a\"b\\c\n\x01");
	o["inf"] = std::numeric_limits<double>::infinity();
	CHECK(report::fio_json_text(o) == "{\n"
					  "  \"job options\" : {\n\n  },\n"
					  "  \"list\" : [\n\n  ],\n"
					  "  \"s\" : \"a\\\"b\\\\c\\n\\u0001\",\n"
					  "  \"inf\" : 0.000000\n"
					  "}");
}

TEST_CASE("personality: fio only for a basename of exactly fio")
{
	using report::personality;
	CHECK(report::personality_of("fio") == personality::fio);
	CHECK(report::personality_of("/usr/local/bin/fio") == personality::fio);
	CHECK(report::personality_of("./ioplan") == personality::ioplan);
	CHECK(report::personality_of("/opt/fio/ioplan") == personality::ioplan);
	CHECK(report::personality_of("fio2") == personality::ioplan);
	CHECK(report::personality_of(nullptr) == personality::ioplan);
	CHECK(report::version_string(personality::fio) == "fio-3.33");
	CHECK(report::version_string(personality::ioplan) == report::version_string());
	CHECK(report::fio_mode_banner().find(report::version_string()) != std::string::npos);
}

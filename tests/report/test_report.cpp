// tests/report/test_report.cpp - the format table (report/report.cpp):
// --output-format parsing and fio's print order (--output=FILE: tests/cli/test_output.cpp).
#include <doctest/doctest.h>


#include "report/report.hpp"
#include "tests/report/scenarios.hpp"

namespace {

unsigned parsed(const std::string &list)
{
	unsigned f = 0;
	std::string err;
	REQUIRE_MESSAGE(report::parse_formats(list, &f, &err), err);
	return f;
}

std::string parse_error(const std::string &list)
{
	unsigned f = 12345;
	std::string err;
	CHECK_FALSE(report::parse_formats(list, &f, &err));
	CHECK(f == 12345);	// untouched on error
	return err;
}

} // namespace

TEST_CASE("report: format names map to their writers' bits")
{
	CHECK(parsed("normal") == report::FORMAT_NORMAL);
	CHECK(parsed("terse") == report::FORMAT_TERSE);
	CHECK(parsed("minimal") == report::FORMAT_TERSE);
	CHECK(parsed("csv") == report::FORMAT_CSV);
	CHECK(parsed("json") == report::FORMAT_JSON);
	CHECK(parsed("json+") == report::FORMAT_JSON_PLUS);
	CHECK(parsed("json,terse,normal") ==
	      (report::FORMAT_JSON | report::FORMAT_TERSE | report::FORMAT_NORMAL));
	CHECK(parsed("terse,terse") == report::FORMAT_TERSE);
	CHECK(report::format_names() == "terse, minimal, csv, json, json+, normal, cdm, winsat, hdparm, dd, gnome-disks, diskspd, diskspd-xml, html");
}

TEST_CASE("report: an unknown or empty format name is an error naming the valid ones")
{
	CHECK(parse_error("jsn") == "unknown format 'jsn' "
				    "(valid: terse, minimal, csv, json, json+, normal, cdm, winsat, hdparm, dd, gnome-disks, diskspd, diskspd-xml, html)");
	CHECK(parse_error("JSON").find("unknown format 'JSON'") != std::string::npos);
	CHECK(parse_error("terse,,json").find("empty format name in 'terse,,json'") != std::string::npos);
	CHECK(parse_error("").find("empty format name") != std::string::npos);
	CHECK(parse_error("normal,").find("(valid: terse,") != std::string::npos);
	CHECK(parse_error(" json").find("unknown format ' json'") != std::string::npos);
}

TEST_CASE("report: formats print in fio's order whatever the order asked")
{
	t::scenario_run run = t::scenarios().at(0).build();
	std::string all = t::render(run, parsed("normal,json,terse"));
	size_t terse = all.find("3;ioplan-"), json = all.find("{\n  \"fio version\""),
	       normal = all.find("randread-4k: (groupid=0");
	REQUIRE(terse != std::string::npos);
	REQUIRE(json != std::string::npos);
	REQUIRE(normal != std::string::npos);
	CHECK(terse < json);
	CHECK(json < normal);
	// normal output's opening (banners, "Starting ...") comes first, as fio prints
	// it before the run; then each part is exactly what that format alone prints.
	std::string n_only = t::render(run, report::FORMAT_NORMAL);
	std::string opening = n_only.substr(0, n_only.find("\nrandread-4k: (groupid=0"));
	REQUIRE(opening.find("Starting ") != std::string::npos);
	CHECK(all.compare(0, opening.size(), opening) == 0);
	CHECK(terse == opening.size());
	std::string t_only = t::render(run, report::FORMAT_TERSE);
	std::string j_only = t::render(run, report::FORMAT_JSON);
	CHECK(all.compare(terse, t_only.size(), t_only) == 0);
	CHECK(all.compare(json, j_only.size(), j_only) == 0);
	CHECK(all.compare(normal - 1, std::string::npos, n_only, opening.size(), std::string::npos) == 0);
	// json+ replaces json: one document, with bins.
	std::string both = t::render(run, parsed("json,json+"));
	CHECK(both == t::render(run, report::FORMAT_JSON_PLUS));
	CHECK(both.find("\"bins\"") != std::string::npos);
	CHECK(t::render(run, parsed("minimal")) == t_only);
}


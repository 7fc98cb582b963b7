// tests/report/test_golden.cpp - every writer's output for every scenario
// (scenarios.hpp), byte for byte against tests/golden/report/<scenario>.<format>.txt.
//
// The outputs are deterministic: fixed numbers, fixed host facts and wall
// clock, pid 4242, and TZ=UTC for the ctime strings.  A change to any writer
// shows up here as a diff; `make golden-update` rewrites the files on purpose.
#include <doctest/doctest.h>

#include <cstdlib>
#include <ctime>
#include <dirent.h>
#include <set>

#include "tests/report/golden.hpp"
#include "tests/report/scenarios.hpp"

namespace {

struct golden_format {
	const char *suffix;
	unsigned formats;
};

const golden_format golden_formats[] = {
	{ "normal", report::FORMAT_NORMAL },
	{ "terse", report::FORMAT_TERSE },
	{ "json", report::FORMAT_JSON },
	{ "jsonplus", report::FORMAT_JSON_PLUS },
};

// Sets TZ for the scope, so ctime text does not depend on the machine.
class utc_scope {
public:
	utc_scope()
	{
		const char *tz = std::getenv("TZ");
		had_ = tz != nullptr;
		if (had_)
			old_ = tz;
		setenv("TZ", "UTC", 1);
		tzset();
	}
	~utc_scope()
	{
		if (had_)
			setenv("TZ", old_.c_str(), 1);
		else
			unsetenv("TZ");
		tzset();
	}

private:
	bool had_ = false;
	std::string old_;
};

std::string golden_name(const char *scenario, const char *suffix)
{
	return std::string(scenario) + "." + suffix + ".txt";
}

} // namespace

TEST_CASE("golden: every writer's output for every scenario matches tests/golden/report")
{
	utc_scope utc;
	for (const t::scenario &s : t::scenarios())
		for (const golden_format &f : golden_formats) {
			std::string rel = "tests/golden/report/" + golden_name(s.name, f.suffix), why;
			t::scenario_run run = s.build();
			CHECK_MESSAGE(t::golden_match(rel, t::render(run, f.formats), &why), why);
		}
}

TEST_CASE("golden: no file in tests/golden/report without a scenario that makes it")
{
	std::set<std::string> expected;
	for (const t::scenario &s : t::scenarios())
		for (const golden_format &f : golden_formats)
			expected.insert(golden_name(s.name, f.suffix));
	DIR *d = opendir((t::root() + "/tests/golden/report").c_str());
	REQUIRE(d);
	size_t seen = 0;
	while (const dirent *e = readdir(d)) {
		std::string name = e->d_name;
		if (name == "." || name == "..")
			continue;
		seen++;
		CHECK_MESSAGE(expected.count(name), "tests/golden/report/" << name << " is made by no scenario");
	}
	closedir(d);
	CHECK(seen == expected.size());
}

TEST_CASE("golden: the comparison notices a one-byte change")
{
	if (std::getenv("IOPLAN_GOLDEN_UPDATE") || std::getenv("IOPLAN_GENERATE_DIR"))
		return;	// those modes write instead of comparing
	utc_scope utc;
	const t::scenario &s = t::scenarios().at(0);
	t::scenario_run run = s.build();
	run.res->clone(0, 0).ddir[PLAN_DDIR_READ].bytes += 1024;
	for (const golden_format &f : golden_formats) {
		std::string why;
		CHECK_FALSE(t::golden_match("tests/golden/report/" + golden_name(s.name, f.suffix),
					    t::render(run, f.formats), &why));
		CHECK(why.find("differs from the output") != std::string::npos);
	}
}

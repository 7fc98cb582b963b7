// tests/report/test_json.cpp - the JSON writers (report/fio/json.cpp,
// json_ioplan.cpp) always produce one strictly valid document: no duplicate
// key, no NaN or infinity, nothing around it - on every scenario, including
// interrupted and failed runs.
#include <doctest/doctest.h>

#include <cerrno>

#include <nlohmann/json.hpp>

#include "tests/report/scenarios.hpp"
#include "tests/report/strict_json.hpp"

namespace {

nlohmann::ordered_json parse(const std::string &text)
{
	return nlohmann::ordered_json::parse(text);
}

std::string render_named(const char *name, unsigned formats)
{
	for (const t::scenario &s : t::scenarios())
		if (std::string(s.name) == name) {
			t::scenario_run run = s.build();
			return t::render(run, formats);
		}
	FAIL("no scenario " << name);
	return "";
}

} // namespace

TEST_CASE("json: the strict checker rejects what lenient parsers accept")
{
	std::string why;
	CHECK(t::strict_json("{\"a\": 1, \"b\": [1, 2.5, \"x\", {\"a\": 2}]}\n", &why));
	CHECK_FALSE(t::strict_json("{\"a\": 1, \"a\": 2}\n", &why));
	CHECK(why.find("duplicate key \"a\"") != std::string::npos);
	CHECK_FALSE(t::strict_json("{\"x\": {\"k\": 1, \"j\": 2, \"k\": 3}}\n", &why));
	CHECK(why.find("/x/k") != std::string::npos);
	CHECK_FALSE(t::strict_json("{\"a\": NaN}\n", &why));
	CHECK_FALSE(t::strict_json("{\"a\": Infinity}\n", &why));
	CHECK_FALSE(t::strict_json("{\"a\": 1e999}\n", &why));
	CHECK_FALSE(t::strict_json("{\"a\": null}\n", &why));
	CHECK(t::strict_json("{\"job_id\": null}\n", &why));
	CHECK_FALSE(t::strict_json("{\"a\": 1}\n{\"a\": 1}\n", &why));
	CHECK_FALSE(t::strict_json("{\"a\": 1} trailing\n", &why));
	CHECK_FALSE(t::strict_json("{\"a\": 1}", &why));
	// Keys repeated in sibling objects or array elements are fine.
	CHECK(t::strict_json("[{\"a\": 1}, {\"a\": 2}]\n", &why));
}

TEST_CASE("json: every scenario gives one strictly valid document, json and json+")
{
	for (const t::scenario &s : t::scenarios()) {
		for (unsigned f : { (unsigned)report::FORMAT_JSON, (unsigned)report::FORMAT_JSON_PLUS,
				    report::FORMAT_JSON | report::FORMAT_JSON_PLUS }) {
			INFO("scenario " << std::string(s.name) << ", formats " << f);
			t::scenario_run run = s.build();
			std::string out = t::render(run, f);
			std::string why;
			CHECK_MESSAGE(t::strict_json(out, &why), why);
			nlohmann::json doc = nlohmann::json::parse(out);
			CHECK(doc.at("jobs").size() >= 1);
			CHECK(doc.at("ioplan").at("schema_version") == report::result_schema_version);
			bool plus = (f & report::FORMAT_JSON_PLUS) != 0;
			bool pct = out.find("\"percentile\"") != std::string::npos;
			CHECK((out.find("\"bins\"") != std::string::npos) == (plus && pct));
		}
	}
}

TEST_CASE("json: repeated option keys collapse, the last value wins in the first key's place")
{
	nlohmann::ordered_json doc = parse(render_named("hostile-names", report::FORMAT_JSON));
	const nlohmann::ordered_json &g = doc.at("global options");
	std::vector<std::string> keys;
	for (auto &kv : g.items())
		keys.push_back(kv.key());
	CHECK(keys == std::vector<std::string>{ "bs", "size", "name\"q" });
	CHECK(g.at("bs") == "16k");
	CHECK(g.at("name\"q") == "\\");
	const nlohmann::ordered_json &j = doc.at("jobs")[0].at("job options");
	CHECK(j.size() == 2);
	CHECK(j.at("rw") == "randread");
	CHECK(j.at("bs") == "8k");
	// Control characters are escaped, invalid UTF-8 replaced, never thrown on.
	std::string name = doc.at("jobs")[0].at("jobname").get<std::string>();
	CHECK(name.rfind("we\"ird\\ name;semi\tcolon\x01", 0) == 0);
	CHECK(name.find("\xef\xbf\xbd") != std::string::npos);	// U+FFFD
	CHECK(doc.at("jobs")[0].at("desc") == "two\nlines; \"quoted\" \xc3\xa9");
}

TEST_CASE("json: an interrupted run is still one valid document that says so")
{
	nlohmann::json doc = parse(render_named("interrupted", report::FORMAT_JSON_PLUS));
	CHECK(doc.at("ioplan").at("interrupted") == true);
	REQUIRE(doc.at("jobs").size() == 2);
	CHECK(doc.at("jobs")[0].at("write").at("total_ios") == 100);
	CHECK(doc.at("jobs")[1].at("jobname") == "never");
	CHECK(doc.at("jobs")[1].at("read").at("total_ios") == 0);
	CHECK(doc.at("ioplan").at("warnings") == nlohmann::json::array({ "stopped by SIGINT after 0.35 s" }));
}

TEST_CASE("json: a failed run names its error in fio's keys and in the ioplan object")
{
	nlohmann::json doc = parse(render_named("failed-enospc", report::FORMAT_JSON));
	CHECK(doc.at("ioplan").at("error") == ENOSPC);
	CHECK(doc.at("jobs")[0].at("error") == ENOSPC);
	const nlohmann::json &errs = doc.at("ioplan").at("jobs")[0].at("errors");
	REQUIRE(errs.size() == 1);
	CHECK(errs[0].at("what") == "write");
	CHECK(errs[0].at("offset") == 40u * 131072);
	// The engine's two messages, then the report's own finding: the job that
	// filled the disk moved too few I/Os for a p99.
	CHECK(doc.at("ioplan").at("messages").size() == 3);
	CHECK(doc.at("ioplan").at("messages")[2].at("code") == "few-samples");
	CHECK(doc.at("disk_util")[0].at("name") == "sdb");
	REQUIRE(doc.at("ioplan").at("warnings").size() == 1);
	CHECK(doc.at("ioplan").at("warnings")[0].get<std::string>().rfind("job 'filler': only 81 latency samples", 0) == 0);
	// The scenario's messages are the engine's, none from preflight.
	CHECK(doc.at("ioplan").at("preflight").at("findings").empty());
}

TEST_CASE("json: non-finite inputs never reach the document")
{
	std::string out = render_named("non-finite", report::FORMAT_JSON);
	std::string why;
	REQUIRE_MESSAGE(t::strict_json(out, &why), why);
	nlohmann::json doc = parse(out);
	CHECK(doc.at("ioplan").at("clock_cost_ns") == 0.0);
	const nlohmann::json &rd = doc.at("jobs")[0].at("read");
	CHECK(rd.at("bw_samples") == 0);
	CHECK(rd.at("bw_max") == 0);
	CHECK(rd.at("iops_samples") == 0);
	CHECK(rd.at("total_ios") == 5);
	// Nor the other formats: no "nan" or "inf" in terse or normal text.
	std::string text = render_named("non-finite", report::FORMAT_TERSE | report::FORMAT_NORMAL);
	for (const char *bad : { "nan", "inf" })
		for (size_t at = text.find(bad); at != std::string::npos; at = text.find(bad, at + 1))
			CHECK_MESSAGE(text.compare(at - 1, 4, "minf") == 0, "'" << bad << "' at byte " << at);
}

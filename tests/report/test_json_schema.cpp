// tests/report/test_json_schema.cpp - schema/result.schema.json is generated
// from report::result_schema() and every JSON document the writers produce
// validates against it with a real validator (python3 jsonschema).
#include <doctest/doctest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "tests/report/golden.hpp"
#include "tests/report/scenarios.hpp"
#include "tests/report/strict_json.hpp"

TEST_CASE("json schema: schema/result.schema.json is what result_schema() produces")
{
	std::string why, schema = report::result_schema();
	CHECK_MESSAGE(t::golden_match("schema/result.schema.json", schema, &why),
		      why << " (run `make generate`)");
	nlohmann::json s = nlohmann::json::parse(schema);
	CHECK(s.at("$schema") == "http://json-schema.org/draft-07/schema#");
	CHECK(s.at("definitions").at("ioplan").at("properties").at("schema_version").at("const") ==
	      report::result_schema_version);
}

TEST_CASE("json schema: every scenario's json and json+ document validates")
{
	if (std::getenv("IOPLAN_GENERATE_DIR"))
		return;	// tests/generate.py only collects the schema
	std::vector<std::string> docs;
	for (const t::scenario &s : t::scenarios())
		for (unsigned f : { (unsigned)report::FORMAT_JSON, (unsigned)report::FORMAT_JSON_PLUS }) {
			t::scenario_run run = s.build();
			docs.push_back(t::render(run, f));
		}
	std::string out;
	CHECK_MESSAGE(t::schema_valid(docs, &out), out);
	CHECK(out == "ok: " + std::to_string(docs.size()) + " documents\n");
}

TEST_CASE("json schema: the validator rejects documents that break the schema")
{
	if (std::getenv("IOPLAN_GENERATE_DIR"))
		return;
	t::scenario_run run = t::scenarios().at(0).build();
	nlohmann::ordered_json good = nlohmann::ordered_json::parse(t::render(run, report::FORMAT_JSON));
	std::string out;

	nlohmann::ordered_json extra = good;
	extra["jobs"][0]["read"]["surprise"] = 1;
	nlohmann::ordered_json missing = good;
	missing["jobs"][0].erase("groupid");
	nlohmann::ordered_json wrong = good;
	wrong["jobs"][0]["read"]["iops"] = "fast";
	nlohmann::ordered_json negative = good;
	negative["ioplan"]["elapsed_ns"] = -1;
	std::string dup = good.dump(1);
	dup.insert(dup.find("\"jobs\""), "\"timestamp\": 0,\n");

	CHECK_FALSE(t::schema_valid({ extra.dump(), missing.dump(), wrong.dump(), negative.dump(), dup },
				    &out));
	CHECK(out.find("doc0.json: /jobs/0/read: Additional properties are not allowed") != std::string::npos);
	CHECK(out.find("doc1.json: /jobs/0: 'groupid' is a required property") != std::string::npos);
	CHECK(out.find("doc2.json: /jobs/0/read/iops: 'fast' is not of type 'number'") != std::string::npos);
	CHECK(out.find("doc3.json: /ioplan/elapsed_ns: -1 is less than the minimum of 0") != std::string::npos);
	CHECK(out.find("doc4.json: not strict JSON: duplicate key 'timestamp'") != std::string::npos);
	CHECK(t::schema_valid({ good.dump() + "\n" }, &out));
}

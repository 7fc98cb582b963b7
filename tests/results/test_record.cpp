// tests/results/test_record.cpp - find_result (results/record.hpp): where the
// result document is in the text fio writes around it; runs_of_file: the JSON
// `results export` writes reads back as the runs it came from.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "results/record.hpp"

namespace {

std::string found(const std::string &text)
{
	resdb::result_span s = resdb::find_result(text);
	return s.begin == std::string::npos ? "<none>" : text.substr(s.begin, s.end - s.begin);
}

} // namespace

TEST_CASE("find_result: fio's notes before the document are passed over")
{
	CHECK(found("{\"a\": 1}\n") == "{\"a\": 1}");
	CHECK(found("note: both iodepth >= 1 and synchronous I/O engine are selected\n{\n \"a\": {\"b\": 2}\n}\n") ==
	      "{\n \"a\": {\"b\": 2}\n}");
	CHECK(resdb::find_result("no document").begin == std::string::npos);
	CHECK(resdb::find_result("").documents == 0);
}

TEST_CASE("find_result: of --status-interval's documents the last, the run's end")
{
	std::string text = "{\n \"t\": 1\n}\n{\n \"t\": 2\n}\n{\n \"t\": 3, \"s\": \"}{\\\"}\"\n}\n";
	resdb::result_span s = resdb::find_result(text);
	CHECK(s.documents == 3);
	CHECK(found(text) == "{\n \"t\": 3, \"s\": \"}{\\\"}\"\n}");
}

TEST_CASE("find_result: the text report around a json,normal document is left out")
{
	std::string text = "j: (g=0): rw=read\nStarting 1 process\n{\n \"jobs\": []\n}\n\nj: (groupid=0, jobs=1): "
			   "err= 0\n  read: IOPS=256k {x}\n";
	CHECK(found(text) == "{\n \"jobs\": []\n}");
}

TEST_CASE("find_result: a document cut short runs to the end, for the parser to say where")
{
	std::string text = "{\n \"t\": 1\n}\n{\n \"t\": 2, \"jobs\": [\n";
	resdb::result_span s = resdb::find_result(text);
	CHECK(s.documents == 2);
	CHECK(s.begin == 12);
	CHECK(s.end == text.size());
	// A document that does not start a line is still found, from the first brace.
	CHECK(found("  {\"a\": 1} trailing") == "{\"a\": 1}");
}

namespace {

// A run with every field record_json writes set to something a default would not be.
resdb::run_record every_field()
{
	resdb::run_record r;
	r.id = 7;
	r.uuid = "0123456789abcdef0123456789abcdef";
	r.label = "nightly";
	r.source = "ioplan";
	r.tool_version = "0.1.0";
	r.started_s = 1796519216;
	r.host = "h1";
	r.kernel = "Linux 6.1";
	r.plan_hash = "ab5f";
	r.job_text = "[j]\nrw=randread\n";
	r.environment = R"({"cpu":{"model":"Xeon"},"disks":[{"model":"SSD1"}],"virtualization":{"type":"kvm"}})";
	r.warnings = { "a warning" };
	r.interrupted = true;
	r.failures = { resdb::job_failure{ 1, "w", 28 } };
	resdb::figure f;
	f.job_index = 1;
	f.job = "w";
	f.ddir = "write";
	f.plan = { { "bs", "4096" }, { "rw", "randwrite" } };
	f.io_bytes = 8192;
	f.ios = 2;
	f.runtime_s = 0.5;
	f.bw_bytes = 16384;
	f.iops = 4;
	f.lat_mean_ns = 1500.5;
	f.p50_ns = 1000;
	f.p99_ns = 2000;
	f.p999_ns = 2000;
	f.buckets = { { 1000, 1 }, { 2000, 1 } };
	f.interval_s = 0.25;
	f.iops_samples = { 4, 4 };
	f.bw_samples = { 16384, 16384 };
	f.repeat_iops = { 3.5, 4.5 };
	f.repeat_bw = { 14336, 18432 };
	r.figures = { f };
	resdb::rank_record k;
	k.rank = 1;
	k.host = "h2";
	k.error = 5;
	k.start_late_ns = 300;
	k.figures = { resdb::rank_figure{ 1, "w", "write", 4096, 1, 500000000, 1, 1000, 1000, 1000, 1000 } };
	r.ranks = { k };
	r.facts = { { "preset", "oltp" } };
	return r;
}

// runs_of_file of a file holding text; error gets its refusal ("" for none).
std::vector<resdb::run_record> read_back(const std::string &text, std::string *error = nullptr)
{
	char path[] = "/tmp/ioplan-export-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	std::ofstream(path) << text;
	std::vector<resdb::run_record> runs;
	std::string why;
	try {
		runs = resdb::runs_of_file(path);
	} catch (const resdb::input_error &e) {
		why = e.what();
	}
	unlink(path);
	if (error)
		*error = why;
	return runs;
}

} // namespace

TEST_CASE("runs_of_file: results export's JSON reads back as the runs, every field")
{
	resdb::run_record r = every_field();
	nlohmann::ordered_json one = resdb::record_json(r);
	std::vector<resdb::run_record> back = read_back(nlohmann::ordered_json::array({ one, one }).dump(2));
	REQUIRE(back.size() == 2);
	nlohmann::ordered_json again = resdb::record_json(back[0]);
	CHECK(again["id"] == 0);	// a store's own number, not carried
	// The facts are found again from the fields and the environment; the preset is carried.
	CHECK(again["facts"]["preset"] == "oltp");
	CHECK(again["facts"]["disk_model"] == "SSD1");
	CHECK(again["facts"]["virtualization"] == "kvm");
	CHECK(again["facts"]["interrupted"] == "yes");
	CHECK(again["facts"]["label"] == "nightly");
	for (auto *j : { &one, &again }) {
		j->erase("id");
		j->erase("facts");
	}
	CHECK(again.dump() == one.dump());
	// results show writes one run, an object.
	REQUIRE(read_back(resdb::record_json(r).dump()).size() == 1);
	CHECK(resdb::record_json(read_back(resdb::record_json(r).dump())[0])["uuid"] == r.uuid);
}

TEST_CASE("runs_of_file: an edited export is refused where it was edited")
{
	auto refused = [](const std::function<void(nlohmann::ordered_json &)> &edit) {
		nlohmann::ordered_json a = nlohmann::ordered_json::array({ resdb::record_json(every_field()) });
		edit(a[0]);
		std::string error;
		read_back(a.dump(), &error);
		return error;
	};
	CHECK(refused([](auto &o) { o["figures"][0]["iops"] = 1e308; }) ==
	      "[0].figures[0]: iops 1e+308 is not total_ios / runtime (4.000000)");
	CHECK(refused([](auto &o) { o["figures"][0]["io_bytes"] = "lots"; }) ==
	      "[0].figures[0]: io_bytes: \"lots\" is not a figure ioplan reads");
	CHECK(refused([](auto &o) { o["figures"][0]["ddir"] = "sideways"; }) ==
	      "[0].figures[0]: ddir: 'sideways' is not read, write, trim or mixed");
	CHECK(refused([](auto &o) { o["figures"][0]["latency_buckets"][0] = { 1, -2 }; }) ==
	      "[0].figures[0]: latency_buckets: [1,-2] is not [latency ns, count]");
	CHECK(refused([](auto &o) { o["figures"][0]["iops_samples"][1] = -1; }) ==
	      "[0].figures[0]: series iops_samples: -1 is not a figure ioplan reads");
	CHECK(refused([](auto &o) { o["uuid"] = "../x"; }) == "[0]: uuid: '../x' is not a run's id (32 hex digits)");
	CHECK(refused([](auto &o) { o["ranks"][0]["figures"][0]["ios"] = -1; }) ==
	      "[0].ranks[0]: ios: -1 is not a figure ioplan reads");
	CHECK(refused([](auto &o) { o["interrupted"] = "no"; }) == "[0]: interrupted: \"no\" is not true or false");
	CHECK(refused([](auto &o) { o.erase("figures"); }) == "[0]: not a run of results export (no uuid and figures[])");
	CHECK(refused([](auto &) {}) == "");
	// A damaged failure mark still reads as failed, never as a good run.
	nlohmann::ordered_json o = resdb::record_json(every_field());
	o["failed"] = nlohmann::ordered_json::array({ 1 });
	std::vector<resdb::run_record> back = read_back(o.dump());
	REQUIRE(back.size() == 1);
	CHECK(back[0].failures.size() == 1);
	CHECK(back[0].facts.count("failed") == 1);
}

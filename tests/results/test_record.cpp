// tests/results/test_record.cpp - find_result (results/record.hpp): where the
// result document is in the text fio writes around it.
#include <doctest/doctest.h>

#include <string>

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

// tests/report/strict_json.cpp - the duplicate-key, finite-number, one-document
// checker of strict_json.hpp, as an nlohmann SAX consumer.
#include "tests/report/strict_json.hpp"

#include "tests/report/fixture.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

namespace t {

namespace {

using json = nlohmann::json;

// Keys whose value may be null: a message not about one job.
bool null_allowed(const std::string &key)
{
	return key == "job_id" || key == "jobname";
}

class strict_sax : public nlohmann::json_sax<json> {
public:
	std::string why;

	bool null() override
	{
		return null_allowed(last_key_) || fail("null value");
	}
	bool boolean(bool) override { return value(); }
	bool number_integer(number_integer_t) override { return value(); }
	bool number_unsigned(number_unsigned_t) override { return value(); }
	bool number_float(number_float_t v, const string_t &) override
	{
		return std::isfinite(v) ? value() : fail("non-finite number");
	}
	bool string(string_t &) override { return value(); }
	bool binary(binary_t &) override { return fail("binary value"); }
	bool start_object(std::size_t) override
	{
		keys_.emplace_back();
		path_.push_back(last_key_);
		return true;
	}
	bool key(string_t &k) override
	{
		last_key_ = k;
		if (!keys_.back().insert(k).second)
			return fail("duplicate key \"" + k + "\"");
		return true;
	}
	bool end_object() override
	{
		keys_.pop_back();
		path_.pop_back();
		return value();
	}
	bool start_array(std::size_t) override
	{
		path_.push_back(last_key_ + "[]");
		keys_.emplace_back();	// arrays have no keys; keeps the stacks aligned
		return true;
	}
	bool end_array() override
	{
		keys_.pop_back();
		path_.pop_back();
		return value();
	}
	bool parse_error(std::size_t pos, const std::string &, const nlohmann::detail::exception &e) override
	{
		return fail("parse error at byte " + std::to_string(pos) + ": " + e.what());
	}

private:
	std::vector<std::set<std::string>> keys_;
	std::vector<std::string> path_;
	std::string last_key_;

	bool value()
	{
		last_key_.clear();
		return true;
	}
	bool fail(const std::string &what)
	{
		std::string where;
		for (const std::string &p : path_)
			where += "/" + p;
		why = what + " at " + (where.empty() ? "/" : where) + "/" + last_key_;
		return false;
	}
};

} // namespace

bool strict_json(const std::string &text, std::string *why)
{
	if (text.empty() || text.back() != '\n') {
		*why = "the document does not end with one newline";
		return false;
	}
	strict_sax sax;
	// strict = true: anything after the document is an error.
	if (!json::sax_parse(text, &sax, json::input_format_t::json, true)) {
		*why = sax.why.empty() ? "invalid JSON" : sax.why;
		return false;
	}
	return true;
}

bool schema_valid(const std::vector<std::string> &docs, std::string *report)
{
	char tmpl[] = "/tmp/ioplan-schema-XXXXXX";
	if (!mkdtemp(tmpl))
		throw std::runtime_error("mkdtemp failed");
	std::string dir = tmpl, args;
	for (size_t i = 0; i < docs.size(); i++) {
		std::string path = dir + "/doc" + std::to_string(i) + ".json";
		std::ofstream(path, std::ios::binary) << docs[i];
		args += " " + path;
	}
	int st = -1;
	*report = run("/usr/bin/python3 " + root() + "/tests/report/check_json.py " + root() +
			      "/schema/result.schema.json" + args + " 2>&1",
		      &st);
	run("rm -rf " + dir);
	return st == 0;
}

} // namespace t

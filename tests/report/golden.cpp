// tests/report/golden.cpp - compare-or-rewrite of committed outputs (golden.hpp).
#include "tests/report/golden.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/report/fixture.hpp"

namespace t {

namespace {

void write_file(const std::string &path, const std::string &text)
{
	std::string dir = path.substr(0, path.rfind('/'));
	run("mkdir -p '" + dir + "'");
	std::ofstream out(path, std::ios::binary | std::ios::trunc);
	out << text;
	out.close();
	if (!out)
		throw std::runtime_error("cannot write " + path);
}

std::string first_difference(const std::string &want, const std::string &have)
{
	std::istringstream a(want), b(have);
	std::string la, lb;
	for (int n = 1;; n++) {
		bool ga = (bool)std::getline(a, la), gb = (bool)std::getline(b, lb);
		if (!ga && !gb)
			return "same lines, different bytes (line endings?)";
		if (!ga || !gb || la != lb)
			return "line " + std::to_string(n) + "\n  committed: " + (ga ? la : "<end>") +
			       "\n  now:       " + (gb ? lb : "<end>");
	}
}

} // namespace

bool golden_match(const std::string &rel, const std::string &text, std::string *why)
{
	const char *gen = std::getenv("IOPLAN_GENERATE_DIR");
	if (gen && *gen) {
		write_file(std::string(gen) + "/" + rel, text);
		return true;
	}
	std::string path = root() + "/" + rel;
	const char *upd = std::getenv("IOPLAN_GOLDEN_UPDATE");
	if (upd && std::string(upd) == "1") {
		write_file(path, text);
		return true;
	}
	std::ifstream in(path, std::ios::binary);
	if (!in) {
		*why = rel + " is missing (make golden-update, review, commit)";
		return false;
	}
	std::stringstream ss;
	ss << in.rdbuf();
	if (ss.str() == text)
		return true;
	*why = rel + " differs from the output (make golden-update if on purpose): " +
	       first_difference(ss.str(), text);
	return false;
}

} // namespace t

// tests/engine/test_path_index.cpp - finding a path among many by hash
// (engine/path_index.h): every place found, by the array's own string and by
// an equal copy, none for a path that is not there, the first place kept for a
// path added twice; and the layout's lookups built on it (layout_lookups.c).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/path_index.h"
#include "tests/engine/plan_builder.hpp"

extern "C" int t_layout_lookups(const plan *p, const char *const *extra, uint32_t n_extra);

namespace {

// Paths as a job's files are named: a long shared prefix, then a number.
std::vector<std::string> job_paths(uint32_t n)
{
	std::vector<std::string> out;
	for (uint32_t i = 0; i < n; i++)
		out.push_back("/mnt/scratch/a/long/shared/prefix/many.0." + std::to_string(i));
	return out;
}

} // namespace

TEST_CASE("path_index: 20 000 paths of one prefix, each found at its place; others not")
{
	std::vector<std::string> names = job_paths(20000);
	std::vector<const char *> paths;
	for (const std::string &s : names)
		paths.push_back(s.c_str());
	path_index x{};
	REQUIRE(path_index_init(&x, (uint32_t)paths.size(), paths.data(), sizeof(paths[0])) == 0);
	for (uint32_t i = 0; i < paths.size(); i++)
		REQUIRE(path_index_put(&x, i) == i);
	for (uint32_t i = 0; i < paths.size(); i++) {
		std::string copy = names[i];
		REQUIRE(path_index_find(&x, paths[i]) == i);
		REQUIRE(path_index_find(&x, copy.c_str()) == i);
	}
	for (const char *absent : {"/mnt/scratch/a/long/shared/prefix/many.0.", "/mnt/scratch/a/long/shared/prefix/many.0.20000",
				   "/mnt/scratch/a/long/shared/prefix/many.0.1x", "", "many.0.1"})
		CHECK(path_index_find(&x, absent) == PATH_INDEX_NONE);
	path_index_free(&x);
	CHECK(path_index_find(&x, paths[0]) == PATH_INDEX_NONE);  // freed: nothing is there
}

TEST_CASE("path_index: a path added again, as a copy, answers with the first place")
{
	std::string a = "/d/x.0.0", b = "/d/x.0.1", again = a;
	std::vector<const char *> paths = {a.c_str(), b.c_str(), again.c_str()};
	path_index x{};
	REQUIRE(path_index_init(&x, 3, paths.data(), sizeof(paths[0])) == 0);
	CHECK(path_index_put(&x, 0) == 0);
	CHECK(path_index_put(&x, 1) == 1);
	CHECK(path_index_put(&x, 2) == 0);
	CHECK(path_index_find(&x, again.c_str()) == 0);
	path_index_free(&x);
}

TEST_CASE("layout: each plan file finds its entry, and each entry the preflight's look at it, or none")
{
	pb::tmpdir d;
	// Two jobs name the same files (one entry each), a third its own; the preflight's
	// list holds every other entry and paths the layout does not have, before, between
	// and after its own.
	pb::plan_ptr p = pb::build(d.path(), {
		pb::job_spec("many", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 3000 * 4096, 2, 3000).opt("filesize", "4k"),
		pb::job_spec("again", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, 4096).file(d.file("many.0.17")),
		pb::job_spec("own", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, 5 * 4096, 1, 5),
	});
	std::string before = d.file("a"), between = d.file("many.0.17x"), after = d.file("zz");
	const char *extra[] = {before.c_str(), between.c_str(), after.c_str()};
	CHECK(t_layout_lookups(p.get(), extra, 3) == 0);
}

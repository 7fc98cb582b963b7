// tests/cli/test_output.cpp - cli/output.cpp: an --output file opened before
// the run, truncated only when the results are written, removed when the run
// never produced any; checked writes with the errno in the message.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output.hpp"

namespace {

std::string slurp(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

bool exists(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) == 0;
}

struct scratch {
	std::string dir;
	scratch()
	{
		char tmpl[] = "/tmp/ioplan-output-XXXXXX";
		REQUIRE(mkdtemp(tmpl));
		dir = tmpl;
	}
	~scratch() { std::system(("rm -rf " + dir).c_str()); }
};

} // namespace

TEST_CASE("cli output: an existing file is kept until commit, then replaced whole")
{
	scratch s;
	std::string path = s.dir + "/out.txt", err;
	std::ofstream(path) << std::string(100000, 'x'); // longer than the results
	{
		cli::output_file f;
		REQUIRE_MESSAGE(f.open(path, &err), err);
		CHECK(slurp(path).size() == 100000); // the run has not ended: nothing lost yet
		CHECK(f.commit("results\n"));
	}
	CHECK(slurp(path) == "results\n");
	{
		cli::output_file f;
		REQUIRE(f.open(path, &err));
	} // never committed: an existing file stays as it was
	CHECK(slurp(path) == "results\n");
}

TEST_CASE("cli output: reports appended during the run replace the old file once, the final one follows them")
{
	scratch s;
	std::string path = s.dir + "/out.txt", err;
	std::ofstream(path) << std::string(1000, 'x');
	{
		cli::output_file f;
		REQUIRE(f.open(path, &err));
		CHECK(f.append("so far 1\n", "the results so far"));
		CHECK(slurp(path) == "so far 1\n");
		CHECK(f.append("so far 2\n", "the results so far"));
		CHECK(f.commit("final\n"));
	}
	CHECK(slurp(path) == "so far 1\nso far 2\nfinal\n");
}

TEST_CASE("cli output: a file open() created goes again when no results come")
{
	scratch s;
	std::string path = s.dir + "/new.txt", err;
	{
		cli::output_file f;
		REQUIRE(f.open(path, &err));
		CHECK(exists(path)); // created before the run, as fio does
	}
	CHECK_FALSE(exists(path));
	CHECK(cli::check_writable(path, &err));
	CHECK_FALSE(exists(path));
}

TEST_CASE("cli output: open names why a path cannot be written")
{
	scratch s;
	std::string err;
	cli::output_file f;
	CHECK_FALSE(f.open(s.dir + "/no/such/dir/out.txt", &err));
	CHECK(err == "cannot open for writing: No such file or directory");
	cli::output_file g;
	CHECK_FALSE(g.open(s.dir, &err));
	CHECK(err == "cannot open for writing: Is a directory");
}

TEST_CASE("cli output: a failing write is an error, not a short file")
{
	if (access("/dev/full", W_OK) != 0)
		return;
	scratch s;
	std::string err, log = s.dir + "/stderr";
	cli::output_file f;
	REQUIRE(f.open("/dev/full", &err));
	// The message goes to stderr: caught in a file to check its words.
	int saved = dup(STDERR_FILENO);
	FILE *caught = std::fopen(log.c_str(), "w");
	REQUIRE(caught);
	dup2(fileno(caught), STDERR_FILENO);
	bool ok = f.commit(std::string(10000, 'x'));
	dup2(saved, STDERR_FILENO);
	close(saved);
	std::fclose(caught);
	CHECK_FALSE(ok);
	CHECK(slurp(log) == "ioplan: error: writing the results to /dev/full: No space left on device\n");
	CHECK(cli::capture([](FILE *out) { std::fputs("captured", out); }) == "captured");
}

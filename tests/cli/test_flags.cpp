// tests/cli/test_flags.cpp - the flag table (cli/flags.cpp) is well-formed and
// the argument parser applies its rows.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/flags.hpp"
#include "cli/mpi/mpi.hpp"

namespace {

cli::args parse(std::vector<std::string> words)
{
    words.insert(words.begin(), "ioplan");
    std::vector<char *> argv;
    for (std::string &w : words)
        argv.push_back(&w[0]);
    return cli::parse_args((int)argv.size(), argv.data());
}

} // namespace

TEST_CASE("flags: every row has a unique name, a help line and a value name where it takes a value")
{
    std::set<std::string> names;
    for (const cli::flag &f : cli::flags()) {
        CAPTURE(f.name);
        CHECK(names.insert(f.name).second);
        CHECK(*f.help);
        CHECK(bool(f.apply));
        CHECK((f.arg == cli::flag_arg::none) == (f.value_name == nullptr));
        CHECK(cli::find_flag(f.name) == &f);
    }
    CHECK(cli::find_flag("h") == cli::find_flag("help"));
    CHECK(cli::find_flag("nosuch") == nullptr);
    CHECK(cli::flag_help(*cli::find_flag("output-format")).find("csv") != std::string::npos);
}

TEST_CASE("flags: the parser applies the rows, with the value joined or as the next argument")
{
    cli::args a = parse({"--output-format", "csv", "--terse-version=5", "--readonly", "--max-jobs=4",
                         "--eta-newline=2", "--append-terse", "--debug=io,file", "job.fio"});
    CHECK(a.output_format == "csv");
    CHECK(a.terse_version == 5);
    CHECK(a.readonly);
    CHECK(a.eta_newline_ns == 2000000000u);
    CHECK(a.append_terse);
    CHECK(a.debug == std::vector<std::string>{"io", "file"});
    CHECK(a.req.job_files == std::vector<std::string>{"job.fio"});
    CHECK(parse({"--minimal"}).output_format == "terse");
    CHECK(parse({"--cmdhelp"}).cmdhelp == "all");
    CHECK(parse({"--enghelp=io_uring"}).what == cli::action::enghelp);
    CHECK_THROWS(parse({"--server"}));
    CHECK_THROWS(parse({"--terse-version=1"}));
    CHECK_THROWS(parse({"--readonly=1"}));
    CHECK_THROWS(parse({"--output"}));
}

TEST_CASE("flags: MPI_Init's deadline is --join-timeout, else --rank-timeout but never under a minute")
{
    auto deadline = [](const cli::args &a) {
        return cli::world::join_deadline_s((double)a.rank_timeout_ns / 1e9, (double)a.join_timeout_ns / 1e9);
    };
    CHECK(deadline(parse({"job.fio"})) == 600);
    CHECK(deadline(parse({"--rank-timeout=3", "job.fio"})) == 60);
    CHECK(deadline(parse({"--rank-timeout=90", "job.fio"})) == 90);
    CHECK(deadline(parse({"--rank-timeout=3", "--join-timeout=5", "job.fio"})) == 5);
    CHECK(deadline(parse({"--join-timeout=2m", "job.fio"})) == 120);
}

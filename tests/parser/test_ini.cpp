// tests/parser/test_ini.cpp - the INI reader's document: sections, globals,
// comments, positions, includes and ${VAR}; the grammar passes analyze<>.
#include <doctest/doctest.h>

#include "parser/diag.hpp"
#include "parser/ini.hpp"
#include "parser/ini_grammar.hpp"

#include <tao/pegtl/contrib/analyze.hpp>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace parser;

TEST_CASE("sections, cumulative globals and entries with positions")
{
    document d = read_ini_text("; c\n[global]\nbs=8k\n[ j4 ]\n  rw = write ; note\ntime_based\n[globalfoo]\n", "t.fio");
    REQUIRE(d.sections.size() == 3);
    CHECK(d.sections[0].is_global);
    CHECK(d.sections[1].name == " j4 ");
    CHECK(!d.sections[1].is_global);
    CHECK(d.sections[2].is_global);
    const entry &rw = d.sections[1].entries[0];
    CHECK(rw.key == "rw");
    CHECK(rw.value == "write");
    CHECK(rw.key_loc.line == 5);
    CHECK(rw.key_loc.col == 3);
    CHECK(rw.value_loc.col == 8);
    const entry &tb = d.sections[1].entries[1];
    CHECK(tb.key == "time_based");
    CHECK(!tb.has_value);
}

TEST_CASE("${VAR} expansion uses the lookup; an unset variable is empty, with a warning")
{
    ini_options o;
    o.env = [](const std::string &name, std::string *v) {
        if (name != "SZ")
            return false;
        *v = "64k";
        return true;
    };
    document d = read_ini_text("[j]\nsize=${SZ}\n", "t.fio", ".", o);
    CHECK(d.sections[0].entries[0].value == "64k");
    // Unset: the empty string, as fio reads it, and a warning at its '${'.
    diag_list warnings;
    o.warnings = &warnings;
    d = read_ini_text("[j]\nsize=${NOPE}64k\n", "t.fio", ".", o);
    CHECK(d.sections[0].entries[0].value == "64k");
    REQUIRE(warnings.size() == 1);
    CHECK(format_diag(warnings[0]) == "t.fio:2:6: warning: environment variable 'NOPE' is not set: read as an empty "
                                      "string, as fio does\n size=${NOPE}64k\n      ^\n");
}

TEST_CASE("${VAR} in an include's name picks the file (a host's own under mpirun)")
{
    char dir[] = "/tmp/ioplan-ini-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string base = dir;
    FILE *f = fopen((base + "/host-n03.fio").c_str(), "w");
    REQUIRE(f);
    fputs("bs=8k\n", f);
    fclose(f);
    ini_options o;
    o.env = [](const std::string &name, std::string *v) {
        *v = "n03";
        return name == "IOPLAN_HOST";
    };
    document d = read_ini_text("[j]\ninclude " + base + "/host-${IOPLAN_HOST}.fio\n", "t.fio", base, o);
    REQUIRE(d.sections[0].entries.size() == 1);
    CHECK(d.sections[0].entries[0].value == "8k");
    remove((base + "/host-n03.fio").c_str());
    rmdir(dir);
}

TEST_CASE("syntax errors carry line, column, source line and caret")
{
    try {
        read_ini_text("[j]\nbs=4k\nsize 4k\n", "x.fio");
        FAIL("no error");
    } catch (const error &e) {
        CHECK(e.get().where.line == 3);
        CHECK(e.get().where.col == 6);
        CHECK(e.text().find("expected '='") != std::string::npos);
    }
}

TEST_CASE("a header fio runs though malformed is named as fio names it, with a warning")
{
    std::vector<diag> warnings;
    ini_options o;
    o.warnings = &warnings;
    document d = read_ini_text("[bs=64K\nbs=64k\n[c]] ; note\n[d] x\n[e\n", "x.fio", ".", o);
    REQUIRE(d.sections.size() == 4);
    CHECK(d.sections[0].name == "bs=64");
    CHECK(d.sections[0].entries.size() == 1);
    CHECK(d.sections[1].name == "c]");
    CHECK(d.sections[2].name == "d] ");
    CHECK(d.sections[3].name == "");
    REQUIRE(warnings.size() == 4);
    CHECK(warnings[0].where.line == 1);
    CHECK(warnings[0].message.find("the job 'bs=64'") != std::string::npos);
    CHECK(warnings[0].message.find("[bs=64K] names it 'bs=64K' in both") != std::string::npos);
    CHECK(warnings[1].message.find("[c]]") == std::string::npos); // no bracket pair spells "c]"
    CHECK_THROWS_AS(read_ini_text("[j]\n[ ; x\n", "x.fio"), error);
}

TEST_CASE("did you mean")
{
    CHECK(closest("iodepht", {"iodepth", "bs", "rw"}) == "iodepth");
    CHECK(closest("zzzzzz", {"iodepth", "bs", "rw"}).empty());
}

// PEGTL's static check: no rule can loop forever without consuming input.
TEST_CASE("ini: the line grammar passes PEGTL's analyze")
{
    CHECK(tao::pegtl::analyze<g::line>() == 0);
}

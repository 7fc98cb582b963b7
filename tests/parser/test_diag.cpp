// tests/parser/test_diag.cpp - every error of a job file at once (parser/diag.cpp's
// error_sink, the INI reader skipping bad lines, the layering applying every entry):
// order by file, line and column, the ERRORS_MAX cut, and no cascade from a bad header.
#include <doctest/doctest.h>

#include <string>

#include "parser/diag.hpp"
#include "parser/ini.hpp"
#include "parser/parser.hpp"

using namespace parser;

namespace {

std::vector<std::pair<int, int>> positions(const error &e)
{
    std::vector<std::pair<int, int>> out;
    for (const diag &d : e.all())
        out.emplace_back(d.where.line, d.where.col);
    return out;
}

} // namespace

TEST_CASE("diag: the sink throws every error, by file first seen, then line and column")
{
    error_sink s;
    s.add(diag{severity::error, loc{"b.fio", 2, 1, "", nullptr}, "b2"});
    s.add(diag{severity::error, loc{"a.fio", 9, 4, "", nullptr}, "a9"});
    s.add(diag{severity::error, loc{"b.fio", 1, 7, "", nullptr}, "b1"});
    try {
        s.throw_if_any();
        FAIL("no error");
    } catch (const error &e) {
        REQUIRE(e.all().size() == 3);
        CHECK(e.all()[0].message == "b1");
        CHECK(e.all()[1].message == "b2");
        CHECK(e.all()[2].message == "a9");
        CHECK(e.text().find("stopping") == std::string::npos);
    }
    error_sink none;
    CHECK_NOTHROW(none.throw_if_any());
}

TEST_CASE("diag: the sink stops at ERRORS_MAX and says so")
{
    error_sink s;
    for (size_t i = 1; i < ERRORS_MAX; i++)
        s.add(diag{severity::error, loc{"x.fio", (int)i, 1, "", nullptr}, "e"});
    try {
        s.add(diag{severity::error, loc{"x.fio", 99, 1, "", nullptr}, "last"});
        FAIL("no error");
    } catch (const error &e) {
        CHECK(e.all().size() == ERRORS_MAX);
        CHECK(e.text().find("note: stopping after 20 errors\n") != std::string::npos);
    }
}

TEST_CASE("diag: the reader reports each bad line; a bad header does not make its options errors too")
{
    ini_options o;
    o.env = [](const std::string &, std::string *) { return false; };
    try {
        read_ini_text("[\nsize=1m\nbs=4k\n[b]\nfilename=${NOPE\nrw=read\n", "t.fio", ".", o);
        FAIL("no error");
    } catch (const error &e) {
        CHECK(positions(e) == std::vector<std::pair<int, int>>{{1, 2}, {5, 10}});
    }
}

TEST_CASE("diag: a job file's option errors and reading errors come in one list, in line order")
{
    request req;
    req.ini.env = [](const std::string &, std::string *) { return false; };
    error_sink read_errors;
    ini_options io = req.ini;
    io.errors = &read_errors;
    document d = read_ini_text("[j]\nioengine=windowsaio\nsize=1m\nfilename=${NOPE}\nbs=4q\n", "t.fio", ".", io);
    try {
        plan_documents({d}, req, nullptr, read_errors);
        FAIL("no error");
    } catch (const error &e) {
        CHECK(positions(e) == std::vector<std::pair<int, int>>{{2, 10}, {4, 10}, {5, 5}});
    }
}

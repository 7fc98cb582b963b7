// tests/cli/test_rank_json.cpp - the rank-file JSON reader (cli/mpi/rank_json.hpp)
// reads numbers and strings as a general JSON library does, and refuses what
// is not JSON with the byte it stopped at.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "cli/mpi/rank_json.hpp"

using cli::rank_json::document;
using cli::rank_json::value;

TEST_CASE("rank_json: integers are exact to the ends of their types, other numbers are doubles")
{
    std::string t = R"({"u":18446744073709551615,"i":-9223372036854775808,"z":-0,"big":18446744073709551616,)"
                    R"("d":1234.5678901234567,"e":1e-05,"list":[1,[2,3],{"k":4}],"b":true,"n":null})";
    document d(t);
    value v = d.root();
    CHECK(v.at("u").is_number_unsigned());
    CHECK(v.at("u").get_u64() == UINT64_MAX);
    CHECK(v.at("i").is_number_integer());
    CHECK(!v.at("i").is_number_unsigned());
    CHECK(v.at("i").get_i64() == INT64_MIN);
    CHECK(v.at("z").get_i64() == 0);
    CHECK(!v.at("big").is_number_integer());
    CHECK(v.at("big").get_double() == 18446744073709551616.0);
    CHECK(v.at("d").get_double() == 1234.5678901234567);
    CHECK(v.at("e").get_double() == 1e-05);
    CHECK(v.at("list").size() == 3);
    int seen = 0;
    for (value e : v.at("list"))
        seen += e.is_array() ? 10 : e.is_object() ? 100 : 1;
    CHECK(seen == 111);
    CHECK(v.at("b").get_bool());
    CHECK(!v.contains("missing"));
    CHECK(v.at("list").dump() == R"([1,[2,3],{"k":4}])");
}

TEST_CASE("rank_json: strings are unescaped, \\u pairs included")
{
    std::string t = R"({"s":"a\"b\\c\n\u00e9\ud83d\ude00/","plain":"AAAA+/=="})";
    document d(t);
    CHECK(d.root().at("s").get_string() == "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80/");
    CHECK(d.root().at("plain").get_string() == "AAAA+/==");
}

TEST_CASE("rank_json: what is not JSON is refused with the byte it stopped at")
{
    CHECK_THROWS_WITH_AS(document(std::string("{\"a\":01}")), "at byte 5: not a JSON number", std::runtime_error);
    CHECK_THROWS_WITH_AS(document(std::string("{\"a\":1} x")), "at byte 8: text after the document", std::runtime_error);
    CHECK_THROWS_WITH_AS(document(std::string("{\"a\":\"x")), doctest::Contains("a string does not end"),
                         std::runtime_error);
    CHECK_THROWS_WITH_AS(document(std::string("[\"a\tb\"]")), doctest::Contains("control character"), std::runtime_error);
    CHECK_THROWS_WITH_AS(document(std::string("[1,]")), doctest::Contains("not a JSON"), std::runtime_error);
    CHECK_THROWS_WITH_AS(document(std::string("{\"a\" 1}")), doctest::Contains("no ':'"), std::runtime_error);
    CHECK_THROWS_WITH_AS(document(std::string(100000, '[')), doctest::Contains("nested too deep"), std::runtime_error);
    CHECK_THROWS_WITH_AS(document(std::string("[1e999]")), doctest::Contains("out of range"), std::runtime_error);
    CHECK_THROWS_AS(document(std::string("")), std::runtime_error);
}

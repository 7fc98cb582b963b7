// tests/parser/test_values.cpp - fio's value syntax, including where ioplan
// deliberately differs (MiB, sec, unknown suffixes).
#include <doctest/doctest.h>

#include "parser/values.hpp"

using namespace parser;

TEST_CASE("sizes follow fio's suffixes and kb_base")
{
    CHECK(parse_size("4k", 1024) == 4096);
    CHECK(parse_size("4K", 1024) == 4096);
    CHECK(parse_size("1m", 1000) == 1000000);
    CHECK(parse_size("1mi", 1000) == 1000000);
    CHECK(parse_size("1000ki", 1024) == 1024000);
    CHECK(parse_size("1MiB", 1024) == 1048576); // fio: 1000000 (documented difference)
    CHECK(parse_size("1MiB", 1000) == 1048576);
    CHECK(parse_size("0x100000", 1024) == 1048576);
    CHECK_THROWS_AS(parse_size("1.5g", 1024), value_error); // fio: 1 byte (sizes: a fraction ...)
    CHECK(parse_size("512b", 1024) == 512);
    CHECK(parse_size("30g", 1024) == 30ull << 30);
    CHECK_THROWS_AS(parse_size("10q", 1024), value_error);
    CHECK_THROWS_AS(parse_size("", 1024), value_error);
    CHECK_THROWS_AS(parse_size("-1k", 1024), value_error);
    CHECK_THROWS_AS(parse_size("inf", 1024), value_error);
}

TEST_CASE("sizes: an IEC unit under kb_base=1024 notes fio's figure, once per value")
{
    ignored_text scope;
    CHECK(parse_size("4KiB", 1024) == 4096);
    CHECK(parse_size("4KiB", 1024) == 4096);
    REQUIRE(scope.readings.size() == 1);
    CHECK(scope.readings[0].find("fio 3.33 reads '4KiB' as 4000 bytes") == 0);
    CHECK(scope.readings[0].find("write '4K', or set kb_base=1000") != std::string::npos);
    ignored_text alike;
    CHECK(parse_size("4KiB", 1000) == 4096);
    CHECK(parse_size("4k", 1024) == 4096);
    CHECK(parse_size("3GiB", 1024) == 3221225472ull);
    REQUIRE(alike.readings.size() == 1);
    CHECK(alike.readings[0].find("as 3000000000 bytes") != std::string::npos);
}

TEST_CASE("sizes: a fraction fio reads otherwise is refused with fio's figure, the digits before its point")
{
    CHECK_THROWS_WITH(parse_size("1.5GiB", 1024), "'1.5GiB' is 1 byte to fio 3.33 (it stops at the '.' and takes "
                                                  "no unit after it), 1610612736 as written: write '1610612736', "
                                                  "which both read alike");
    CHECK_THROWS_WITH(parse_size("8192.5", 1024), doctest::Contains("'8192.5' is 8192 bytes to fio 3.33"));
    CHECK_THROWS_WITH(parse_size("2.0k", 1000), doctest::Contains("2000 as written: write '2000'"));
    try {
        parse_size(" 1.5k", 1024);
    } catch (const value_error &e) {
        CHECK(e.offset == 1); // at the point, in the trimmed value
    }
    ignored_text whole;
    CHECK(parse_size("1.0", 1024) == 1); // fio's 1 too
    CHECK(parse_size("2k", 1024) == 2048);
    CHECK(parse_size("0x10", 1024) == 16);
    CHECK(whole.readings.empty());
}

TEST_CASE("sizes: text after the number or its unit is ignored from the first non-alphanumeric, as fio")
{
    CHECK(parse_size("65536)", 1024) == 65536);                   // t/strided.py's --filesize=65536)
    CHECK(parse_size("512/25", 1024) == 512);                     // a bsrange written like a bssplit
    CHECK(parse_size("1k:25:2k:25:4k/25", 1024) == 1024);
    CHECK(parse_size_range("512/25:1k:25:2k:25:4k/25", 1024) == std::make_pair<uint64_t, uint64_t>(512, 1024));
    CHECK_THROWS_AS(parse_size("10q)", 1024), value_error);      // a bad unit is still an error
    CHECK_THROWS_AS(parse_size("4kq", 1024), value_error);
}

TEST_CASE("numbers: a sign is read, an exponent is not (fio reads 1e6 as 1 and a suffix)")
{
    CHECK(parse_size("+512k", 1024) == 524288);
    CHECK(parse_size("+0x10", 1024) == 16);
    CHECK(parse_time_ns("+2", time_unit::s) == 2000000000ull);
    for (const char *v : {"1e6", "2e5k", "4E3", "1.5e1m"}) {
        CAPTURE(v);
        CHECK_THROWS_AS(parse_size(v, 1024), value_error);
    }
    CHECK_THROWS_AS(parse_time_ns("1e0", time_unit::s), value_error);
    CHECK_THROWS_AS(parse_size("+", 1024), value_error);
    CHECK_THROWS_AS(parse_size("nan", 1024), value_error);
}

TEST_CASE("times: bare numbers in the option's unit, suffixes as written")
{
    CHECK(parse_time_ns("30", time_unit::s) == 30000000000ull);
    CHECK(parse_time_ns("1sec", time_unit::s) == 1000000000ull); // fio: 1 us (documented difference)
    CHECK(parse_time_ns("1m", time_unit::s) == 60000000000ull);
    CHECK(parse_time_ns("500ms", time_unit::s) == 500000000ull);
    CHECK(parse_time_ns("10", time_unit::us) == 10000ull);
    CHECK(parse_time_ns("2h", time_unit::s) == 7200000000000ull);
    CHECK_THROWS_AS(parse_time_ns("10x", time_unit::s), value_error);
}

TEST_CASE("read,write,trim lists copy the last value only when no comma follows")
{
    auto a = split_ddir_list("4k,8k");
    CHECK(a[0] == "4k");
    CHECK(a[1] == "8k");
    CHECK(a[2] == "8k");
    auto b = split_ddir_list(",8k");
    CHECK(b[0].empty());
    CHECK(b[2] == "8k");
    auto c = split_ddir_list("200,");
    CHECK(c[0] == "200");
    CHECK(c[1].empty());
    CHECK(c[2].empty());
    CHECK_THROWS_AS(split_ddir_list("1,2,3,4"), value_error);
}

TEST_CASE("ranges, bssplit, percentages, patterns, CPU lists")
{
    CHECK(parse_size_range("16k-4k", 1024) == std::make_pair<uint64_t, uint64_t>(4096, 16384));
    auto s = parse_bssplit_dir("4k/10:64k:1m", 1024);
    REQUIRE(s.size() == 3);
    CHECK(s[0].pct == 10);
    CHECK(s[1].pct + s[2].pct == 90);
    CHECK_NOTHROW(parse_bssplit_dir("4k/80:8k/30", 1024)); // fio: past 100 with none missing
    CHECK_THROWS_AS(parse_bssplit_dir("4k/80:8k/30:16k:32k", 1024), value_error);
    uint32_t ppm = 0;
    CHECK(parse_percent_ppm("50%", &ppm));
    CHECK(ppm == 500000);
    CHECK(!parse_percent_ppm("50", &ppm));
    CHECK_THROWS_AS(parse_percent_ppm("150%", &ppm), value_error);
    // size=: fio 3.33 reads 2^64-151 bytes, and cuts an existing file to 0 bytes as it lays it out
    CHECK_THROWS_WITH(parse_percent_ppm("150%", &ppm, PCT_SIZE), doctest::Contains("2^64-1-150"));
    CHECK_THROWS_AS(parse_percent_ppm("101%", &ppm, PCT_SIZE), value_error);
    CHECK(parse_percent_ppm("100%", &ppm, PCT_SIZE));
    CHECK(ppm == 1000000);
    CHECK(parse_percent_ppm("+7%", &ppm));
    CHECK(ppm == 70000);
    // fio reads these as bytes, not percent: '.' (or a blank, or a letter) stops its digits, 0x is hex
    CHECK_THROWS_WITH(parse_percent_ppm("50.5%", &ppm), doctest::Contains("'50.5%' is 50 bytes to fio 3.33"));
    CHECK_THROWS_WITH(parse_percent_ppm("0.00005%", &ppm), doctest::Contains("is 0 bytes to fio 3.33"));
    CHECK_THROWS_WITH(parse_percent_ppm("50 %", &ppm), doctest::Contains("is 50 bytes"));
    CHECK_THROWS_WITH(parse_percent_ppm("1e2%", &ppm), doctest::Contains("is no percentage to fio 3.33"));
    CHECK_THROWS_WITH(parse_percent_ppm("0x10%", &ppm), doctest::Contains("is 16 bytes"));
    CHECK_THROWS_WITH(parse_percent_ppm("99999999999999999999%", &ppm), doctest::Contains("out of range"));
    // offset=0%: no offset, as fio reads it (a size or io_size of 0% stays an error)
    CHECK_THROWS_AS(parse_percent_ppm("0%", &ppm), value_error);
    ppm = 7;
    CHECK(parse_percent_ppm("0%", &ppm, PCT_ZERO_IS_NONE));
    CHECK(ppm == 0);
    CHECK_THROWS_AS(parse_percent_ppm("-1%", &ppm, PCT_ZERO_IS_NONE), value_error);
    CHECK(parse_pattern("0xdeadbeef") == std::vector<uint8_t>{0xde, 0xad, 0xbe, 0xef});
    CHECK(parse_pattern("\"ab\"|0x01") == std::vector<uint8_t>{'a', 'b', 1});
    CHECK(parse_pattern("258") == std::vector<uint8_t>{2, 1}); // as fio: the bytes the value needs
    CHECK(parse_pattern("0") == std::vector<uint8_t>{0});
    CHECK(parse_pattern("-1") == std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff});
    CHECK_THROWS_AS(parse_pattern("2147483648"), value_error);
    CHECK_THROWS_AS(parse_pattern("99999999999999999999"), value_error);
    // fio's pieces follow one another with nothing between them.
    CHECK(parse_pattern("\"abcd\"-120xdeadface") ==
          std::vector<uint8_t>{'a', 'b', 'c', 'd', 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce});
    CHECK(parse_pattern("0xff0x14") == std::vector<uint8_t>{0xff, 0x14});
    CHECK(parse_pattern("0xabc") == std::vector<uint8_t>{0x0a, 0xbc});
    CHECK(parse_pattern("100x5") == std::vector<uint8_t>{10, 5});
    CHECK_THROWS_WITH_AS(parse_pattern("'/nonexistent/pat'"), "cannot read pattern file '/nonexistent/pat': No such file or directory", value_error);
    CHECK_THROWS_AS(parse_pattern("0xff%o"), value_error); // buffer_pattern: no formats, as fio
    std::vector<uint32_t> at;
    CHECK(parse_pattern("0xff%o\"ab\"%o", &at) == std::vector<uint8_t>{0xff, 0, 0, 0, 0, 0, 0, 0, 0, 'a', 'b',
                                                                       0, 0, 0, 0, 0, 0, 0, 0});
    CHECK(at == std::vector<uint32_t>{1, 11});
    CHECK_THROWS_AS(parse_pattern("%x", &at), value_error);
    CHECK_THROWS_AS(parse_pattern("\"abc"), value_error);
    CHECK(parse_cpu_list("0-2,5").word[0] == 0x27u);
    // Past 63, as a machine of many CPUs has them (to glibc's CPU_SETSIZE, 1024).
    plan_cpus big = parse_cpu_list("63-64,1023");
    CHECK((big.word[0] == 1ull << 63 && big.word[1] == 1 && big.word[15] == 1ull << 63));
    CHECK_THROWS_AS(parse_cpu_list("1024"), value_error);
    CHECK_THROWS_AS(parse_cpu_list("3-1"), value_error);
    CHECK(parse_node_list("0-1,3") == 0xbu);
    CHECK_THROWS_AS(parse_node_list("64"), value_error);
    CHECK(parse_bool("1"));
    CHECK(!parse_bool("0"));
    CHECK_THROWS_AS(parse_bool("maybe"), value_error);
}

TEST_CASE("fio keywords with arithmetic")
{
    CHECK(expand_keywords("$pagesize*2") == "8192");
    CHECK(expand_keywords("4k") == "4k");
    CHECK_THROWS_AS(expand_keywords("$ncpus*1m"), value_error);
}

TEST_CASE("arithmetic that leaves 64 bits is an error, not a wrapped number")
{
    CHECK(expand_keywords("$pagesize*2251799813685247") == std::to_string(4096ull * 2251799813685247ull));
    CHECK_THROWS_WITH_AS(expand_keywords("$pagesize*4503599627370497"),
                         "'4096*4503599627370497' does not fit in a 64-bit integer", value_error);
    CHECK_THROWS_AS(expand_keywords("$pagesize*99999999999999999999"), value_error);
    CHECK_THROWS_AS(expand_keywords("$pagesize+9223372036854775807"), value_error);
    CHECK_THROWS_AS(expand_keywords("$pagesize-9223372036854775807-9999"), value_error);
}

TEST_CASE("integer sizes and times are exact up to 64 bits and refused beyond")
{
    CHECK(parse_size("9007199254740993", 1024) == 9007199254740993ull); // 2^53 + 1: a double drops the 1
    CHECK(parse_size("18446744073709551614", 1024) == 18446744073709551614ull);
    CHECK(parse_size("0xfffffffffffffffe", 1024) == 0xfffffffffffffffeull);
    CHECK_THROWS_AS(parse_size("18446744073709551615", 1024), value_error);
    CHECK_THROWS_AS(parse_size("16384p", 1024), value_error);
    CHECK_THROWS_WITH_AS(parse_size("0x10000000000000000", 1024), "'0x10000000000000000' is out of range",
                         value_error);
    CHECK(parse_size("16383p", 1024) == 16383ull << 50);
    CHECK(parse_size("1.0", 1024) == 1);
    CHECK(parse_time_ns("9223372036s", time_unit::s) == 9223372036000000000ull);
    CHECK_THROWS_AS(parse_time_ns("9223372037s", time_unit::s), value_error);
    CHECK_THROWS_AS(parse_time_ns("106752d", time_unit::s), value_error);
}

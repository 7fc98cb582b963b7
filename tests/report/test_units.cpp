// tests/report/test_units.cpp - fio's number formatting (report/units.cpp)
// against numbers fio 3.33 really printed (reference/fio.md §3-5, seed 001).
#include <doctest/doctest.h>

#include <cstdlib>
#include <ctime>

#include "report/units.hpp"

using report::num2str;
using report::unit;

TEST_CASE("units: num2str gives fio's BW, IOPS and io text")
{
	// writer, rate_iops=500: 3072000 bytes in 1501 ms.
	uint64_t bw = report::per_sec(3072000, 1501);
	CHECK(bw == 2046635);
	CHECK(num2str(bw, 4, 1, true, unit::byte_per_sec) == "1999KiB/s");
	CHECK(num2str(bw, 4, 1, false, unit::byte_per_sec) == "2047kB/s");
	CHECK(num2str(3072000, 4, 1, true, unit::byte) == "3000KiB");
	CHECK(num2str(3072000, 4, 1, false, unit::byte) == "3072kB");
	CHECK(num2str(report::per_sec(750, 1501), 4, 1, false, unit::none) == "499");
	// group 1: two readers, 6000 KiB each.
	CHECK(num2str(12288000, 4, 1, true, unit::byte) == "11.7MiB");
	CHECK(num2str(12288000, 4, 1, false, unit::byte) == "12.3MB");
	CHECK(num2str(report::per_sec(12288000, 1501), 4, 1, true, unit::byte_per_sec) ==
	      "7995KiB/s");
	CHECK(num2str(report::per_sec(12288000, 1501), 4, 1, false, unit::byte_per_sec) ==
	      "8187kB/s");
}

TEST_CASE("units: num2str on the seed's 60 s sequential read")
{
	uint64_t bytes = 10053ull << 20, bw = report::per_sec(bytes, 60043);
	CHECK(num2str(bytes, 4, 1, true, unit::byte) == "9.82GiB");
	CHECK(num2str(bytes, 4, 1, false, unit::byte) == "10.5GB");
	CHECK(num2str(bw, 4, 1, true, unit::byte_per_sec) == "167MiB/s");
	CHECK(num2str(bw, 4, 1, false, unit::byte_per_sec) == "176MB/s");
	CHECK(num2str(report::per_sec(10053, 60043), 4, 1, false, unit::none) == "167");
}

TEST_CASE("units: num2str prefixes, carries and block sizes")
{
	CHECK(num2str(0, 4, 1, true, unit::byte_per_sec) == "0B/s");
	CHECK(num2str(4096, 4, 1, true, unit::byte) == "4096B");
	CHECK(num2str(1 << 20, 4, 1, true, unit::byte) == "1024KiB");
	CHECK(num2str(768000, 4, 1, false, unit::none) == "768k");
	CHECK(num2str(20200, 4, 1, false, unit::none) == "20.2k");
	CHECK(num2str(3145728000ull, 4, 1, true, unit::byte_per_sec) == "3000MiB/s");
	CHECK(num2str(3145728000ull, 4, 1, false, unit::byte_per_sec) == "3146MB/s");
	CHECK(num2str(1048576000ull, 4, 1, false, unit::byte_per_sec) == "1049MB/s");
	// A remainder that rounds up carries into the integer part.
	CHECK(num2str(1023 * 1024 + 1023, 3, 1, true, unit::byte) == "1.0MiB");
	CHECK(num2str(2047, 3, 1, true, unit::byte) == "2.0KiB");
	// base: the number is already in KiB (the progress line's rates).
	CHECK(num2str(2048, 4, 1024, true, unit::byte_per_sec) == "2048KiB/s");
	CHECK(num2str(80896, 4, 1024, true, unit::byte_per_sec) == "79.0MiB/s");
	CHECK(num2str(8, 4, 1, true, unit::bit) == "64bit");
	CHECK(num2str(UINT64_MAX, 4, 1, true, unit::byte) == "16.0EiB");
	// latency min/max of normal output: six digits before scaling by 1000.
	CHECK(num2str(116638, 6, 1, false, unit::none) == "116638");
	CHECK(num2str(1166380, 6, 1, false, unit::none) == "1166.4k");
}

TEST_CASE("units: runtimes, ETA and percentile precision")
{
	CHECK(report::runtime_ms(0) == 0);
	CHECK(report::runtime_ms(1) == 0);	// under a µs: nothing measured
	CHECK(report::runtime_ms(1000) == 1);	// any started ms counts
	CHECK(report::runtime_ms(1500999000) == 1501);
	CHECK(report::runtime_ms(1501000000) == 1501);
	CHECK(report::per_sec(5, 0) == 0);
	CHECK(report::eta_str(420) == "07m:00s");
	CHECK(report::eta_str(2) == "00m:02s");
	CHECK(report::eta_str(3723) == "01h:02m:03s");
	CHECK(report::eta_str(4294967294ull) == "49710d:06h:28m:14s");
	CHECK(report::eta_str(UINT64_MAX) == "--");
	const double def[] = { 1, 5, 10, 99.5, 99.95, 99.99 };
	CHECK(report::percentile_precision(def, 6) == 2);
	const double whole[] = { 50, 90, 99 };
	CHECK(report::percentile_precision(whole, 3) == 0);
	const double fine[] = { 99.9999 };
	CHECK(report::percentile_precision(fine, 1) == 4);
	CHECK(report::strf("%s=%d", "a", 7) == "a=7");
	CHECK(report::strf("%300d", 1).size() == 300);
}

TEST_CASE("units: ctime text in the local zone")
{
	setenv("TZ", "UTC", 1);
	tzset();
	CHECK(report::ctime_str(1795347145096000000ull) == "Sun Nov 22 11:32:25 2026");
}

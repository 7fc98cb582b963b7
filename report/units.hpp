// report/units.hpp - fio's number formatting, in one place for every report.
//
// Normal output, the progress line and the job banners scale numbers exactly as
// fio 3.33 does (num2str with significant figures and IEC/SI prefixes, ms
// runtimes rounded up from µs, ETA strings), so anyone grepping fio's output
// finds the same text in ioplan's.  See reference/fio.md §3-5.
#pragma once

#include <cstdint>
#include <string>

namespace report {

// What a number counts, for the unit suffix num2str appends (fio's enum n2s_unit).
enum class unit { none, per_sec, byte, bit, byte_per_sec, bit_per_sec };

// fio's num2str: num (already multiplied by base) shown with at most maxlen digits
// (the '.' counts), scaled by 1000 or 1024 (pow2) with an SI/IEC prefix, carry-rounded
// as fio does.  num2str(3072000, 4, 1, true, unit::byte) == "2.93MiB".
std::string num2str(uint64_t num, int maxlen, int base, bool pow2, unit u);

// printf into a std::string.
std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// A direction's runtime in ms as fio accounts it: whole µs, rounded up to ms.
uint64_t runtime_ms(uint64_t ns);

// Bytes (or I/Os) per second over ms milliseconds, as fio: 1000 * n / ms, 0 if ms == 0.
uint64_t per_sec(uint64_t n, uint64_t ms);

// fio's ETA text: "07m:00s", "01h:02m:03s", "2d:..."; "--" when unknown (UINT64_MAX).
std::string eta_str(uint64_t eta_sec);

// ctime(3) text of a wall-clock time in ns, local time zone, without the newline.
std::string ctime_str(uint64_t wall_ns);

// A latency of ns nanoseconds in microseconds for a page or a table, as
// `results show` prints one: from a microsecond up with prec decimals; a
// measured one below to the whole nanosecond ("0.020", where "%.2f" made a
// null engine's 20 ns "0.02" and 4 ns "0.00", which read as nothing
// measured), and below a nanosecond (a fractional figure imported) to two
// significant digits.  0 or less is prec decimals of it.
std::string latency_us_text(double ns, int prec);

// fio's percentile display precision: the most decimals any list entry needs (max 6).
int percentile_precision(const double *list, uint32_t n);

} // namespace report

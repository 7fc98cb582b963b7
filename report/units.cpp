// report/units.cpp - fio's number formatting (num2str, runtimes, ETA, time stamps).
//
// Written from fio 3.33's observed behaviour and documented rules (fio.md §3-5):
// the digits, carries and prefixes must come out as fio prints them, because
// users grep and parse this text.
#include "report/units.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace report {

namespace {

const char *const si_prefix[] = { "", "k", "M", "G", "T", "P", "E" };
const char *const iec_prefix[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
constexpr int nr_prefix = 7;

const char *unit_suffix(unit u)
{
	switch (u) {
	case unit::none:
		return "";
	case unit::per_sec:
		return "/s";
	case unit::byte:
		return "B";
	case unit::bit:
		return "bit";
	case unit::byte_per_sec:
		return "B/s";
	case unit::bit_per_sec:
		return "bit/s";
	}
	return "";
}

int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

} // namespace

std::string strf(const char *fmt, ...)
{
	char small[256];
	va_list ap;

	va_start(ap, fmt);
	int n = std::vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return std::string();
	if ((size_t)n < sizeof(small))
		return std::string(small, (size_t)n);
	std::string s((size_t)n + 1, '\0');
	va_start(ap, fmt);
	std::vsnprintf(&s[0], s.size(), fmt, ap);
	va_end(ap);
	s.resize((size_t)n);
	return s;
}

// Divides by 1000 or 1024 until at most maxlen digits are left, then shows as
// many decimals of the last remainder as still fit.  The remainder is rounded
// on its own, so a carry can turn 1023 KiB into "1.00MiB" exactly like fio.
std::string num2str(uint64_t num, int maxlen, int base, bool pow2, unit u)
{
	const unsigned thousand = pow2 ? 1024 : 1000;
	const char *const *prefix = pow2 ? iec_prefix : si_prefix;
	const char *suffix = unit_suffix(u);
	bool have_modulo = false, carry = false;
	unsigned modulo = 0;
	int idx = 0;

	for (; base > 1; idx++)
		base /= (int)thousand;
	if (u == unit::bit || u == unit::bit_per_sec)
		num *= 8;
	while (idx < nr_prefix && digits(num) > maxlen) {
		modulo = (unsigned)(num % thousand);
		num /= thousand;
		carry = modulo >= thousand / 2;
		have_modulo = true;
		idx++;
	}
	if (idx >= nr_prefix)
		idx = 0;
	if (!have_modulo)
		return strf("%llu%s%s", (unsigned long long)num, prefix[idx], suffix);

	int room = maxlen - digits(num);
	if (room <= 1) {
		if (carry)
			num++;
		return strf("%llu%s%s", (unsigned long long)num, prefix[idx], suffix);
	}
	std::string frac = strf("%.*f", room - 1, (double)modulo / (double)thousand);
	if (frac[0] == '1')
		num++;
	return strf("%llu.%s%s%s", (unsigned long long)num, frac.c_str() + 2, prefix[idx], suffix);
}

uint64_t runtime_ms(uint64_t ns)
{
	return (ns / 1000 + 999) / 1000;
}

uint64_t per_sec(uint64_t n, uint64_t ms)
{
	if (!ms)
		return 0;
	// 1000 * n overflows 64 bits past 18 PB; keep the product exact.
	return (uint64_t)(((unsigned __int128)n * 1000u) / ms);
}

std::string eta_str(uint64_t eta_sec)
{
	if (eta_sec == UINT64_MAX)
		return "--";
	unsigned s = (unsigned)(eta_sec % 60);
	eta_sec /= 60;
	unsigned m = (unsigned)(eta_sec % 60);
	eta_sec /= 60;
	unsigned h = (unsigned)(eta_sec % 24);
	uint64_t d = eta_sec / 24;
	std::string out;

	if (d)
		out += strf("%02llud:", (unsigned long long)d);
	if (h || d)
		out += strf("%02uh:", h);
	out += strf("%02um:%02us", m, s);
	return out;
}

std::string ctime_str(uint64_t wall_ns)
{
	time_t t = (time_t)(wall_ns / 1000000000u);
	char buf[64];

	if (!ctime_r(&t, buf))
		return std::string();
	size_t n = std::strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

std::string latency_us_text(double ns, int prec)
{
	bool sub_us = ns > 0 && ns < 999.5;
	if (!sub_us)
		return strf("%.*f", prec, ns / 1e3);
	return strf(ns < 0.5 ? "%.2g" : "%.3f", ns / 1e3);
}

int percentile_precision(const double *list, uint32_t n)
{
	int prec = 0;

	for (uint32_t i = 0; i < n; i++) {
		std::string s = strf("%.6f", list[i]);
		size_t dot = s.find('.');
		size_t last = s.find_last_not_of('0');
		int d = last > dot ? (int)(last - dot) : 0;
		if (d > prec)
			prec = d;
	}
	return prec;
}

} // namespace report

// results/table_cell.hpp - a figure, and a name, as the text tables of
// `results list`, `show`, `compare` and `results summary` print them.
//
// A latency shown in microseconds keeps a measured value from reading as 0
// (latency_us_cell): one under a microsecond had too few decimals.
//
// Their columns are fixed widths filled with "%.1f": a figure too large for
// its column (an edited store's 1e308, 309 digits) pushed the rest of its line
// out of place and past the line's buffer, which cut the line and its newline.
// A name (a label, a job's, a host's) comes from whoever wrote the job file or
// the result imported: its control characters went to the terminal as they
// were, a newline breaking the table's row and an escape sequence run by the
// terminal (a colour, a window title, a clipboard write).  A name's column
// was cut and padded by bytes ("%-16.16s"): a cut inside a UTF-8 character
// left half of it for the terminal to show as a replacement mark, and a name
// of accented or CJK letters pushed the columns after it out of line.
#pragma once

#include <clocale>
#include <cstdio>
#include <locale.h>
#include <string>
#include <wchar.h>

namespace resdb {

// v with prec decimals when that fits in width characters, else in four
// significant digits ("1.798e+308"); not padded.
inline std::string table_cell(double v, int prec, int width)
{
	char s[400];
	int n = std::snprintf(s, sizeof(s), "%.*f", prec, v);
	if (n < 0 || n > width)
		std::snprintf(s, sizeof(s), "%.4g", v);
	return s;
}

// A latency of ns nanoseconds as a table's microseconds: table_cell with
// prec decimals from a microsecond up; a measured latency under one (ns > 0)
// to the whole nanosecond, three decimals ("0.020": a null engine's 20 ns was
// "0.0", which read as no figure, or as 0 us), and one under a nanosecond (a
// fractional percentile imported) to two significant digits ("0.0004").
inline std::string latency_us_cell(double ns, int prec, int width)
{
	if (!(ns > 0) || ns >= 999.5)
		return table_cell(ns / 1e3, prec, width);
	char t[64];
	std::snprintf(t, sizeof(t), ns >= 0.5 ? "%.3f" : "%.2g", ns / 1e3);
	return t;
}

// The code point of the UTF-8 character at s[i] and its length in bytes;
// a byte that starts no well-formed character is U+FFFD, one byte long.
inline char32_t utf8_at(const std::string &s, size_t i, size_t *len)
{
	unsigned char c = (unsigned char)s[i];
	size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	char32_t cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
	for (size_t k = 1; n && k < n; k++) {
		if (i + k >= s.size() || ((unsigned char)s[i + k] & 0xc0) != 0x80)
			n = 0;
		else
			cp = cp << 6 | ((unsigned char)s[i + k] & 0x3f);
	}
	static const char32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (!n || cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		*len = 1;
		return 0xfffd;
	}
	*len = n;
	return cp;
}

// s with each control character (C0, DEL, and C1 as UTF-8: U+0080..U+009F)
// as '?', the way the HTML page shows them, and so each byte that starts no
// well-formed UTF-8 character: a label stored as Latin-1 ("caf\xe9", written
// into the store by hand) went to the terminal raw, in the messages naming a
// damaged run and in `results show`, and a terminal showed it as it liked.
inline std::string printable(const std::string &s)
{
	std::string o;
	for (size_t i = 0, n; i < s.size(); i += n) {
		char32_t cp = utf8_at(s, i, &n);
		bool bad = cp == 0xfffd && n == 1 && (unsigned char)s[i] >= 0x80;
		if (bad || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
			o += '?';
		else
			o.append(s, i, n);
	}
	return o;
}

// The terminal columns of code point cp: glibc's wcwidth under a UTF-8 locale
// (two for a wide CJK character, none for a combining mark), whatever the
// process's own locale is; one where it knows none.
inline int columns_of(char32_t cp)
{
	static locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (cp < 0x80 || !utf8)
		return 1;
	locale_t was = uselocale(utf8);
	int w = wcwidth((wchar_t)cp);
	uselocale(was);
	return w < 0 ? 1 : w;
}

// A name in a table's column of width terminal columns: printable(), cut at
// a whole character, then padded with spaces to width.  A malformed byte is
// shown as '?'.
inline std::string column(const std::string &name, int width)
{
	std::string s = printable(name), o;
	int used = 0;
	for (size_t i = 0, n; i < s.size(); i += n) {
		char32_t cp = utf8_at(s, i, &n);
		int w = columns_of(cp);
		if (used + w > width)
			break;
		used += w;
		if (cp == 0xfffd && n == 1 && (unsigned char)s[i] >= 0x80)
			o += '?';
		else
			o.append(s, i, n);
	}
	return o.append((size_t)(width - used), ' ');
}

} // namespace resdb

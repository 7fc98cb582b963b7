// results/table_cell.hpp - a figure, and a name, as the text tables of
// `results list`, `show`, `compare` and `results summary` print them.
//
// Their columns are fixed widths filled with "%.1f": a figure too large for
// its column (an edited store's 1e308, 309 digits) pushed the rest of its line
// out of place and past the line's buffer, which cut the line and its newline.
// A name (a label, a job's, a host's) comes from whoever wrote the job file or
// the result imported: its control characters went to the terminal as they
// were, a newline breaking the table's row and an escape sequence run by the
// terminal (a colour, a window title, a clipboard write).
#pragma once

#include <cstdio>
#include <string>

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

// s with each control character (C0, DEL, and C1 as UTF-8: U+0080..U+009F)
// as '?', the way the HTML page shows them.
inline std::string printable(const std::string &s)
{
	std::string o;
	for (size_t i = 0; i < s.size(); i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0xc2 && i + 1 < s.size() && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f) {
			o += '?';
			i++;
		} else {
			o += c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
	}
	return o;
}

} // namespace resdb

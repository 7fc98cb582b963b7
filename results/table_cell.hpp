// results/table_cell.hpp - a figure as the text tables of `results show`,
// `compare` and `results summary` print it.
//
// Their columns are fixed widths filled with "%.1f": a figure too large for
// its column (an edited store's 1e308, 309 digits) pushed the rest of its line
// out of place and past the line's buffer, which cut the line and its newline.
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

} // namespace resdb

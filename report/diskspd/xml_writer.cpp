// report/diskspd/xml_writer.cpp - XML 1.0 character data from arbitrary bytes
// (xml_writer.hpp says why nothing may pass through unchecked).
#include "report/diskspd/xml_writer.hpp"

#include <cstdint>

namespace report::xml {

namespace {

const char replacement[] = "\xef\xbf\xbd";	// U+FFFD in UTF-8

// Length of the well-formed UTF-8 sequence at s[i] holding a character XML
// 1.0 allows (#x20-#xD7FF, #xE000-#xFFFD, #x10000-#x10FFFF), or 0.
size_t xml_char_len(const std::string &s, size_t i)
{
	unsigned char c = (unsigned char)s[i];
	size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	if (n == 0 || i + n > s.size())
		return 0;
	uint32_t cp = n == 1 ? c : c & (0x7f >> n);
	for (size_t k = 1; k < n; k++) {
		unsigned char b = (unsigned char)s[i + k];
		if ((b & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (b & 0x3f);
	}
	static const uint32_t shortest[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < shortest[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
	    cp == 0xffff)
		return 0;
	if (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r')
		return 0;
	return n;
}

const char *entity(char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	case '\r': return "&#13;";
	default: return nullptr;
	}
}

} // namespace

std::string esc(const std::string &s)
{
	std::string o;
	o.reserve(s.size());
	for (size_t i = 0; i < s.size();) {
		size_t n = xml_char_len(s, i);
		if (n == 0) {
			o += replacement;
			i++;
		} else if (const char *e = n == 1 ? entity(s[i]) : nullptr) {
			o += e;
			i++;
		} else {
			o.append(s, i, n);
			i += n;
		}
	}
	return o;
}

} // namespace report::xml

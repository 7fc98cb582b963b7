// report/diskspd/xml_writer.hpp - writing XML 1.0 text: escaping and one-line elements
// (internal to report/; the DISKSPD XML document is built from these).
//
// Every string that came from outside (a path, a host name) goes through
// esc(): a file name may hold any byte but NUL, and XML 1.0 can carry
// neither control characters nor invalid UTF-8, not even as character
// references, so those become U+FFFD and the document always parses.
#pragma once

#include <cstdio>
#include <ostream>
#include <string>

namespace report::xml {

// s as XML character data: &, <, >, " and ' escaped, CR as &#13; (a parser
// would read a raw one as LF), and every byte XML 1.0 cannot carry -- C0
// controls other than TAB and LF, invalid UTF-8, U+FFFE/U+FFFF -- replaced by
// U+FFFD, one per offending byte.
std::string esc(const std::string &s);

inline std::string fmt(const char *f, double v)
{
	char b[64];
	snprintf(b, sizeof(b), f, v);
	return b;
}

inline std::string indent(int depth) { return std::string((size_t)depth * 2, ' '); }

// One <name>value</name> line, `depth` levels in.
template <typename T> void el(std::ostream &out, int depth, const char *name, const T &v)
{
	out << indent(depth) << "<" << name << ">" << v << "</" << name << ">\n";
}

inline void tag_open(std::ostream &out, int depth, const char *name)
{
	out << indent(depth) << "<" << name << ">\n";
}

inline void tag_close(std::ostream &out, int depth, const char *name)
{
	out << indent(depth) << "</" << name << ">\n";
}

inline const char *tf(bool b) { return b ? "true" : "false"; }

} // namespace report::xml

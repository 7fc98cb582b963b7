// report/diskspd_xml.hpp - small XML writing helpers and the parts of the
// DISKSPD XML document split out of diskspd_xml.cpp (internal to report/).
#pragma once

#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "report/diskspd_model.hpp"

namespace report::diskspd::xml {

// Text with &, <, >, " and ' escaped.
inline std::string esc(const std::string &s)
{
	std::string o;
	for (char c : s) {
		switch (c) {
		case '&': o += "&amp;"; break;
		case '<': o += "&lt;"; break;
		case '>': o += "&gt;"; break;
		case '"': o += "&quot;"; break;
		case '\'': o += "&apos;"; break;
		default: o += c; break;
		}
	}
	return o;
}

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

// <Iops>: IOPS standard deviations and the per-interval buckets of rows merged.
void iops(std::ostream &out, int depth, const std::vector<const row *> &rows, const options &o);

// <Profile>: the parameters, read back from the plan.
void profile(std::ostream &out, const plan &p, const options &o);

} // namespace report::diskspd::xml

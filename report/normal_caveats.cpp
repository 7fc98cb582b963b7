// report/normal_caveats.cpp - the end of fio's normal output as ioplan adds it:
// what makes the figures above partial or doubtful.
//
// The results carry every message of the run - preflight findings the cli
// attaches, I/O and verify errors with job, file and offset, stall warnings -
// and whether a signal stopped it.  JSON has them under "ioplan"; a reader of
// the text must not have to guess that the numbers cover only part of the
// plan, so they are printed after the disk stats, one line each.  Layout
// notices are already printed under the banner, as fio does.
#include <cstring>
#include <ostream>
#include <string>

#include "report/normal.hpp"

namespace report {

namespace {

const char *level_word(res_msg_level l)
{
	return l == RES_MSG_ERROR ? "error" : l == RES_MSG_WARNING ? "warning" : "note";
}

// Control characters in a message (a hostile file name) are shown, not obeyed.
std::string printable(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	std::string o;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			o += "\\x";
			o += hex[*p >> 4];
			o += hex[*p & 15];
		} else {
			o += (char)*p;
		}
	}
	return o;
}

} // namespace

void write_normal_messages(std::ostream &out, const results &r)
{
	bool head = false;
	auto start = [&]() {
		if (!head)
			out << '\n';
		head = true;
	};
	if (r.interrupted) {
		start();
		out << "ioplan: interrupted: the figures cover only what ran before the stop\n";
	}
	for (uint32_t i = 0; i < r.nr_msgs; i++) {
		const res_msg &m = r.msgs[i];
		if (!m.text || (m.code && std::strcmp(m.code, "layout") == 0))
			continue;
		start();
		out << "ioplan: " << level_word(m.level) << ": " << printable(m.text) << '\n';
	}
}

} // namespace report

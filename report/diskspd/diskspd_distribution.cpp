// report/diskspd/diskspd_distribution.cpp - DISKSPD's "Effective IO Distributions" (text) and
// each target's <Distribution> (XML): the -rd ranges as the run laid them over each target.
//
// The numbers are the engine's, the ranges each clone drew its offsets from (res_clone.zones),
// not worked out again here, so what is printed is what ran.  The layout is DISKSPD 2.2's
// (its ResultParser and XmlResultParser): after the CPU table, each distinct distribution once,
// in DISKSPD's order (its ranges compared field by field: I/O share start, share, offset,
// length), under the targets that used it, by path, each with its threads; each range
// "   NN% of IO => [start - end)", or, where -rdabs ranges past the end were dropped, the
// shares left rescaled to one decimal.  In XML a target's ranges are lengths from its region's
// start, a gap between two (a hole, or rounding) an IO="0" range.
#include "report/diskspd/diskspd_model.hpp"
#include "report/diskspd/diskspd_xml.hpp"

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace report::diskspd {

namespace {

// One range as DISKSPD compares them: I/O share start, share, offset, length.
using range_key = std::tuple<uint32_t, uint32_t, uint64_t, uint64_t>;
// Each distinct distribution: the targets (by path) that used it, and their threads.
using users = std::map<std::string, std::set<uint32_t>>;

std::vector<range_key> key_of(const res_zones &z)
{
	std::vector<range_key> k;
	for (uint32_t i = 0; i < z.nr; i++)
		k.emplace_back(z.zone[i].io_first, z.zone[i].io_pct, z.zone[i].offset, z.zone[i].bytes);
	return k;
}

std::map<std::vector<range_key>, users> distinct_distributions(const run_view &v)
{
	std::map<std::vector<range_key>, users> m;
	for (const row &w : v.rows) {
		for (uint32_t f = 0; w.zones && f < w.nr_zones && f < w.files.size(); f++)
			m[key_of(w.zones[f])][w.files[f]].insert(w.thread);
	}
	return m;
}

// "   10% of IO => [     0    -      8KiB)"; shares out of `max` when that is below 100.
void range_line(std::ostream &out, const range_key &r, uint32_t max)
{
	char share[48];
	uint32_t io = std::get<1>(r);
	uint64_t at = std::get<2>(r), end = at + std::get<3>(r);
	if (max < 100)
		snprintf(share, sizeof(share), "    %0.1f%% of IO => [", 100.0 * io / max);
	else
		snprintf(share, sizeof(share), "   %3u%% of IO => [", io);
	out << share << (at ? display_size(at, 6) : "     0   ") << " - " << display_size(end, 6) << ")\n";
}

} // namespace

std::string thread_list(const std::set<uint32_t> &threads)
{
	std::string s;
	for (auto it = threads.begin(); it != threads.end();) {
		uint32_t first = *it, last = first;
		while (++it != threads.end() && *it == last + 1)
			last = *it;
		if (last - first >= 2)	// three or more in a row: DISKSPD elides the middle
			s += " " + std::to_string(first) + " - " + std::to_string(last);
		else
			for (uint32_t t = first; t <= last; t++)
				s += " " + std::to_string(t);
	}
	return s;
}

void effective_distributions(std::ostream &out, const run_view &v)
{
	auto m = distinct_distributions(v);
	if (m.empty())
		return;
	out << "\nEffective IO Distributions\n--------------------------\n";
	for (const auto &d : m) {
		for (const auto &t : d.second)
			out << "target: " << t.first << " [thread:" << thread_list(t.second) << "]\n";
		const range_key &last = d.first.back();
		uint32_t max = std::get<0>(last) + std::get<1>(last);
		for (const range_key &r : d.first)
			range_line(out, r, max);
	}
}

const res_zones *row_distribution(const row &w)
{
	if (!w.zones || !w.nr_zones)
		return nullptr;
	for (uint32_t f = 1; f < w.nr_zones; f++)
		if (key_of(w.zones[f]) != key_of(w.zones[0]))
			return nullptr;
	return &w.zones[0];
}

namespace xml {

void effective_distribution(std::ostream &out, int depth, const res_zones &z)
{
	uint64_t expect = 0;
	tag_open(out, depth, "Distribution");
	tag_open(out, depth + 1, "Absolute");
	for (uint32_t i = 0; i < z.nr; i++) {
		const res_zone &r = z.zone[i];
		if (r.offset > expect)
			out << indent(depth + 2) << "<Range IO=\"0\">" << r.offset - expect << "</Range>\n";
		out << indent(depth + 2) << "<Range IO=\"" << r.io_pct << "\">" << r.bytes << "</Range>\n";
		expect = r.offset + r.bytes;
	}
	tag_close(out, depth + 1, "Absolute");
	tag_close(out, depth, "Distribution");
}

} // namespace xml

} // namespace report::diskspd

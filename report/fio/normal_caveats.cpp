// report/fio/normal_caveats.cpp - the end of fio's normal output as ioplan adds it:
// what makes the figures above partial or doubtful.
//
// The results carry every message of the run - preflight findings the cli
// attaches, I/O and verify errors with job, file and offset, stall warnings -
// and whether a signal stopped it.  JSON has them under "ioplan"; a reader of
// the text must not have to guess that the numbers cover only part of the
// plan, so they are printed after the disk stats, one line each.  Layout
// notices are already printed under the banner, as fio does.
#include <algorithm>
#include <cstring>
#include <ostream>
#include <string>

#include "report/caveats.hpp"
#include "report/formats.hpp"
#include "report/fio/normal.hpp"
#include "report/units.hpp"

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

// One measured run of an entry's jobs, direction d: the members' k-th runs together.
struct run_rate {
	double iops = 0;
	double bytes_per_s = 0;
};

std::vector<run_rate> entry_runs(const entry &e, const model &m, int d)
{
	std::vector<std::vector<const res_job *>> per_job;
	size_t n = SIZE_MAX;
	for (uint32_t id : e.job_ids) {
		std::vector<const res_job *> v;
		if (id < m.runs.size())
			for (const res_job *rj : m.runs[id].runs)
				if (!rj->discarded)
					v.push_back(rj);
		n = std::min(n, v.size());
		per_job.push_back(std::move(v));
	}
	std::vector<run_rate> out;
	for (size_t k = 0; n != SIZE_MAX && k < n; k++) {
		uint64_t bytes = 0, ios = 0, window = 0;
		for (const auto &v : per_job)
			for (uint32_t c = 0; c < v[k]->nr_clones; c++) {
				const res_ddir &dd = v[k]->clones[c].ddir[d];
				bytes += dd.bytes;
				ios += dd.ios;
				window = std::max(window, dd.runtime_ns);
			}
		// fio's arithmetic, as the IOPS/BW line above uses it: whole milliseconds.
		uint64_t ms = runtime_ms(window);
		if (ms)
			out.push_back({ (double)per_sec(ios, ms), (double)per_sec(bytes, ms) });
	}
	return out;
}

} // namespace

std::string normal_repeats(const entry &e, const model &m, int d)
{
	std::vector<run_rate> runs = entry_runs(e, m, d);
	if (runs.size() < 2 || !e.last)
		return "";
	std::vector<double> iops, bw;
	for (const run_rate &r : runs) {
		iops.push_back(r.iops);
		bw.push_back(r.bytes_per_s);
	}
	auto n2s = [&e](double v, unit u) {
		// IOPS in SI units as fio prints them (14.4k); bandwidth by kb_base.
		bool pow2 = u != unit::none && (!e.first || e.first->kb_base != 1000);
		return num2str((uint64_t)v, sig_figs_of(e.first), 1, pow2, u);
	};
	auto [ilo, ihi] = std::minmax_element(iops.begin(), iops.end());
	auto [blo, bhi] = std::minmax_element(bw.begin(), bw.end());
	return strf("    repeats: %zu runs, IOPS min=%s, median=%s, max=%s; BW min=%s, median=%s, max=%s; "
		    "the line above is %s run\n",
		    runs.size(), n2s(*ilo, unit::none).c_str(), n2s(median_of(iops), unit::none).c_str(),
		    n2s(*ihi, unit::none).c_str(), n2s(*blo, unit::byte_per_sec).c_str(),
		    n2s(median_of(bw), unit::byte_per_sec).c_str(), n2s(*bhi, unit::byte_per_sec).c_str(),
		    repeat_aggregate_word(e.last->repeat_aggregate));
}

std::string caveat_lines(const results &r, const plan &p)
{
	std::string s;
	for (const finding &f : findings_of(r, p, rate_basis::fio_whole_ms))
		s += "ioplan: warning: " + printable(f.text.c_str()) + '\n';
	return s;
}

void write_normal_messages(std::ostream &out, const results &r, const plan &p, personality who)
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
		if (!m.text || (m.code && (std::strcmp(m.code, "layout") == 0 ||
					   std::strcmp(m.code, "fio-note") == 0)))
			continue;
		if (who == personality::fio && !fio_ignored_line(m, p).empty())
			continue;
		start();
		out << "ioplan: " << level_word(m.level) << ": " << printable(m.text) << '\n';
	}
	for (const finding &f : findings_of(r, p, rate_basis::fio_whole_ms)) {
		if (f.from_engine || f.code == "cpu-bound")
			continue;
		start();
		out << "ioplan: warning: " << printable(f.text.c_str()) << '\n';
	}
}

} // namespace report

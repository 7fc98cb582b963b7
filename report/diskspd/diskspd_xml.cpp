// report/diskspd/diskspd_xml.cpp - DISKSPD 2.2's XML result document (-Rxml),
// and its <Profile> alone (-Rpxml).
//
// Element names and nesting follow DISKSPD's <Results> layout (System,
// Profile, TimeSpan with CpuUtilization, Latency, Iops, Thread/Target), so
// tools that read DISKSPD XML find their values; Windows-only elements
// (ETW, power scheme, processor groups beyond one) are left out.  Text is
// escaped, so any path yields a well-formed document.
#include "report/caveats.hpp"
#include "report/diskspd/diskspd.hpp"
#include "report/diskspd/diskspd_model.hpp"
#include "report/diskspd/diskspd_xml.hpp"
#include "report/report.hpp"

#include <cstdio>
#include <sstream>
#include <string>

namespace report::diskspd {

namespace {

using namespace xml;

void system_xml(std::ostream &out, const results &r)
{
	tag_open(out, 1, "System");
	el(out, 2, "ComputerName", esc(r.hostname));
	tag_open(out, 2, "Tool");
	el(out, 3, "Version", esc(report::version_string()));
	tag_close(out, 2, "Tool");
	el(out, 2, "RunTime", start_time_utc(r.start_wall_ns));
	tag_open(out, 2, "ProcessorTopology");
	out << "      <Group Group=\"0\" MaximumProcessors=\"" << r.nr_cpus << "\" ActiveProcessors=\""
	    << r.nr_cpus << "\"/>\n";
	tag_close(out, 2, "ProcessorTopology");
	tag_close(out, 1, "System");
}

void cpu_xml(std::ostream &out, const cpu_row &c, const char *name, bool with_id)
{
	tag_open(out, 3, name);
	if (with_id) {
		el(out, 4, "Group", 0);
		el(out, 4, "Id", c.id);
	}
	el(out, 4, "UsagePercent", fmt("%.2f", c.usage));
	el(out, 4, "UserPercent", fmt("%.2f", c.user));
	el(out, 4, "KernelPercent", fmt("%.2f", c.kernel));
	el(out, 4, "IdlePercent", fmt("%.2f", c.idle));
	tag_close(out, 3, name);
}

void bucket(std::ostream &out, const std::string &pct, const res_lat &r, const res_lat &w,
	    const res_lat &t, double fraction)
{
	auto at = [fraction](const res_lat &l) {
		return fraction <= 0 ? l.min_ns / 1e6 : fraction >= 1 ? l.max_ns / 1e6
								: percentile_ms(l, fraction);
	};
	tag_open(out, 3, "Bucket");
	el(out, 4, "Percentile", pct);
	if (r.n)
		el(out, 4, "ReadMilliseconds", fmt("%.3f", at(r)));
	if (w.n)
		el(out, 4, "WriteMilliseconds", fmt("%.3f", at(w)));
	el(out, 4, "TotalMilliseconds", fmt("%.3f", t.n ? at(t) : 0.0));
	tag_close(out, 3, "Bucket");
}

void latency_xml(std::ostream &out, const run_view &v)
{
	lat_sum r, w, t, cr(true), cw(true), ct(true);
	for (const row &x : v.merged) {
		r.add(x, section::read);
		w.add(x, section::write);
		t.add(x, section::total);
		cr.add(*x.clone, section::read);
		cw.add(*x.clone, section::write);
		ct.add(*x.clone, section::total);
	}
	tag_open(out, 2, "Latency");
	if (r.get().n) {
		el(out, 3, "AverageReadMilliseconds", fmt("%.3f", mean_ms(r.get())));
		el(out, 3, "ReadLatencyStdev", fmt("%.3f", stddev_ms(r.get())));
	}
	if (w.get().n) {
		el(out, 3, "AverageWriteMilliseconds", fmt("%.3f", mean_ms(w.get())));
		el(out, 3, "WriteLatencyStdev", fmt("%.3f", stddev_ms(w.get())));
	}
	el(out, 3, "AverageTotalMilliseconds", fmt("%.3f", mean_ms(t.get())));
	el(out, 3, "LatencyStdev", fmt("%.3f", stddev_ms(t.get())));
	bucket(out, "0", cr.get(), cw.get(), ct.get(), 0);
	for (int p = 1; p <= 99; p++)
		bucket(out, std::to_string(p), cr.get(), cw.get(), ct.get(), p / 100.0);
	for (int i = 6; i < 13; i++) {	// 3-nines .. 9-nines
		int digits = i - 5;
		bucket(out, fmt(("%." + std::to_string(digits) + "f").c_str(), latency_rows[i].fraction * 100),
		       cr.get(), cw.get(), ct.get(), latency_rows[i].fraction);
	}
	bucket(out, "100", cr.get(), cw.get(), ct.get(), 1);
	tag_close(out, 2, "Latency");
}

void thread_xml(std::ostream &out, const row &w, const options &o)
{
	tag_open(out, 2, "Thread");
	el(out, 3, "Id", w.thread);
	tag_open(out, 3, "Target");
	el(out, 4, "Path", esc(w.path));
	el(out, 4, "BytesCount", bytes_of(w, section::total));
	el(out, 4, "FileSize", w.file_bytes);
	el(out, 4, "IOCount", ios_of(w, section::total));
	el(out, 4, "ReadBytes", bytes_of(w, section::read));
	el(out, 4, "ReadCount", ios_of(w, section::read));
	el(out, 4, "WriteBytes", bytes_of(w, section::write));
	el(out, 4, "WriteCount", ios_of(w, section::write));
	if (const res_zones *z = row_distribution(w))
		xml::effective_distribution(out, 4, *z);
	if (o.measure_latency) {
		lat_sum r, wr, t;
		r.add(w, section::read);
		wr.add(w, section::write);
		t.add(w, section::total);
		if (r.get().n) {
			el(out, 4, "AverageReadLatencyMilliseconds", fmt("%.3f", mean_ms(r.get())));
			el(out, 4, "ReadLatencyStdev", fmt("%.3f", stddev_ms(r.get())));
		}
		if (wr.get().n) {
			el(out, 4, "AverageWriteLatencyMilliseconds", fmt("%.3f", mean_ms(wr.get())));
			el(out, 4, "WriteLatencyStdev", fmt("%.3f", stddev_ms(wr.get())));
		}
		el(out, 4, "AverageLatencyMilliseconds", fmt("%.3f", mean_ms(t.get())));
		el(out, 4, "LatencyStdev", fmt("%.3f", stddev_ms(t.get())));
	}
	if (o.iops_stddev)
		xml::iops(out, 4, { &w }, o);
	tag_close(out, 3, "Target");
	tag_close(out, 2, "Thread");
}

void timespan_xml(std::ostream &out, const run_view &v, const options &o)
{
	tag_open(out, 1, "TimeSpan");
	if (v.seconds < 0.0000001) {
		el(out, 2, "Error", "The test was interrupted before the measurements began. No "
				   "results are displayed.");
		tag_close(out, 1, "TimeSpan");
		return;
	}
	el(out, 2, "TestTimeSeconds", fmt("%.2f", v.seconds));
	el(out, 2, "ThreadCount", v.rows.size());
	el(out, 2, "RequestCount", 0);
	el(out, 2, "ProcCount", v.cpus.size());
	tag_open(out, 2, "CpuUtilization");
	for (const cpu_row &c : v.cpus)
		cpu_xml(out, c, "CPU", true);
	cpu_xml(out, v.avg, "Average", false);
	tag_close(out, 2, "CpuUtilization");
	if (o.measure_latency)
		latency_xml(out, v);
	if (o.iops_stddev) {
		std::vector<const row *> all;
		for (const row &w : v.merged)
			all.push_back(&w);
		xml::iops(out, 2, all, o);
	}
	for (const row &w : v.rows)
		thread_xml(out, w, o);
	tag_close(out, 1, "TimeSpan");
}

// ioplan's own element, after DISKSPD's: readers that know only DISKSPD's
// layout skip it, and a script finds every caveat in one place.
void warnings_xml(std::ostream &out, const run_view &v, const results &r, const plan &p)
{
	std::vector<finding> f = findings_of(r, p);
	std::vector<std::string> ended = failures(v, r);
	if (f.empty() && ended.empty())
		return;
	tag_open(out, 1, "Warnings");
	for (const std::string &x : ended)
		out << indent(2) << "<Warning Code=\"" << (x.rfind("interrupted", 0) == 0 ? "interrupted" : "error")
		    << "\">" << esc(x) << "</Warning>\n";
	for (const finding &x : f)
		out << indent(2) << "<Warning Code=\"" << esc(x.code) << "\">" << esc(x.text) << "</Warning>\n";
	tag_close(out, 1, "Warnings");
}

} // namespace

void write_xml(const results &r, const plan &p, const options &o, std::ostream &out)
{
	run_view v = make_view(r, p);
	out << "<Results>\n";
	system_xml(out, r);
	xml::profile(out, p, o);
	timespan_xml(out, v, o);
	warnings_xml(out, v, r, p);
	out << "</Results>\n";
}

void write_xml_profile(const plan &p, const options &o, std::ostream &out)
{
	// xml::profile writes the element where <Results> holds it, one level in.
	std::ostringstream in;
	xml::profile(in, p, o);
	std::istringstream lines(in.str());
	for (std::string line; std::getline(lines, line);)
		out << line.substr(line.compare(0, 2, "  ") == 0 ? 2 : 0) << "\n";
}

} // namespace report::diskspd

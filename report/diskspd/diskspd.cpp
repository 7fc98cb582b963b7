// report/diskspd/diskspd.cpp - DISKSPD 2.2's text output (-Rtext).
//
// Column widths, separators and the total row (which has no thread cell, so
// its fields sit one column left of the header's) are DISKSPD 2.2's, because
// scripts in the wild cut this text by field number; the seeds' pipeline
// `awk '/^Total IO$/ {getline;getline;getline; print $7}'` reads thread 0's
// MiB/s.  Only what Linux does not have differs: no processor groups or
// cores in the CPU table, no power scheme.
#include "report/caveats.hpp"
#include "report/diskspd/diskspd.hpp"
#include "report/diskspd/diskspd_model.hpp"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace report::diskspd {

namespace {

// printf into the stream (DISKSPD's layout is a set of printf widths).
void pf(std::ostream &out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pf(std::ostream &out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out << buf;
}

void system_info(std::ostream &out, const results &r)
{
	out << "System information:\n\n";
	out << "\tcomputer name: " << r.hostname << "\n";
	out << "\tstart time: " << start_time_utc(r.start_wall_ns) << "\n\n";
	out << "\tcpu count:\t\t" << r.nr_cpus << "\n";
	if (r.kernel[0])
		out << "\tkernel:\t\t\t" << r.kernel << "\n";
}

void cpu_table(std::ostream &out, const run_view &v)
{
	static const char dashes[] = "----------------------------------------\n";
	out << "\nCPU |  Usage |  User  | Kernel |  Idle\n" << dashes;
	for (const cpu_row &c : v.cpus)
		pf(out, "%4u| %6.2f%%| %6.2f%%| %6.2f%%| %6.2f%%\n", c.id, c.usage, c.user, c.kernel,
		   c.idle);
	out << dashes;
	pf(out, "avg.| %6.2f%%| %6.2f%%| %6.2f%%| %6.2f%%\n", v.avg.usage, v.avg.user, v.avg.kernel,
	   v.avg.idle);
}

void io_header(std::ostream &out, const options &o)
{
	out << "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s "
	    << (o.measure_latency ? "|  AvgLat  " : "") << (o.iops_stddev ? "| IopsStdDev " : "")
	    << (o.measure_latency ? "| LatStdDev " : "") << "|  file\n";
}

void io_border(std::ostream &out, const options &o)
{
	out << std::string(66, '-') << std::string(o.measure_latency ? 11 : 0, '-')
	    << std::string(o.iops_stddev ? 13 : 0, '-') << std::string(o.measure_latency ? 12 : 0, '-')
	    << std::string(12, '-') << "\n";
}

// The cells after "I/O per s": AvgLat, IopsStdDev, LatStdDev as asked for.
void stat_cells(std::ostream &out, const options &o, const res_lat &lat,
		const std::vector<double> &iops)
{
	if (o.measure_latency)
		pf(out, " | %8.3f", mean_ms(lat));
	if (o.iops_stddev)
		pf(out, " | %10.2f", pop_stddev(iops));
	if (o.measure_latency) {
		if (lat.n)
			pf(out, " |  %8.3f", stddev_ms(lat));
		else
			out << " |       N/A";
	}
}

void io_table(std::ostream &out, const run_view &v, const options &o, section s)
{
	io_header(out, o);
	io_border(out, o);
	for (const row &w : v.rows) {
		uint64_t b = bytes_of(w, s), n = ios_of(w, s);
		lat_sum lat;
		lat.add(w, s);
		std::vector<double> iops = iops_samples(w, s);
		pf(out, "%6u | %15llu | %12llu | %10.2f | %10.2f", w.thread, (unsigned long long)b,
		   (unsigned long long)n, (double)b / 1048576.0 / v.seconds, (double)n / v.seconds);
		stat_cells(out, o, lat.get(), iops);
		out << " | " << w.path << " (" << display_size(w.file_bytes) << ")\n";
	}
	// The totals are the merged clones' (the same sums; under mpirun their
	// per-interval samples lie on one grid of the common clock).
	uint64_t bytes = 0, ios = 0;
	lat_sum total;
	std::vector<double> total_iops;
	for (const row &w : v.merged) {
		bytes += bytes_of(w, s);
		ios += ios_of(w, s);
		total.add(w, s);
		add_samples(&total_iops, iops_samples(w, s));
	}
	io_border(out, o);
	pf(out, "total:   %15llu | %12llu | %10.2f | %10.2f", (unsigned long long)bytes,
	   (unsigned long long)ios, (double)bytes / 1048576.0 / v.seconds, (double)ios / v.seconds);
	stat_cells(out, o, total.get(), total_iops);
	out << "\n";
}

std::string cell(const res_lat &l, double ms)
{
	if (!l.n)
		return "N/A";
	char buf[32];
	snprintf(buf, sizeof(buf), "%10.3f", ms);
	return buf;
}

double total_ms(const res_lat &l, double ms) { return l.n ? ms : 0.0; }

void latency_chart(std::ostream &out, const res_lat &r, const res_lat &w, const res_lat &t)
{
	out << "  %-ile |  Read (ms) | Write (ms) | Total (ms)\n";
	out << std::string(46, '-') << "\n";
	pf(out, "    min | %10s | %10s | %10.3f\n", cell(r, r.min_ns / 1e6).c_str(),
	   cell(w, w.min_ns / 1e6).c_str(), total_ms(t, t.min_ns / 1e6));
	for (const pct_row &p : latency_rows)
		pf(out, "%7s | %10s | %10s | %10.3f\n", p.label, cell(r, percentile_ms(r, p.fraction)).c_str(),
		   cell(w, percentile_ms(w, p.fraction)).c_str(), total_ms(t, percentile_ms(t, p.fraction)));
	pf(out, "    max | %10s | %10s | %10.3f\n", cell(r, r.max_ns / 1e6).c_str(),
	   cell(w, w.max_ns / 1e6).c_str(), total_ms(t, t.max_ns / 1e6));
}

// One chart per target when there are several, then the one over all of them.
void latency_tables(std::ostream &out, const run_view &v)
{
	std::vector<std::string> paths;
	for (const row &w : v.merged) {
		bool seen = false;
		for (const std::string &p : paths)
			seen = seen || p == w.path;
		if (!seen)
			paths.push_back(w.path);
	}
	for (size_t i = 0; v.target_charts && paths.size() > 1 && i < paths.size(); i++) {
		lat_sum r(true), w(true), t(true);
		for (const row &x : v.merged) {
			if (x.path != paths[i])
				continue;
			r.add(*x.clone, section::read);
			w.add(*x.clone, section::write);
			t.add(*x.clone, section::total);
		}
		out << "\nLatency distribution: " << paths[i] << "\n";
		latency_chart(out, r.get(), w.get(), t.get());
	}
	lat_sum r(true), w(true), t(true);
	for (const row &x : v.merged) {
		r.add(*x.clone, section::read);
		w.add(*x.clone, section::write);
		t.add(*x.clone, section::total);
	}
	out << "\nTotal latency distribution:\n";
	latency_chart(out, r.get(), w.get(), t.get());
}

// DISKSPD's own warnings are lines after the results; ioplan's findings
// follow in one block, one per line, so a reader of the text meets them.
void warnings_block(std::ostream &out, const run_view &v, const results &r, const plan &p)
{
	std::vector<finding> f = findings_of(r, p);
	std::vector<std::string> ended = failures(v, r);
	if (f.empty() && ended.empty())
		return;
	out << "\nWarnings:\n";
	for (const std::string &x : ended)
		out << "  " << x << "\n";
	for (const finding &x : f)
		out << "  " << x.text << "\n";
}

} // namespace

void write_text(const results &r, const plan &p, const options &o, std::ostream &out)
{
	run_view v = make_view(r, p);
	out << "\nCommand Line: " << o.command_line << "\n\n";
	write_parameters(out, p, o);
	system_info(out, r);
	out << "\nResults for timespan 1:\n" << std::string(79, '*') << "\n";
	if (v.seconds < 0.0000001) {
		out << "The test was interrupted before the measurements began. No results are "
		       "displayed.\n";
		warnings_block(out, v, r, p);
		return;
	}
	pf(out, "\nactual test time:\t%.2fs\n", v.seconds);
	out << "thread count:\t\t" << v.rows.size() << "\n";
	cpu_table(out, v);
	effective_distributions(out, v);
	out << "\nTotal IO\n";
	io_table(out, v, o, section::total);
	out << "\nRead IO\n";
	io_table(out, v, o, section::read);
	out << "\nWrite IO\n";
	io_table(out, v, o, section::write);
	if (o.measure_latency)
		latency_tables(out, v);
	warnings_block(out, v, r, p);
}

} // namespace report::diskspd

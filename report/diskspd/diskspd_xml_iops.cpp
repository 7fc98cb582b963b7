// report/diskspd/diskspd_xml_iops.cpp - the <Iops> element of DISKSPD's XML document
// (-D): the IOPS standard deviations and the per-interval I/O counts (and,
// with -L, latencies) behind them, for one thread or the rows merged.
#include "report/diskspd/diskspd_xml.hpp"

namespace report::diskspd::xml {

namespace {

struct interval {
	uint64_t ios[2] = {};		// read, write
	uint64_t lat_sum_ns[2] = {};
	uint64_t lat_max_ns[2] = {};
};

std::vector<interval> merged_intervals(const std::vector<const row *> &rows)
{
	std::vector<interval> out;
	for (const row *w : rows) {
		if (!w->series)
			continue;
		uint32_t n = kept_buckets(*w);
		const res_series &s = *w->series;
		if (out.size() < n)
			out.resize(n);
		for (uint32_t i = 0; i < n; i++) {
			for (int d = 0; d < 2; d++) {
				out[i].ios[d] += s.samples[i].ios[d];
				out[i].lat_sum_ns[d] += s.samples[i].lat_sum_ns[d];
				if (s.samples[i].lat_max_ns[d] > out[i].lat_max_ns[d])
					out[i].lat_max_ns[d] = s.samples[i].lat_max_ns[d];
			}
		}
	}
	return out;
}

double stddev_of(const std::vector<const row *> &rows, section s)
{
	std::vector<double> acc;
	for (const row *w : rows)
		add_samples(&acc, iops_samples(*w, s));
	return pop_stddev(acc);
}

void latency_attrs(std::ostream &out, const interval &b, int d, const char *name)
{
	double avg = b.ios[d] ? (double)b.lat_sum_ns[d] / (double)b.ios[d] / 1e6 : 0.0;
	out << " " << name << "AvgLatencyMilliseconds=\"" << fmt("%.3f", avg) << "\" " << name
	    << "MaxLatencyMilliseconds=\"" << fmt("%.3f", (double)b.lat_max_ns[d] / 1e6) << "\"";
}

} // namespace

void iops(std::ostream &out, int depth, const std::vector<const row *> &rows, const options &o)
{
	tag_open(out, depth, "Iops");
	el(out, depth + 1, "ReadIopsStdDev", fmt("%.3f", stddev_of(rows, section::read)));
	el(out, depth + 1, "WriteIopsStdDev", fmt("%.3f", stddev_of(rows, section::write)));
	el(out, depth + 1, "IopsStdDev", fmt("%.3f", stddev_of(rows, section::total)));
	std::vector<interval> b = merged_intervals(rows);
	for (size_t i = 0; i < b.size(); i++) {
		out << indent(depth + 1) << "<Bucket SampleMillisecond=\""
		    << (uint64_t)(i + 1) * o.iops_interval_ms << "\" Read=\"" << b[i].ios[0]
		    << "\" Write=\"" << b[i].ios[1] << "\" Total=\"" << b[i].ios[0] + b[i].ios[1] << "\"";
		if (o.measure_latency) {
			latency_attrs(out, b[i], 0, "Read");
			latency_attrs(out, b[i], 1, "Write");
		}
		out << "/>\n";
	}
	tag_close(out, depth, "Iops");
}

} // namespace report::diskspd::xml

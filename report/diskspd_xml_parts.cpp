// report/diskspd_xml_parts.cpp - the <Profile> and <Iops> parts of DISKSPD's
// XML document (diskspd_xml.hpp): what ran, read back from the plan, and the
// per-interval I/O counts behind IopsStdDev.
#include "report/diskspd_xml.hpp"

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
		const res_clone &c = *w->clone;
		const res_series &s = c.iops_series.nr ? c.iops_series : c.bw_series;
		uint32_t n = kept_buckets(*w);
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

uint32_t write_pct(const plan_job &j)
{
	if (!plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE))
		return 0;
	return plan_rw_has_ddir(j.rw, PLAN_DDIR_READ) ? 100 - j.rwmixread_pct : 100;
}

void buffer_content(std::ostream &out, const plan_job &j)
{
	tag_open(out, 6, "WriteBufferContent");
	if (j.buffer_fill == PLAN_BUF_ZERO) {
		el(out, 7, "Pattern", "zero");
	} else if (j.buffer_fill == PLAN_BUF_RANDOM_ONCE) {
		el(out, 7, "Pattern", "random");
		tag_open(out, 7, "RandomDataSource");
		el(out, 8, "SizeInBytes", j.write_source_bytes);
		tag_close(out, 7, "RandomDataSource");
	} else {
		el(out, 7, "Pattern", "sequential");
	}
	tag_close(out, 6, "WriteBufferContent");
}

void access_pattern(std::ostream &out, const plan_job &j, uint64_t bs)
{
	if (plan_rw_is_random(j.rw)) {
		uint64_t align = j.bs[PLAN_DDIR_READ].align_bytes ? j.bs[PLAN_DDIR_READ].align_bytes : bs;
		el(out, 6, "Random", align);
		uint32_t pct = j.percentage_random_pct[PLAN_DDIR_READ];
		if (pct > 0 && pct < 100)
			el(out, 6, "RandomRatio", pct);
	} else {
		el(out, 6, "StrideSize", j.sequential_stride_bytes ? j.sequential_stride_bytes : bs);
		el(out, 6, "InterlockedSequential", tf(j.interlocked));
	}
}

void target(std::ostream &out, const plan_job &j, const plan_file &f)
{
	uint64_t bs = write_pct(j) == 100 ? j.bs[PLAN_DDIR_WRITE].min_bytes
					  : j.bs[PLAN_DDIR_READ].min_bytes;
	tag_open(out, 5, "Target");
	el(out, 6, "Path", esc(f.path ? f.path : ""));
	el(out, 6, "BlockSize", bs);
	el(out, 6, "BaseFileOffset", j.offset_bytes);
	el(out, 6, "SequentialScan", "false");
	el(out, 6, "RandomAccess", "false");
	el(out, 6, "TemporaryFile", "false");
	el(out, 6, "UseLargePages", "false");
	el(out, 6, "DisableOSCache", tf(j.direct));
	el(out, 6, "WriteThrough", tf(j.sync_mode != PLAN_SYNC_NONE));
	buffer_content(out, j);
	el(out, 6, "ParallelAsyncIO", "false");
	el(out, 6, "FileSize", f.size_bytes);
	access_pattern(out, j, bs);
	el(out, 6, "ThreadStride", j.offset_increment_bytes);
	el(out, 6, "MaxFileSize", f.region_bytes ? j.offset_bytes + f.region_bytes : 0);
	el(out, 6, "RequestCount", j.iodepth);
	el(out, 6, "WriteRatio", write_pct(j));
	uint64_t iops = j.rate_iops[PLAN_DDIR_READ] + j.rate_iops[PLAN_DDIR_WRITE];
	uint64_t bps = j.rate_bytes_per_s[PLAN_DDIR_READ] + j.rate_bytes_per_s[PLAN_DDIR_WRITE];
	if (iops)
		out << indent(6) << "<Throughput unit=\"IOPS\">" << iops << "</Throughput>\n";
	else
		el(out, 6, "Throughput", bps / 1000);
	el(out, 6, "ThreadsPerFile", j.nr_clones);
	el(out, 6, "IOPriority", 3);
	el(out, 6, "Weight", 1);
	tag_close(out, 5, "Target");
}

void timespan_settings(std::ostream &out, const plan &p, const options &o)
{
	const plan_job *j0 = plan_job_at(&p, 0);
	el(out, 4, "CompletionRoutines", "false");
	el(out, 4, "MeasureLatency", tf(o.measure_latency));
	el(out, 4, "CalculateIopsStdDev", tf(o.iops_stddev));
	el(out, 4, "DisableAffinity", tf(o.disable_affinity));
	el(out, 4, "Duration", j0 ? j0->runtime_ns / 1000000000u : 0);
	el(out, 4, "Warmup", j0 ? j0->ramp_time_ns / 1000000000u : 0);
	el(out, 4, "Cooldown", j0 ? j0->cooldown_ns / 1000000000u : 0);
	el(out, 4, "ThreadCount", 0);
	el(out, 4, "RequestCount", 0);
	el(out, 4, "IoBucketDuration", o.iops_interval_ms);
	el(out, 4, "RandSeed", first_seed(p));
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

void profile(std::ostream &out, const plan &p, const options &o)
{
	tag_open(out, 1, "Profile");
	el(out, 2, "Progress", 0);
	el(out, 2, "ResultFormat", "xml");
	el(out, 2, "Verbose", tf(o.verbose));
	tag_open(out, 2, "TimeSpans");
	tag_open(out, 3, "TimeSpan");
	timespan_settings(out, p, o);
	tag_open(out, 4, "Targets");
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		if (!j.nr_clones)
			continue;
		for (uint32_t f = 0; f < j.clones[0].nr_files; f++)
			target(out, j, j.clones[0].files[f]);
	}
	tag_close(out, 4, "Targets");
	tag_close(out, 3, "TimeSpan");
	tag_close(out, 2, "TimeSpans");
	tag_close(out, 1, "Profile");
}

} // namespace report::diskspd::xml

// report/diskspd/diskspd_model.cpp - rows, test time, CPU use and DISKSPD's
// statistics (diskspd_model.hpp), shared by the text and XML writers.
#include "report/diskspd/diskspd_model.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

namespace report::diskspd {

const pct_row latency_rows[13] = {
	{ "25th", 0.25 },	    { "50th", 0.50 },	       { "75th", 0.75 },
	{ "90th", 0.90 },	    { "95th", 0.95 },	       { "99th", 0.99 },
	{ "3-nines", 0.999 },	    { "4-nines", 0.9999 },     { "5-nines", 0.99999 },
	{ "6-nines", 0.999999 },    { "7-nines", 0.9999999 },  { "8-nines", 0.99999999 },
	{ "9-nines", 0.999999999 },
};

lat_sum::lat_sum(bool chart) : l_(), chart_(chart)
{
	l_.min_ns = UINT64_MAX;
}

lat_sum::~lat_sum() { free(l_.hist); }

void lat_sum::merge(const res_lat &src)
{
	if (res_lat_merge(&l_, &src) != 0)
		throw std::bad_alloc();
}

void lat_sum::add(const res_clone &c, section s)
{
	for (enum plan_ddir d : { PLAN_DDIR_READ, PLAN_DDIR_WRITE })
		if (s == section::total || (d == PLAN_DDIR_READ) == (s == section::read))
			merge(chart_ ? chart_lat_of(c.ddir[d]) : lat_of(c.ddir[d]));
}

const res_lat &lat_of(const res_ddir &d)
{
	return d.lat.n || !d.clat.n ? d.lat : d.clat;
}

const res_lat &chart_lat_of(const res_ddir &d)
{
	const res_lat &l = lat_of(d);
	return l.hist || !d.clat.hist ? l : d.clat;
}

uint64_t bytes_of(const res_clone &c, section s)
{
	uint64_t r = c.ddir[PLAN_DDIR_READ].bytes, w = c.ddir[PLAN_DDIR_WRITE].bytes;
	return s == section::read ? r : s == section::write ? w : r + w;
}

uint64_t ios_of(const res_clone &c, section s)
{
	uint64_t r = c.ddir[PLAN_DDIR_READ].ios, w = c.ddir[PLAN_DDIR_WRITE].ios;
	return s == section::read ? r : s == section::write ? w : r + w;
}

double mean_ms(const res_lat &l)
{
	return l.n ? (double)l.sum_ns / (double)l.n / 1e6 : 0.0;
}

double stddev_ms(const res_lat &l)
{
	if (!l.n)
		return 0.0;
	long double n = (long double)l.n;
	long double sumsq = (long double)l.sumsq_hi * 18446744073709551616.0L + (long double)l.sumsq_lo;
	long double mean = (long double)l.sum_ns / n;
	long double var = sumsq / n - mean * mean;
	return var > 0 ? (double)(std::sqrt(var) / 1e6L) : 0.0;
}

double percentile_ms(const res_lat &l, double fraction)
{
	// Not res_lat_percentile: that follows fio's rounding of p * n, which
	// decides exact ties (50% of 10 samples) differently from DISKSPD.
	if (!l.n || !l.hist)
		return 0.0;
	const double target = fraction * (double)l.n;
	// The rank's sample is known exactly at the ends: the first (a target of
	// at most 1) is the minimum, the last (a target past n - 1) the maximum.
	// DISKSPD keeps every value, so its 9-nines of fewer than 10^9 I/Os is
	// its max; a bucket's value would print below it.
	if (target <= 1.0)
		return (double)l.min_ns / 1e6;
	if (target > (double)(l.n - 1))
		return (double)l.max_ns / 1e6;
	uint64_t cum = 0;
	for (uint32_t i = 0; i < RES_HIST_NR; i++) {
		cum += l.hist[i];
		if (cum == 0 || (double)cum < target)
			continue;
		uint64_t v = res_hist_value(i);
		v = v < l.min_ns ? l.min_ns : v > l.max_ns ? l.max_ns : v;
		return (double)v / 1e6;
	}
	return (double)l.max_ns / 1e6;
}

uint32_t kept_buckets(const row &w)
{
	const res_series &se = w.clone->iops_series.nr ? w.clone->iops_series : w.clone->bw_series;
	uint64_t width = se.interval_ns;
	if (!se.nr || !w.job || !w.job->runtime_ns || !width)
		return se.nr;
	// DISKSPD keeps ceil(duration / bucket) buckets: I/Os completing after -d are dropped.
	uint64_t keep = (w.job->runtime_ns + width - 1) / width;
	return keep < se.nr ? (uint32_t)keep : se.nr;
}

std::vector<double> iops_samples(const row &w, section s)
{
	const res_clone &c = *w.clone;
	const res_series &se = c.iops_series.nr ? c.iops_series : c.bw_series;
	std::vector<double> out;
	for (uint32_t i = 0; i < kept_buckets(w); i++) {
		const res_sample &sm = se.samples[i];
		uint64_t n = s == section::read	   ? sm.ios[PLAN_DDIR_READ]
			     : s == section::write ? sm.ios[PLAN_DDIR_WRITE]
						   : sm.ios[PLAN_DDIR_READ] + sm.ios[PLAN_DDIR_WRITE];
		uint64_t t = sm.t_end_ns > sm.t_start_ns ? sm.t_end_ns - sm.t_start_ns : 0;
		out.push_back(t ? (double)n * 1e9 / (double)t : 0.0);
	}
	return out;
}

void add_samples(std::vector<double> *acc, const std::vector<double> &s)
{
	if (acc->size() < s.size())
		acc->resize(s.size(), 0.0);
	for (size_t i = 0; i < s.size(); i++)
		(*acc)[i] += s[i];
}

double pop_stddev(const std::vector<double> &v)
{
	if (v.empty())
		return 0.0;
	double mean = 0, ssd = 0;
	for (double x : v)
		mean += x / (double)v.size();
	for (double x : v)
		ssd += (x - mean) * (x - mean);
	return std::sqrt(ssd / (double)v.size());
}

throughput_limit throughput_of(const plan_job &j)
{
	throughput_limit t;
	for (enum plan_ddir d : { PLAN_DDIR_READ, PLAN_DDIR_WRITE })
		if (plan_rw_has_ddir(j.rw, d)) {
			t.iops += j.rate_iops[d];
			t.bytes_per_s += j.rate_bytes_per_s[d];
		}
	return t;
}

uint64_t max_file_bytes(const plan_job &j, const plan_file &f, const options &o)
{
	if (o.max_bytes)
		return o.max_bytes;
	return f.region_bytes ? j.offset_bytes + f.region_bytes : 0;
}

std::string display_size(uint64_t bytes, int width)
{
	static const struct {
		unsigned shift;
		const char *name;
	} units[] = { { 40, "TiB" }, { 30, "GiB" }, { 20, "MiB" }, { 10, "KiB" } };
	char buf[48];
	for (const auto &u : units) {
		uint64_t one = 1ull << u.shift;
		if (bytes < one)
			continue;
		if (bytes % one == 0)
			snprintf(buf, sizeof(buf), "%*llu%s", width, (unsigned long long)(bytes >> u.shift), u.name);
		else
			snprintf(buf, sizeof(buf), "%*.2f%s", width, (double)bytes / (double)one, u.name);
		return buf;
	}
	return std::to_string(bytes);
}

std::string start_time_utc(uint64_t wall_ns)
{
	time_t t = (time_t)(wall_ns / 1000000000u);
	struct tm tm;
	gmtime_r(&t, &tm);
	char buf[64];
	strftime(buf, sizeof(buf), "%Y/%m/%d %H:%M:%S UTC", &tm);
	return buf;
}

namespace {

std::string paths_of(const plan_clone &pc)
{
	std::string s;
	for (uint32_t f = 0; f < pc.nr_files; f++)
		s += (f ? "," : "") + std::string(pc.files[f].path ? pc.files[f].path : "");
	return s;
}

void add_rows(run_view &v, const results &r, const plan &p)
{
	uint64_t start = UINT64_MAX, end = 0;
	for (uint32_t j = 0; j < r.nr_jobs; j++) {
		const res_job &rj = r.jobs[j];
		const plan_job *pj = plan_job_at(&p, rj.job_id);
		if (rj.discarded || !pj)
			continue;
		for (uint32_t c = 0; c < rj.nr_clones; c++) {
			const res_clone &cl = rj.clones[c];
			row w;
			w.thread = (uint32_t)v.rows.size();
			w.clone = &cl;
			w.job = pj;
			if (cl.clone_index < pj->nr_clones && pj->clones[cl.clone_index].nr_files) {
				const plan_clone &pc = pj->clones[cl.clone_index];
				w.path = paths_of(pc);
				// The line's -c size; without -c, the target's as the run opened it
				// (DISKSPD shows the size it found).
				w.file_bytes = pc.files[0].size_bytes ? pc.files[0].size_bytes : cl.file_bytes;
				w.pclone = &pc;
			}
			v.rows.push_back(w);
			if (cl.end_ns > cl.start_ns) {
				start = cl.start_ns < start ? cl.start_ns : start;
				end = cl.end_ns > end ? cl.end_ns : end;
			}
		}
	}
	v.seconds = end > start ? (double)(end - start) / 1e9 : 0.0;
}

void add_cpus(run_view &v, const results &r)
{
	for (uint32_t i = 0; i < r.nr_cpus; i++) {
		const res_cpu &c = r.cpus[i];
		double all = (double)(c.user_ns + c.system_ns + c.idle_ns);
		cpu_row x;
		x.id = c.id;
		if (all > 0) {
			x.user = 100.0 * (double)c.user_ns / all;
			x.kernel = 100.0 * (double)c.system_ns / all;
			x.idle = 100.0 * (double)c.idle_ns / all;
			x.usage = x.user + x.kernel;
		}
		v.cpus.push_back(x);
		double n = (double)r.nr_cpus;
		v.avg.usage += x.usage / n;
		v.avg.user += x.user / n;
		v.avg.kernel += x.kernel / n;
		v.avg.idle += x.idle / n;
	}
}

} // namespace

namespace {

// "thread 0 stopped at an error ...: write z.dat at offset 0: File too large (errno 27)"
std::string thread_failure(const row &w)
{
	const res_clone &c = *w.clone;
	int err = c.nr_errors && c.errors[0].err ? c.errors[0].err : c.error;
	std::string s = "thread " + std::to_string(w.thread) +
			" stopped at an error, so its figures cover only the time before it: ";
	if (c.nr_errors) {
		const res_error &e = c.errors[0];
		s += e.what;
		if (w.pclone && e.file_index < w.pclone->nr_files && w.pclone->files[e.file_index].path)
			s += std::string(" ") + w.pclone->files[e.file_index].path;
		if (e.len)
			s += " at offset " + std::to_string(e.offset);
		s += ": ";
	}
	s += err ? std::string(strerror(err)) + " (errno " + std::to_string(err) + ")" : "short transfer";
	return s;
}

} // namespace

std::vector<std::string> failures(const run_view &v, const results &r)
{
	std::vector<std::string> out;
	if (r.interrupted)
		out.push_back("interrupted: the figures cover only what ran before the stop");
	for (const row &w : v.rows)
		if (w.clone && (w.clone->error || (w.clone->nr_errors && w.clone->errors[0].err)))
			out.push_back(thread_failure(w));
	return out;
}

run_view make_view(const results &r, const plan &p)
{
	run_view v;
	add_rows(v, r, p);
	add_cpus(v, r);
	return v;
}

} // namespace report::diskspd

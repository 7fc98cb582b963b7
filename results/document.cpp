// results/document.cpp - a stored run as a result document in fio's layout
// (record.hpp), so what reads result files - the HTML page of `ioplan
// results report` - reads a run from the store the same way.
//
// Only what the store keeps comes back: per job and direction the figures,
// completion-latency percentiles recomputed from the exact buckets (fio's
// default list, each the first bucket whose count so far reaches pct% of all,
// as fio's calc_clat_percentiles and the run's own report find it), or, for a run stored
// without buckets (an fio json file), the mean, p50, p99 and p99.9 it
// recorded (its I/Os as N), the per-interval bandwidth
// as the ioplan series, the warnings and the environment.
#include <algorithm>
#include <cstdio>
#include <ctime>

#include "results/record.hpp"

namespace resdb {

namespace {

using ojson = nlohmann::ordered_json;

const double FIO_PERCENTILES[] = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 };

// By percentile_from_buckets: rounded to the nearest rank here (99.9% of 1536
// I/Os: the 1534th, where the run's report takes the 1535th), the page of a
// stored run showed another p99.9 than the page of the run's own JSON and
// `results show`.
ojson percentiles(const figure &f, uint64_t *n)
{
	std::vector<std::pair<uint64_t, uint64_t>> b = f.buckets;
	std::sort(b.begin(), b.end());
	*n = 0;
	for (auto &x : b)
		*n += x.second;
	ojson out = ojson::object();
	if (!*n)
		return out;
	for (double p : FIO_PERCENTILES) {
		char key[32];
		std::snprintf(key, sizeof(key), "%f", p);
		out[key] = (uint64_t)percentile_from_buckets(b, p, 0, (double)b.back().first);
	}
	// The three the run reported, as `results show` prints them: the report
	// clamped each to the run's [min, max], which the store does not keep.
	for (auto [key, ns] : { std::make_pair("50.000000", f.p50_ns), std::make_pair("99.000000", f.p99_ns),
				std::make_pair("99.900000", f.p999_ns) })
		if (latency_recorded(ns))
			out[key] = (uint64_t)ns;
	return out;
}

// Without buckets, the percentiles the run recorded: the page showed "-" for
// the mean and every percentile of an imported fio json file that `results
// show` printed (N 0 reads as "no latency measured").
ojson recorded_percentiles(const figure &f, uint64_t *n)
{
	ojson out = ojson::object();
	*n = f.ios;
	for (auto [key, ns] : { std::make_pair("50.000000", f.p50_ns), std::make_pair("99.000000", f.p99_ns),
				std::make_pair("99.900000", f.p999_ns) })
		if (latency_recorded(ns))
			out[key] = ns;
	return out;
}

ojson direction(const figure &f)
{
	uint64_t n = 0;
	ojson pct = f.buckets.empty() ? recorded_percentiles(f, &n) : percentiles(f, &n);
	ojson d = { { "io_bytes", f.io_bytes }, { "bw_bytes", f.bw_bytes }, { "iops", f.iops },
		    { "runtime", (uint64_t)(f.runtime_s * 1000) }, { "total_ios", f.ios } };
	ojson clat = { { "N", n }, { "mean", f.lat_mean_ns } };
	if (!pct.empty())
		clat["percentile"] = pct;
	d["clat_ns"] = clat;
	return d;
}

ojson series_of(const figure &f)
{
	ojson t = ojson::array(), bw = ojson::array();
	for (size_t i = 0; i < f.bw_samples.size(); i++) {
		t.push_back((uint64_t)((double)(i + 1) * f.interval_s * 1e9));
		bw.push_back(f.bw_samples[i]);
	}
	return { { "jobname", f.job }, { "job_id", f.job_index }, { "run", 0 }, { "discarded", false },
		 { "t_ns", t }, { f.ddir, { { "bw_bytes_per_s", bw } } } };
}

} // namespace

nlohmann::ordered_json result_document(const run_record &r)
{
	ojson jobs = ojson::array(), series = ojson::array();
	std::vector<int> index;	// job_index of each jobs[] entry
	for (const figure &f : r.figures) {
		auto at = std::find(index.begin(), index.end(), f.job_index);
		if (at == index.end()) {
			index.push_back(f.job_index);
			jobs.push_back({ { "jobname", f.job }, { "error", 0 } });
			at = index.end() - 1;
		}
		jobs[(size_t)(at - index.begin())][f.ddir] = direction(f);
		if (f.bw_samples.size() > 1)
			series.push_back(series_of(f));
	}
	// A failed job's error, on its entry (one that measured nothing gets one of its own).
	for (const job_failure &f : r.failures) {
		auto at = std::find(index.begin(), index.end(), f.job_index);
		if (at == index.end() || f.job_index < 0) {
			index.push_back(f.job_index);
			jobs.push_back({ { "jobname", f.job_index < 0 ? "?" : f.job }, { "error", 0 } });
			at = index.end() - 1;
		}
		jobs[(size_t)(at - index.begin())]["error"] = f.error;
	}
	time_t t = (time_t)r.started_s;
	char when[64] = "";
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
	ojson io = { { "host", r.host },	     { "kernel", r.kernel },   { "interrupted", r.interrupted },
		     { "warnings", r.warnings }, { "series", series } };
	if (!r.environment.empty())
		io["environment"] = ojson::parse(r.environment, nullptr, false);
	return { { "fio version", r.tool_version }, { "time", when }, { "jobs", jobs }, { "ioplan", io } };
}

} // namespace resdb

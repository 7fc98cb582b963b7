// report/runs.cpp - per-run figures of plan jobs and their scores (runs.hpp).
#include "report/runs.hpp"

#include <algorithm>
#include <map>

namespace report {

double run_figures::bytes_per_s() const
{
	return window_ns ? (double)bytes * 1e9 / (double)window_ns : 0.0;
}

double run_figures::iops() const
{
	return window_ns ? (double)ios * 1e9 / (double)window_ns : 0.0;
}

double run_figures::lat_mean_ns() const
{
	return lat_n ? (double)lat_sum_ns / (double)lat_n : 0.0;
}

run_figures figures_of(const res_job &j)
{
	run_figures f;

	f.run = j.run;
	f.discarded = j.discarded;
	for (uint32_t c = 0; c < j.nr_clones; c++) {
		const res_clone &cl = j.clones[c];
		if (!f.error && cl.error)
			f.error = cl.error;
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			const res_ddir &dd = cl.ddir[d];
			// DISKSPD and CrystalDiskMark time an I/O from issue to
			// completion, which is fio's total latency.
			const res_lat &l = dd.lat.n ? dd.lat : dd.clat;
			f.bytes += dd.bytes;
			f.ios += dd.ios;
			f.window_ns = std::max(f.window_ns, dd.runtime_ns);
			f.lat_n += l.n;
			f.lat_sum_ns += l.sum_ns;
		}
	}
	return f;
}

std::vector<std::vector<run_figures>> runs_by_job(const results &r, const plan &p)
{
	std::vector<std::vector<run_figures>> out(p.nr_jobs);

	for (uint32_t i = 0; i < r.nr_jobs; i++)
		if (r.jobs[i].job_id < p.nr_jobs)
			out[r.jobs[i].job_id].push_back(figures_of(r.jobs[i]));
	for (auto &runs : out)
		std::stable_sort(runs.begin(), runs.end(),
				 [](const run_figures &a, const run_figures &b) { return a.run < b.run; });
	return out;
}

std::vector<run_figures> measured(const std::vector<run_figures> &runs)
{
	std::vector<run_figures> out;

	for (const run_figures &f : runs)
		if (!f.discarded)
			out.push_back(f);
	return out;
}

namespace {

// Index of the run with the highest (or lowest) MB/s; the first one on ties.
size_t extreme_rate(const std::vector<run_figures> &v, bool highest)
{
	size_t best = 0;

	for (size_t i = 1; i < v.size(); i++) {
		double a = v[i].bytes_per_s(), b = v[best].bytes_per_s();
		if (highest ? a > b : a < b)
			best = i;
	}
	return best;
}

// Lowest (or highest) mean latency among runs that moved data.
double extreme_latency(const std::vector<run_figures> &v, bool lowest)
{
	bool any = false;
	double best = 0;

	for (const run_figures &f : v) {
		if (!f.bytes || !f.lat_n)
			continue;
		double l = f.lat_mean_ns();
		if (!any || (lowest ? l < best : l > best))
			best = l;
		any = true;
	}
	return best;
}

void take_run(score &s, const run_figures &f)
{
	s.bytes_per_s = f.bytes_per_s();
	s.iops = f.iops();
	s.lat_mean_ns = f.lat_mean_ns();
}

} // namespace

score score_of(const std::vector<run_figures> &v, enum plan_repeat_aggregate how)
{
	score s;

	s.n = v.size();
	if (v.empty())
		return s;
	s.lo_bytes_per_s = v[extreme_rate(v, false)].bytes_per_s();
	s.hi_bytes_per_s = v[extreme_rate(v, true)].bytes_per_s();
	switch (how) {
	case PLAN_AGG_MAX:
	case PLAN_AGG_MIN: {
		bool max = how == PLAN_AGG_MAX;
		take_run(s, v[extreme_rate(v, max)]);
		s.lat_mean_ns = extreme_latency(v, max);
		break;
	}
	case PLAN_AGG_MEAN:
		for (const run_figures &f : v) {
			s.bytes_per_s += f.bytes_per_s() / (double)v.size();
			s.iops += f.iops() / (double)v.size();
			s.lat_mean_ns += f.lat_mean_ns() / (double)v.size();
		}
		break;
	case PLAN_AGG_MEDIAN: {
		std::vector<size_t> idx(v.size());
		for (size_t i = 0; i < idx.size(); i++)
			idx[i] = i;
		std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
			return v[a].bytes_per_s() < v[b].bytes_per_s();
		});
		take_run(s, v[idx[(idx.size() - 1) / 2]]);
		break;
	}
	}
	return s;
}

const res_job *last_measured_run(const results &r, uint32_t job_id)
{
	const res_job *best = nullptr;

	for (uint32_t i = 0; i < r.nr_jobs; i++) {
		const res_job &j = r.jobs[i];
		if (j.job_id == job_id && !j.discarded && (!best || j.run >= best->run))
			best = &j;
	}
	return best;
}

namespace {

uint64_t region_start(const plan_job &job, uint32_t clone_index)
{
	if (clone_index >= job.nr_clones)
		return 0;
	const plan_clone &c = job.clones[clone_index];
	return c.offset_bytes + (c.nr_files ? c.files[0].offset_bytes : 0);
}

} // namespace

std::vector<zone_sample> sweep_samples(const res_job &run, const plan_job &job)
{
	uint64_t range = job.zone_range_bytes ? job.zone_range_bytes : job.zone_size_bytes;
	struct span {
		zone_sample s;
		uint64_t first = UINT64_MAX, last = 0;
	};
	std::map<uint64_t, span> zones;

	if (!job.zone_size_bytes || !range)
		return {};
	for (uint32_t c = 0; c < run.nr_clones; c++) {
		const res_clone &cl = run.clones[c];
		uint64_t base = region_start(job, cl.clone_index);
		for (uint64_t i = 0; i < cl.trace_nr && cl.trace; i++) {
			const res_io_rec &rec = cl.trace[i];
			uint64_t rel = rec.offset > base ? rec.offset - base : 0;
			span &z = zones[rel / range];
			uint64_t issued = rec.t_ns > rec.lat_ns ? rec.t_ns - rec.lat_ns : 0;
			if (!z.s.bytes || rec.offset < z.s.offset)
				z.s.offset = rec.offset;
			z.s.bytes += rec.bytes;
			z.s.lat_max_ns = std::max(z.s.lat_max_ns, rec.lat_ns);
			z.first = std::min(z.first, issued);
			z.last = std::max(z.last, rec.t_ns);
		}
	}
	std::vector<zone_sample> out;
	for (auto &kv : zones) {
		kv.second.s.ns = kv.second.last - kv.second.first;
		out.push_back(kv.second.s);
	}
	return out;
}

std::vector<uint64_t> traced_latencies(const res_job &run)
{
	std::vector<uint64_t> out;

	for (uint32_t c = 0; c < run.nr_clones; c++)
		for (uint64_t i = 0; i < run.clones[c].trace_nr && run.clones[c].trace; i++)
			out.push_back(run.clones[c].trace[i].lat_ns);
	return out;
}

} // namespace report

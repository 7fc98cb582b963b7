// report/plot/plot_data.cpp - the time series and I/O traces the charts draw,
// as JSON for the "ioplan" object (plot.hpp describes the keys).
#include <algorithm>
#include <map>

#include "report/plot/plot.hpp"
#include "report/runs.hpp"
#include "report/units.hpp"

namespace report {

namespace {

struct bin {
	uint64_t start_ns = UINT64_MAX;	// earliest start of the samples in the bin
	uint64_t end_ns = 0;
	uint64_t bytes[PLAN_DDIR_NR] = {};
	uint64_t ios[PLAN_DDIR_NR] = {};
};

// Adds up the job's clones interval by interval, at the coarsest interval.
std::vector<bin> bins_of(const res_job &j, uint64_t *interval_ns)
{
	uint64_t iv = 0;
	for (uint32_t c = 0; c < j.nr_clones; c++)
		iv = std::max(iv, j.clones[c].bw_series.interval_ns);
	*interval_ns = iv;
	std::map<uint64_t, bin> bins;
	if (!iv)
		return {};
	for (uint32_t c = 0; c < j.nr_clones; c++) {
		const res_series &s = j.clones[c].bw_series;
		for (uint32_t i = 0; i < s.nr && s.samples; i++) {
			const res_sample &smp = s.samples[i];
			uint64_t end = smp.t_end_ns > j.start_ns ? smp.t_end_ns - j.start_ns : 0;
			uint64_t begin = smp.t_start_ns > j.start_ns ? smp.t_start_ns - j.start_ns : 0;
			bin &b = bins[end ? (end - 1) / iv : 0];
			b.end_ns = std::max(b.end_ns, end);
			b.start_ns = std::min(b.start_ns, begin);
			for (int d = 0; d < PLAN_DDIR_NR; d++) {
				b.bytes[d] += smp.bytes[d];
				b.ios[d] += smp.ios[d];
			}
		}
	}
	std::vector<bin> out;
	for (auto &kv : bins) {
		// A bin covers its samples' own time: a sample that ends just past a
		// slot boundary must not be divided by the sliver of the new slot.
		if (kv.second.end_ns <= kv.second.start_ns)
			kv.second.start_ns = kv.second.end_ns > iv ? kv.second.end_ns - iv : 0;
		out.push_back(kv.second);
	}
	// The run's last moments (a stop lands mid-interval) make a sliver whose
	// rate means nothing; shorter than half an interval, it is left out.
	if (out.size() > 1 && out.back().end_ns - out.back().start_ns < iv / 2)
		out.pop_back();
	return out;
}

ojson direction_series(const std::vector<bin> &bins, uint64_t iv, int d)
{
	ojson bytes = ojson::array(), ios = ojson::array(), bw = ojson::array(), iops = ojson::array();
	for (size_t k = 0; k < bins.size(); k++) {
		double secs = (double)(bins[k].end_ns - bins[k].start_ns) / 1e9;
		bytes.push_back(bins[k].bytes[d]);
		ios.push_back(bins[k].ios[d]);
		bw.push_back(f6((double)bins[k].bytes[d] / secs));
		iops.push_back(f6((double)bins[k].ios[d] / secs));
	}
	return ojson{ { "bytes", bytes }, { "ios", ios }, { "bw_bytes_per_s", bw }, { "iops", iops } };
}

ojson run_head(const res_job &j, const plan_job &pj)
{
	return ojson{ { "jobname", pj.name ? pj.name : "" },
		      { "job_id", j.job_id },
		      { "run", j.run },
		      { "discarded", j.discarded } };
}

ojson trace_ios(const res_job &j)
{
	ojson t = ojson::array(), off = ojson::array(), by = ojson::array(), lat = ojson::array(),
	      dd = ojson::array();
	for (uint32_t c = 0; c < j.nr_clones; c++) {
		const res_clone &cl = j.clones[c];
		for (uint64_t i = 0; i < cl.trace_nr && cl.trace; i++) {
			const res_io_rec &rec = cl.trace[i];
			t.push_back(rec.t_ns > j.start_ns ? rec.t_ns - j.start_ns : 0);
			off.push_back(rec.offset);
			by.push_back(rec.bytes);
			lat.push_back(rec.lat_ns);
			dd.push_back(plan_ddir_name((enum plan_ddir)(rec.ddir < PLAN_DDIR_NR ? rec.ddir : 0)));
		}
	}
	return ojson{ { "t_ns", t }, { "offset", off }, { "bytes", by }, { "lat_ns", lat }, { "ddir", dd } };
}

uint64_t region_bytes(const plan_job &pj)
{
	if (pj.nr_clones && pj.clones[0].nr_files && pj.clones[0].files[0].size_bytes)
		return pj.clones[0].files[0].size_bytes;
	return pj.size_bytes;
}

bool has_trace(const res_job &j)
{
	for (uint32_t c = 0; c < j.nr_clones; c++)
		if (j.clones[c].trace_nr)
			return true;
	return false;
}

// The steady-state window of a job run (its record's clone, engine/steadystate.h),
// on the series' clock: from the job's start.  Null when it took no sample.
ojson steady_json(const res_job &j)
{
	for (uint32_t c = 0; j.ss && c < j.nr_clones; c++) {
		const res_ss &s = j.ss[c];
		uint64_t end = s.attained_ns ? s.attained_ns : s.last_sample_ns;
		if (!s.on || !end)
			continue;
		end = end > j.start_ns ? end - j.start_ns : 0;
		uint64_t span = (uint64_t)s.dur_s * 1000000000ull;
		std::string crit = std::string(s.flags & PLAN_SS_IOPS ? "iops" : "bw") +
				   (s.flags & PLAN_SS_SLOPE ? "_slope" : "") + ":" + strf("%g", s.limit) +
				   (s.flags & PLAN_SS_PCT ? "%" : "");
		return ojson{ { "ss", crit },
			      { "attained", (s.flags & RES_SS_ATTAINED) != 0 },
			      { "window_start_ns", end > span ? end - span : 0 },
			      { "window_end_ns", end } };
	}
	return nullptr;
}

} // namespace

ojson series_json(const results &r, const plan &p)
{
	ojson a = ojson::array();
	for (uint32_t i = 0; i < r.nr_jobs; i++) {
		const res_job &j = r.jobs[i];
		const plan_job *pj = plan_job_at(&p, j.job_id);
		uint64_t iv = 0;
		std::vector<bin> bins = pj ? bins_of(j, &iv) : std::vector<bin>();
		if (bins.empty())
			continue;
		ojson o = run_head(j, *pj);
		o["interval_ns"] = iv;
		ojson t = ojson::array();
		for (const bin &b : bins)
			t.push_back(b.end_ns);
		o["t_ns"] = t;
		ojson steady = steady_json(j);
		if (!steady.is_null())
			o["steady"] = steady;
		for (int d = 0; d < PLAN_DDIR_NR; d++)
			if (plan_rw_has_ddir(pj->rw, (enum plan_ddir)d))
				o[plan_ddir_name((enum plan_ddir)d)] = direction_series(bins, iv, d);
		a.push_back(o);
	}
	return a;
}

ojson traces_json(const results &r, const plan &p)
{
	ojson a = ojson::array();
	for (uint32_t i = 0; i < r.nr_jobs; i++) {
		const res_job &j = r.jobs[i];
		const plan_job *pj = plan_job_at(&p, j.job_id);
		if (!pj || !has_trace(j))
			continue;
		ojson o = run_head(j, *pj);
		o["kind"] = pj->zone_size_bytes ? "sweep" : "io";
		o["region_bytes"] = region_bytes(*pj);
		o["ios"] = trace_ios(j);
		if (pj->zone_size_bytes) {
			ojson s = ojson::array();
			for (const zone_sample &z : sweep_samples(j, *pj))
				s.push_back(ojson{ { "offset", z.offset },
						   { "bytes", z.bytes },
						   { "ns", z.ns },
						   { "bytes_per_s", f6(z.bytes_per_s()) } });
			o["samples"] = s;
		}
		a.push_back(o);
	}
	return a;
}

} // namespace report

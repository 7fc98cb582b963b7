// report/fio/json.cpp - fio's JSON and json+ layout (fio.md §4) from the report model.
//
// Key names, order and value types follow fio 3.33's jobs[] objects so jq
// filters written for fio work unchanged; ioplan's own facts go under one
// "ioplan" object (json_ioplan.cpp).  Always exactly one valid document: no
// duplicate keys, no text around it.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <numeric>
#include <ostream>

#include "report/formats.hpp"
#include "report/idleness.hpp"
#include "report/fio/json_ioplan.hpp"
#include "report/fio/json_util.hpp"
#include "report/prio.hpp"
#include "report/units.hpp"

namespace report {

ojson options_object(const plan_kv *kv, uint32_t n)
{
	std::vector<uint32_t> by_place(n);
	std::iota(by_place.begin(), by_place.end(), 0u);
	std::stable_sort(by_place.begin(), by_place.end(),
			 [kv](uint32_t a, uint32_t b) { return kv[a].fio_at < kv[b].fio_at; });
	ojson o = ojson::object();
	for (uint32_t i : by_place) {
		// As fio: a flag given without a value (stonewall, time_based) is not echoed.
		if (!kv[i].key || !kv[i].value || !*kv[i].value)
			continue;
		o[kv[i].key] = kv[i].value;
	}
	return o;
}

ojson lat_object(const res_lat &l, const double *pct, size_t nr_pct, bool percentiles, bool bins)
{
	ojson o = ojson::object();
	o["min"] = l.n ? l.min_ns : 0;
	o["max"] = l.n ? l.max_ns : 0;
	o["mean"] = f6(res_lat_mean(&l));
	o["stddev"] = f6(res_lat_stddev(&l));
	o["N"] = l.n;
	if (!percentiles || !l.n || !nr_pct)
		return o;
	ojson p = ojson::object();
	for (size_t i = 0; i < nr_pct; i++)
		p[strf("%f", pct[i])] = res_lat_percentile(&l, pct[i]);
	o["percentile"] = p;
	if (bins && l.hist) {
		ojson b = ojson::object();
		for (uint32_t i = 0; i < RES_HIST_NR; i++)
			if (l.hist[i])
				b[std::to_string(res_hist_value(i))] = l.hist[i];
		o["bins"] = b;
	}
	return o;
}

namespace {

void add_sample_stats(ojson &o, const entry &e, const group_stat &g, int d)
{
	const res_ddir &dd = e.st.get().ddir[d];
	const res_sample_stat &bw = dd.bw_kib_s, &io = dd.iops;
	double mean = res_sample_stat_mean(&bw);

	o["bw_min"] = bw.n ? (uint64_t)bw.min : 0;
	o["bw_max"] = bw.n ? (uint64_t)bw.max : 0;
	o["bw_agg"] = f6(bw.n ? bw_share_pct(g, d, mean) : 0.0);
	o["bw_mean"] = f6(mean);
	o["bw_dev"] = f6(res_sample_stat_stddev(&bw));
	o["bw_samples"] = bw.n;
	o["iops_min"] = io.n ? (uint64_t)io.min : 0;
	o["iops_max"] = io.n ? (uint64_t)io.max : 0;
	o["iops_mean"] = f6(res_sample_stat_mean(&io));
	o["iops_stddev"] = f6(res_sample_stat_stddev(&io));
	o["iops_samples"] = io.n;
}

ojson ddir_object(const entry &e, const group_stat &g, int d, bool plus)
{
	const res_ddir &dd = e.st.get().ddir[d];
	const plan_job *j = e.last;
	std::vector<double> pct = percentile_list(e);
	std::vector<double> slat_pct = percentile_list(e, true);
	uint64_t bw_bytes = ddir_bw_bytes(e, d);
	ojson o = ojson::object();

	o["io_bytes"] = dd.bytes;
	o["io_kbytes"] = dd.bytes >> 10;
	o["bw_bytes"] = bw_bytes;
	o["bw"] = bw_bytes / 1024;
	o["iops"] = f6(ddir_iops_f(e, d));
	o["runtime"] = ddir_runtime_ms(e, d);
	o["total_ios"] = dd.ios;
	o["short_ios"] = dd.short_ios;
	o["drop_ios"] = dd.drop_ios;
	o["slat_ns"] = lat_object(dd.slat, slat_pct.data(), slat_pct.size(), j && j->slat_percentiles, plus);
	o["clat_ns"] = lat_object(dd.clat, pct.data(), pct.size(), j && j->clat_percentiles, plus);
	o["lat_ns"] = lat_object(dd.lat, pct.data(), pct.size(), j && j->lat_percentiles, plus);
	if (prios_shown(dd))
		o["prios"] = prios_json(dd, j, pct, plus);
	add_sample_stats(o, e, g, d);
	return o;
}

ojson sync_object(const entry &e, bool plus)
{
	const res_clone &c = e.st.get();
	const plan_job *j = e.last;
	std::vector<double> pct = percentile_list(e);
	ojson o = ojson::object();

	o["total_ios"] = c.sync_ios;
	o["lat_ns"] = lat_object(c.sync_lat, pct.data(), pct.size(),
				 j && (j->clat_percentiles || j->lat_percentiles), plus);
	return o;
}

ojson dist_object(const uint64_t *counts, int n, uint64_t total, double floor,
		  const char *const *keys)
{
	std::vector<double> v = dist_pct(counts, n, total, floor);
	ojson o = ojson::object();
	for (int i = 0; i < n; i++)
		o[keys[i]] = f6(v[(size_t)i]);
	return o;
}

void add_distributions(ojson &o, const entry &e)
{
	static const char *const depth[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	static const char *const lat[] = { "2", "4", "10", "20", "50", "100", "250", "500",
					   "750", "1000", "2000", ">=2000" };
	const res_clone &c = e.st.get();
	uint64_t total = total_rw_ios(e), submits = 0, reaps = 0;

	for (int i = 0; i < RES_BATCH_NR; i++) {
		submits += c.submit[i];
		reaps += c.complete[i];
	}
	o["iodepth_level"] = dist_object(c.depth, RES_DEPTH_NR, depth_total(e), 0.1, depth);
	o["iodepth_submit"] = dist_object(c.submit, RES_BATCH_NR, submits, 0.1, batch);
	o["iodepth_complete"] = dist_object(c.complete, RES_BATCH_NR, reaps, 0.1, batch);
	o["latency_ns"] = dist_object(c.latbkt, RES_LATBKT_NS, total, 0.01, lat);
	o["latency_us"] = dist_object(c.latbkt + RES_LATBKT_NS, RES_LATBKT_US, total, 0.01, lat);
	o["latency_ms"] = dist_object(c.latbkt + RES_LATBKT_NS + RES_LATBKT_US, RES_LATBKT_MS,
				      total, 0.01, lat);
}

// fio's "%f" of a float (ss and criterion are strings in its JSON).
std::string ss_f(double v)
{
	char buf[64];
	std::snprintf(buf, sizeof(buf), "%f", (double)(float)v);
	return buf;
}

// fio 3.33's steadystate section (stat.c): the criterion as configured and as
// last judged, and the window's samples oldest first.
ojson steadystate_object(const res_ss &s)
{
	ojson o = ojson::object(), data = ojson::object(), iops = ojson::array(), bw = ojson::array();
	const char *pct = s.flags & PLAN_SS_PCT ? "%" : "";
	uint64_t sum_iops = 0, sum_bw = 0;

	o["ss"] = std::string(s.flags & PLAN_SS_IOPS ? "iops" : "bw") + (s.flags & PLAN_SS_SLOPE ? "_slope" : "") +
		  ":" + ss_f(s.limit) + pct;
	o["duration"] = s.dur_s;
	o["attained"] = s.flags & RES_SS_ATTAINED ? 1 : 0;
	o["criterion"] = ss_f(s.criterion) + pct;
	o["max_deviation"] = f6(s.deviation);
	o["slope"] = f6(s.slope);
	for (uint32_t i = 0; i < s.dur_s; i++) {
		iops.push_back(s.iops[i]);
		bw.push_back(s.bw[i]);
		sum_iops += s.iops[i];
		sum_bw += s.bw[i];
	}
	data["bw_mean"] = s.dur_s ? sum_bw / s.dur_s : 0;
	data["iops_mean"] = s.dur_s ? sum_iops / s.dur_s : 0;
	data["iops"] = iops;
	data["bw"] = bw;
	o["data"] = data;
	return o;
}

// fio's calc_thread_status: no estimate before 3 s have gone (INT_MAX); then the
// run's time left in whole seconds (fio's thread_eta: the runtime less the
// seconds begun), 0 once finished, and 0 too when not known (a size-bound job
// with nothing done yet).
uint64_t eta_seconds(const model &m, uint64_t elapsed_s)
{
	if (elapsed_s < 3)
		return INT_MAX;
	if (m.eta_ns == UINT64_MAX)
		return 0;
	return std::min<uint64_t>(m.eta_ns / 1000000000u, INT_MAX);
}

ojson job_object(const entry &e, const model &m, bool plus)
{
	const group_stat &g = m.group(e.groupid);
	const res_clone &c = e.st.get();
	ojson o = ojson::object();

	o["jobname"] = e.name;
	o["groupid"] = e.groupid;
	o["error"] = e.error;
	// From fio's genesis: the layout before the jobs is not counted, as fio's.
	uint64_t elapsed = (m.jobs_elapsed_ns + 999999999u) / 1000000000u;
	o["eta"] = eta_seconds(m, elapsed);
	o["elapsed"] = elapsed;
	if (e.last && e.last->nr_opts)
		o["job options"] = options_object(e.last->opts, e.last->nr_opts);
	if (e.unified == PLAN_UNIFIED_MIXED) {
		// As fio: one "mixed" direction replaces read, write, trim and sync.
		o["mixed"] = ddir_object(e, g, 0, plus);
	} else {
		for (int d = 0; d < PLAN_DDIR_NR; d++)
			o[plan_ddir_name((enum plan_ddir)d)] = ddir_object(e, g, d, plus);
		o["sync"] = sync_object(e, plus);
	}
	if (e.mixed)
		o["mixed"] = ddir_object(*e.mixed, g, 0, plus);
	o["job_runtime"] = e.run_ns / 1000000u;
	o["usr_cpu"] = f6(usr_cpu_pct(e));
	o["sys_cpu"] = f6(sys_cpu_pct(e));
	o["ctx"] = c.ctx;
	o["majf"] = c.majf;
	o["minf"] = c.minf;
	add_distributions(o, e);
	if (e.last && e.last->continue_on_error) {
		o["total_err"] = e.total_err;
		o["first_error"] = e.first_error;
	}
	// fio's latency_depth is set as a job enters its I/O loop: one that never
	// did (create_only, an error or a stop before it) has none of these keys.
	if (e.lat_depth) {
		o["latency_depth"] = e.lat_depth;
		o["latency_target"] = e.last ? e.last->lat_target_ns : 0;
		o["latency_percentile"] = e.last ? e.last->lat_percentile : 100.0;
		o["latency_window"] = e.last ? e.last->lat_window_ns / 1000 : 0;
	}
	if (!e.description.empty())
		o["desc"] = e.description;
	if (e.ss)
		o["steadystate"] = steadystate_object(*e.ss);
	return o;
}

ojson disk_array(const results &r)
{
	ojson a = ojson::array();
	for (uint32_t i = 0; i < r.nr_disks; i++) {
		const res_disk &d = r.disks[i];
		ojson o = ojson::object();
		o["name"] = std::string(d.name, strnlen(d.name, sizeof(d.name)));
		o["read_ios"] = d.read_ios;
		o["write_ios"] = d.write_ios;
		o["read_merges"] = d.read_merges;
		o["write_merges"] = d.write_merges;
		o["read_ticks"] = d.read_ticks_ms;
		o["write_ticks"] = d.write_ticks_ms;
		o["in_queue"] = d.in_queue_ms;
		o["util"] = f6(disk_util_pct(d));
		a.push_back(o);
	}
	return a;
}

} // namespace

ojson json_document(const model &m, const results &r, const plan &p, bool plus, const std::string &version,
		    const std::optional<saved_name> &saved)
{
	ojson root = ojson::object();
	uint64_t ms = m.now_wall_ns / 1000000u;

	root["fio version"] = version;
	root["timestamp"] = ms / 1000u;
	root["timestamp_ms"] = ms;
	root["time"] = ctime_str(m.now_wall_ns);
	if (p.nr_global_opts)
		root["global options"] = options_object(p.global_opts, p.nr_global_opts);
	ojson jobs = ojson::array();
	for (const entry &e : m.entries)
		jobs.push_back(job_object(e, m, plus));
	root["jobs"] = jobs;
	if (r.nr_disks)
		root["disk_util"] = disk_array(r);
	if (r.idle.mode != RES_IDLE_NONE)
		root["cpu_idleness"] = idleness_json(r.idle);
	root["ioplan"] = ioplan_object(m, r, p);
	if (saved)
		root["ioplan"]["saved_as"] = { { "label", saved->label }, { "preset", saved->preset } };
	return root;
}

void write_json(std::ostream &out, const model &m, const results &r, const plan &p, bool plus,
		const std::string &version, const std::optional<saved_name> &saved)
{
	// fio's text layout: grep-based clients depend on it (json_text.cpp).
	out << fio_json_text(json_document(m, r, p, plus, version, saved)) << '\n';
}

} // namespace report

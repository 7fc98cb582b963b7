// report/fio/json_ioplan.cpp - the "ioplan" object: run facts, achieved vs target
// rates, CPU cost per I/O, errors with their place, repeat runs, messages.
//
// fio's keys stay exactly fio's; whatever ioplan adds lives here, so a jq
// filter for fio never meets an unknown key in a place it walks.
#include "report/fio/json_ioplan.hpp"

#include <algorithm>
#include <cstring>

#include "report/caveats.hpp"
#include "report/fio/json_env.hpp"
#include "report/plot/plot.hpp"
#include "report/ranks.hpp"
#include "report/report.hpp"
#include "report/units.hpp"

namespace report {

namespace {

std::string fixed_str(const char *s, size_t cap)
{
	return std::string(s, strnlen(s, cap));
}

const char *level_name(enum res_msg_level l)
{
	switch (l) {
	case RES_MSG_NOTE:
		return "note";
	case RES_MSG_WARNING:
		return "warning";
	case RES_MSG_ERROR:
		return "error";
	}
	return "note";
}

bool entry_does(const entry &e, const model &m, int d)
{
	if (e.st.get().ddir[d].ios)
		return true;
	for (uint32_t id : e.job_ids)
		if (id < m.runs.size() && m.runs[id].job &&
		    plan_rw_has_ddir(m.runs[id].job->rw, (enum plan_ddir)d))
			return true;
	return false;
}

// Rates over the exact window (ns), not fio's whole-ms runtime.
ojson rate_object(const res_ddir &dd, const std::vector<double> &pct)
{
	ojson o = ojson::object();
	double secs = (double)dd.runtime_ns / 1e9;
	double bps = secs > 0 ? (double)dd.bytes / secs : 0.0;
	double iops = secs > 0 ? (double)dd.ios / secs : 0.0;

	o["achieved_bytes_per_s"] = f6(bps);
	o["achieved_iops"] = f6(iops);
	o["target_bytes_per_s"] = dd.target_bytes_per_s;
	o["target_iops"] = dd.target_iops;
	if (dd.target_bytes_per_s)
		o["achieved_pct_of_target"] = f6(bps * 100.0 / (double)dd.target_bytes_per_s);
	else if (dd.target_iops)
		o["achieved_pct_of_target"] = f6(iops * 100.0 / (double)dd.target_iops);
	if (dd.sched_lat.n)
		o["sched_lat_ns"] = lat_object(dd.sched_lat, pct.data(), pct.size(), true, false);
	return o;
}

ojson errors_array(const entry &e)
{
	ojson a = ojson::array();
	for (size_t i = 0; i < e.errors.size(); i++) {
		const res_error &er = e.errors[i];
		ojson o = ojson::object();
		o["errno"] = er.err;
		o["error"] = er.err ? strerror(er.err) : "short transfer";
		o["what"] = fixed_str(er.what, sizeof(er.what));
		o["ddir"] = plan_ddir_name((enum plan_ddir)(er.ddir < PLAN_DDIR_NR ? er.ddir : 0));
		o["file"] = e.error_files[i];
		o["offset"] = er.offset;
		o["length"] = er.len;
		o["done"] = er.done;
		a.push_back(o);
	}
	return a;
}

ojson run_summary(const res_job &j)
{
	ojson o = ojson::object();
	o["run"] = j.run;
	o["discarded"] = j.discarded;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		uint64_t bytes = 0, ios = 0, ns = 0, lat_sum = 0, lat_n = 0;
		for (uint32_t c = 0; c < j.nr_clones; c++) {
			const res_ddir &dd = j.clones[c].ddir[d];
			bytes += dd.bytes;
			ios += dd.ios;
			ns = ns > dd.runtime_ns ? ns : dd.runtime_ns;
			const res_lat &l = dd.clat.n ? dd.clat : dd.lat;
			lat_sum += l.sum_ns;
			lat_n += l.n;
		}
		ojson dd = ojson::object();
		dd["io_bytes"] = bytes;
		dd["total_ios"] = ios;
		dd["runtime_ns"] = ns;
		dd["bw_bytes"] = ns ? (uint64_t)((unsigned __int128)bytes * 1000000000u / ns) : 0;
		dd["iops"] = f6(ns ? (double)ios * 1e9 / (double)ns : 0.0);
		dd["lat_mean_ns"] = f6(lat_n ? (double)lat_sum / (double)lat_n : 0.0);
		o[plan_ddir_name((enum plan_ddir)d)] = dd;
	}
	return o;
}

// Every run of each repeated plan job merged into this entry.
ojson repeat_array(const entry &e, const model &m)
{
	ojson a = ojson::array();
	for (uint32_t id : e.job_ids) {
		if (id >= m.runs.size() || !m.runs[id].job)
			continue;
		const plan_job &j = *m.runs[id].job;
		if (j.repeat <= 1 && !j.repeat_discard)
			continue;
		ojson o = ojson::object();
		o["job_id"] = id;
		o["jobname"] = j.name ? j.name : "";
		o["aggregate"] = plan_repeat_aggregate_name(j.repeat_aggregate);
		ojson runs = ojson::array();
		for (const res_job *rj : m.runs[id].runs)
			runs.push_back(run_summary(*rj));
		o["runs"] = runs;
		a.push_back(o);
	}
	return a;
}

ojson job_facts(const entry &e, const model &m)
{
	const res_clone &c = e.st.get();
	std::vector<double> pct = percentile_list(e);
	uint64_t ios = total_rw_ios(e) + c.sync_ios;
	ojson o = ojson::object();

	o["jobname"] = e.name;
	o["groupid"] = e.groupid;
	o["job_ids"] = e.job_ids;
	o["members"] = e.members;
	o["usr_ns"] = c.usr_ns;
	o["sys_ns"] = c.sys_ns;
	o["cpu_ns_per_io"] = f6(ios ? (double)(c.usr_ns + c.sys_ns) / (double)ios : 0.0);
	o["cpu_bound"] = c.cpu_bound;
	o["stalled"] = c.stalled;
	o["verify_failures"] = c.verify_failures;
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (entry_does(e, m, d))
			o[plan_ddir_name((enum plan_ddir)d)] = rate_object(c.ddir[d], pct);
	o["errors"] = errors_array(e);
	o["repeat"] = repeat_array(e, m);
	// An open-loop replay (read_iolog): how far the replay fell behind its trace.
	if (e.last && e.last->replay)
		o["replay"] = ojson{ { "ios", c.replay_ios },
				     { "late_ios", c.replay_late },
				     { "late_pct", f6(c.replay_ios ? 100.0 * (double)c.replay_late / (double)c.replay_ios : 0.0) },
				     { "late_threshold_ns", RES_REPLAY_LATE_NS },
				     { "max_lag_ns", c.replay_lag_max_ns } };
	return o;
}

// Preflight findings arrive as messages whose code starts with this (cli/run.cpp).
const char PREFLIGHT_PREFIX[] = "preflight/";

bool is_preflight(const res_msg &msg)
{
	return msg.code && !strncmp(msg.code, PREFLIGHT_PREFIX, sizeof(PREFLIGHT_PREFIX) - 1);
}

// Every message (preflight == false), or only the preflight findings with
// their prefix removed (preflight == true).
ojson messages_array(const results &r, const model &m, bool preflight = false)
{
	ojson a = ojson::array();
	for (uint32_t i = 0; i < r.nr_msgs; i++) {
		const res_msg &msg = r.msgs[i];
		if (preflight && !is_preflight(msg))
			continue;
		ojson o = ojson::object();
		o["level"] = level_name(msg.level);
		o["code"] = !msg.code ? "" : preflight ? msg.code + sizeof(PREFLIGHT_PREFIX) - 1 : msg.code;
		o["text"] = msg.text ? msg.text : "";
		if (msg.job_id >= 0 && (size_t)msg.job_id < m.runs.size() && m.runs[msg.job_id].job) {
			o["job_id"] = msg.job_id;
			o["jobname"] = m.runs[msg.job_id].job->name ? m.runs[msg.job_id].job->name : "";
		} else {
			o["job_id"] = nullptr;
			o["jobname"] = nullptr;
		}
		a.push_back(o);
	}
	return a;
}

// The text of every warning, for `jq -r '.ioplan.warnings[]'`; the messages
// array has the same with level, code and job.
ojson warnings_array(const results &r)
{
	ojson a = ojson::array();
	for (uint32_t i = 0; i < r.nr_msgs; i++)
		if (r.msgs[i].level == RES_MSG_WARNING)
			a.push_back(r.msgs[i].text ? r.msgs[i].text : "");
	return a;
}

// What the reports judge after the run (a CPU-bound worker, repeats that
// spread, too few samples for a tail, other I/O on the disks) joins the
// engine's messages, so every format carries the same caveats.
void add_report_findings(ojson &messages, ojson &warnings, const results &r, const plan &p)
{
	for (const finding &f : findings_of(r, p)) {
		if (f.from_engine)
			continue;
		ojson o = ojson::object();
		o["level"] = "warning";
		o["code"] = f.code;
		o["text"] = f.text;
		auto it = std::find(f.jobs.begin(), f.jobs.end(), true);
		bool one = it != f.jobs.end() && std::count(f.jobs.begin(), f.jobs.end(), true) == 1;
		uint32_t id = (uint32_t)(it - f.jobs.begin());
		o["job_id"] = one ? ojson(id) : ojson(nullptr);
		o["jobname"] = one && plan_job_at(&p, id)->name ? ojson(plan_job_at(&p, id)->name) : ojson(nullptr);
		messages.push_back(o);
		warnings.push_back(f.text);
	}
}

} // namespace

ojson ioplan_object(const model &m, const results &r, const plan &p)
{
	ojson o = ojson::object();

	o["schema_version"] = result_schema_version;
	o["version"] = IOPLAN_VERSION;
	o["host"] = fixed_str(r.hostname, sizeof(r.hostname));
	o["kernel"] = fixed_str(r.kernel, sizeof(r.kernel));
	o["clock_source"] = fixed_str(r.clock_source, sizeof(r.clock_source));
	o["clock_cost_ns"] = f6(r.clock_cost_ns);
	o["start_wall_ns"] = r.start_wall_ns;
	o["elapsed_ns"] = m.elapsed_ns;
	o["interrupted"] = r.interrupted;
	o["error"] = r.error;
	ojson jobs = ojson::array();
	for (const entry &e : m.entries)
		jobs.push_back(job_facts(e, m));
	o["jobs"] = jobs;
	o["messages"] = messages_array(r, m);
	o["warnings"] = warnings_array(r);
	add_report_findings(o["messages"], o["warnings"], r, p);
	// What was checked before any I/O (free space, O_DIRECT by a real probe,
	// device ranges and write safety, working set vs free memory): the findings.
	o["preflight"] = ojson{ { "findings", messages_array(r, m, true) } };
	o["series"] = series_json(r, p);
	o["traces"] = traces_json(r, p);
	// Where it ran and what ran: the machine, each target's stack, the plan's identity.
	o["plan_hash"] = plan_hash(p);
	o["workload_hash"] = workload_hash(p);
	o["job_text"] = r.job_text ? r.job_text : "";
	if (r.run_uuid)
		o["uuid"] = r.run_uuid;
	o["environment"] = environment_json(r);
	// mpirun: the world the results were merged over, and each rank's own figures.
	if (r.world) {
		o["world"] = world_json(r);
		o["ranks"] = ranks_json(r);
		o["hosts"] = hosts_json(r);
	}
	return o;
}

} // namespace report

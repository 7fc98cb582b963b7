// report/fio/json_schema.cpp - the JSON Schema of ioplan's json/json+ output.
//
// Built here, next to the writers, and committed as schema/result.schema.json
// (`make generate`; `make check-generated` fails when it is stale).  Tests
// validate every JSON document ioplan writes against it with a real validator,
// so the writers and this description cannot drift apart unnoticed.
#include "report/fio/json_util.hpp"
#include "report/report.hpp"

namespace report {

namespace {

ojson ref(const char *name)
{
	return ojson{ { "$ref", std::string("#/definitions/") + name } };
}

ojson type(const char *t, const char *description = nullptr)
{
	ojson o = ojson::object();
	o["type"] = t;
	if (description)
		o["description"] = description;
	return o;
}

ojson u64(const char *description = nullptr)
{
	ojson o = type("integer", description);
	o["minimum"] = 0;
	return o;
}

// A closed object: every listed key required, no others allowed.
ojson closed(ojson props, std::vector<std::string> optional = {})
{
	ojson req = ojson::array();
	for (auto it = props.begin(); it != props.end(); ++it)
		if (std::find(optional.begin(), optional.end(), it.key()) == optional.end())
			req.push_back(it.key());
	return ojson{ { "type", "object" },
		      { "required", req },
		      { "additionalProperties", false },
		      { "properties", props } };
}

ojson keyed(const std::vector<const char *> &keys, const ojson &value)
{
	ojson props = ojson::object();
	for (const char *k : keys)
		props[k] = value;
	return closed(props);
}

ojson lat_def()
{
	ojson pct = ojson{ { "type", "object" },
			   { "description", "percentile (\"%f\" of the list entry) -> ns" },
			   { "patternProperties", { { "^[0-9]{1,3}\\.[0-9]{6}$", u64() } } },
			   { "additionalProperties", false } };
	ojson bins = ojson{ { "type", "object" },
			    { "description", "json+ only: histogram bucket value (ns) -> count" },
			    { "patternProperties", { { "^[0-9]+$", u64() } } },
			    { "additionalProperties", false } };
	return closed({ { "min", u64("ns") },
			{ "max", u64("ns") },
			{ "mean", type("number", "ns") },
			{ "stddev", type("number", "ns, sample (n-1)") },
			{ "N", u64("samples") },
			{ "percentile", pct },
			{ "bins", bins } },
		      { "percentile", "bins" });
}

// fio's per-priority latency (cmdprio): lat_ns with lat_percentiles, else clat_ns.
ojson prios_def()
{
	ojson prio = closed({ { "prioclass", u64("1 real-time, 2 best effort, 3 idle, 0 none") },
			      { "prio", u64("level, 0 highest .. 7") },
			      { "clat_ns", ref("lat") },
			      { "lat_ns", ref("lat") } },
			    { "clat_ns", "lat_ns" });
	return ojson{ { "type", "array" },
		      { "description", "only with two or more priorities in use (cmdprio)" },
		      { "items", prio } };
}

ojson ddir_def()
{
	return closed({ { "io_bytes", u64() },
			{ "io_kbytes", u64("io_bytes >> 10") },
			{ "bw_bytes", u64("bytes/s: 1000 * io_bytes / runtime") },
			{ "bw", u64("KiB/s: bw_bytes / 1024") },
			{ "iops", type("number") },
			{ "runtime", u64("ms") },
			{ "total_ios", u64() },
			{ "short_ios", u64() },
			{ "drop_ios", u64() },
			{ "slat_ns", ref("lat") },
			{ "clat_ns", ref("lat") },
			{ "lat_ns", ref("lat") },
			{ "prios", prios_def() },
			{ "bw_min", u64("KiB/s") },
			{ "bw_max", u64("KiB/s") },
			{ "bw_agg", type("number", "% of the group's aggregate bandwidth") },
			{ "bw_mean", type("number", "KiB/s") },
			{ "bw_dev", type("number", "KiB/s") },
			{ "bw_samples", u64() },
			{ "iops_min", u64() },
			{ "iops_max", u64() },
			{ "iops_mean", type("number") },
			{ "iops_stddev", type("number") },
			{ "iops_samples", u64() } },
		      { "prios" });
}


// fio's steadystate section (ss_dur jobs only): samples oldest first.
ojson steadystate_def()
{
	ojson samples = type("array", "one per second, oldest first; 0 where the window was not yet full");
	samples["items"] = u64();
	return closed({ { "ss", type("string", "criterion:limit as configured, e.g. iops_slope:0.100000%") },
			{ "duration", u64("s") },
			{ "attained", ojson{ { "enum", { 0, 1 } } } },
			{ "criterion", type("string", "last judged value, % when the limit is a percent") },
			{ "max_deviation", type("number") },
			{ "slope", type("number") },
			{ "data", closed({ { "bw_mean", u64("bytes/s") },
					   { "iops_mean", u64() },
					   { "iops", samples },
					   { "bw", samples } }) } });
}
ojson job_def()
{
	ojson num = type("number", "% of I/Os");
	ojson lat_keys = keyed({ "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000" },
			       num);
	return closed({ { "jobname", type("string") },
			{ "groupid", u64() },
			{ "error", type("integer", "errno of the first fatal error, 0 = none") },
			{ "eta", u64() },
			{ "elapsed", u64("s") },
			{ "job options", ref("options") },
			{ "read", ref("ddir") },
			{ "write", ref("ddir") },
			{ "trim", ref("ddir") },
			{ "sync", closed({ { "total_ios", u64() }, { "lat_ns", ref("lat") } }) },
			{ "job_runtime", u64("ms") },
			{ "usr_cpu", type("number", "%") },
			{ "sys_cpu", type("number", "%") },
			{ "ctx", u64() },
			{ "majf", u64() },
			{ "minf", u64() },
			{ "iodepth_level", keyed({ "1", "2", "4", "8", "16", "32", ">=64" }, num) },
			{ "iodepth_submit", keyed({ "0", "4", "8", "16", "32", "64", ">=64" }, num) },
			{ "iodepth_complete", keyed({ "0", "4", "8", "16", "32", "64", ">=64" }, num) },
			{ "latency_ns", lat_keys },
			{ "latency_us", lat_keys },
			{ "latency_ms", keyed({ "2", "4", "10", "20", "50", "100", "250", "500", "750",
						"1000", "2000", ">=2000" },
					      num) },
			{ "total_err", u64("continue_on_error only") },
			{ "first_error", type("integer", "continue_on_error only") },
			{ "latency_depth", u64("a job that reached its I/O loop only") },
			{ "latency_target", u64("with latency_depth") },
			{ "latency_percentile", type("number", "with latency_depth") },
			{ "latency_window", u64("with latency_depth") },
			{ "desc", type("string", "the job's description, when it has one") },
			{ "steadystate", steadystate_def() } },
		      { "job options", "total_err", "first_error", "latency_depth", "latency_target",
			"latency_percentile", "latency_window", "desc", "steadystate" });
}

ojson disk_def()
{
	return closed({ { "name", type("string") },
			{ "read_ios", u64() },
			{ "write_ios", u64() },
			{ "read_merges", u64() },
			{ "write_merges", u64() },
			{ "read_ticks", u64("ms") },
			{ "write_ticks", u64("ms") },
			{ "in_queue", u64("ms") },
			{ "util", type("number", "%") } });
}

ojson rate_def()
{
	return closed({ { "achieved_bytes_per_s", type("number") },
			{ "achieved_iops", type("number") },
			{ "target_bytes_per_s", u64("rate limit in force, 0 = none") },
			{ "target_iops", u64("rate limit in force, 0 = none") },
			{ "achieved_pct_of_target", type("number", "only with a target") },
			{ "sched_lat_ns", ref("lat") } },
		      { "achieved_pct_of_target", "sched_lat_ns" });
}

ojson error_def()
{
	return closed({ { "errno", type("integer", "0 = short transfer or verify failure") },
			{ "error", type("string") },
			{ "what", type("string") },
			{ "ddir", ojson{ { "enum", { "read", "write", "trim" } } } },
			{ "file", type("string") },
			{ "offset", u64() },
			{ "length", u64() },
			{ "done", u64() } });
}

ojson repeat_def()
{
	ojson dir = closed({ { "io_bytes", u64() },
			     { "total_ios", u64() },
			     { "runtime_ns", u64() },
			     { "bw_bytes", u64() },
			     { "iops", type("number") },
			     { "lat_mean_ns", type("number") } });
	ojson run = closed({ { "run", u64() },
			     { "discarded", type("boolean") },
			     { "read", dir },
			     { "write", dir },
			     { "trim", dir } });
	ojson runs = type("array");
	runs["items"] = run;
	return closed({ { "job_id", u64() },
			{ "jobname", type("string") },
			{ "aggregate", ojson{ { "enum", { "max", "median", "mean", "min" } } } },
			{ "runs", runs } });
}

ojson array_of(const char *def)
{
	ojson a = type("array");
	a["items"] = ref(def);
	return a;
}

ojson ioplan_job_def()
{
	ojson ids = type("array");
	ids["items"] = u64();
	return closed({ { "jobname", type("string") },
			{ "groupid", u64() },
			{ "job_ids", ids },
			{ "members", u64("clones merged into this entry") },
			{ "usr_ns", u64() },
			{ "sys_ns", u64() },
			{ "cpu_ns_per_io", type("number") },
			{ "cpu_bound", type("boolean") },
			{ "stalled", type("boolean") },
			{ "verify_failures", u64() },
			{ "read", ref("rate") },
			{ "write", ref("rate") },
			{ "trim", ref("rate") },
			{ "errors", array_of("error") },
			{ "repeat", array_of("repeat") },
			{ "replay", closed({ { "ios", u64() },
					     { "late_ios", u64("I/Os issued more than late_threshold_ns behind the trace") },
					     { "late_pct", type("number") },
					     { "late_threshold_ns", u64() },
					     { "max_lag_ns", u64("the worst lag behind the trace") } }) } },
		      { "read", "write", "trim", "replay" });
}

ojson message_def()
{
	return closed({ { "level", ojson{ { "enum", { "note", "warning", "error" } } } },
			{ "code", type("string") },
			{ "text", type("string") },
			{ "job_id", ojson{ { "type", { "integer", "null" } }, { "minimum", 0 } } },
			{ "jobname", ojson{ { "type", { "string", "null" } } } } });
}

ojson number_or_null(const char *description)
{
	return ojson{ { "type", { "number", "null" } }, { "description", description } };
}

// Each group over the ranks: first and last done, stragglers (cli/mpi/rank_groups.hpp).
ojson groups_def()
{
	ojson slower = type("array", "by rank: its time per byte in the group over the median rank's, % "
				     "(null: no I/O in the group, or none at all moved)");
	slower["items"] = number_or_null("%");
	ojson straggler = closed({ { "rank", u64() },
				   { "host", type("string") },
				   { "slower_pct", number_or_null("% (null: it moved nothing)") } });
	ojson stragglers = type("array", "ranks slower than the median by more than straggler_threshold_pct");
	stragglers["items"] = straggler;
	ojson group = closed({ { "group", u64("groupid") },
			       { "nranks", u64("ranks that did I/O in the group") },
			       { "start_ns", u64("first I/O of any rank, on rank 0's clock") },
			       { "first_done_ns", u64("the first rank to finish: its last completion") },
			       { "first_done_rank", u64() },
			       { "first_done_io_bytes", u64("moved by every rank until first_done_ns (from the per-interval series)") },
			       { "first_done_bw_bytes", u64("first_done_io_bytes over start_ns to first_done_ns, bytes/s") },
			       { "last_done_ns", u64("the last rank to finish") },
			       { "last_done_rank", u64() },
			       { "io_bytes", u64("every rank's, all directions") },
			       { "last_done_bw_bytes", u64("io_bytes over start_ns to last_done_ns, bytes/s") },
			       { "slower_pct", slower },
			       { "stragglers", stragglers } });
	ojson a = type("array", "per group that did I/O, in the order they ran");
	a["items"] = group;
	return a;
}

// mpirun (report/ranks.hpp): the world the results were merged over.
ojson world_def()
{
	ojson o = closed({ { "nranks", u64("ranks merged") },
			   { "nhosts", u64("distinct hosts among them") },
			   { "start_skew_ns", u64("worst spread of a group's start over the ranks") },
			   { "first_io_spread_ns", u64("worst spread of a job's first I/O over the ranks, on rank 0's clock") },
			   { "merge_ns", u64("rank 0's time to receive and merge every rank") },
			   { "straggler_threshold_pct", type("number", "--straggler-threshold (0: none flagged)") },
			   { "groups", groups_def() } });
	o["description"] = "only in a run of several ranks (mpirun) or from ioplan merge";
	return o;
}

// A rank's (or with host, a host's) figures of one job (report/ranks.cpp).
ojson rank_job_def(bool host)
{
	ojson ddp{ { "io_bytes", u64() }, { "total_ios", u64() } };
	if (host) {
		ddp["bw_bytes"] = u64("bytes/s over the host's window");
		ddp["iops"] = type("number", "over the host's window");
	}
	ojson dd = closed(ddp);
	ojson lat = closed({ { "N", u64() },
			     { "min", u64("ns") },
			     { "max", u64("ns") },
			     { "mean", type("number", "ns") },
			     { "p50", u64("ns") },
			     { "p99", u64("ns") } });
	ojson props{ { "job", u64("jobs[] index") },
		     { "read", dd },
		     { "write", dd },
		     { "trim", dd },
		     { "runtime_ns", u64(host ? "the host's window: first_io_ns to end_ns"
					      : "longest clone window on this rank") },
		     { "lat_ns", lat } };
	if (host) {
		props["first_io_ns"] = u64("the first I/O of its ranks, on rank 0's clock");
		props["end_ns"] = u64("the last completion of its ranks");
		props["lat_ns"]["description"] = "of every I/O of its ranks: their histograms merged";
	}
	ojson jobs = type("array");
	jobs["items"] = closed(props);
	return jobs;
}

// Each rank's own figures, so a straggler shows.
ojson ranks_def()
{
	ojson rank = closed({ { "rank", u64() },
			      { "host", type("string") },
			      { "error", type("integer", "positive errno, ENODATA when no result came") },
			      { "clock_offset_ns", type("integer", "rank 0's clock minus this rank's") },
			      { "start_late_max_ns", u64("latest start behind the common start time") },
			      { "jobs", rank_job_def(false) } });
	ojson a = type("array", "one per rank, by rank (mpirun)");
	a["items"] = rank;
	return a;
}

// Each host's ranks together.
ojson hosts_def()
{
	ojson ranks = type("array", "its ranks that reported");
	ranks["items"] = u64();
	ojson host = closed({ { "host", type("string") },
			      { "nranks", u64() },
			      { "ranks", ranks },
			      { "jobs", rank_job_def(true) } });
	ojson a = type("array", "one per host, in the order of their first rank (mpirun)");
	a["items"] = host;
	return a;
}

// What --save was given, in a report of a run it did not store: `results import` stores it so.
ojson saved_as_def()
{
	ojson o = closed({ { "label", type("string", "--save's label (\"\" for none)") },
			   { "preset", type("string", "--preset's name (\"\" for none)") } });
	o["description"] = "--save's label and preset, where --save did not store the run (a merge of "
			   "rank files; a run kept unsaved): results import stores it under them";
	return o;
}

ojson ioplan_def()
{
	ojson sv = type("integer");
	sv["const"] = result_schema_version;
	ojson strings = type("array", "the text of every warning-level message");
	strings["items"] = type("string");
	ojson preflight = closed({ { "findings", array_of("message") } });
	preflight["description"] = "what the checks before any I/O found (also in messages, "
				   "with codes prefixed preflight/)";
	ojson series = type("array", "per job and run: bytes, ios, bandwidth and IOPS per interval "
				     "(layout in report/plot/plot.hpp)");
	series["items"] = type("object");
	ojson traces = type("array", "per job run with io_trace=N: the recorded I/Os and, for "
				     "zonemode=strided jobs, per-zone transfer rates");
	traces["items"] = type("object");
	return closed({ { "schema_version", sv },
			{ "version", type("string") },
			{ "host", type("string") },
			{ "kernel", type("string") },
			{ "clock_source", type("string") },
			{ "clock_cost_ns", type("number") },
			{ "start_wall_ns", u64() },
			{ "elapsed_ns", u64() },
			{ "interrupted", type("boolean") },
			{ "error", type("integer") },
			{ "jobs", array_of("ioplan_job") },
			{ "messages", array_of("message") },
			{ "warnings", strings },
			{ "preflight", preflight },
			{ "series", series },
			{ "traces", traces },
			{ "plan_hash", type("string", "SHA-256 of the resolved plan (--showplan's text)") },
			{ "workload_hash", type("string", "SHA-256 of the plan's workload: the resolved plan less "
							  "the names of this host's targets (files, directories, "
							  "devices, peers), as results summary groups runs") },
			{ "job_text", type("string", "the job files as run, in INI syntax, or the command line") },
			{ "uuid", type("string", "the run's id, as --save stores it (32 hex digits; not in a "
						 "report of the results so far)") },
			{ "environment", ojson{ { "type", "object" },
						{ "description", "the machine and each target's stack to its disks; "
								 "a fact that could not be read has no key "
								 "(docs/results.md)" } } },
			{ "world", world_def() },
			{ "ranks", ranks_def() },
			{ "hosts", hosts_def() },
			{ "saved_as", saved_as_def() } },
		      { "world", "ranks", "hosts", "uuid", "saved_as" });
}

// --idle-prof's figures (report/idleness.cpp); "cpu-N" only with percpu.
ojson idleness_def()
{
	ojson pct = type("number", "percent of the CPU left idle over the run");
	pct["minimum"] = 0;
	ojson o = closed({ { "system", pct },
			   { "unit_mean", type("number", "us of one unit of idle work") },
			   { "unit_stddev", type("number") } });
	o["patternProperties"] = ojson{ { "^cpu-[0-9]+$", pct } };
	return o;
}

ojson definitions()
{
	ojson opts = ojson{ { "type", "object" },
			    { "description", "options as typed; duplicates collapsed, last wins" },
			    { "additionalProperties", type("string") } };
	return ojson{ { "options", opts },	  { "lat", lat_def() },
		      { "ddir", ddir_def() },	  { "job", job_def() },
		      { "disk", disk_def() },	  { "rate", rate_def() },
		      { "error", error_def() },	  { "repeat", repeat_def() },
		      { "ioplan_job", ioplan_job_def() }, { "message", message_def() },
		      { "ioplan", ioplan_def() } };
}

} // namespace

std::string result_schema()
{
	ojson props = { { "fio version", type("string", "\"ioplan-<version>\", or \"fio-3.33\" when run as fio") },
			{ "timestamp", u64("s since the epoch, end of the run") },
			{ "timestamp_ms", u64() },
			{ "time", type("string", "ctime(3) of timestamp") },
			{ "global options", ref("options") },
			{ "jobs", array_of("job") },
			{ "disk_util", array_of("disk") },
			{ "cpu_idleness", idleness_def() },
			{ "ioplan", ref("ioplan") } };
	ojson s = closed(props, { "global options", "disk_util", "cpu_idleness" });
	ojson root = ojson::object();
	root["$schema"] = "http://json-schema.org/draft-07/schema#";
	root["title"] = "ioplan result (--output-format=json, json+)";
	root["description"] = "fio 3.33's JSON layout with ioplan's own facts under \"ioplan\"; "
			      "generated by report/fio/json_schema.cpp";
	for (auto it = s.begin(); it != s.end(); ++it)
		root[it.key()] = it.value();
	root["definitions"] = definitions();
	return root.dump(2) + "\n";
}

} // namespace report

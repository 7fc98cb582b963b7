// results/record_export.cpp - a stored run as JSON (results show, results export
// --output-format=json) and that JSON read back into a run, so runs move between
// stores as JSON as well as SQLite files.  Every field is checked as a report's
// figures are (record_fields.hpp): an edited one is refused where it is.
#include <cstdint>
#include <string>
#include <vector>

#include "results/record_fields.hpp"

namespace resdb {

using json = nlohmann::json;
using namespace fields;

// `results export --output-format=json` writes an array of runs; `results
// show` one run, an object with uuid and figures where a result has jobs[].
bool is_exported_run(const json &doc)
{
	return doc.is_object() && at(doc, "uuid").is_string() && at(doc, "figures").is_array() &&
	       !doc.contains("jobs");
}

namespace {

// A list of figures (samples, repeats): each a finite number, not negative.
std::vector<double> samples_of(const json &o, const char *key)
{
	std::vector<double> out;
	const json &a = at(o, key);
	if (!a.is_null() && !a.is_array())
		throw input_error("", std::string(key) + ": " + a.dump() + " is not a list of figures");
	for (const json &v : a.is_array() ? a : json::array())
		out.push_back(sample(v, key));
	return out;
}

// A name, a label, a direction: a string, or absent ("").
std::string text_of(const json &o, const char *key)
{
	const json &v = at(o, key);
	if (!v.is_null() && !v.is_string())
		throw input_error("", std::string(key) + ": " + v.dump() + " is not a string");
	return v.is_string() ? v.get<std::string>() : "";
}

std::string ddir_of(const json &o)
{
	std::string d = text_of(o, "ddir");
	if (!is_ddir(d))
		throw input_error("", "ddir: '" + d + "' is not read, write, trim or mixed");
	return d;
}

const json &list_of(const json &o, const char *key)
{
	static const json none = json::array();
	const json &a = at(o, key);
	if (!a.is_null() && !a.is_array())
		throw input_error("", std::string(key) + ": " + a.dump() + " is not a list");
	return a.is_array() ? a : none;
}

figure exported_figure(const json &o)
{
	figure f;
	f.job_index = small(o, "job_index");
	f.job = text_of(o, "job");
	f.ddir = ddir_of(o);
	const json &plan = at(o, "plan");
	if (!plan.is_null() && !plan.is_object())
		throw input_error("", "plan: " + plan.dump() + " is not an object of options");
	if (plan.is_object())
		for (const auto &kv : plan.items())
			f.plan[kv.key()] = text_of(plan, kv.key().c_str());
	f.io_bytes = u64(o, "io_bytes");
	f.ios = u64(o, "ios");
	f.runtime_s = num(o, "runtime_s");
	f.bw_bytes = num(o, "bw_bytes");
	f.iops = num(o, "iops");
	if (std::string why = rates_fault(f, f.runtime_s * 1000.0); !why.empty())
		throw input_error("", why);
	f.lat_mean_ns = num(o, "lat_mean_ns");
	f.p50_ns = num(o, "p50_ns");
	f.p99_ns = num(o, "p99_ns");
	f.p999_ns = num(o, "p999_ns");
	for (const json &b : list_of(o, "latency_buckets")) {
		auto whole = [](const json &v) {
			return v.is_number_unsigned() && v.get<uint64_t>() <= (uint64_t)INT64_MAX;
		};
		if (!b.is_array() || b.size() != 2 || !whole(b[0]) || !whole(b[1]))
			throw input_error("", "latency_buckets: " + b.dump() + " is not [latency ns, count]");
		f.buckets.emplace_back(b[0].get<uint64_t>(), b[1].get<uint64_t>());
	}
	f.interval_s = num(o, "interval_s");
	f.iops_samples = samples_of(o, "iops_samples");
	f.bw_samples = samples_of(o, "bw_samples");
	f.repeat_iops = samples_of(o, "repeat_iops");
	f.repeat_bw = samples_of(o, "repeat_bw");
	return f;
}

rank_record exported_rank(const json &o)
{
	rank_record k;
	k.rank = small(o, "rank");
	k.host = text_of(o, "host");
	k.error = small(o, "error");
	k.start_late_ns = u64(o, "start_late_ns");
	for (const json &g : list_of(o, "figures")) {
		rank_figure f;
		f.job_index = small(g, "job_index");
		f.job = text_of(g, "job");
		f.ddir = ddir_of(g);
		f.io_bytes = u64(g, "io_bytes");
		f.ios = u64(g, "ios");
		f.runtime_ns = u64(g, "runtime_ns");
		f.lat_n = u64(g, "lat_n");
		f.lat_mean_ns = num(g, "lat_mean_ns");
		f.lat_p50_ns = u64(g, "lat_p50_ns");
		f.lat_p99_ns = u64(g, "lat_p99_ns");
		f.lat_max_ns = u64(g, "lat_max_ns");
		k.figures.push_back(std::move(f));
	}
	return k;
}

// The run fields of an exported run; its facts are found again from them and
// the environment as an import of its report finds them (read_facts), so an
// edited fact cannot disagree with what the run says.
void exported_fields(const json &o, run_record &r)
{
	r.uuid = text_of(o, "uuid");
	if (!is_run_id(r.uuid))
		throw input_error("", "uuid: '" + r.uuid + "' is not a run's id (32 hex digits)");
	r.label = text_of(o, "label");
	r.source = text_of(o, "source");
	r.tool_version = text_of(o, "tool_version");
	r.started_s = date_of(o, "started_s");
	r.host = text_of(o, "host");
	r.kernel = text_of(o, "kernel");
	r.plan_hash = text_of(o, "plan_hash");
	r.workload_hash = text_of(o, "workload_hash");	// absent from runs exported before
	r.job_text = text_of(o, "job_text");
	const json &env = at(o, "environment");
	if (!env.is_null() && !env.is_object())
		throw input_error("", "environment: not an object");
	r.environment = env.is_object() ? env.dump() : "";
	const json &intr = at(o, "interrupted");
	if (!intr.is_null() && !intr.is_boolean())
		throw input_error("", "interrupted: " + intr.dump() + " is not true or false");
	r.interrupted = intr == true;
	for (const json &w : list_of(o, "warnings"))
		r.warnings.push_back(w.is_string() ? w.get<std::string>() : w.dump());
	/* Marked failed however damaged the mark (failures_of): never read as a good run. */
	if (!list_of(o, "failed").empty())
		r.failures = failures_of(o["failed"].dump());
}

} // namespace

run_record exported_run(const json &o, const std::string &where)
{
	run_record r;
	std::string part = where;
	try {
		if (!is_exported_run(o))
			throw input_error("", "not a run of results export (no uuid and figures[])");
		exported_fields(o, r);
		const json &figs = o["figures"];
		for (size_t i = 0; i < figs.size(); i++) {
			part = where + ".figures[" + std::to_string(i) + "]";
			r.figures.push_back(exported_figure(figs[i]));
		}
		const json &ranks = list_of(o, "ranks");
		for (size_t i = 0; i < ranks.size(); i++) {
			part = where + ".ranks[" + std::to_string(i) + "]";
			r.ranks.push_back(exported_rank(ranks[i]));
		}
	} catch (const input_error &e) {
		throw input_error("", part + ": " + e.what());
	}
	read_facts(r, json::parse(r.environment.empty() ? "null" : r.environment));
	const json &facts = at(o, "facts");
	if (at(facts, "preset").is_string())
		r.facts["preset"] = facts["preset"].get<std::string>();
	return r;
}

nlohmann::ordered_json record_json(const run_record &r)
{
	using ojson = nlohmann::ordered_json;
	ojson figs = ojson::array();
	for (const figure &f : r.figures) {
		ojson buckets = ojson::array();
		for (const auto &b : f.buckets)
			buckets.push_back(ojson::array({ b.first, b.second }));
		figs.push_back(ojson{ { "job_index", f.job_index }, { "job", f.job }, { "ddir", f.ddir },
				      { "plan", f.plan }, { "io_bytes", f.io_bytes }, { "ios", f.ios },
				      { "runtime_s", f.runtime_s }, { "bw_bytes", f.bw_bytes }, { "iops", f.iops },
				      { "lat_mean_ns", f.lat_mean_ns }, { "p50_ns", f.p50_ns }, { "p99_ns", f.p99_ns },
				      { "p999_ns", f.p999_ns }, { "latency_buckets", buckets },
				      { "interval_s", f.interval_s }, { "iops_samples", f.iops_samples },
				      { "bw_samples", f.bw_samples }, { "repeat_iops", f.repeat_iops },
				      { "repeat_bw", f.repeat_bw } });
	}
	ojson ranks = ojson::array();
	for (const rank_record &k : r.ranks) {
		ojson kf = ojson::array();
		for (const rank_figure &f : k.figures) {
			double s = (double)f.runtime_ns / 1e9;
			kf.push_back(ojson{ { "job_index", f.job_index }, { "job", f.job }, { "ddir", f.ddir },
					    { "io_bytes", f.io_bytes }, { "ios", f.ios }, { "runtime_ns", f.runtime_ns },
					    { "iops", s > 0 ? (double)f.ios / s : 0.0 },
					    { "bw_bytes", s > 0 ? (double)f.io_bytes / s : 0.0 }, { "lat_n", f.lat_n },
					    { "lat_mean_ns", f.lat_mean_ns }, { "lat_p50_ns", f.lat_p50_ns },
					    { "lat_p99_ns", f.lat_p99_ns }, { "lat_max_ns", f.lat_max_ns } });
		}
		ranks.push_back(ojson{ { "rank", k.rank }, { "host", k.host }, { "error", k.error },
				       { "start_late_ns", k.start_late_ns }, { "figures", kf } });
	}
	ojson env = r.environment.empty() ? ojson(nullptr) : ojson::parse(r.environment, nullptr, false);
	return ojson{ { "id", r.id },	      { "uuid", r.uuid },	  { "label", r.label },
		      { "source", r.source }, { "tool_version", r.tool_version }, { "started_s", r.started_s },
		      { "host", r.host },     { "kernel", r.kernel },	  { "plan_hash", r.plan_hash },
		      { "workload_hash", r.workload_hash },
		      { "job_text", r.job_text }, { "facts", r.facts },	  { "environment", env },
		      { "interrupted", r.interrupted }, { "failed", failures_json(r.failures) },
		      { "warnings", r.warnings }, { "figures", figs },
		      { "ranks", ranks } };
}

} // namespace resdb

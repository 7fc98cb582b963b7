// results/summary.cpp - groups, spreads and outliers of stored runs (summary.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "results/stats.hpp"
#include "results/summary.hpp"
#include "results/table_cell.hpp"

namespace resdb {

const std::vector<std::string> summary_fields = { "host",	  "kernel",	   "label",
						  "source",	  "plan",	   "preset",
						  "virtualization", "instance_type", "cpu_model",
						  "distribution", "filesystem",	   "disk_model" };

namespace {

// An outlier is beyond Tukey's fences and more than this share of the group's
// median IOPS away from it: the runs of a rate-limited job agree to a few
// tenths of a percent, and one 0.6% off was named with "the ones that go with
// trouble".  10% is the spread the reports' caveat calls noisy repeats.
constexpr double outlier_min_share = 0.10;

// Of no value (a group whose runs all lack a p99): NaN, shown as none, never as 0.
spread spread_of(const std::vector<double> &v)
{
	if (v.empty())
		return spread{ NAN, NAN, NAN };
	return spread{ quantile(v, 0.1), quantile(v, 0.5), quantile(v, 0.9) };
}

nlohmann::ordered_json spread_json(const spread &s)
{
	if (std::isnan(s.median))
		return nlohmann::ordered_json{ { "p10", nullptr }, { "median", nullptr }, { "p90", nullptr } };
	return nlohmann::ordered_json{ { "p10", s.p10 }, { "median", s.median }, { "p90", s.p90 } };
}

} // namespace

// Its figures cover only what ran before the stop, or not the workload asked
// (a job failed): a low value that would pull the percentiles down and be
// named an outlier for a reason that is no trouble of the system measured.
left_out leave_out(std::vector<summary_row> &rows, bool keep_interrupted, bool keep_failed)
{
	std::set<int64_t> stopped, failed;
	auto out = [&](const summary_row &r) {
		return (r.interrupted && !keep_interrupted) || (r.failed && !keep_failed);
	};
	for (const summary_row &r : rows)
		if (out(r))
			(r.interrupted && !keep_interrupted ? stopped : failed).insert(r.run_id);
	rows.erase(std::remove_if(rows.begin(), rows.end(), out), rows.end());
	return left_out{ stopped.size(), failed.size() };
}

std::vector<group_summary> summarize(const std::vector<summary_row> &rows)
{
	// The workload is in the key: jobs of one name in different plans (bs=4k
	// and bs=64k, rate-limited or not) ran different workloads, and one median
	// of both named the odd plan's runs outliers.  The plan is not: the same job
	// on hosts whose targets are named apart is one workload of several plans.
	std::map<std::tuple<std::string, std::string, std::string, bool, std::string>, std::vector<const summary_row *>>
		groups;
	for (const summary_row &r : rows)
		groups[{ r.group, r.job, r.ddir, r.by_plan, r.workload }].push_back(&r);
	std::vector<group_summary> out;
	for (const auto &kv : groups) {
		group_summary g;
		std::tie(g.group, g.job, g.ddir, g.by_plan, g.workload) = kv.first;
		std::set<std::string> plans;
		std::vector<double> iops, bw, p99;
		for (const summary_row *r : kv.second) {
			plans.insert(r->plan);
			iops.push_back(r->iops);
			bw.push_back(r->bw_bytes);
			if (!std::isnan(r->p99_ns))	// clones without buckets: no p99 to know
				p99.push_back(r->p99_ns);
		}
		g.plans.assign(plans.begin(), plans.end());
		g.count = iops.size();
		g.iops = spread_of(iops);
		g.bw_bytes = spread_of(bw);
		g.p99_ns = spread_of(p99);
		std::vector<bool> odd = outliers(iops, outlier_min_share);
		for (size_t i = 0; i < odd.size(); i++)
			if (odd[i])
				g.outliers.push_back(kv.second[i]->run_id);
		out.push_back(std::move(g));
	}
	return out;
}

nlohmann::ordered_json summary_json(const std::vector<group_summary> &groups, const std::string &by,
				    left_out out)
{
	nlohmann::ordered_json a = nlohmann::ordered_json::array();
	for (const group_summary &g : groups)
		a.push_back(nlohmann::ordered_json{ { "group", g.group },
						    { "job", g.job },
						    { "workload", g.by_plan ? nlohmann::ordered_json(nullptr)
									    : nlohmann::ordered_json(g.workload) },
						    { "plans", g.plans },
						    { "ddir", g.ddir },
						    { "count", g.count },
						    { "iops", spread_json(g.iops) },
						    { "bw_bytes", spread_json(g.bw_bytes) },
						    { "p99_ns", spread_json(g.p99_ns) },
						    { "outliers", g.outliers } });
	return nlohmann::ordered_json{ { "by", by },
				       { "groups", a },
				       { "interrupted_left_out", out.interrupted },
				       { "failed_left_out", out.failed },
				       { "damaged_left_out", out.damaged } };
}

// A group's name in the text: "all" when runs are not grouped (every row
// said "(none)" under "group", as if the runs lacked something), and for
// runs without the fact "(no label)" and the like ("(none)" was also what a
// run labelled "(none)" showed, two rows alike for two groups).
static std::string group_name(const std::string &group, const std::string &by)
{
	if (by.empty())
		return "all";
	return group.empty() ? "(no " + by + ")" : group;
}

std::string summary_text(const std::vector<group_summary> &groups, const std::string &by, left_out gone)
{
	std::string out;
	char line[512];
	bool by_plan = false;
	std::snprintf(line, sizeof(line), "%-24s %-16s %-13s %-5s %6s  %-32s %-32s %-26s %s\n",
		      by.empty() ? "group" : by.c_str(), "job", "workload", "dir", "runs", "IOPS p10/median/p90",
		      "MiB/s p10/median/p90", "p99 us p10/median/p90", "outliers (run ids)");
	out += line;
	for (const group_summary &g : groups) {
		char iops[64], bw[64], p99[64];
		auto three = [](char *s, size_t n, double a, double b, double c, int prec) {
			std::snprintf(s, n, "%s/%s/%s", table_cell(a, prec, 10).c_str(), table_cell(b, prec, 10).c_str(),
				      table_cell(c, prec, 10).c_str());
		};
		three(iops, sizeof(iops), g.iops.p10, g.iops.median, g.iops.p90, 0);
		three(bw, sizeof(bw), g.bw_bytes.p10 / 1048576, g.bw_bytes.median / 1048576, g.bw_bytes.p90 / 1048576, 1);
		std::snprintf(p99, sizeof(p99), "%s/%s/%s", latency_us_cell(g.p99_ns.p10, 2, 10).c_str(),
			      latency_us_cell(g.p99_ns.median, 2, 10).c_str(), latency_us_cell(g.p99_ns.p90, 2, 10).c_str());
		if (std::isnan(g.p99_ns.median))
			std::snprintf(p99, sizeof(p99), "-");
		std::string odd;
		for (int64_t id : g.outliers)
			odd += (odd.empty() ? "" : ",") + std::to_string(id);
		// The workload as `results list` shows it (its first 12 digits;
		// --workload takes them), or a plan's with a '*' (--plan takes it).
		std::string key = g.workload.empty() ? "-" : g.workload.substr(0, 12) + (g.by_plan ? "*" : "");
		by_plan = by_plan || g.by_plan;
		std::snprintf(line, sizeof(line), "%s %s %-13s %-5s %6zu  %-32s %-32s %-26s %s\n",
			      column(group_name(g.group, by), 24).c_str(), column(g.job, 16).c_str(),
			      key.c_str(), g.ddir.c_str(), g.count, iops,
			      bw, p99, odd.empty() ? "-" : odd.c_str());
		out += line;
	}
	if (by_plan)
		out += "* a plan hash, not a workload's: runs saved before ioplan kept workload hashes, of a plan no "
		       "later run has (--plan takes it)\n";
	for (auto [n, what, flag] : { std::tuple(gone.interrupted, "interrupted", "--include-interrupted"),
				      std::tuple(gone.failed, "failed", "--include-failed") })
		if (n)
			out += std::to_string(n) + " " + what + " run" + (n == 1 ? "" : "s") + " left out (" + flag +
			       " counts " + (n == 1 ? "it" : "them") + ")\n";
	if (gone.damaged)
		out += std::to_string(gone.damaged) + " damaged run" + (gone.damaged == 1 ? "" : "s") +
		       " left out (named on standard error)\n";
	return out;
}

} // namespace resdb

// results/compare.cpp - `ioplan compare` (compare.hpp).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <map>
#include <set>

#include "results/compare.hpp"
#include "results/table_cell.hpp"
#include "results/stats.hpp"

namespace resdb {

namespace {

using ojson = nlohmann::ordered_json;

constexpr int resamples = 2000;

// The k-th job named a in A is matched with the k-th named a in B: clones of
// numjobs=N (and sections sharing a name) are each their own jobs[] entry.
std::string key_of(const figure &f, const job_ordinal &o)
{
	return f.job + "\n" + std::to_string(o.k) + "\n" + f.ddir;
}

void plan_diff(const figure &fa, const figure &fb, const std::string &label, std::vector<std::string> &out)
{
	for (const std::string &k : plan_keys) {
		std::string va = fa.plan.count(k) ? fa.plan.at(k) : "", vb = fb.plan.count(k) ? fb.plan.at(k) : "";
		if (va != vb)
			out.push_back("job " + label + ": " + k + "=" + (va.empty() ? "(default)" : va) + " vs " +
				      k + "=" + (vb.empty() ? "(default)" : vb));
	}
}

// Names that several jobs of either run share: those are shown as "a #k".
std::set<std::string> shared_names(const run_record &a, const run_record &b)
{
	std::set<std::string> out;
	for (const run_record *r : { &a, &b }) {
		std::vector<job_ordinal> o = job_ordinals(*r);
		for (size_t i = 0; i < o.size(); i++)
			if (o[i].of > 1)
				out.insert(r->figures[i].job);
	}
	return out;
}

// Every leaf of a JSON value as "a.b[0].c" -> text.
void flatten(const nlohmann::json &v, const std::string &at, std::map<std::string, std::string> &out)
{
	if (v.is_object()) {
		for (auto it = v.begin(); it != v.end(); ++it)
			if (it.key() != "during_run")	// this run's own counters, not the machine
				flatten(*it, at.empty() ? it.key() : at + "." + it.key(), out);
	} else if (v.is_array()) {
		for (size_t i = 0; i < v.size(); i++)
			flatten(v[i], at + "[" + std::to_string(i) + "]", out);
	} else {
		out[at] = v.is_string() ? v.get<std::string>() : v.dump();
	}
}

// The words of a job text (a command line's arguments, a job file's lines),
// but for those that choose where the results go, not what is run.
std::multiset<std::string> job_words(const std::string &text)
{
	std::multiset<std::string> out;
	size_t i = 0;
	while (i < text.size()) {
		size_t j = text.find_first_of(" \t\n", i);
		if (j == std::string::npos)
			j = text.size();
		std::string w = text.substr(i, j - i);
		if (!w.empty())
			for (const char *skip : { "--save", "--results-db", "--output", "--output-format" })
				if (w == skip || w.rfind(std::string(skip) + "=", 0) == 0) {
					w.clear();
					break;
				}
		if (!w.empty())
			out.insert(w);
		i = j + 1;
	}
	return out;
}

// What one multiset holds beyond the other, at most `most` of it.
std::vector<std::string> beyond(const std::multiset<std::string> &x, const std::multiset<std::string> &y)
{
	std::vector<std::string> out;
	std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
	return out;
}

std::vector<std::string> env_diff(const run_record &a, const run_record &b)
{
	std::map<std::string, std::string> fa, fb;
	flatten(nlohmann::json::parse(a.environment.empty() ? "{}" : a.environment, nullptr, false), "", fa);
	flatten(nlohmann::json::parse(b.environment.empty() ? "{}" : b.environment, nullptr, false), "", fb);
	if (fa.empty() || fb.empty())
		return {};
	std::vector<std::string> out;
	for (const auto &kv : fa) {
		auto it = fb.find(kv.first);
		std::string vb = it == fb.end() ? "(absent)" : it->second;
		if (vb != kv.second)
			out.push_back(kv.first + ": " + kv.second + " -> " + vb);
	}
	for (const auto &kv : fb)
		if (!fa.count(kv.first))
			out.push_back(kv.first + ": (absent) -> " + kv.second);
	return out;
}

// A side's throughput as the interval sees it: a run of repeat=N is the mean
// of its repeats, where its figure is repeat_aggregate's (by default the best
// run).  Compared by that figure, the change and its verdict judged two
// different things: "+0.0%" and "slower" when the best runs were alike and
// the others halved.
double throughput_of(const figure &f, bool bw)
{
	const std::vector<double> &r = bw ? f.repeat_bw : f.repeat_iops;
	if (r.size() < 2)
		return bw ? f.bw_bytes : f.iops;
	double sum = 0;
	for (double v : r)
		sum += v;
	return sum / (double)r.size();
}

// Throughput: the change of the mean, weighed by a bootstrap over repeats or samples.
metric_cmp throughput(const figure &fa, const figure &fb, bool bw)
{
	metric_cmp m;
	m.metric = bw ? "bw_bytes" : "iops";
	m.a = throughput_of(fa, bw);
	m.b = throughput_of(fb, bw);
	bool repeats = fa.repeat_iops.size() >= 2 && fb.repeat_iops.size() >= 2;
	const std::vector<double> &sa = repeats ? (bw ? fa.repeat_bw : fa.repeat_iops) : (bw ? fa.bw_samples : fa.iops_samples);
	const std::vector<double> &sb = repeats ? (bw ? fb.repeat_bw : fb.repeat_iops) : (bw ? fb.bw_samples : fb.iops_samples);
	m.has_interval = bootstrap_change(sa, sb, compare_confidence, resamples, &m.lo, &m.hi);
	m.noise = !m.has_interval ? "unknown" : repeats ? "repeats" : "samples";
	return m;
}

// Latency percentile: the two order-statistic intervals, turned into one of the change.
metric_cmp latency(const figure &fa, const figure &fb, const char *name, double p)
{
	metric_cmp m;
	m.metric = name;
	m.a = p == 0.5 ? fa.p50_ns : p == 0.99 ? fa.p99_ns : fa.p999_ns;
	m.b = p == 0.5 ? fb.p50_ns : p == 0.99 ? fb.p99_ns : fb.p999_ns;
	double alo, ahi, blo, bhi;
	if (quantile_interval(fa.buckets, p, compare_confidence, &alo, &ahi) &&
	    quantile_interval(fb.buckets, p, compare_confidence, &blo, &bhi) && ahi > 0) {
		// A's bound unknown above or below (too few I/Os) leaves the change's
		// unknown on the other side: -100% (nothing lower) or +infinity.
		m.has_interval = true;
		m.lo = std::isinf(ahi) ? -1 : blo / ahi - 1;
		m.hi = alo > 0 ? bhi / alo - 1 : INFINITY;
		m.noise = "histogram";
	} else {
		m.noise = "unknown";
	}
	return m;
}

// A percentile a side did not record has no change and no verdict (latency_recorded).
bool judge_unrecorded(metric_cmp &m)
{
	bool a = latency_recorded(m.a), b = latency_recorded(m.b);
	if (a && b)
		return false;
	m.change = 0;
	m.comparable = m.has_interval = m.worse = false;
	m.noise = "unknown";
	m.verdict = !a && !b ? "not comparable: neither records it" : !a ? "not comparable: A does not record it"
									 : "not comparable: B does not record it";
	return true;
}

void judge(metric_cmp &m, bool higher_is_better)
{
	if (!higher_is_better && judge_unrecorded(m))
		return;
	if (!(m.a > 0) && m.b > 0) {
		// No change in percent exists from nothing (A did no I/O of this kind): saying
		// "+0.0%, no measurable difference" would hide the one difference there is.
		m.change = 0;
		m.comparable = m.has_interval = m.worse = false;
		m.verdict = "not comparable: A is 0";
		return;
	}
	m.change = m.a > 0 ? m.b / m.a - 1 : 0;
	bool up, down;
	if (m.has_interval) {
		up = m.lo > 0;
		down = m.hi < 0;
	} else {
		up = m.change > 0;
		down = m.change < 0;
	}
	m.worse = higher_is_better ? down : up;
	bool better = higher_is_better ? up : down;
	m.verdict = m.worse ? "slower" : better ? "faster" : "no measurable difference";
	// Without a noise estimate (fio's files hold no samples) a change of
	// +0.9% was "faster" as surely as one beyond any noise.  The gate still
	// weighs it (worse), by --fail-on-regression's percentage alone.
	if (!m.has_interval && (up || down))
		m.verdict = "not judged: noise unknown";
}

void compare_figures(const figure &fa, const figure &fb, const std::string &label, int k, comparison &c)
{
	plan_diff(fa, fb, label, c.plan_differences);
	std::vector<metric_cmp> ms = { throughput(fa, fb, false), throughput(fa, fb, true),
				       latency(fa, fb, "p50_ns", 0.5), latency(fa, fb, "p99_ns", 0.99),
				       latency(fa, fb, "p999_ns", 0.999) };
	for (metric_cmp &m : ms) {
		m.job = fa.job;
		m.ordinal = k;
		m.label = label;
		m.ddir = fa.ddir;
		judge(m, m.metric == "iops" || m.metric == "bw_bytes");
		c.metrics.push_back(m);
	}
}

} // namespace

comparison compare(const run_record &a, const run_record &b)
{
	comparison c;
	std::set<std::string> several = shared_names(a, b);
	std::vector<job_ordinal> oa = job_ordinals(a), ob = job_ordinals(b);
	std::map<std::string, size_t> in_b;	// key -> index in b.figures
	for (size_t i = 0; i < b.figures.size(); i++)
		in_b[key_of(b.figures[i], ob[i])] = i;
	for (size_t i = 0; i < a.figures.size(); i++) {
		const figure &fa = a.figures[i];
		std::string label = job_label(fa.job, oa[i].k, several.count(fa.job) > 0);
		auto it = in_b.find(key_of(fa, oa[i]));
		if (it == in_b.end()) {
			c.plan_differences.push_back("job " + label + " " + fa.ddir + ": only in A");
			continue;
		}
		const figure &fb = b.figures[it->second];
		in_b.erase(it);
		compare_figures(fa, fb, label, oa[i].k, c);
	}
	for (const auto &kv : in_b) {
		const figure &fb = b.figures[kv.second];
		c.plan_differences.push_back("job " + job_label(fb.job, ob[kv.second].k, several.count(fb.job) > 0) +
					     " " + fb.ddir + ": only in B");
	}
	c.env_differences = env_diff(a, b);
	c.other_plan = a.source == "ioplan" && b.source == "ioplan" && !a.plan_hash.empty() &&
		       !b.plan_hash.empty() && a.plan_hash != b.plan_hash;
	c.workloads_known = !a.workload_hash.empty() && !b.workload_hash.empty();
	c.same_workload = c.workloads_known && a.workload_hash == b.workload_hash;
	if (c.other_plan) {
		std::multiset<std::string> wa = job_words(a.job_text), wb = job_words(b.job_text);
		c.only_a = beyond(wa, wb);
		c.only_b = beyond(wb, wa);
	}
	return c;
}

bool regressed(const comparison &c, double pct, std::vector<const metric_cmp *> *which)
{
	for (const metric_cmp &m : c.metrics)
		if (m.worse && std::fabs(m.change) * 100 > pct)
			which->push_back(&m);
	return !which->empty();
}

namespace {

ojson side_json(const run_record &r)
{
	return ojson{ { "id", r.id ? ojson(r.id) : ojson(nullptr) }, { "uuid", r.uuid }, { "label", r.label },
		      { "source", r.source }, { "host", r.host }, { "plan_hash", r.plan_hash },
		      { "workload_hash", r.workload_hash },
		      { "interrupted", r.interrupted }, { "failed", failures_json(r.failures) } };
}

std::string pct(double v)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), "%+.1f%%", v * 100);
	return buf;
}

std::string name_of(const run_record &r)
{
	std::string s = r.id ? "run " + std::to_string(r.id) : "file";
	if (!r.label.empty())
		s += " (" + r.label + ")";
	return printable(s + " " + r.source + (r.host.empty() ? "" : " on " + r.host) +
			 (r.interrupted ? ", INTERRUPTED: its figures cover only what ran" : "") +
			 (r.failures.empty() ? "" : ", FAILED: " + failure_text(r.failures[0])));
}

bool repeated(const run_record &r)
{
	for (const figure &f : r.figures)
		if (f.repeat_iops.size() >= 2)
			return true;
	return false;
}

// A latency percentile a side did not record is no figure (null, "-"), not 0 ns.
bool unrecorded(const metric_cmp &m, double v)
{
	return m.metric != "iops" && m.metric != "bw_bytes" && !latency_recorded(v);
}

} // namespace

ojson comparison_json(const comparison &c, const run_record &a, const run_record &b)
{
	ojson ms = ojson::array();
	for (const metric_cmp &m : c.metrics)
		ms.push_back(ojson{ { "job", m.job },
				    { "job_ordinal", m.ordinal },
				    { "ddir", m.ddir },
				    { "metric", m.metric },
				    { "a", unrecorded(m, m.a) ? ojson(nullptr) : ojson(m.a) },
				    { "b", unrecorded(m, m.b) ? ojson(nullptr) : ojson(m.b) },
				    { "change", m.comparable ? ojson(m.change) : ojson(nullptr) },
				    { "interval", m.has_interval ? ojson::array({ m.lo, m.hi }) : ojson(nullptr) },
				    { "noise", m.noise },
				    { "verdict", m.verdict } });
	return ojson{ { "a", side_json(a) },
		      { "b", side_json(b) },
		      { "confidence", compare_confidence },
		      { "plan_differences", c.plan_differences },
		      { "environment_differences", c.env_differences },
		      { "same_plan", !c.other_plan },
		      { "same_workload", c.workloads_known ? ojson(c.same_workload) : ojson(nullptr) },
		      { "job_text_differences", ojson{ { "only_in_a", c.only_a }, { "only_in_b", c.only_b } } },
		      { "metrics", ms } };
}

std::string comparison_text(const comparison &c, const run_record &a, const run_record &b)
{
	std::string out = "A: " + name_of(a) + "\nB: " + name_of(b) + "\n\n";
	// A rate limit or a runtime that differs is no refusal (only rw, bs, ... are),
	// and "slower -99.9%" said nothing of it.
	if (c.other_plan) {
		// Two runs of one job of randrepeat=0, whose seeds are drawn for each run, were
		// said to differ "in an option" that neither job text had apart.
		out += "The plans differ (plan " + a.plan_hash.substr(0, 12) + " vs " + b.plan_hash.substr(0, 12) + ") " +
		       (c.same_workload ? "only in what their workload leaves out (their targets' names, random seeds "
					  "drawn for each run): the same workload (" + a.workload_hash.substr(0, 12) + ").\n"
					: "in an option other than rw, bs, iodepth, numjobs, size, direct and ioengine.\n");
		for (auto [side, words] : { std::pair("A", &c.only_a), std::pair("B", &c.only_b) }) {
			if (words->empty())
				continue;
			std::string list;
			for (size_t i = 0; i < words->size() && i < 8; i++)
				list += " " + (*words)[i];
			out += printable(std::string("  only in ") + side + "'s job:" + list +
					 (words->size() > 8 ? " (and " + std::to_string(words->size() - 8) + " more)" : "")) +
			       "\n";
		}
		out += "\n";
	}
	char line[256];
	std::snprintf(line, sizeof(line), "%-16s %-5s %-8s %14s %14s %8s  %-18s %s\n", "job", "dir", "metric", "A", "B",
		      "change", "95% interval", "verdict");
	out += line;
	for (const metric_cmp &m : c.metrics) {
		std::string iv = m.has_interval ? "[" + pct(m.lo) + ", " + pct(m.hi) + "]" : "(noise unknown)";
		std::snprintf(line, sizeof(line), "%s %-5s %-8s %14s %14s %8s  %-18s %s\n", column(m.label, 16).c_str(),
			      m.ddir.c_str(), m.metric.c_str(), unrecorded(m, m.a) ? "-" : table_cell(m.a, 1, 14).c_str(),
			      unrecorded(m, m.b) ? "-" : table_cell(m.b, 1, 14).c_str(),
			      m.comparable ? pct(m.change).c_str() : "n/a",
			      iv.c_str(),
			      m.verdict.c_str());
		out += line;
	}
	out += "\nnoise: throughput from a bootstrap (2000 resamples) of the repeats, or of the per-interval\n"
	       "samples of a single run; latency percentiles from the order-statistic interval of the exact\n"
	       "histogram; 95% confidence.\n";
	if (repeated(a) || repeated(b))
		out += "The throughput of a run with repeats is the mean of its repeats.\n";
	if (!c.env_differences.empty()) {
		out += "\nenvironment differences:\n";
		for (const std::string &d : c.env_differences)
			out += "  " + printable(d) + "\n";
	}
	return out;
}

} // namespace resdb

// results/compare.hpp - two runs side by side with a verdict that knows its noise.
//
// Figures are matched by job name, direction and, for jobs sharing a name
// (numjobs clones), their order among them.  Each metric gets the change
// and a verdict: "faster", "slower" or "no measurable difference", decided by
// an interval at 95% confidence - a bootstrap of the change over the repeats
// (several runs) or the per-interval samples (one run), and for latency
// percentiles the order-statistic interval from the exact histogram.  With no
// samples at all the noise is "unknown" and a change is "not judged" (the
// regression gate weighs it by its percentage alone).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/record.hpp"

namespace resdb {

constexpr double compare_confidence = 0.95;

struct metric_cmp {
	std::string job, ddir, metric;	// metric: iops, bw_bytes, p50_ns, p99_ns, p999_ns
	int ordinal = 1;		// the k-th job named job (job_ordinal)
	std::string label;		// job, or "job #k" when a run has several of that name
	double a = 0, b = 0;
	double change = 0;		// b/a - 1 (0 and !comparable when a is 0: no ratio)
	bool comparable = true;
	bool has_interval = false;
	double lo = 0, hi = 0;		// interval of the change
	std::string noise;		// repeats, samples, histogram, unknown
	std::string verdict;		// faster, slower, no measurable difference, not judged: noise unknown, not comparable: ...
	bool worse = false;		// the change goes the bad way beyond the noise (or at all, noise unknown)
};

struct comparison {
	std::vector<std::string> plan_differences;	// what makes the two workloads differ
	std::vector<std::string> env_differences;	// "key: a -> b"
	// Two ioplan runs whose plans differ in what plan_differences does not
	// weigh (a rate limit, a runtime, the target): said, never refused.
	bool other_plan = false;
	// Both runs have a workload hash (record.hpp) and it is the same: their plans
	// differ at most in their targets' names and in seeds drawn for each run.
	bool same_workload = false;
	bool workloads_known = false;	// both have one (runs saved before have none)
	std::vector<std::string> only_a, only_b;	// the job texts' words one has and the other lacks
	std::vector<metric_cmp> metrics;
};

comparison compare(const run_record &a, const run_record &b);

// True when some metric is worse beyond its noise and by more than pct percent.
bool regressed(const comparison &c, double pct, std::vector<const metric_cmp *> *which);

nlohmann::ordered_json comparison_json(const comparison &c, const run_record &a, const run_record &b);

std::string comparison_text(const comparison &c, const run_record &a, const run_record &b);

} // namespace resdb

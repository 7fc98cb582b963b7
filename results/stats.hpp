// results/stats.hpp - the statistics behind compare's verdicts and the fleet summary.
//
// A verdict weighs a change against the runs' own noise: a bootstrap interval
// of the relative change of the mean (from repeats, or per-interval samples of
// a single run), and for latency percentiles the distribution-free interval
// of a quantile from its exact histogram (order statistics, binomial ranks).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace resdb {

// The q-quantile (0..1) of v by linear interpolation between order statistics; 0 for none.
double quantile(std::vector<double> v, double q);

// A two-sided interval of the relative change mean(b)/mean(a) - 1, from
// `resamples` bootstrap resamples of each side at the given confidence.
// Deterministic (a fixed seed).  false when a side has fewer than 2 values.
bool bootstrap_change(const std::vector<double> &a, const std::vector<double> &b, double confidence,
		      int resamples, double *lo, double *hi);

// The interval of the p-quantile (0..1) of the distribution a histogram of
// (value, count) buckets holds, at the given confidence: the values at the
// ranks n*p -/+ z*sqrt(n*p*(1-p)).  The buckets may come in any order.
// A bound whose rank is outside the sample (too few values for that
// percentile) is unknown: *lo 0, *hi infinity.  false for an empty histogram.
bool quantile_interval(std::vector<std::pair<uint64_t, uint64_t>> buckets, double p, double confidence, double *lo,
		       double *hi);

// Mann-Whitney U test, two-sided p-value by the normal approximation with
// tie correction (the repeats of a CI job are few; the statistic is exact
// enough from about 4 values a side).  1 when a side is empty.
double mann_whitney_p(const std::vector<double> &a, const std::vector<double> &b);

// Tukey's fences: true for values outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] and
// further than min_share of the median from it (runs that agree to 0.1% have
// fences 0.3% wide, which a run 0.6% off is beyond).
std::vector<bool> outliers(const std::vector<double> &v, double min_share = 0);

} // namespace resdb

// results/stats.cpp - quantiles, bootstrap intervals, rank tests (stats.hpp).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "results/stats.hpp"

namespace resdb {

namespace {

double mean(const std::vector<double> &v)
{
	return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / (double)v.size();
}

// The standard normal quantile for a two-sided confidence (0.95 -> 1.96), by bisection of erf.
double z_of(double confidence)
{
	double target = confidence, lo = 0, hi = 10;
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;
		(std::erf(mid / std::sqrt(2.0)) < target ? lo : hi) = mid;
	}
	return (lo + hi) / 2;
}

double resampled_mean(const std::vector<double> &v, std::mt19937_64 &rng)
{
	std::uniform_int_distribution<size_t> pick(0, v.size() - 1);
	double sum = 0;
	for (size_t i = 0; i < v.size(); i++)
		sum += v[pick(rng)];
	return sum / (double)v.size();
}

} // namespace

double quantile(std::vector<double> v, double q)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	double pos = q * (double)(v.size() - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= v.size())
		return v.back();
	return v[i] + (v[i + 1] - v[i]) * (pos - (double)i);
}

bool bootstrap_change(const std::vector<double> &a, const std::vector<double> &b, double confidence,
		      int resamples, double *lo, double *hi)
{
	if (a.size() < 2 || b.size() < 2 || mean(a) <= 0)
		return false;
	std::mt19937_64 rng(0x10b1a2);
	std::vector<double> change;
	change.reserve((size_t)resamples);
	for (int i = 0; i < resamples; i++) {
		double ma = resampled_mean(a, rng), mb = resampled_mean(b, rng);
		if (ma > 0)
			change.push_back(mb / ma - 1);
	}
	if (change.empty())
		return false;
	*lo = quantile(change, (1 - confidence) / 2);
	*hi = quantile(change, 1 - (1 - confidence) / 2);
	return true;
}

bool quantile_interval(std::vector<std::pair<uint64_t, uint64_t>> buckets, double p, double confidence, double *lo,
		       double *hi)
{
	// Ranks are counted from the smallest latency up: a result file's json+ bins come
	// in the order of their keys as text ("148480" before "2608"), not as numbers.
	std::sort(buckets.begin(), buckets.end());
	uint64_t n = 0;
	for (const auto &b : buckets)
		n += b.second;
	if (!n)
		return false;
	double half = z_of(confidence) * std::sqrt((double)n * p * (1 - p));
	double rank_lo = std::floor((double)n * p - half), rank_hi = std::ceil((double)n * p + half);
	// A bound whose rank lies outside the sample is not known from it: the
	// largest of 150 latencies is below the true p99.9 more often than not, so
	// it was no upper bound, and a short run's p99.9 was "slower" than a
	// long one's of the same job.  Unknown below is 0 (no latency is less).
	*lo = 0;
	*hi = rank_hi > (double)n ? INFINITY : (double)buckets.back().first;
	uint64_t seen = 0;
	bool have_lo = rank_lo < 1;
	for (const auto &b : buckets) {
		seen += b.second;
		if (!have_lo && (double)seen >= rank_lo) {
			*lo = (double)b.first;
			have_lo = true;
		}
		if ((double)seen >= rank_hi) {
			*hi = (double)b.first;
			return true;
		}
	}
	return true;
}

double mann_whitney_p(const std::vector<double> &a, const std::vector<double> &b)
{
	if (a.empty() || b.empty())
		return 1;
	std::vector<std::pair<double, int>> all;
	for (double x : a)
		all.emplace_back(x, 0);
	for (double x : b)
		all.emplace_back(x, 1);
	std::sort(all.begin(), all.end());
	double rank_a = 0, ties = 0, n = (double)all.size();
	for (size_t i = 0; i < all.size();) {
		size_t j = i;
		while (j < all.size() && all[j].first == all[i].first)
			j++;
		double t = (double)(j - i), avg = ((double)i + (double)j + 1) / 2;
		ties += t * t * t - t;
		for (size_t k = i; k < j; k++)
			if (all[k].second == 0)
				rank_a += avg;
		i = j;
	}
	double na = (double)a.size(), nb = (double)b.size();
	double u = rank_a - na * (na + 1) / 2, mu = na * nb / 2;
	double var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (var <= 0)
		return 1;
	double z = (std::fabs(u - mu) - 0.5) / std::sqrt(var);
	return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

std::vector<bool> outliers(const std::vector<double> &v, double min_share)
{
	double q1 = quantile(v, 0.25), q3 = quantile(v, 0.75), iqr = q3 - q1, median = quantile(v, 0.5);
	std::vector<bool> out;
	for (double x : v)
		out.push_back(v.size() >= 4 && (x < q1 - 1.5 * iqr || x > q3 + 1.5 * iqr) &&
			      std::fabs(x - median) > min_share * std::fabs(median));
	return out;
}

} // namespace resdb

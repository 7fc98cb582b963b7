// report/diskspd/diskspd_model.hpp - the numbers DISKSPD's text and XML both show,
// derived once from results and plan (internal to report/).
//
// DISKSPD reports per thread (one clone here) per target, over one measured
// timespan, and computes with population statistics: latency and IOPS
// standard deviations divide by n, not n - 1.  MiB/s and IOPS divide by the
// measured test time, never the nominal -d.
#pragma once

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"
#include "report/diskspd/diskspd.hpp"

namespace report::diskspd {

// Which directions a table or value covers.
enum class section { total, read, write };

// A res_lat that owns the histogram it merges into.  A chart's sum (the
// percentile rows, XML's <Bucket>s) takes the latency that kept a histogram:
// a fio job file without lat_percentiles=1 keeps one of completion latency
// only, and its total latency's percentiles read 0.000 before.
class lat_sum {
public:
	explicit lat_sum(bool chart = false);
	~lat_sum();
	lat_sum(const lat_sum &) = delete;
	lat_sum &operator=(const lat_sum &) = delete;
	// Merges one clone's latency of section s. Throws std::bad_alloc.
	void add(const res_clone &c, section s);
	// Merges one row's (its counts and sums: no histogram). Throws std::bad_alloc.
	void add(const struct row &w, section s);
	const res_lat &get() const { return l_; }

private:
	void merge(const res_lat &src);
	res_lat l_;
	bool chart_;
};

// One row of the IO tables: a thread and the target(s) it worked on.  Under
// mpirun a row is one rank's thread (res_rank_clone), numbered on from the
// ranks before it, rank by rank, as DISKSPD numbers the threads of one run.
struct row {
	uint32_t thread = 0;		// numbered from 0 across the run, as DISKSPD does
	std::string path;		// the file, or the files joined by ','
	std::vector<std::string> files;	// its files, in the order of zones
	uint64_t file_bytes = 0;
	const plan_job *job = nullptr;
	uint64_t bytes[PLAN_DDIR_NR] = {};
	uint64_t ios[PLAN_DDIR_NR] = {};
	res_lat lat[PLAN_DDIR_NR] = {};	// lat_of's, without its histogram
	const res_series *series = nullptr;	// its IOPS samples
	const res_zones *zones = nullptr;	// its effective distributions, one a file, or nullptr
	uint32_t nr_zones = 0;
	int error = 0;			// res_clone.error
	const res_error *first_error = nullptr;
	const res_clone *clone = nullptr;	// the clone (merged over the ranks) whose histograms
						// chart it: in run_view.merged only
};

struct cpu_row {
	uint32_t id = 0;
	double usage = 0, user = 0, kernel = 0, idle = 0;	// percent
};

struct run_view {
	std::vector<row> rows;		// the threads, each rank's under mpirun
	std::vector<row> merged;	// the plan's clones, merged over the ranks: the
					// totals and the latency charts (= rows in one process)
	bool target_charts = true;	// a chart per target is a true one: under mpirun only
					// when every rank's threads worked on rank 0's targets
	double seconds = 0;		// measured test time
	std::vector<cpu_row> cpus;
	cpu_row avg;
};

run_view make_view(const results &r, const plan &p);

// What ended the run or a thread early, one sentence each (a stop, each thread's
// first error): DISKSPD's tables do not say it, and their figures then cover only
// part of the test, so the text's Warnings block and XML's <Warnings> lead with them.
std::vector<std::string> failures(const run_view &v, const results &r);

uint64_t bytes_of(const row &w, section s);
uint64_t ios_of(const row &w, section s);

// The latency a report shows: start to completion, or completion latency
// when the engine kept no total latency.
const res_lat &lat_of(const res_ddir &d);
// The latency a percentile chart shows: lat_of's when it kept a histogram,
// else completion latency's (the same for sync engines, whose slat is 0).
const res_lat &chart_lat_of(const res_ddir &d);

double mean_ms(const res_lat &l);
double stddev_ms(const res_lat &l);		// population, as DISKSPD
// DISKSPD's nearest rank: the first value whose cumulative count reaches
// fraction * n (fraction in [0, 1], as DISKSPD's double literals), on the
// histogram, except that the first and the last rank are the exact min and
// max (so a 9-nines of fewer than 10^9 I/Os is the max, as DISKSPD's).
double percentile_ms(const res_lat &l, double fraction);

// IOPS of each per-interval sample of one clone; index-wise sums merge rows.
// The per-bucket samples DISKSPD would keep: the first ceil(duration / bucket).
uint32_t kept_buckets(const row &w);
std::vector<double> iops_samples(const row &w, section s);
void add_samples(std::vector<double> *acc, const std::vector<double> &s);
double pop_stddev(const std::vector<double> &v);

// DISKSPD's sizes: "1GiB" for whole units, "1.50GiB" otherwise, bytes below 1 KiB;
// width right-aligns the number (DISKSPD's distribution table), not the bytes.
std::string display_size(uint64_t bytes, int width = 0);
// "2026/11/22 19:20:42 UTC"
std::string start_time_utc(uint64_t wall_ns);

// DISKSPD's -g, the limit of a thread's reads and writes together: the sum of
// the job's rate_iops (or rate, bytes/s) over the directions it does, so a
// read-only job's rate=N (which fio applies to writes too) counts once.
struct throughput_limit {
	uint64_t iops = 0, bytes_per_s = 0;
};
throughput_limit throughput_of(const plan_job &j);

// DISKSPD's max file size of a target (-f, or -B's length; 0: not limited):
// the command line's, else the end of the file's region in the plan.
uint64_t max_file_bytes(const plan_job &j, const plan_file &f, const options &o);

// The percentile rows of the latency table: label and percent.
struct pct_row {
	const char *label;
	double fraction;
};
extern const pct_row latency_rows[13];

// DISKSPD's list of a target's threads: " 0 1", " 0 - 2 4" (three or more in a row as a range).
std::string thread_list(const std::set<uint32_t> &threads);
// "Effective IO Distributions", when a target had one (-rd): diskspd_distribution.cpp.
void effective_distributions(std::ostream &out, const run_view &v);
// The effective distribution of a row's target for its XML <Target>: its files' one, when
// they share it (a -F thread's targets of one size), else nullptr.
const res_zones *row_distribution(const row &w);

// "Input parameters:" through the end of the per-target lines (diskspd_profile.cpp).
void write_parameters(std::ostream &out, const plan &p, const options &o);
uint64_t first_seed(const plan &p);

} // namespace report::diskspd

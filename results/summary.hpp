// results/summary.hpp - `ioplan results summary`: what is typical in each group of runs.
//
// Stored figures are grouped by a fact of their run (disk model, host,
// instance type, file system, label...) and by job, workload and direction,
// since different workloads are not one distribution: a job's name alone does
// not say its workload (j with bs=4k in one run, bs=64k in another), the run's
// workload hash does, and the same job file run on two hosts has one even where
// their targets are named apart (/dev/sdb, /dev/nvme0n1): a fleet sums up.
// Runs saved before workload hashes go by their plan's (summary_row).  A run counts once in its
// group: its clones of a job (numjobs=N) are one value.  Each group gets its count,
// the 10th/50th/90th percentiles of IOPS, bandwidth and p99 latency, and the
// runs whose IOPS lie outside Tukey's fences and over 10% from the median:
// the ones that go with trouble.
// A run a signal stopped measured part of its workload, and one with a job
// that failed measured another: each is left out unless asked for, and the
// count of those left out is said.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/store.hpp"

namespace resdb {

struct spread {
	double p10 = 0, median = 0, p90 = 0;
};

struct group_summary {
	std::string group, job, ddir;
	std::string workload;	// the runs' workload hash, or with by_plan their plan hash
	bool by_plan = false;	// runs saved before workload hashes, of a plan no later run tells the workload of
	std::vector<std::string> plans;	// the runs' plan hashes, sorted (one per target naming)
	size_t count = 0;
	spread iops, bw_bytes, p99_ns;
	std::vector<int64_t> outliers;	// run ids
};

// The fields `--by` accepts (facts every saved run has).
extern const std::vector<std::string> summary_fields;

// The runs a summary leaves out unless asked: those a signal stopped, and
// those a job of which failed (an interrupted run that failed counts as interrupted).
struct left_out {
	size_t interrupted = 0, failed = 0;
	size_t damaged = 0;	// runs of a damaged store whose figures no save writes: never counted
};

// Takes those runs' rows out of rows, but for the kinds kept; says how many runs they were.
left_out leave_out(std::vector<summary_row> &rows, bool keep_interrupted, bool keep_failed);

std::vector<group_summary> summarize(const std::vector<summary_row> &rows);
// out: the runs leave_out took out, said with the groups.
nlohmann::ordered_json summary_json(const std::vector<group_summary> &g, const std::string &by, left_out out);
std::string summary_text(const std::vector<group_summary> &g, const std::string &by, left_out out);

} // namespace resdb

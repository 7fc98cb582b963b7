// report/runs.hpp - each run of each plan job as the compact reports see it.
//
// The CrystalDiskMark table, winsat, hdparm, dd and GNOME Disks summaries all
// speak of "one run of one test": its throughput, IOPS and mean latency, with
// every clone of the job together, then a score over the measured runs (best,
// mean, median, worst).  They read that here, from the runs results.h keeps
// (one res_job per plan job per run, discarded runs flagged), so no writer
// re-derives a rate its own way.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"

namespace report {

// One run of one plan job, every clone and direction together.
struct run_figures {
	uint32_t run = 0;
	bool discarded = false;
	uint64_t bytes = 0;
	uint64_t ios = 0;
	uint64_t window_ns = 0;		// the longest direction window of any clone
	uint64_t lat_n = 0;		// total latency (completion latency if lat was off)
	uint64_t lat_sum_ns = 0;
	int error = 0;			// first fatal errno of any clone, 0 = none

	double bytes_per_s() const;
	double iops() const;
	double lat_mean_ns() const;	// 0 when no latency was kept
};

// Figures of res_job j.
run_figures figures_of(const res_job &j);

// Every run of each plan job, in run order, discarded runs included; index =
// plan job_id (plan_job_at).  Runs of job ids outside the plan are ignored.
std::vector<std::vector<run_figures>> runs_by_job(const results &r, const plan &p);

// The measured (not discarded) runs of one job.
std::vector<run_figures> measured(const std::vector<run_figures> &runs);

// A score over measured runs, by the job's repeat_aggregate:
//   max    - highest MB/s with that run's IOPS; lowest mean latency of the runs
//            that moved data (CrystalDiskMark: the two may come from different runs)
//   min    - lowest MB/s with its IOPS; highest mean latency
//   mean   - arithmetic means of the per-run figures
//   median - the run at the lower median of MB/s, all three figures from it
// lo/hi are the lowest and highest per-run MB/s; n the number of runs scored.
struct score {
	double bytes_per_s = 0;
	double iops = 0;
	double lat_mean_ns = 0;
	double lo_bytes_per_s = 0;
	double hi_bytes_per_s = 0;
	size_t n = 0;
};

score score_of(const std::vector<run_figures> &measured_runs, enum plan_repeat_aggregate how);

// The last measured run of plan job job_id, or nullptr: where the compact
// reports read recorded I/Os (io_trace) from.
const res_job *last_measured_run(const results &r, uint32_t job_id);

// One sample of a strided sweep (zonemode=strided): the I/Os recorded in one
// zone, from the first issue to the last completion.
struct zone_sample {
	uint64_t offset = 0;		// first byte of the zone's I/O
	uint64_t bytes = 0;
	uint64_t ns = 0;		// first issue to last completion
	uint64_t lat_max_ns = 0;
	double bytes_per_s() const { return ns ? (double)bytes * 1e9 / (double)ns : 0.0; }
};

// The samples of a sweep job's run, in offset order, from its clones' I/O
// traces: each recorded I/O belongs to the zone (offset - region start) /
// zone_range.  Empty without zones or without a trace.
std::vector<zone_sample> sweep_samples(const res_job &run, const plan_job &job);

// Latencies (ns) of the recorded I/Os of a run, in record order, all clones.
std::vector<uint64_t> traced_latencies(const res_job &run);

} // namespace report

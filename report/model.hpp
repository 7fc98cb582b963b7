// report/model.hpp - the report model: what every report shows, derived once
// from results and plan.
//
// fio reports per "thread_stat": one per clone, or one per group with
// group_reporting (bytes summed, runtime max, latency merged, name from the
// first member, job options from the last), plus per-group run statistics.
// Jobs run several times (repeat=N) are first reduced to one aggregate run per
// plan job by repeat_aggregate.  Terse, JSON and normal output all read this
// model, so they can never disagree about a number.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"

namespace report {

// A res_clone that owns deep copies of what it merged (histograms included).
class stat_clone {
public:
	stat_clone();
	~stat_clone();
	stat_clone(const stat_clone &) = delete;
	stat_clone &operator=(const stat_clone &) = delete;
	stat_clone(stat_clone &&o) noexcept;
	stat_clone &operator=(stat_clone &&o) noexcept;

	// Merges src as group_reporting does (res_clone_merge). Throws std::bad_alloc.
	void add(const res_clone &src);
	res_clone &get() { return c_; }
	const res_clone &get() const { return c_; }

private:
	res_clone c_;
};

// One reported unit: a clone, or a group of clones merged by group_reporting.
// significant_figures of a job (fio's default 4 when unset).
inline int sig_figs_of(const plan_job *j)
{
	return j && j->sig_figs ? j->sig_figs : 4;
}

// Whether a job's bandwidths are in bit/s: unit_base=1, or 0 (auto) under fio's
// bit-based engine (net).  A job's own lines (its headline, its steady state) take
// its own unit, as fio's ts->unit_base; the group lines take the group's.
inline bool bits_of(const plan_job *j)
{
	return j && (j->unit_base == 1 || (j->unit_base == 0 && j->ioengine == PLAN_IOENGINE_NET));
}

struct entry {
	std::string name;		// of the first member
	std::string description;	// of the first member
	uint32_t groupid = 0;
	uint32_t members = 0;
	uint32_t threads = 0;		// fio's jobs=: the members' threads, under mpirun on every rank that ran them
	const plan_job *first = nullptr;	// name, kb_base, banner
	const plan_job *last = nullptr;		// job options, percentiles, continue_on_error
	uint32_t lat_depth = 0;		// the last member's final queue depth (fio's latency_depth); 0: it never reached its I/O loop
	std::vector<uint32_t> job_ids;	// plan jobs merged here, in order, no repeats
	stat_clone st;
	uint64_t run_ns = 0;		// sum of the members' measured windows (fio's total_run_time)
	uint64_t cpu_run_ns = 0;	// what the CPU shares divide by: run_ns, each rank's window counted for a merged world
	int error = 0;			// first fatal errno of any member
	std::string verror;		// what failed, where, and why
	uint64_t total_err = 0;		// errors counted under continue_on_error
	int first_error = 0;
	std::vector<res_error> errors;	// the members' first errors, with where they happened
	std::vector<std::string> error_files;	// path of each errors[] entry ("" if unknown)
	// unified_rw_reporting of the last member: with mixed, st already holds
	// every direction merged into direction 0 (reported as "mixed"); with
	// both, st is per direction and `mixed` is this entry merged that way.
	enum plan_unified unified = PLAN_UNIFIED_NONE;
	std::shared_ptr<const entry> mixed;
	// Steady state (ss_dur): the record of the entry's last member that has
	// one (the group's last clone, as fio keeps it), from its last run.
	const res_ss *ss = nullptr;
	// Latency per I/O priority is kept (fio's disable_prio_stat == 0): a member
	// used cmdprio, or the members' own priorities differ (prio/prioclass).
	bool prio_stats = false;
};

// fio's group_run_stats: aggregates of one reporting group, per direction.
struct group_stat {
	uint32_t groupid = 0;
	uint32_t kb_base = 1024;
	bool bits = false;		// bandwidth in bit/s: unit_base=1, or fio's net engine (FIO_BIT_BASED)
	int sig_figs = 4;		// significant_figures of the group's first job
	uint64_t iobytes[PLAN_DDIR_NR] = {};
	uint64_t agg[PLAN_DDIR_NR] = {};	// bytes/s: sum of bytes * 1000 / max_run
	uint64_t min_bw[PLAN_DDIR_NR] = {};
	uint64_t max_bw[PLAN_DDIR_NR] = {};
	uint64_t min_run[PLAN_DDIR_NR] = {};	// ms
	uint64_t max_run[PLAN_DDIR_NR] = {};
	// fio ORs its members' unified_rw_reporting: a mixed member turns the
	// group's direction lines into one "MIXED" line, both adds one.
	unsigned unified = PLAN_UNIFIED_NONE;
};

// Every measured run of one plan job (repeat=N), in run order.
struct job_runs {
	const plan_job *job = nullptr;
	std::vector<const res_job *> runs;	// discarded runs included
};

struct model {
	std::vector<entry> entries;
	std::vector<group_stat> groups;		// index = groupid
	std::vector<job_runs> runs;		// index = plan job_id
	uint64_t now_wall_ns = 0;		// when the run ended (wall clock)
	uint64_t elapsed_ns = 0;
	uint64_t jobs_elapsed_ns = 0;		// since the layout was done (fio's genesis)
	uint64_t eta_ns = 0;			// time left (a report so far's), UINT64_MAX unknown
	uint32_t nr_threads = 0;
	// What fio 3.33 says (log_info, ahead of every format's report) as group_reporting
	// merges a job whose kb_base, or else unit_base, differs from its entry's first job:
	// "fio: kb_base differs for jobs in group, using 1024 as the base\n", each once.
	std::vector<std::string> fio_base_notes;

	const group_stat &group(uint32_t id) const;
};

// Builds the model. Throws std::bad_alloc when a merge runs out of memory.
model build_model(const results &r, const plan &p);

// ---- per-entry derived numbers, fio's arithmetic ----

// Direction d ran (has a runtime).
bool ddir_ran(const entry &e, int d);
uint64_t ddir_runtime_ms(const entry &e, int d);
uint64_t ddir_bw_bytes(const entry &e, int d);	// bytes/s, truncated
uint64_t ddir_iops(const entry &e, int d);	// truncated
double ddir_iops_f(const entry &e, int d);
uint64_t total_rw_ios(const entry &e);		// read + write + trim
// fio's base of the IO depths: the read, write and trim I/Os issued in the
// window (whose depth was counted), so the depths add up to 100% even when
// I/Os issued in the window complete after it.
uint64_t depth_total(const entry &e);
double usr_cpu_pct(const entry &e);
double sys_cpu_pct(const entry &e);

// fio's "per=" / bw_agg: the sample mean (truncated to an integer, as fio passes
// it) as a share of the group's aggregate bandwidth, at most 100.
double bw_share_pct(const group_stat &g, int d, double mean_kib);

// Distribution of counts over total as percentages; a non-zero count never shows
// below floor (fio: 0.1 for depths, 0.01 for latency buckets).
std::vector<double> dist_pct(const uint64_t *counts, int n, uint64_t total, double floor);

// The percentile list an entry reports, sorted as fio sorts it; empty when the
// job reports none.
// with_slat: slat_percentiles alone also asks for the list (fio's JSON slat_ns).
std::vector<double> percentile_list(const entry &e, bool with_slat = false);

// The latency the percentile slots of terse output describe: total latency with
// lat_percentiles, else completion latency with clat_percentiles, else none.
const res_lat *percentile_source(const entry &e, int d);

} // namespace report

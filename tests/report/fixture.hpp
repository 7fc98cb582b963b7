// tests/report/fixture.hpp - hand-built plans and results for the report tests.
//
// Report tests run on results built here with known values, so a report's
// figures can be checked exactly without running I/O; everything is allocated
// the way the real producers do (plan_* helpers, calloc for results) and freed
// through plan_free/results_free.
#pragma once

#include "parser/values.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"

namespace t {

// One job section to put in a plan.
struct job_spec {
	std::string name;
	enum plan_rw rw = PLAN_RW_READ;
	uint32_t groupid = 0;
	uint32_t numjobs = 1;
	bool group_reporting = false;
	std::vector<std::pair<std::string, std::string>> opts;
	std::function<void(plan_job &)> tweak;	// anything else
};

// Owns a plan the parser made from specs (null engine, size=1m, fio's defaults
// for the rest: bs 4k, iodepth 1, clat percentiles over fio's list, kb_base
// 1024; a groupid one above the job before is a new_group); each spec's opts
// and the globals are the jobs' echo, the report's input, set as given.
class plan_holder {
public:
	explicit plan_holder(const std::vector<job_spec> &jobs,
			     const std::vector<std::pair<std::string, std::string>> &globals = {});
	~plan_holder() { plan_free(p_); }
	plan_holder(const plan_holder &) = delete;
	plan_holder &operator=(const plan_holder &) = delete;
	const plan &get() const { return *p_; }
	plan_job &job(uint32_t i) { return const_cast<plan_job &>(*plan_job_at(p_, i)); }

private:
	struct plan *p_;
};

// Owns results with one run per plan job (runs > 1 makes repeat runs), every
// clone empty (res_clone_init), fixed host facts and a 1 s run from a fixed time.
class results_holder {
public:
	explicit results_holder(const plan &p, uint32_t runs = 1);
	~results_holder() { results_free(r_); }
	results_holder(const results_holder &) = delete;
	results_holder &operator=(const results_holder &) = delete;
	results &get() { return *r_; }
	// Clone c of plan job j in run `run` (0-based).
	res_clone &clone(uint32_t job, uint32_t c, uint32_t run = 0);
	res_job &job_run(uint32_t job, uint32_t run = 0);
	void add_disk(const res_disk &d);
	void add_msg(enum res_msg_level level, const char *code, const char *text, int32_t job);

private:
	struct results *r_;
	uint32_t runs_;
};

// Records one latency sample (allocating the histogram on first use).
void record(res_lat *l, uint64_t ns);

// fio's latency bucket of a completion latency (index into res_clone.latbkt).
int latbkt_index(uint64_t ns);

// Adds n I/Os of bs bytes in direction d: clat lat_ns(i), lat = clat + 100 ns,
// depth-1 and latency buckets counted, runtime set to runtime_ns.
void add_ios(res_clone &c, int d, uint64_t n, uint64_t bs, uint64_t runtime_ns,
	     const std::function<uint64_t(uint64_t)> &lat_ns);

using parser::split; // s split at sep

// Runs a shell command, returns its stdout; *status gets the exit status.
std::string run(const std::string &cmd, int *status = nullptr);

// The repository root (where the tests are run from, or found from this file).
std::string root();

} // namespace t

// tests/engine/plan_builder.hpp - plans built in C++ for the engine tests.
//
// A test states only what it varies; the plan is made by the parser from the
// job section that says it (fio's defaults for everything else), so groups,
// clones, seeds and file names follow the parser's rules, not a copy of them.
// A tweak then sets plan fields directly, for what a test pokes that no option
// names; it may not change what clones are derived from (size, offsets, seed,
// verify, rw, files, engine, iodepth): those go in opt().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "engine/plan.h"
#include "engine/results.h"

namespace pb {

// A fresh directory under /tmp, removed with everything in it.
class tmpdir {
public:
	tmpdir();
	~tmpdir();
	tmpdir(const tmpdir &) = delete;
	tmpdir &operator=(const tmpdir &) = delete;
	const std::string &path() const { return path_; }
	std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
	std::string path_;
};

struct plan_deleter {
	void operator()(plan *p) const { plan_free(p); }
};
using plan_ptr = std::unique_ptr<plan, plan_deleter>;

struct results_deleter {
	void operator()(results *r) const { results_free(r); }
};
using results_ptr = std::unique_ptr<results, results_deleter>;

// One job to add: the fields a test usually varies; with() sets anything else.
struct job_spec {
	std::string name;
	enum plan_rw rw;
	enum plan_ioengine engine;
	uint64_t size;				// per clone, split over its files
	uint32_t numjobs;
	uint32_t nrfiles;
	std::string filename;			// non-empty: one file shared by all clones
	bool stonewall = false;
	bool new_group = false;
	std::vector<std::pair<std::string, std::string>> opts;	// more of the section's lines
	std::function<void(plan_job &)> tweak;

	job_spec(std::string n, enum plan_rw r, enum plan_ioengine e = PLAN_IOENGINE_PSYNC,
		 uint64_t sz = 1 << 20, uint32_t nj = 1, uint32_t nf = 1)
		: name(std::move(n)), rw(r), engine(e), size(sz), numjobs(nj), nrfiles(nf)
	{
	}
	job_spec &file(const std::string &f) { filename = f; return *this; }
	job_spec &stonewalled() { stonewall = true; return *this; }
	job_spec &grouped() { new_group = true; return *this; }
	job_spec &opt(const std::string &key, const std::string &value = "")
	{
		opts.emplace_back(key, value);
		return *this;
	}
	job_spec &with(std::function<void(plan_job &)> t) { tweak = std::move(t); return *this; }
};

// Builds a plan in `dir` through the parser (files "<name>.<clone>.<file>"
// unless a filename is given), then applies each job's tweak; a parser error
// or a tweak of a derived field throws.
plan_ptr build(const std::string &dir, const std::vector<job_spec> &jobs);

// Engine options for a fake clock that advances step_ns at every read: the
// schedule's arithmetic alone decides counts and times, whatever the load.
inline eng_opts fake_clock(uint64_t step_ns = 1000)
{
	eng_opts o{};
	o.fake_clock = true;
	o.fake_clock_step_ns = step_ns;
	return o;
}

// Runs a plan with the real engine; the return code lands in *ret.
results_ptr run(const plan &p, int *ret = nullptr, const eng_opts *o = nullptr);

// Totals over every clone of every run of job i.
uint64_t job_bytes(const results &r, uint32_t job, int ddir);
uint64_t job_ios(const results &r, uint32_t job, int ddir);

// The first run's res_job of plan job i (nullptr if it did not run).
const res_job *find_job(const results &r, uint32_t job, uint32_t run = 0);

// The first clone of that job's results; throws (failing the test) when the job has none.
const res_clone &first_clone(const results &r, uint32_t job = 0, uint32_t run = 0);

// An options blob for engine e (engine/plan_engopts.h): its table's defaults,
// then the integer, flag or choice values named; freed by plan_free with its job,
// or by plan_engopts_free.
void *engine_opts(enum plan_ioengine e, const std::vector<std::pair<std::string, long long>> &values);

} // namespace pb

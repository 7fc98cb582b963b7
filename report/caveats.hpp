// report/caveats.hpp - what makes a run's figures doubtful, gathered once for
// every format.
//
// A figure printed without its caveat is the most dangerous thing a benchmark
// can print: 3,600 MB/s from tmpfs reads as a fast disk.  The engine records
// what it found (preflight warnings: memory-backed targets, reads the page
// cache may serve; a stall; a CPU-bound thread) and the results hold what the
// reports can judge afterwards (how far repeats spread, how few latency
// samples a tail percentile rests on, whether the disks under the run moved
// more than the run did).  Each format prints these in its own idiom - cdm
// marks rows and adds footnotes, DISKSPD a Warnings: block, the quick checks a
// closing line each, JSON and XML a field, terse a stderr line beside its
// fields (caveat_lines) - so they are derived here, once,
// and no writer decides on its own what counts as a caveat.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"

namespace report {

// Thresholds, named so the docs and the tests can cite them.
constexpr double caveat_spread_limit = 0.10;	// repeat spread (max-min)/median
constexpr uint64_t caveat_tail_samples = 100;	// below this, p99 is simply the slowest I/O
constexpr double caveat_late_start = 0.10;	// a thread that first ran this far into its window

struct finding {
	std::string code;		// "memory-backed", "cached-reads", "cpu-bound", "repeat-spread",
					// "few-samples", "other-io", "stall", ...
	std::string text;		// one sentence, no trailing newline
	std::vector<bool> jobs;		// plan jobs it applies to (index = job_id); all false = the run
	bool from_engine = false;	// a results message (already in JSON messages / normal output)
	bool about_percentiles = false;	// matters only where percentiles are printed
};

// How the repeat-spread finding rates a run: over its exact window in MB/s
// (the compact formats' own basis), or as fio's text does, over the window in
// whole milliseconds by the job's kb_base (MiB/s or MB/s), so that it agrees
// with the normal output's repeats line and the bandwidth above it.
enum class rate_basis { exact, fio_whole_ms };

// Every finding of the run, engine messages (warnings) first, then the
// report's own, in a stable order.
std::vector<finding> findings_of(const results &r, const plan &p, rate_basis basis = rate_basis::exact);

// The findings a format that prints no latency percentiles shows.
std::vector<finding> without_percentile_findings(const std::vector<finding> &f);

// Job job_id is one a finding applies to.
bool finding_marks(const finding &f, uint32_t job_id);

// The median of v (the mean of the middle two when even); 0 when empty.
double median_of(std::vector<double> v);

// "the best", "the median", "the mean", "the worst": which run a figure is.
const char *repeat_aggregate_word(enum plan_repeat_aggregate a);

// A plan job that moved nothing because it failed: its errno, else 0.  With no
// per-job error, a run-wide error (r.error) counts for jobs that moved nothing.
int job_failure(const results &r, uint32_t job_id);

} // namespace report

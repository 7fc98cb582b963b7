// cli/rank_file.hpp - one rank's whole result as a JSON document, and back.
//
// Under mpirun each rank can write its result before any collective step
// (--rank-output=DIR), so a rank that dies later loses nothing; the same
// document is what a rank sends rank 0 to merge, and what `ioplan merge`
// reads.  It holds every field of struct results (histograms as sparse
// [bucket, count] pairs, sums as exact integers, Welford doubles written
// round-trip exact), so the merged reports equal those of a live run, plus
// the job text the plan was built from, so `merge` can rebuild the plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/results.h"

namespace cli {

// Who wrote a rank file and how it stood with the others.
struct rank_info {
    uint32_t rank = 0;
    uint32_t nranks = 1;
    std::string host;
    int64_t clock_offset_ns = 0;           // rank 0's clock minus this rank's
    std::vector<uint64_t> start_late_ns;   // per group start: behind the common start time
    uint32_t groups_done = 0;              // group runs this rank finished (mpirun)
};

// What the plan was built from: the command line's job options and each job
// file's text as read (includes spliced in, ${VAR}s expanded).
struct plan_source {
    std::vector<std::string> argv;
    std::vector<std::string> job_names;
    std::vector<std::string> job_texts;
    // What every rank must agree on before a run (plan_identity(); not in rank files).
    std::string identity;
};

// The document for r (compact JSON text).  Throws std::bad_alloc only.
std::string rank_file_text(const results &r, const rank_info &who, const plan_source &src);

// Parses a rank file's text: a results to free with results_free (its plan
// pointer null), who and src filled.  Throws std::runtime_error naming what
// is wrong (the caller prefixes the file name).
results *rank_file_parse(const std::string &text, rank_info *who, plan_source *src);

} // namespace cli

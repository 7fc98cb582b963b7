// cli/mpi/rank_file.hpp - one rank's whole result as a JSON document, and back.
//
// Under mpirun each rank can write its result before any collective step
// (--rank-output=DIR), so a rank that dies later loses nothing; the same
// document is what a rank sends rank 0 to merge, and what `ioplan merge`
// reads.  It holds every field of struct results (histograms and
// per-interval series packed as base64 varints, sums as exact integers,
// Welford doubles written round-trip exact), so the merged reports equal
// those of a live run, plus the job text the plan was built from, so `merge`
// can rebuild the plan.
//
// A rank file is input like any other: the reader trusts nothing in it.  The
// document carries a CRC-32C of itself (an edit or a torn copy is refused),
// the id of its run (rank 0's, shared at start: a file from another run is
// refused), a digest of the plan it ran, the world's size and, when given,
// --save's label and preset (ranks that disagree are refused); every number
// is checked for its type and range, and each histogram must hold as many
// samples as its count says.
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
    std::string run_id;                    // rank 0's, the same in every rank file of a run
    std::string host;
    int64_t clock_offset_ns = 0;           // rank 0's clock minus this rank's
    std::vector<uint64_t> start_late_ns;   // per group start: behind the common start time
    uint32_t groups_done = 0;              // group runs this rank finished (mpirun)
    // Per results job and clone, the clone's files as this rank planned them
    // (filled from results.plan when a rank file is written; empty from a file
    // an earlier ioplan wrote): a rank's own paths, for the reports that list
    // the world's threads (DISKSPD's rows), which rank 0's plan cannot name.
    std::vector<std::vector<std::vector<std::string>>> clone_paths;
};

// The files of each clone of r, as its plan names them (rank_info.clone_paths);
// empty without a plan.
std::vector<std::vector<std::vector<std::string>>> clone_paths_of(const results &r);

// What the plan was built from: the command line's job options and each job
// file's text as read (includes spliced in, ${VAR}s expanded).
struct plan_source {
    std::vector<std::string> argv;
    std::vector<std::string> job_names;
    std::vector<std::string> job_texts;
    // The files the job files included, as opened (not in rank files: no output may replace them).
    std::vector<std::string> included;
    // What every rank must agree on before a run (plan_identity(); not in rank files).
    std::string identity;
    // A digest of identity, as written in the rank file (filled by the reader).
    std::string plan_id;
    // What --save was given (save false: no --save, and the rank file says nothing
    // of it), so that a merge of rank files names the run as --save would have: a
    // world that ends before rank 0 saves (a rank killed) leaves only these.
    bool save = false;
    std::string save_label;
    std::string preset;
};

// The job as run, for the report and the results store: each job file in INI
// syntax, or the command line when the jobs were given on it.  A merge of rank
// files says the same as the live run's rank 0, from what they recorded.
std::string job_text_of(const plan_source &src);

// Bytes a rank file may hold: a reader's bound, so a wrong file (a device, a
// huge log) is refused rather than read without end.
constexpr size_t rank_file_max_bytes = size_t(1) << 30;

// A new run id: 16 hex digits from the kernel's random source.
std::string new_run_id();

// The store's id (uuid) of the world run run_id names: the same in rank 0's
// own report and save and in `ioplan merge` of its rank files, so a merge
// imported after the save, or twice, is found stored.  A partial merge (the
// ranks in `missing` had no file) is another run's figures: another id.
std::string world_uuid(const std::string &run_id, const std::string &missing = "");

// The document for r (compact JSON text).  Throws std::bad_alloc only.
std::string rank_file_text(const results &r, const rank_info &who, const plan_source &src);

// Parses a rank file's text: a results to free with results_free (its plan
// pointer null), who and src filled.  Throws std::runtime_error naming what
// is wrong (the caller prefixes the file name): not a rank file, a checksum
// that does not match, a number of the wrong type or range, a histogram whose
// buckets do not add up to its count.
results *rank_file_parse(const std::string &text, rank_info *who, plan_source *src);

// Why a rank file does not belong with the first one read ("" when it does):
// another run, another plan, another world size or another --save.
std::string rank_file_mismatch(const rank_info &first, const plan_source &first_src, const rank_info &who,
                               const plan_source &src);

// Reads a rank file: a regular file of at most rank_file_max_bytes (a FIFO,
// a device or a bigger file is refused).  Throws std::runtime_error naming
// path and what is wrong.
std::string rank_file_read(const std::string &path);

} // namespace cli

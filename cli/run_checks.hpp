// cli/run_checks.hpp - what fio's run flags ask of a plan before any I/O.
//
// --readonly refuses every job that would write or trim, and every file the
// layout would create, extend or fill; --aux-path must be a directory;
// --warnings-fatal makes a warning an error.  And what a run reads (job
// files, includes, traces, the results store) is never what it writes, nor
// is its --output a job's file or side file (open_output).
#pragma once

#include "cli/args.hpp"
#include "cli/mpi/rank_file.hpp"
#include "cli/output.hpp"
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/safety/preflight.h"

namespace cli {

// False after printing why on stderr (exit 2): nothing may run.
bool check_run_flags(const args &a, const plan &p);

// What no output of the run may replace: what it reads (the job files and the
// files they include, the traces jobs replay, the results store --save writes
// to) and --bandwidth-log's files, which the cli writes beside the report.
std::vector<input_file> run_inputs(const args &a, const plan &p, const plan_source *src);

// The files jobs write beside their targets (logs, write_iolog, verify state)
// against the targets, and write_iolog against inputs; false after printing
// which one would be replaced (exit 2).  merge_blktrace_file= has its own rule,
// judged when the merge is written, before this: only an empty file or the same
// merge is replaced (cli/replay_merge.cpp).
bool job_outputs_ok(const plan &p, const std::vector<input_file> &inputs);

// The same rule by what the files are, for those that exist: a job's target
// that is an input or a file the cli writes under another name (a symbolic or
// hard link), as the preflight found it (no system call a target).  A read
// input is refused only to a job that writes; false after printing which.
bool targets_apart(const plan &p, const pf_report &pf, const std::vector<input_file> &inputs);

// Opens --output before any I/O; false after printing why (exit 2).  Neither
// a job's file, nor a file it writes beside them, nor what the run reads
// (inputs) may be what the report replaces.
bool open_output(const plan &p, const std::string &path, const std::vector<input_file> &inputs,
                 output_file *out);

// False after naming a job whose directory= is not there (plan_job.missing_directory).
bool job_directories_ok(const plan &p);

} // namespace cli

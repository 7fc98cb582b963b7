// cli/mpi/run_ranks.hpp - the steps of a run that concern ranks (mpirun,
// --rank-output), kept out of run.cpp's single-process flow.
#pragma once

#include <string>
#include <vector>

#include "cli/mpi/mpi.hpp"
#include "cli/mpi/rank_file.hpp"
#include "engine/safety/preflight.h"
#include "engine/results.h"
#include "parser/parser.hpp"

namespace cli {

// --rank-output=DIR names a directory where rank's file may be written (not
// a user's rank-N.json); false after printing why (exit 2, before any I/O).
bool rank_output_ok(const std::string &dir, int rank);

// Under mpirun without --rank-output each rank still keeps its result, so a
// world that loses rank 0 (which alone reports) loses nothing the others
// measured: in $XDG_STATE_HOME/ioplan/ranks/RUN/ (else ~/.local/state/...),
// RUN the run id every rank shares, so no two runs and no user's file meet
// there.  "" when there is no home to put it in.
std::string default_rank_dir(const std::string &run_id);

// Makes the default directory (and its parents, 0700) and judges it as
// --rank-output's: "" when ready, else why not (the run goes on without it).
std::string make_default_rank_dir(const std::string &dir, uint32_t rank);

// Once the world has reported: this rank's kept file removed, and the
// directory with it when no other rank's file is left there.
void drop_default_rank_file(const std::string &dir, uint32_t rank);

// A rank other than 0 stopped (mpirun ending the world, a signal, a lost
// rank) says once where the default directory keeps what it measured (the
// groups it finished, and the one it was in when it ends it in time): if
// rank 0 is gone no report will, and its file is the run's only record.
void say_kept(const world &w, const std::string &dir);

// Rank files DIR holds for ranks a world of nranks does not have (an earlier
// run's of more ranks): "" or a warning naming them.  `ioplan merge
// DIR/rank-*.json` refuses a set that mixes runs, so the run says so first.
std::string stale_rank_files(const std::string &dir, uint32_t nranks);

// The first error preflight found, for the other ranks to see.
std::string first_finding(const pf_report &pf);

// Writes DIR/rank-R.json (R this rank); false after printing why (a warning
// when by_default: DIR is default_rank_dir's, which no one asked for).
bool write_rank_file(const std::string &dir, const results &r, const rank_info &who, const plan_source *src,
                     bool by_default = false);

// The plan as ranks compare it: one line per option ("job 'w'\tbs=4k"), from
// the command line and the job files in order.  An option written with
// ${VAR} shows only its key: it may differ from rank to rank by design.
std::string plan_identity(const parser::request &req, const std::vector<parser::document> &docs);

// The plan's shape as every rank must share it for the merge to add them up:
// each job's group, clones and measured runs, a line each ("job 'w' as
// planned\tnumjobs=2, group 0, repeat=1+0").  numjobs=${NJ} passes the
// option comparison (per rank by design), but ranks with other clone counts
// ran their whole run and were then refused by the merge ("job 0 differs
// from rank 0's"), rank 0's figures printed as the world's.
std::string plan_shape(const plan &p);

// Under mpirun every job's logs (write_*_log) end in ".HOST.RANK": ranks in
// one working directory would otherwise all write bw_bw.1.log, each over
// the others'.
void name_logs_per_rank(plan *p, const world &w);

// Rank 0 folds every rank's result into r, the others send theirs (ranks
// slower than the median by more than straggler_pct are flagged).  Returns
// the exit code it adds: 1 when a rank's result could not be merged.
int merge_ranks(world *w, results *r, const plan_source *src, double straggler_pct, bool threads = false);

} // namespace cli

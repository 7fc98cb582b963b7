// cli/mpi/mpi.hpp - ioplan as one rank of many (`mpirun -np N ioplan job.fio`).
//
// Design (docs/scale-out.md): the engine stays MPI-free and offers a
// synchronisation hook (engine.h eng_sync); this file implements it with the
// MPI module (cli/mpi/mpi_module.h), which is dlopen'ed only when a launcher's
// variables (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_SIZE) say this process is a
// rank.  A run in step goes:
//   1. join: IOPLAN_RANK, IOPLAN_NRANKS, IOPLAN_LOCAL_RANK, IOPLAN_HOST and
//      IOPLAN_READ_RANK (--rank-shift: N nodes on, as rank 0's host counts
//      ranks) are set before the job files are read;
//   2. every rank plans and preflights, and same_plan() compares the plans
//      (run_ranks.hpp plan_identity); agree() makes the worst exit code
//      every rank's, rank 0 naming each failing rank and host;
//   3. the engine lays out: a file several ranks name (one resolved path) is
//      laid out by the lowest of them first, to the largest extent any of
//      them needs, then by the lowest on each other host (a node-local file
//      system), then the others find it done, an agreement after each
//      round (layout_share, layout_round_done); then layout_done agrees and measures each rank's
//      clock offset to rank 0; each group starts at a time rank 0 sends
//      when every rank has come (arrive()), which each rank reads on its own
//      clock corrected by that offset; size-bound groups end at an arrival,
//      time-bound ones end together because they started together;
//   4. each rank writes its rank file (--rank-output) before anything
//      collective, then sends its result to rank 0, which folds them in one at
//      a time (rank_merge.hpp) and prints the usual reports for the world.
// Every collective wait has a deadline (--rank-timeout), and so have the MPI
// calls that take none (a watchdog).  Laying files out is work, not a step:
// while the engine lays out, each rank's supervisor tells rank 0 it is alive,
// and rank 0 tells the others, every quarter deadline (pulse()); the waits of
// the layout's rounds count the deadline from the last word of the rank they
// wait for, so a shared file that takes an hour to lay out holds every rank
// an hour, and a rank that is stopped or gone is still named after it.  So
// does a group's I/O: ranks pulse while their engine runs, and the waits at a
// group's start and end run from the last pulse, so a straggler is waited for.
// A group's start and end are an arrival
// at rank 0 (arrive()), so a rank missing there is named with its host; the
// others stop, rank 0 reports what they measured in the groups they finished
// and the world exits 1.  With --rank-output each rank rewrites its rank file
// as each group ends, so a rank killed later keeps its finished groups.
// Elsewhere, past the deadline the rank names the step and aborts the world.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cli/mpi/held_stderr.hpp"
#include "cli/mpi/mpi_module.h"
#include "cli/mpi/rank_file.hpp"
#include "engine/engine.h"

namespace cli {

struct share_rec;

// True when a launcher started this process as an MPI rank.
bool launched_by_mpi();

// Why this process must not run alone: one of several tasks a launcher
// started without MPI (srun --mpi=none -n 2), or "".
std::string uncoordinated_tasks();

// Outside mpirun: IOPLAN_RANK=0, IOPLAN_NRANKS=1, IOPLAN_LOCAL_RANK=0,
// IOPLAN_READ_RANK=0 and IOPLAN_HOST=this host, unless already set, so a job
// file written for many ranks runs as one.
void set_solo_rank_vars();

class world {
public:
    // Loads the module, joins the world and sets the IOPLAN_* variables.
    // timeout_s is --rank-timeout's; join_s --join-timeout's (0: the default,
    // join_deadline_s).  nullptr with *err (say why, exit 2) when this build or
    // host has no MPI module.
    static world *join(int rank_shift, double timeout_s, double join_s, std::string *err);
    // The deadline of MPI_Init and MPI_Finalize, which take none of their own:
    // --join-timeout, else --rank-timeout but never under a minute (starting
    // many ranks oversubscribed takes seconds where one step takes milliseconds).
    static double join_deadline_s(double timeout_s, double join_s);

    uint32_t rank() const { return who_.rank; }
    uint32_t size() const { return who_.nranks; }
    const std::string &host() const { return who_.host; }
    const rank_info &who() const { return who_; }
    // This rank's number among the ranks of its machine (MPI's shared-memory node), 0 for its first.
    uint32_t local_rank() const { return local_rank_; }
    // Rank 0: rank r's host ("" when not known).
    std::string host_of(uint32_t r) const { return r < hosts_.size() ? hosts_[r] : std::string(); }
    // Where this rank saw the world fail ("" while it has not): its rank file is then interrupted.
    const std::string &lost_step() const { return lost_step_; }
    // Whether every rank is still in the world (no rank was lost at a step).
    bool together() const { return !lost_; }

    // Every rank's exit code so far; returns the worst.  Rank 0 prints
    // "ioplan: error: rank R (host): msg" for each failing rank with a msg.
    int agree(int code, const std::string &msg, const char *step);
    // False on rank 0 after naming the ranks whose plan (plan_identity) is
    // not rank 0's and the first difference; true on the others.
    bool same_plan(const std::string &identity);
    // How many agreements this rank took part in (the first is preflight's).
    unsigned agreed() const { return agreed_; }
    // The next agreement gives h's text out: rank 0's before its account of the
    // ranks that failed, another rank's after it, and only where it is not rank
    // 0's (held_stderr.hpp).  h must outlive that agreement.
    void hold_until_agreed(held_stderr *h) { held_ = h; }

    // The hooks for eng_opts.sync; this world must outlive the run.
    const eng_sync *sync();

    // Rank 0: every other rank's result folded into r (nullptr on a rank
    // without one); other ranks send theirs when rank 0 asks, each waiting
    // --rank-timeout per rank ahead of it; straggler_pct is
    // --straggler-threshold; threads: keep each rank's threads for a report
    // that lists them (rank_merger).  Returns "" or why not.
    std::string merge(results *r, const plan_source &src, double straggler_pct, bool threads = false);

    // Under --rank-output=DIR: the rank file is rewritten as each group ends,
    // from a snapshot of e (attach), so the groups before a loss are kept.
    // by_default: DIR is the default one (no --rank-output), named when the rank is stopped.
    void keep_groups(const std::string &dir, const plan_source *src, bool by_default = false);
    void attach(eng *e) { eng_.store(e); }
    // A stop signal was taken: mpirun ending the world (rank 0 may be gone, and
    // nothing after this may run before its SIGKILL).  In the default directory,
    // this rank says where its result is kept (say_kept).
    void stopping();

    // Leaves MPI (collective: every rank calls it once, last); after a lost
    // rank, rank 0 ends the world instead and the others wait for that.
    void leave();

    // Names the step that timed out and aborts every rank.
    [[noreturn]] void lost(const char *step);

    // For the live reports (live.hpp): the module, and whether rank r
    // (rank 0's view) did not come to an arrival and is no longer waited for.
    const ioplan_mpi_ops *ops() const { return ops_; }
    bool gone(uint32_t r) const { return lost_ && r < answered_.size() && !answered_[r]; }
    // The deadline of work after the run (the merge): --rank-timeout, at least a minute.
    double merge_timeout_s() const;

    // Each supervisor tick: takes the pulses that came and, while the engine
    // works (working: laying out, running groups), sends this rank's every quarter deadline.
    void pulse(bool working);

    int layout_share(eng_shared_file *files, uint32_t n);
    int layout_round_done(uint32_t round, int status);
    int layout_done(int status);
    int segment_start(uint32_t first_job, uint32_t run, bool stop_wanted);
    int segment_end(uint32_t first_job, uint32_t run);

private:
    const ioplan_mpi_ops *ops_ = nullptr;
    double timeout_s_ = 600;
    double join_s_ = 600;            // join_deadline_s: MPI_Finalize's too
    unsigned agreed_ = 0;
    rank_info who_;
    uint32_t local_rank_ = 0;
    eng_sync sync_{};
    std::vector<bool> same_host_;   // by rank: shares rank 0's host (rank 0: all; others: own entry)
    std::vector<std::string> hosts_;   // rank 0: every rank's host
    std::vector<bool> answered_;       // rank 0: the ranks that came to the last arrival
    bool lost_ = false;                // a rank did not come: no more collectives
    std::string lost_step_;            // where this rank saw the world fail (its rank files say so)
    held_stderr *held_ = nullptr;      // stderr held until the next agreement
    double held_slice(double slice, uint64_t since);
    bool layout_named_ = false;        // a layout round named the ranks that failed
    bool merged_ = false;              // past the run: the merge's deadlines hold
    std::string lost_text_;            // rank 0: who did not come, where
    uint32_t groups_ = 0;              // group runs ended so far
    int64_t seq_ = 0;                  // arrivals so far (the same count on every rank)
    uint64_t answers_ns_ = 0;          // rank 0: what sending the last answers took
    std::string keep_dir_;
    bool keep_default_ = false;        // keep_dir_ is the default directory (say_kept)
    const plan_source *keep_src_ = nullptr;
    // By rank (rank 0: every rank; the others: rank 0's entry): when its last
    // pulse came, CLOCK_MONOTONIC ns.  Written by the supervisor, read by the
    // coordinator's waits.
    std::unique_ptr<std::atomic<uint64_t>[]> heard_;
    uint64_t next_pulse_ns_ = 0;       // supervisor: when this rank's next pulse is due
    std::vector<void *> pulsing_;      // supervisor: a pulse's send in flight, by destination
    std::atomic<eng *> eng_{nullptr};
    bool reap_pulses();
    void share_hosts(const char *host);
    void assign_rounds(std::vector<std::vector<struct share_rec>> &all);
    int64_t arrive(const std::string &step, int64_t flag, uint64_t *start = nullptr);
    int64_t arrivals_at_rank0(const std::string &step, int64_t flag, uint64_t *start);
    [[noreturn]] void rank0_lost(const std::string &step);
    [[noreturn]] void lost_ranks(const std::vector<uint32_t> &ranks, double wait_s, const std::string &step);
    // work: a step of the layout, whose waits run from the last pulse (pulse()).
    void collect(const void *mine, size_t len, void *all, const std::string &step, double wait_s,
                 bool work = false);
    void hand_out(void *buf, size_t len, const std::string &step, double wait_s, bool work = false);
    int agree_on(int code, const std::string &msg, const std::string &step, bool work);
    uint64_t due_ns(uint32_t r, uint64_t since, double wait_s, bool work) const;
    void keep_finished_groups(bool agreed);
    void note_lost(const std::string &step);
    std::string fold_results(results *r, double straggler_pct, bool threads);
    void share_run_id();
    long ranks_per_node();
    void measure_clock_offsets();
};

} // namespace cli

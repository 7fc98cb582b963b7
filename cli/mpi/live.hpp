// cli/mpi/live.hpp - the world while it runs: interim reports and the status
// line under mpirun come from rank 0 alone, for every rank together.
//
// fio's --status-interval (and SIGUSR1) prints the results so far; under
// mpirun every rank would print its own, interleaved on mpirun's stdout.
// Instead rank 0 asks: at its own interval it takes its snapshot and sends
// every other rank an ask; each rank's supervisor takes asks at its 10 ms
// tick, takes its own snapshot and answers with it as a rank file text
// (rank_file.hpp), sent without waiting (the I/O threads never see any of
// this).  Rank 0 folds the answers into its snapshot as they come
// (rank_merge.hpp: counts added, histograms bucket by bucket) and shows the
// merge when every rank has answered, or when the grace has passed: a rank
// stopped or lost is missing from that report (its row in the world table
// says so), it never holds the reports up.  Reports are shown in the order
// they were asked for.  The status line (and --bandwidth-log) is rank 0's,
// with the counts of every rank: rank 0 asks for a small status record as
// often as it draws, and adds the latest record of each rank to its own.
//
// At the end of the run rank 0 tells every rank it asks no more; each rank
// answers what was asked before that (messages from one rank keep their
// order), says it is done and waits for its answers to be taken; rank 0
// takes answers until every rank that came to the end has said so, then
// shows what is left to show: nothing asked for is dropped and no send is
// left pending at MPI_Finalize.
//
// A rank that stops on its own mid-run (a signal to that rank, --trigger-file
// seen there first, --trigger-timeout) tells rank 0, which tells every rank:
// each stops its engine at its next tick, as fio's client stops every server
// on a trigger.  Before, only that rank stopped: the others ran the group to
// its end (20 s of a 20 s time-bound group after a trigger at 3 s) and the
// world's report was theirs.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/mpi/mpi.hpp"
#include "engine/engine.h"

namespace cli {

class rank_merger;

class live_world {
public:
    // grace_ns: how long rank 0 waits for the answers to one ask;
    // nr_threads: the plan's (each rank's eng_status.states holds as many).
    // threads: the reports list the world's threads (rank_merger).
    live_world(world &w, const plan_source *src, uint64_t grace_ns, uint32_t nr_threads,
               double straggler_pct, bool threads = false);
    ~live_world();
    live_world(const live_world &) = delete;
    live_world &operator=(const live_world &) = delete;

    bool rank0() const { return w_.rank() == 0; }
    // A stop signal was taken on this rank (world::stopping).
    void stopping() { w_.stopping(); }
    uint32_t ranks() const { return w_.size(); }

    // Each supervisor tick, on every rank: the others answer rank 0's asks
    // (a snapshot waits at most snapshot_wait_ns for busy threads), rank 0
    // takes the answers that came.
    void tick(eng *e, const eng_status &mine, uint64_t snapshot_wait_ns);

    // Rank 0: asks every rank for its status record (one ask at a time each).
    void ask_status();
    // Rank 0: the world's status: mine with every rank's latest counts added,
    // its states every rank's threads in rank order (valid until the next call;
    // 'P' for a rank not heard from yet).
    eng_status world_status(const eng_status &mine);

    // Rank 0: an interim report is due; mine is rank 0's snapshot (owned from here).
    void ask_interim(results *mine);
    // Rank 0: the merged reports ready to show, in order (the caller frees each).
    std::vector<results *> take_ready();

    // After the engine is done: rank 0 tells every rank it asks no more and
    // takes their answers until each has said it is done; the others answer
    // the asks that came before (from e's final figures) until then.
    // Deadline timeout_s; then take_ready() holds every report asked for.
    void finish(eng *e, double timeout_s);

    // Why a rank stopped its run before its end: a trigger (the run counts as
    // finished) or anything else (a signal: interrupted); the larger wins.
    enum stop_cause : int64_t { STOP_NONE = 0, STOP_TRIGGER = 1, STOP_INTERRUPT = 2 };
    // This rank stopped its engine (cause): every rank is told, through rank
    // 0, once for each cause.
    void stopped_here(int64_t cause);
    // The largest stop another rank told of (STOP_NONE: none); taken at tick().
    int64_t stop_asked() const { return asked_; }
    // Rank 0: which rank stopped the world and why, for the report ("": none,
    // or rank 0 itself).  A trigger's is said as trigger ("found
    // --trigger-file"), and not at all when it is "": --trigger-timeout alone
    // is every rank's, the first to meet it no one's doing.
    std::string stop_text(const std::string &trigger) const;

private:
    struct out_msg;
    struct pending;
    struct peer;

    void serve(eng *e, const eng_status &mine, uint64_t snapshot_wait_ns);
    void answer(int64_t kind, int64_t seq, const std::string &payload);
    void take_answers();
    void take(int from, const std::string &msg);
    void fold(pending &p, int from, const std::string &text);
    void close_due(bool all);
    void send(int dest, int64_t kind, int64_t seq, const std::string &payload);
    void reap_sends();
    void tell_stop(int64_t cause);

    world &w_;
    const plan_source *src_;
    uint64_t grace_ns_;
    double straggler_pct_;	// --straggler-threshold, as the final merge uses it
    bool threads_;		// keep each rank's threads, as the final merge does
    uint32_t nr_threads_;
    std::string world_states_;
    std::vector<peer> peers_;              // rank 0: by rank, what each last said
    std::deque<pending> pending_;          // rank 0: reports asked for, not shown yet
    std::vector<results *> ready_;
    std::vector<std::unique_ptr<out_msg>> sending_;
    int64_t next_seq_ = 0;
    bool finished_ = false;
    bool done_asked_ = false;   // not rank 0: rank 0 asks no more
    int64_t told_ = STOP_NONE;     // the largest stop this rank has passed on
    int64_t asked_ = STOP_NONE;    // the largest stop another rank told of
    int stop_from_ = -1;           // rank 0: the first rank that told of a stop
    int64_t stop_from_cause_ = STOP_NONE;
};

} // namespace cli

// cli/mpi/live.cpp - rank 0's interim reports and status line for the whole
// world (live.hpp has the design).
#include "cli/mpi/live.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <thread>

#include "cli/mpi/rank_file.hpp"
#include "cli/mpi/rank_merge.hpp"

namespace cli {

namespace {

// Tags of their own (mpi.cpp's run 10 to 50): asks from rank 0, answers to it.
constexpr int TAG_LIVE_ASK = 60;
constexpr int TAG_LIVE_ANSWER = 61;

// A message's header: what it is and which ask it answers.
// LIVE_STOP: a rank stopped its run (seq: the stop_cause), to rank 0 and from it.
enum : int64_t { LIVE_STATUS = 1, LIVE_INTERIM = 2, LIVE_DONE = 3, LIVE_STOP = 4 };

struct header {
    int64_t kind;
    int64_t seq;
};

// One rank's status for the world's line: the counts of eng_status.
struct status_rec {
    uint32_t nr_running, files_open;
    uint64_t bytes[PLAN_DDIR_NR], ios[PLAN_DDIR_NR];
    double done_fraction;
    uint64_t eta_ns, layout_done_bytes, layout_total_bytes;
};

uint64_t mono_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

} // namespace

struct live_world::out_msg {
    std::string buf;
    void *req = nullptr;
};

struct live_world::pending {
    int64_t seq;
    uint64_t asked_ns;
    results *acc;
    std::unique_ptr<rank_merger> merger;
    uint32_t waiting;   // ranks asked that have not answered
};

struct live_world::peer {
    bool status_asked = false;
    bool have_status = false;
    bool done = false;
    status_rec status{};
    std::string states;
};

live_world::live_world(world &w, const plan_source *src, uint64_t grace_ns, uint32_t nr_threads,
                       double straggler_pct, bool threads)
    : w_(w), src_(src), grace_ns_(grace_ns), straggler_pct_(straggler_pct), threads_(threads), nr_threads_(nr_threads),
      peers_(w.rank() == 0 ? w.size() : 0)
{
}

live_world::~live_world()
{
    for (pending &p : pending_)
        results_free(p.acc);
    for (results *r : ready_)
        results_free(r);
    // A send still pending keeps its buffer: MPI may yet read it.
    for (std::unique_ptr<out_msg> &m : sending_)
        (void)m.release();
}

void live_world::tick(eng *e, const eng_status &mine, uint64_t snapshot_wait_ns)
{
    // Alive while the engine works: laying out, running a group's I/O, or
    // waiting at a group's start or end for a rank still at it.
    w_.pulse(mine.phase != ENG_PHASE_DONE);
    if (finished_)
        return;
    reap_sends();
    if (!rank0()) {
        serve(e, mine, snapshot_wait_ns);
        return;
    }
    take_answers();
    close_due(false);
}

void live_world::send(int dest, int64_t kind, int64_t seq, const std::string &payload)
{
    auto m = std::make_unique<out_msg>();
    header h{kind, seq};
    m->buf.assign(reinterpret_cast<const char *>(&h), sizeof(h));
    m->buf += payload;
    const ioplan_mpi_ops *ops = w_.ops();
    if (ops->isend(m->buf.data(), m->buf.size(), dest, dest == 0 ? TAG_LIVE_ANSWER : TAG_LIVE_ASK, &m->req) == 0)
        sending_.push_back(std::move(m));
}

void live_world::reap_sends()
{
    const ioplan_mpi_ops *ops = w_.ops();
    sending_.erase(std::remove_if(sending_.begin(), sending_.end(),
                                  [ops](const std::unique_ptr<out_msg> &m) {
                                      int done = 0;
                                      return ops->test(m->req, &done) != 0 || done;
                                  }),
                   sending_.end());
}

// A rank other than 0: every ask that came, answered in order.
void live_world::serve(eng *e, const eng_status &mine, uint64_t snapshot_wait_ns)
{
    void *buf = nullptr;
    size_t len = 0;
    int from = 0;
    while (w_.ops()->recv(&buf, &len, 0, TAG_LIVE_ASK, &from, 0) == 0) {
        header h{0, 0};
        std::memcpy(&h, buf, std::min(len, sizeof(h)));
        free(buf);
        if (h.kind == LIVE_STATUS) {
            status_rec s{mine.nr_running, mine.files_open, {}, {}, mine.done_fraction, mine.eta_ns,
                         mine.layout_done_bytes, mine.layout_total_bytes};
            std::memcpy(s.bytes, mine.bytes, sizeof(s.bytes));
            std::memcpy(s.ios, mine.ios, sizeof(s.ios));
            std::string rec(reinterpret_cast<const char *>(&s), sizeof(s));
            rec += mine.states ? std::string(mine.states, nr_threads_) : std::string(nr_threads_, 'P');
            send(0, LIVE_STATUS, h.seq, rec);
        } else if (h.kind == LIVE_INTERIM) {
            results *r = nullptr;
            std::string text;
            if (e && eng_snapshot(e, snapshot_wait_ns, &r) == 0 && r)
                text = rank_file_text(*r, w_.who(), src_ ? *src_ : plan_source{});
            results_free(r);
            send(0, LIVE_INTERIM, h.seq, text); // empty: no snapshot, this rank is missing from it
        } else if (h.kind == LIVE_DONE) {
            done_asked_ = true;
            return;
        } else if (h.kind == LIVE_STOP) {
            asked_ = std::max(asked_, h.seq);
        }
    }
}

void live_world::stopped_here(int64_t cause)
{
    if (cause <= told_ || finished_)
        return;
    told_ = cause;
    if (rank0())
        tell_stop(cause);
    else
        send(0, LIVE_STOP, cause, "");
}

// Rank 0: every rank still in the run is told to stop (the one that asked
// too: it has stopped already and takes it as nothing).
void live_world::tell_stop(int64_t cause)
{
    for (uint32_t r = 1; r < peers_.size(); r++)
        if (!peers_[r].done && !w_.gone(r))
            send(static_cast<int>(r), LIVE_STOP, cause, "");
}

std::string live_world::stop_text(const std::string &trigger) const
{
    if (stop_from_ <= 0 || (stop_from_cause_ == STOP_TRIGGER && trigger.empty()))
        return "";
    std::string host = w_.host_of(static_cast<uint32_t>(stop_from_));
    return "rank " + std::to_string(stop_from_) + (host.empty() ? "" : " (" + host + ")") +
           (stop_from_cause_ == STOP_TRIGGER ? " " + trigger
                                             : " stopped (a signal)") +
           ": every rank stopped with it";
}

void live_world::ask_status()
{
    for (uint32_t r = 1; r < peers_.size(); r++)
        if (!peers_[r].status_asked && !peers_[r].done && !w_.gone(r)) {
            peers_[r].status_asked = true;
            send(static_cast<int>(r), LIVE_STATUS, 0, "");
        }
}

eng_status live_world::world_status(const eng_status &mine)
{
    eng_status st = mine;
    world_states_.assign(mine.states ? mine.states : "", mine.states ? nr_threads_ : 0);
    world_states_.resize(nr_threads_, 'P');
    for (uint32_t r = 1; r < peers_.size(); r++)
        world_states_ += peers_[r].have_status ? peers_[r].states : std::string(nr_threads_, 'P');
    st.states = &world_states_[0];
    for (const peer &p : peers_) {
        if (!p.have_status)
            continue;
        const status_rec &s = p.status;
        st.nr_running += s.nr_running;
        st.files_open += s.files_open;
        for (int d = 0; d < PLAN_DDIR_NR; d++) {
            st.bytes[d] += s.bytes[d];
            st.ios[d] += s.ios[d];
        }
        if (s.done_fraction >= 0 && (st.done_fraction < 0 || s.done_fraction < st.done_fraction))
            st.done_fraction = s.done_fraction; // the world is as far as its slowest rank
        st.eta_ns = std::max(st.eta_ns, s.eta_ns);
        st.layout_done_bytes += s.layout_done_bytes;
        st.layout_total_bytes += s.layout_total_bytes;
    }
    return st;
}

void live_world::ask_interim(results *mine)
{
    pending p{next_seq_++, mono_ns(), mine, std::make_unique<rank_merger>(mine, w_.who(), w_.size(), false, threads_), 0};
    for (uint32_t r = 1; r < w_.size(); r++)
        if (!peers_[r].done && !w_.gone(r)) {
            send(static_cast<int>(r), LIVE_INTERIM, p.seq, "");
            p.waiting++;
        }
    pending_.push_back(std::move(p));
    close_due(false);
}

void live_world::take_answers()
{
    void *buf = nullptr;
    size_t len = 0;
    int from = 0;
    while (w_.ops()->recv(&buf, &len, -1, TAG_LIVE_ANSWER, &from, 0) == 0) {
        std::string msg(static_cast<char *>(buf), len);
        free(buf);
        if (from > 0 && static_cast<uint32_t>(from) < peers_.size() && msg.size() >= sizeof(header))
            take(from, msg);
    }
}

void live_world::take(int from, const std::string &msg)
{
    header h;
    std::memcpy(&h, msg.data(), sizeof(h));
    peer &p = peers_[static_cast<uint32_t>(from)];
    if (h.kind == LIVE_DONE) {
        p.done = true;
    } else if (h.kind == LIVE_STOP) {
        if (stop_from_ < 0 || h.seq > stop_from_cause_) {
            stop_from_ = from;
            stop_from_cause_ = h.seq;
        }
        asked_ = std::max(asked_, h.seq);
        if (h.seq > told_ && !finished_) {
            told_ = h.seq;
            tell_stop(h.seq);
        }
    } else if (h.kind == LIVE_STATUS && msg.size() == sizeof(h) + sizeof(status_rec) + nr_threads_) {
        std::memcpy(&p.status, msg.data() + sizeof(h), sizeof(status_rec));
        p.states = msg.substr(sizeof(h) + sizeof(status_rec));
        p.have_status = true;
        p.status_asked = false;
    } else if (h.kind == LIVE_INTERIM) {
        for (pending &q : pending_)
            if (q.seq == h.seq) // a report already shown takes no late answer
                fold(q, from, msg.substr(sizeof(h)));
    }
}

// The later of two ranks' estimates of the time left, one unknown
// (UINT64_MAX) giving way to the other.
static uint64_t longest_eta(uint64_t a, uint64_t b)
{
    return a == UINT64_MAX ? b : b == UINT64_MAX ? a : std::max(a, b);
}

// One rank's snapshot into a report; one that cannot be merged (a group
// boundary crossed between the snapshots) leaves that rank out of it.
void live_world::fold(pending &p, int from, const std::string &text)
{
    p.waiting -= p.waiting ? 1 : 0;
    if (text.empty())
        return;
    try {
        rank_info who;
        plan_source their;
        results *theirs = rank_file_parse(text, &who, &their);
        // The world's time left is its last rank's: rank 0's alone read 0 once
        // rank 0 was done while another rank still ran.  A rank without an
        // estimate (UINT64_MAX: done, or nothing moved yet) leaves the others'.
        if (who.rank == static_cast<uint32_t>(from) && p.merger->add(*theirs, who).empty())
            p.acc->eta_ns = longest_eta(p.acc->eta_ns, theirs->eta_ns);
        results_free(theirs);
    } catch (const std::runtime_error &) {
        // left out of this report, as a rank that did not answer
    }
}

void live_world::close_due(bool all)
{
    uint64_t now = mono_ns();
    while (!pending_.empty()) {
        pending &p = pending_.front();
        if (!all && p.waiting && now < p.asked_ns + grace_ns_)
            return;
        p.merger->finish(now - p.asked_ns, straggler_pct_);
        ready_.push_back(p.acc);
        pending_.pop_front();
    }
}

std::vector<results *> live_world::take_ready()
{
    std::vector<results *> out;
    out.swap(ready_);
    return out;
}

void live_world::finish(eng *e, double timeout_s)
{
    if (finished_)
        return;
    finished_ = true;
    uint64_t deadline = mono_ns() + static_cast<uint64_t>(timeout_s * 1e9);
    if (!rank0()) {
        // Every ask rank 0 sent before its own end, answered from the figures as they
        // ended, until rank 0's last word; then this rank's own.
        eng_status none{};
        while (!done_asked_ && mono_ns() < deadline) {
            serve(e, none, 0);
            reap_sends();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        send(0, LIVE_DONE, 0, "");
    } else {
        for (uint32_t r = 1; r < peers_.size(); r++)
            if (!w_.gone(r))
                send(static_cast<int>(r), LIVE_DONE, 0, "");
        auto all_done = [this] {
            for (uint32_t r = 1; r < peers_.size(); r++)
                if (!peers_[r].done && !w_.gone(r))
                    return false;
            return true;
        };
        for (take_answers(); !all_done() && mono_ns() < deadline; take_answers()) {
            reap_sends();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        close_due(true);
        for (uint32_t r = 1; r < peers_.size(); r++)
            if (w_.gone(r))
                return; // asks to a lost rank may never be taken; the world is ended, not finalized
    }
    for (reap_sends(); !sending_.empty() && mono_ns() < deadline; reap_sends())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

} // namespace cli

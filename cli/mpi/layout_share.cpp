// cli/mpi/layout_share.cpp - a layout shared by many ranks: who lays out each
// shared file and in which round, and the pulses that keep a long layout from
// being taken for a lost rank (cli/mpi/mpi.hpp has the design).
#include "cli/mpi/mpi.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cli/mpi/wire.hpp"
#include "cli/output.hpp"

namespace cli {

using namespace wire;

// One rank's file for layout_share: which file (a hash of its resolved path),
// the bytes and fill it needs, and, back from rank 0, those of every rank
// naming it, the round this rank lays it out in, and how many ranks name it.
struct share_rec {
    uint64_t key;
    uint64_t need;
    uint32_t fill;
    uint32_t round;
    uint32_t ranks;
    uint32_t spare;  // no padding goes on the wire unset
};

// Rank 0: per file, the largest need and any fill of the ranks naming it;
// round 0 for the lowest of them, 1 for the lowest on each other host (its
// file system may be the host's own), 2 for the rest, who find it laid out.
void world::assign_rounds(std::vector<std::vector<share_rec>> &all)
{
    struct named {
        uint64_t need = 0;
        uint32_t fill = 0;
        uint32_t first = UINT32_MAX;
        uint32_t ranks = 0;
        std::map<std::string, uint32_t> first_on_host;
    };
    std::map<uint64_t, named> files;
    for (uint32_t r = 0; r < all.size(); r++)
        for (const share_rec &f : all[r]) {
            named &n = files[f.key];
            n.need = std::max(n.need, f.need);
            n.fill |= f.fill;
            n.first = std::min(n.first, r);
            n.first_on_host.emplace(hosts_[r], r);
            n.ranks++;
        }
    for (uint32_t r = 0; r < all.size(); r++)
        for (share_rec &f : all[r]) {
            named &n = files[f.key];
            f.need = n.need;
            f.fill = n.fill;
            f.round = r == n.first ? 0 : n.first_on_host[hosts_[r]] == r ? 1 : 2;
            f.ranks = n.ranks;
        }
}

// The layout and a group's I/O are work, not steps (mpi.hpp): rank 0 hears
// from every rank and the others from rank 0 every quarter deadline while
// their engines work.
// A send still in flight (a rank stopped, its queue full) is not doubled.
void world::pulse(bool working)
{
    void *buf = nullptr;
    size_t len = 0;
    int from = 0;
    while (ops_->recv(&buf, &len, -1, TAG_PULSE, &from, 0) == 0) {
        if (from >= 0 && static_cast<uint32_t>(from) < who_.nranks)
            heard_[from].store(mono_ns(), std::memory_order_relaxed);
        free(buf);
    }
    reap_pulses();
    uint64_t now = mono_ns();
    if (!working || now < next_pulse_ns_)
        return;
    next_pulse_ns_ = now + std::max<uint64_t>(static_cast<uint64_t>(timeout_s_ * 0.25e9), 10000000ull);
    static const int64_t alive = 1;
    for (uint32_t r = 0; r < who_.nranks; r++)
        if (r != who_.rank && (who_.rank == 0 || r == 0) && !pulsing_[r])
            ops_->isend(&alive, sizeof(alive), static_cast<int>(r), TAG_PULSE, &pulsing_[r]);
}

// The module frees a send's request when a test finds it done:
// true while a pulse is still in flight.
bool world::reap_pulses()
{
    bool left = false;
    for (void *&req : pulsing_) {
        int done = 0;
        if (req && (ops_->test(req, &done) != 0 || done))
            req = nullptr;
        left |= req != nullptr;
    }
    return left;
}

int world::layout_share(eng_shared_file *files, uint32_t n)
{
    const char *step = "sharing out the layout";
    std::vector<share_rec> mine(n);
    for (uint32_t i = 0; i < n; i++)
        mine[i] = {fnv1a(resolved_name(files[i].path)), files[i].need, files[i].fill ? 1u : 0u, 0, 1, 0};
    size_t bytes = n * sizeof(share_rec);
    void *buf = nullptr;
    size_t len = 0;
    int from = 0;
    if (who_.rank != 0) {
        // Rank 0 waits up to the deadline for each rank, and names the one missing.
        if (ops_->send(mine.data(), bytes, 0, TAG_SHARE, timeout_s_) ||
            ops_->recv(&buf, &len, 0, TAG_SHARE, &from, 2 * timeout_s_ + 1))
            rank0_lost(step);
        if (!mine.empty())  // an empty vector's data() may be null, which memcpy must not get
            memcpy(mine.data(), buf, std::min(len, bytes));
        free(buf);
    } else {
        std::vector<std::vector<share_rec>> all(who_.nranks);
        all[0] = mine;
        for (uint32_t r = 1; r < who_.nranks; r++) {
            if (ops_->recv(&buf, &len, static_cast<int>(r), TAG_SHARE, &from, timeout_s_))
                lost_ranks({r}, timeout_s_, step);
            all[r].resize(len / sizeof(share_rec));
            if (!all[r].empty())
                memcpy(all[r].data(), buf, all[r].size() * sizeof(share_rec));
            free(buf);
        }
        assign_rounds(all);
        for (uint32_t r = 1; r < who_.nranks; r++)
            if (ops_->send(all[r].data(), all[r].size() * sizeof(share_rec), static_cast<int>(r), TAG_SHARE,
                           timeout_s_))
                lost_ranks({r}, timeout_s_, step);
        mine = all[0];
    }
    for (uint32_t i = 0; i < n; i++) {
        files[i].need = mine[i].need;
        files[i].fill = mine[i].fill != 0;
        files[i].round = mine[i].round;
        files[i].shared = mine[i].ranks > 1;
    }
    return 0;
}

// What a rank's layout status says to the others: nothing for none, for
// another rank's failure (-ECANCELED) or for a stop (-EINTR: a signal, a
// trigger; the engine says it as the layout-interrupted warning).  A stop was
// printed as 'ioplan: error: ranks 0, 1 (n01): layout: Interrupted system call'.
namespace {

std::string layout_failure(int status)
{
    return status && status != -ECANCELED && status != -EINTR ? std::string("layout: ") + strerror(-status) : "";
}

} // namespace

// A round's failure is named here, with the rank and host, once.
int world::layout_round_done(uint32_t round, int status)
{
    std::string msg = layout_failure(status);
    std::string step = "layout round " + std::to_string(round + 1);
    int worst = agree_on(status ? 1 : 0, msg, step, true);
    layout_named_ = layout_named_ || worst;
    return worst ? (status ? status : -ECANCELED) : 0;
}

int world::layout_done(int status)
{
    std::string msg = layout_named_ ? "" : layout_failure(status);
    int worst = agree_on(status ? 1 : 0, msg, "the end of layout", true);
    if (worst)
        return status ? status : -ECANCELED;
    measure_clock_offsets();
    return 0;
}

} // namespace cli

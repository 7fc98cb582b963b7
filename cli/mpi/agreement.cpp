// cli/mpi/agreement.cpp - how the ranks agree: a gather rank 0 can see into
// (collect), its answer to every rank (hand_out), and the steps built on them:
// the worst exit code with each failing rank named (agree), and the plan
// comparison (same_plan).  Each wait has a deadline and names who did not
// answer; a rank holding its stderr until an agreement (held_stderr.hpp) gives
// it out there, or before long if the agreement is slow to come.
#include "cli/mpi/mpi.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/mpi/wire.hpp"

namespace cli {

using namespace wire;

namespace {

// One rank's status for agree(): fixed size, so one gather carries them all.
struct status_rec {
    int32_t code;
    char host[64];
    char msg[440];
    uint64_t held; // the digest of the stderr it held (held_stderr), 0: none
};

// Rank 0's answer: the worst code, and the digest of what rank 0 printed of its held stderr.
struct verdict {
    int32_t worst;
    uint64_t held;
};

// "2", "0, 1", "0-63, 70": ranks in order, runs of three or more as a range.
std::string rank_list(const std::vector<uint32_t> &ranks)
{
    std::string s;
    for (size_t i = 0, j; i < ranks.size(); i = j + 1) {
        for (j = i; j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1;)
            j++;
        if (j < i + 2)
            j = i;	// two neighbours are a list, not a range
        s += (s.empty() ? "" : ", ") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
    }
    return s;
}

// Rank 0's report of the ranks that failed a step, once per distinct message:
// the same preflight refusal on 64 ranks is one line naming them, not 64.
void say_failures(const std::vector<status_rec> &all)
{
    std::vector<bool> said(all.size());
    for (uint32_t r = 0; r < all.size(); r++) {
        if (said[r] || !all[r].code || !all[r].msg[0])
            continue;
        std::vector<uint32_t> same;
        std::string host = all[r].host;
        for (uint32_t o = r; o < all.size(); o++)
            if (!said[o] && all[o].code && !std::strcmp(all[o].msg, all[r].msg)) {
                said[o] = true;
                same.push_back(o);
                if (host != all[o].host)
                    host = "several hosts";
            }
        std::fprintf(stderr, "ioplan: error: rank%s %s (%s): %s\n", same.size() > 1 ? "s" : "",
                     rank_list(same).c_str(), host.c_str(), all[r].msg);
    }
}

std::vector<std::string> lines_of(const std::string &s)
{
    std::vector<std::string> out;
    for (size_t at = 0, nl; at < s.size(); at = nl + 1) {
        nl = s.find('\n', at);
        nl = nl == std::string::npos ? s.size() : nl;
        out.push_back(s.substr(at, nl - at));
    }
    return out;
}

// "job 'w': bs=8k on rank 2, bs=4k on rank 0" from two plan_identity texts.
std::string first_difference(const std::string &ours, const std::string &theirs, int rank)
{
    std::vector<std::string> a = lines_of(ours), b = lines_of(theirs);
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
        i++;
    auto show = [](const std::vector<std::string> &v, size_t at) {
        if (at >= v.size())
            return std::string("nothing more");
        std::string l = v[at];
        size_t tab = l.find('\t');
        return tab == std::string::npos ? l : l.substr(0, tab) + ": " + l.substr(tab + 1);
    };
    std::string theirs_at = show(b, i), ours_at = show(a, i);
    size_t where = ours_at.find(": ");
    if (where != std::string::npos && !theirs_at.compare(0, where + 2, ours_at, 0, where + 2))
        ours_at = ours_at.substr(where + 2); // the same job: name it once
    return theirs_at + " on rank " + std::to_string(rank) + ", " + ours_at + " on rank 0";
}

} // namespace

// A rank kept waiting since `since` holds its stderr no longer once a quarter of
// --rank-timeout (2 s at most) has gone: the world may end while it waits, and
// mpirun ends the ranks with SIGKILL (after one rank's MPI_Abort or death), the
// held text with them.  Said twice then, rather than lost.  Returns the wait
// slice, cut to wake up at that moment while stderr is held.
double world::held_slice(double slice, uint64_t since)
{
    if (!held_)
        return slice;
    double patience = std::min(2.0, timeout_s_ / 4), waited = static_cast<double>(mono_ns() - since) / 1e9;
    if (waited < patience)
        return std::min(slice, patience - waited);
    held_->release(true);
    held_ = nullptr;
    return slice;
}

// A gather rank 0 can see into (MPI_Gather only fails, it does not say for
// whom): every rank sends its len bytes to rank 0, which puts rank r's at
// all + r * len, and names the ranks missing at their deadline (due_ns).  The
// others wait for rank 0's answer (hand_out) long enough for rank 0 to name them.
void world::collect(const void *mine, size_t len, void *all, const std::string &step, double wait_s, bool work)
{
    if (who_.rank != 0) {
        if (ops_->send(mine, len, 0, TAG_GATHER, wait_s))
            rank0_lost(step);
        return;
    }
    std::vector<bool> came(who_.nranks, false);
    came[0] = true;
    memcpy(all, mine, len);
    uint64_t since = mono_ns();
    std::vector<uint32_t> missing;
    for (uint32_t left = who_.nranks - 1; left && missing.empty();) {
        uint64_t now = mono_ns(), next = UINT64_MAX;
        for (uint32_t r = 1; r < who_.nranks; r++)
            if (!came[r]) {
                uint64_t due = due_ns(r, since, wait_s, work);
                if (due <= now)
                    missing.push_back(r);
                next = std::min(next, due);
            }
        if (!missing.empty())
            break;
        double slice = held_slice(static_cast<double>(next - now) / 1e9, since);
        void *buf = nullptr;
        size_t got = 0;
        int from = 0;
        int rc = ops_->recv(&buf, &got, -1, TAG_GATHER, &from, work ? std::min(slice, PULSE_LOOK_S) : slice);
        if (rc == -ETIMEDOUT)
            continue;
        for (uint32_t r = 1; rc && r < who_.nranks; r++) // the module failed: nobody else comes
            if (!came[r])
                missing.push_back(r);
        if (!rc && from > 0 && static_cast<uint32_t>(from) < who_.nranks && !came[from]) {
            memcpy(static_cast<char *>(all) + from * len, buf, std::min(got, len));
            came[from] = true;
            left--;
        }
        free(buf);
    }
    if (!missing.empty())
        lost_ranks(missing, wait_s, step);
}

// Rank 0's answer to a collect(), to every rank.
void world::hand_out(void *buf, size_t len, const std::string &step, double wait_s, bool work)
{
    if (who_.rank == 0) {
        for (uint32_t r = 1; r < who_.nranks; r++)
            if (ops_->send(buf, len, static_cast<int>(r), TAG_SCATTER, wait_s))
                lost_ranks({r}, wait_s, step);
        return;
    }
    void *got = nullptr;
    size_t n = 0;
    int from = 0;
    for (uint64_t since = mono_ns();;) {
        uint64_t now = mono_ns(), due = due_ns(0, since, 2 * wait_s + 1, work);
        if (now >= due)
            rank0_lost(step);
        double slice = held_slice(static_cast<double>(due - now) / 1e9, since);
        int rc = ops_->recv(&got, &n, 0, TAG_SCATTER, &from, work ? std::min(slice, PULSE_LOOK_S) : slice);
        if (!rc)
            break;
        if (rc != -ETIMEDOUT)
            rank0_lost(step);
    }
    memcpy(buf, got, std::min(n, len));
    free(got);
}

int world::agree(int code, const std::string &msg, const char *step)
{
    return agree_on(code, msg, step, false);
}

int world::agree_on(int code, const std::string &msg, const std::string &step, bool work)
{
    if (lost_) // rank 0 named the lost ranks; nothing more to agree with them
        return std::max(code, 1);
    status_rec mine{};
    mine.code = code;
    snprintf(mine.host, sizeof(mine.host), "%s", who_.host.c_str());
    snprintf(mine.msg, sizeof(mine.msg), "%s", msg.c_str());
    mine.held = held_ ? held_->digest() : 0;
    // After the merge rank 0 is still folding and reporting: work, not a step of the run.
    double wait_s = merged_ ? merge_timeout_s() * who_.nranks : timeout_s_;
    std::vector<status_rec> all(who_.rank == 0 ? who_.nranks : 0);
    collect(&mine, sizeof(mine), all.empty() ? nullptr : all.data(), step, wait_s, work);
    verdict v{0, mine.held};
    for (uint32_t r = 0; r < all.size(); r++)
        v.worst = std::max(v.worst, all[r].code);
    if (held_ && who_.rank == 0)
        held_->release(true);
    say_failures(all);
    hand_out(&v, sizeof(v), step, wait_s, work);
    if (held_ && who_.rank != 0) // rank 0 said the same text: said once
        held_->release(v.held != mine.held);
    held_ = nullptr;
    agreed_++;
    return v.worst;
}

bool world::same_plan(const std::string &identity)
{
    uint64_t mine = fnv1a(identity);
    std::vector<uint64_t> all(who_.rank == 0 ? who_.nranks : 0);
    collect(&mine, sizeof(mine), all.empty() ? nullptr : all.data(), "comparing the plans", timeout_s_);
    int32_t first = -1;
    std::string which;
    for (uint32_t r = 1; r < all.size(); r++)
        if (all[r] != all[0]) {
            first = first < 0 ? static_cast<int32_t>(r) : first;
            which += (which.empty() ? "" : ", ") + std::to_string(r);
        }
    hand_out(&first, sizeof(first), "comparing the plans", timeout_s_);
    if (first < 0)
        return true;
    if (who_.rank == static_cast<uint32_t>(first) &&
        ops_->send(identity.data(), identity.size(), 0, TAG_PLAN, 2 * timeout_s_ + 1))
        rank0_lost("comparing the plans");
    if (who_.rank != 0)
        return true;
    void *buf = nullptr;
    size_t len = 0;
    int from = 0;
    if (ops_->recv(&buf, &len, first, TAG_PLAN, &from, timeout_s_))
        lost_ranks({static_cast<uint32_t>(first)}, timeout_s_, "comparing the plans");
    std::string theirs(static_cast<char *>(buf), len);
    free(buf);
    std::fprintf(stderr, "ioplan: error: rank%s %s run%s another plan than rank 0 (first difference: %s); nothing was run\n",
                 which.find(',') == std::string::npos ? "" : "s", which.c_str(),
                 which.find(',') == std::string::npos ? "s" : "", first_difference(identity, theirs, first).c_str());
    return false;
}

} // namespace cli

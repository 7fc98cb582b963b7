// cli/mpi/mpi.cpp - one rank of many: the module, joining and leaving, the hooks and
// the merge; the agreements are agreement.cpp (cli/mpi/mpi.hpp has the design).
#include "cli/mpi/mpi.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <ctime>
#include <dlfcn.h>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unistd.h>

#include "cli/mpi/rank_merge.hpp"
#include "cli/mpi/run_ranks.hpp"
#include "cli/mpi/wire.hpp"

namespace cli {

using namespace wire;

namespace {

constexpr int CLOCK_ROUNDS = 4;


std::string exe_dir()
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
        return ".";
    std::string p(buf, static_cast<size_t>(n));
    return p.substr(0, p.rfind('/'));
}

// The module next to the binary (a build tree), or where `make install` puts it.
const ioplan_mpi_ops *load_module(std::string *err)
{
    std::vector<std::string> tried;
    if (const char *forced = getenv("IOPLAN_MPI_MODULE"))
        tried.push_back(forced);
    else
        tried = {exe_dir() + "/ioplan-mpi.so", exe_dir() + "/../lib/ioplan/ioplan-mpi.so"};
    std::string why;
    for (const std::string &path : tried) {
        // RTLD_GLOBAL: Open MPI's own plugins resolve libmpi's symbols through it.
        void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (!h) {
            why += (why.empty() ? "" : "; ") + std::string(dlerror());
            continue;
        }
        auto entry = reinterpret_cast<ioplan_mpi_entry_fn>(dlsym(h, IOPLAN_MPI_ENTRY));
        const ioplan_mpi_ops *ops = entry ? entry() : nullptr;
        if (ops && ops->abi == IOPLAN_MPI_ABI)
            return ops;
        why += (why.empty() ? "" : "; ") + path + ": not an ioplan MPI module of this version";
    }
    *err = "started by an MPI launcher, but this ioplan has no MPI module (" + why +
           "); build it where mpicc is installed (Debian: libopenmpi-dev) with `make`, or run ioplan without mpirun";
    return nullptr;
}

void set_var(const char *name, const std::string &value, bool overwrite)
{
    setenv(name, value.c_str(), overwrite ? 1 : 0);
}

// A deadline for an MPI call that takes none (MPI_Init_thread and the host
// split in the module's init, MPI_Finalize): a launcher that lost a rank
// during start-up, or a rank stopped at the end, would hang it for ever.
// Past the deadline (world::join_deadline_s) the rank says which call it was
// in and exits 1.
class watchdog {
public:
    watchdog(double timeout_s, std::string what, std::string why = "")
        : thread_([this, timeout_s, what, why] {
              std::unique_lock<std::mutex> l(mu_);
              if (cv_.wait_for(l, std::chrono::duration<double>(timeout_s), [this] { return done_; }))
                  return;
              held_stderr_release_now();
              std::fprintf(stderr, "ioplan: error: %s did not return within %gs%s; giving up\n",
                           what.c_str(), timeout_s, why.c_str());
              std::fflush(stderr);
              _exit(1);
          })
    {
    }
    ~watchdog()
    {
        {
            std::lock_guard<std::mutex> l(mu_);
            done_ = true;
        }
        cv_.notify_one();
        thread_.join();
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

extern "C" int hook_layout_share(void *ctx, eng_shared_file *files, uint32_t n)
{
    return static_cast<world *>(ctx)->layout_share(files, n);
}

extern "C" int hook_layout_round_done(void *ctx, uint32_t round, int status)
{
    return static_cast<world *>(ctx)->layout_round_done(round, status);
}

extern "C" int hook_layout_done(void *ctx, int status)
{
    return static_cast<world *>(ctx)->layout_done(status);
}

extern "C" int hook_segment_start(void *ctx, uint32_t first_job, uint32_t run, bool stop_wanted)
{
    return static_cast<world *>(ctx)->segment_start(first_job, run, stop_wanted);
}

extern "C" int hook_segment_end(void *ctx, uint32_t first_job, uint32_t run)
{
    return static_cast<world *>(ctx)->segment_end(first_job, run);
}

} // namespace

bool launched_by_mpi()
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

// srun without PMI (`srun --mpi=none -n 2`) starts N copies that each see no
// MPI and would each run the whole plan as rank 0, on the same files.  Only
// srun's step variables count: a batch script or an salloc shell has
// SLURM_NTASKS too, and one ioplan started there is one run.
std::string uncoordinated_tasks()
{
    const char *n = getenv("SLURM_STEP_NUM_TASKS");
    if (!n && (getenv("SLURM_STEP_ID") || getenv("SLURM_STEPID")))
        n = getenv("SLURM_NTASKS");
    long tasks = n ? strtol(n, nullptr, 10) : 0;
    if (tasks <= 1 || launched_by_mpi())
        return "";
    const char *id = getenv("SLURM_PROCID");
    return "this is task " + std::string(id ? id : "?") + " of " + std::to_string(tasks) +
           " that srun started without MPI (no PMIx or PMI variables): each would run the whole plan "
           "alone, as rank 0, on the same files; start the ranks with `srun --mpi=pmix` or `mpirun`, "
           "or start one task (`srun -n 1`)";
}

void set_solo_rank_vars()
{
    char host[64] = "";
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    set_var("IOPLAN_RANK", "0", false);
    set_var("IOPLAN_NRANKS", "1", false);
    set_var("IOPLAN_LOCAL_RANK", "0", false);
    set_var("IOPLAN_READ_RANK", "0", false);
    set_var("IOPLAN_HOST", host, false);
}

// The signals a run takes with sigtimedwait (cli/run.cpp), blocked before
// MPI starts: every thread inherits the mask of the thread that creates it,
// and a signal blocked only where ioplan waits for it would go to one of
// Open MPI's own threads, whose default action ends the rank with nothing
// kept.  They stay blocked to the end, so one that comes during the merge
// waits instead of losing the world's results.
static void block_run_signals()
{
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
}

// This rank as the launcher numbered it, before MPI can say: "rank 2 of 4 (n03)".
static std::string launcher_rank()
{
    const char *rank = getenv("OMPI_COMM_WORLD_RANK"), *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (!rank)
        rank = getenv("PMIX_RANK") ? getenv("PMIX_RANK") : getenv("PMI_RANK");
    if (!size)
        size = getenv("PMI_SIZE") ? getenv("PMI_SIZE") : getenv("SLURM_STEP_NUM_TASKS");
    char host[64] = "";
    if (gethostname(host, sizeof(host)) != 0)
        host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
    return "rank " + std::string(rank ? rank : "?") + (size ? " of " + std::string(size) : "") + " (" + host + ")";
}

double world::join_deadline_s(double timeout_s, double join_s)
{
    return join_s > 0 ? join_s : std::max(timeout_s, 60.0);
}

world *world::join(int rank_shift, double timeout_s, double join_s, std::string *err)
{
    static world w;
    if (w.ops_)
        return &w;
    block_run_signals();
    const ioplan_mpi_ops *ops = load_module(err);
    if (!ops)
        return nullptr;
    int rank = 0, size = 1, local = 0, ret;
    char host[64] = "";
    {
        watchdog dog(join_deadline_s(timeout_s, join_s), launcher_rank() + ": joining the world (MPI_Init_thread, MPI_Comm_split_type)",
                     ": every rank waits there for the last to come, and MPI does not say which is missing: "
                     "the ranks that did not print this line");
        ret = ops->init(&rank, &size, &local, host, sizeof(host));
    }
    if (ret != 0) {
        *err = "the MPI module could not join the world (MPI_Init failed)";
        return nullptr;
    }
    w.ops_ = ops;
    w.timeout_s_ = timeout_s;
    w.join_s_ = join_deadline_s(timeout_s, join_s);
    w.who_.rank = static_cast<uint32_t>(rank);
    w.who_.nranks = static_cast<uint32_t>(size);
    w.who_.host = host;
    w.local_rank_ = static_cast<uint32_t>(local);
    w.heard_ = std::make_unique<std::atomic<uint64_t>[]>(static_cast<size_t>(size));
    for (int r = 0; r < size; r++)
        w.heard_[r].store(0, std::memory_order_relaxed);
    w.pulsing_.assign(static_cast<size_t>(size), nullptr);
    w.share_hosts(host);
    w.share_run_id();
    long shift = w.ranks_per_node() * static_cast<long>(rank_shift % size);
    shift = ((shift % size) + size) % size;
    set_var("IOPLAN_RANK", std::to_string(rank), true);
    set_var("IOPLAN_NRANKS", std::to_string(size), true);
    set_var("IOPLAN_LOCAL_RANK", std::to_string(local), true);
    set_var("IOPLAN_HOST", host, true);
    set_var("IOPLAN_READ_RANK", std::to_string((rank + shift) % size), true);
    return &w;
}

void world::lost(const char *step)
{
    held_stderr_release_now(); // what this rank found is not lost with the world
    std::fprintf(stderr,
                 "ioplan: error: rank %u (%s): no answer from the other ranks within %gs at %s; stopping every rank\n",
                 who_.rank, who_.host.c_str(), timeout_s_, step);
    std::fflush(stderr);
    ops_->abort_world(1);
    _exit(1);
}

// Rank 0 names the ranks it waited for in vain, with their hosts, and stops
// the world: a step's timeout says who did not answer, not only where.
void world::lost_ranks(const std::vector<uint32_t> &ranks, double wait_s, const std::string &step)
{
    held_stderr_release_now(); // what this rank found is not lost with the world
    std::string who;
    for (uint32_t r : ranks)
        who += (who.empty() ? "" : ", ") + std::to_string(r) + (r < hosts_.size() ? " (" + hosts_[r] + ")" : "");
    std::fprintf(stderr, "ioplan: error: rank%s %s did not answer within %gs at %s; stopping every rank\n",
                 ranks.size() > 1 ? "s" : "", who.c_str(), wait_s, step.c_str());
    std::fflush(stderr);
    ops_->abort_world(1);
    _exit(1);
}

// When rank r is missing at a wait that began at since: wait_s later or, at
// a step of the layout (work), wait_s after its last pulse.
uint64_t world::due_ns(uint32_t r, uint64_t since, double wait_s, bool work) const
{
    uint64_t from = since;
    if (work)
        from = std::max(from, heard_[r].load(std::memory_order_relaxed));
    return from + static_cast<uint64_t>(wait_s * 1e9);
}

const eng_sync *world::sync()
{
    sync_.ctx = this;
    sync_.layout_share = hook_layout_share;
    sync_.layout_round_done = hook_layout_round_done;
    sync_.layout_done = hook_layout_done;
    sync_.segment_start = hook_segment_start;
    sync_.segment_end = hook_segment_end;
    return &sync_;
}

// Which ranks share rank 0's host (and so its clock): rank 0 learns every
// rank's host, every rank learns rank 0's.
void world::share_hosts(const char *host)
{
    // The first step with a deadline, point to point through rank 0 (collect),
    // so a rank that joined MPI and is then lost is named, not only the step.
    const char *step = "joining the world";
    char mine[64];
    snprintf(mine, sizeof(mine), "%s", host);
    std::vector<char> all(who_.rank == 0 ? who_.nranks * sizeof(mine) : 0);
    char first[64];
    memcpy(first, mine, sizeof(first));
    collect(mine, sizeof(mine), all.empty() ? nullptr : all.data(), step, timeout_s_);
    hand_out(first, sizeof(first), step, timeout_s_);
    first[sizeof(first) - 1] = '\0';
    same_host_.assign(who_.nranks, false);
    for (uint32_t r = 0; r < all.size() / sizeof(mine); r++) {
        all[r * sizeof(mine) + sizeof(mine) - 1] = '\0';
        same_host_[r] = !strncmp(&all[r * sizeof(mine)], first, sizeof(mine));
        hosts_.emplace_back(&all[r * sizeof(mine)]);
    }
    if (who_.rank != 0)
        same_host_[who_.rank] = who_.host == first;
}

// How many ranks share rank 0's host, as every rank learns it: --rank-shift
// moves reads by that many ranks per step, so that (with ranks placed by node,
// mpirun's default) a rank reads what a rank on another node wrote, out of
// reach of its own page cache (IOR's -C and -Q).
long world::ranks_per_node()
{
    int64_t n = std::count(same_host_.begin(), same_host_.end(), true);
    hand_out(&n, sizeof(n), "joining the world", timeout_s_);
    return static_cast<long>(std::max<int64_t>(n, 1));
}

// Rank 0's run id, in every rank's file: a merge refuses a file of another run.
void world::share_run_id()
{
    char id[24] = "";
    if (who_.rank == 0)
        snprintf(id, sizeof(id), "%s", new_run_id().c_str());
    hand_out(id, sizeof(id), "joining the world", timeout_s_);
    id[sizeof(id) - 1] = '\0';
    who_.run_id = id;
}

// Cristian's method against rank 0, a few rounds each, keeping the round
// with the shortest round trip: its midpoint is the best guess of when rank
// 0 read its clock (within half that round trip).  Rank 0 answers the ranks
// one after another.  A rank on rank 0's host reads the same clock: its
// offset is 0 by construction, and measuring it would only add noise.
void world::measure_clock_offsets()
{
    // Rank 0 names a rank that does not answer; a rank waits twice as long
    // for rank 0 (which may be serving the ranks before it), then names it.
    const char *step = "the clock offset measure";
    for (uint32_t r = 1; r < who_.nranks; r++) {
        if (same_host_[who_.rank == 0 ? r : who_.rank])
            continue;
        uint64_t best_rtt = UINT64_MAX;
        for (int k = 0; k < CLOCK_ROUNDS; k++) {
            if (who_.rank == 0) {
                void *buf = nullptr;
                size_t len = 0;
                int from = 0;
                if (ops_->recv(&buf, &len, static_cast<int>(r), TAG_CLOCK_ASK, &from, timeout_s_))
                    lost_ranks({r}, timeout_s_, step);
                free(buf);
                uint64_t t = realtime_ns();
                if (ops_->send(&t, sizeof(t), static_cast<int>(r), TAG_CLOCK_TELL, timeout_s_))
                    lost_ranks({r}, timeout_s_, step);
            } else if (who_.rank == r) {
                uint64_t t1 = realtime_ns(), t0 = 0;
                void *buf = nullptr;
                size_t len = 0;
                int from = 0;
                if (ops_->send(&t1, sizeof(t1), 0, TAG_CLOCK_ASK, 2 * timeout_s_ + 1) ||
                    ops_->recv(&buf, &len, 0, TAG_CLOCK_TELL, &from, 2 * timeout_s_ + 1))
                    rank0_lost(step);
                uint64_t t2 = realtime_ns();
                memcpy(&t0, buf, std::min(len, sizeof(t0)));
                free(buf);
                if (t2 - t1 < best_rtt) {
                    best_rtt = t2 - t1;
                    who_.clock_offset_ns = static_cast<int64_t>(t0) - static_cast<int64_t>(t1 + (t2 - t1) / 2);
                }
            }
        }
    }
}

// Where this rank saw the world fail, once: a rank lost at this step.
void world::note_lost(const std::string &step)
{
    if (lost_ && lost_step_.empty())
        lost_step_ = "a rank was lost at " + step;
}

// One arrival starts a group: rank 0 answers with the start time, far
// enough ahead for the answer to reach every rank: four times what sending
// the last answers took it, at least 2 ms, at most 2 s (not what waiting
// for the ranks took: a rank late to come is not a slow network).
int world::segment_start(uint32_t, uint32_t, bool stop_wanted)
{
    std::string step = "the start of group " + std::to_string(groups_);	// 0-based, as the report's
    uint64_t start = 0;
    if (lost_ || arrive(step, stop_wanted ? 1 : 0, &start) != 0) {
        note_lost(step);	/* the groups after it never ran: the rank file says so */
        return -ECANCELED;
    }
    // Rank 0's time on this rank's clock: offset = rank 0's clock - ours.
    uint64_t local = static_cast<uint64_t>(static_cast<int64_t>(start) - who_.clock_offset_ns);
    timespec ts{static_cast<time_t>(local / 1000000000ull), static_cast<long>(local % 1000000000ull)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
    uint64_t now = realtime_ns();
    who_.start_late_ns.push_back(now > local ? now - local : 0);
    return 0;
}

// This rank's finished groups to its rank file, before it waits for the
// others (!agreed): what it measured is on disk whatever becomes of them, marked
// interrupted until they agree, when it is written again.  A file left so is
// no whole world's run to `ioplan merge`: a rank stopped past the others'
// deadline and resumed once wrote a normal end its world never had.  Once the
// world has failed at a step (lost_step_), written with that error.
void world::keep_finished_groups(bool agreed)
{
    eng *e = eng_.load();
    results *r = nullptr;
    if (keep_dir_.empty() || !e || eng_snapshot(e, 0, &r) || !r)
        return;
    bool stopped = r->interrupted || !lost_step_.empty(); // a signal, or the world failed
    r->eta_ns = 0; // a rank file is no report so far: the snapshot's estimate is not kept
    if (!lost_step_.empty()) {
        r->interrupted = true;
        if (!r->error)
            r->error = ENODATA;
        res_msg_add(r, RES_MSG_ERROR, "mpi/lost", -1, "%s: the world did not finish this group together",
                    lost_step_.c_str());
    } else if (!agreed) {
        r->interrupted = true;
        res_msg_add(r, RES_MSG_WARNING, "mpi/unagreed", -1, "written before the ranks agreed at the end of "
                    "group %u: kept as the last version, the world did not finish the group together", groups_ - 1);
    }
    if (write_rank_file(keep_dir_, *r, who_, keep_src_, keep_default_) && stopped && keep_default_)
        say_kept(*this, keep_dir_);
    results_free(r);
}

void world::stopping()
{
    if (keep_default_ && !keep_dir_.empty())
        say_kept(*this, keep_dir_);
}

void world::keep_groups(const std::string &dir, const plan_source *src, bool by_default)
{
    keep_dir_ = dir;
    keep_src_ = src;
    keep_default_ = by_default;
}

int world::segment_end(uint32_t, uint32_t)
{
    if (lost_)
        return -ECANCELED;
    who_.groups_done = ++groups_;
    keep_finished_groups(false);
    std::string step = "the end of group " + std::to_string(groups_ - 1);
    if (arrive(step, 0) >= 0) {
        keep_finished_groups(true);
        return 0;
    }
    note_lost(step);
    keep_finished_groups(true);
    return -ECANCELED;
}

// Every rank tells rank 0 it is here (with a flag: a stop wanted), and rank
// 0 answers the ones that came with the largest flag, or -1 when a rank did
// not come within the deadline: a barrier rank 0 can see into, so the rank
// missing is named.  After -1 there are no more collectives (lost_).
int64_t world::arrive(const std::string &step, int64_t flag, uint64_t *start)
{
    seq_++;
    if (who_.rank == 0)
        return arrivals_at_rank0(step, flag, start);
    int64_t msg[2] = {seq_, flag}, answer[3] = {0, 0, 0};
    void *buf = nullptr;
    size_t len = 0;
    int from = 0;
    if (ops_->send(msg, sizeof(msg), 0, TAG_ARRIVE, timeout_s_))
        rank0_lost(step);
    // Rank 0 waits for the others before it answers, each until the deadline
    // past its last pulse: rank 0 is lost only when it too has said nothing so long.
    for (uint64_t since = mono_ns();;) {
        uint64_t now = mono_ns(), due = due_ns(0, since, 2 * timeout_s_ + 1, true);
        if (now >= due)
            rank0_lost(step);
        int rc = ops_->recv(&buf, &len, 0, TAG_ANSWER, &from,
                            std::min(static_cast<double>(due - now) / 1e9, PULSE_LOOK_S));
        if (!rc)
            break;
        if (rc != -ETIMEDOUT)
            rank0_lost(step);
    }
    memcpy(answer, buf, std::min(len, sizeof(answer)));
    free(buf);
    lost_ = answer[0] < 0;
    if (start)
        *start = static_cast<uint64_t>(answer[2]);
    return lost_ ? -1 : answer[1];
}

int64_t world::arrivals_at_rank0(const std::string &step, int64_t flag, uint64_t *start)
{
    answered_.assign(who_.nranks, false);
    answered_[0] = true;
    uint32_t came = 1;
    int64_t worst = flag;
    // A rank still at its I/O (a straggler, a slower rate, a bigger share)
    // pulses while it works: it is waited for until the deadline past its
    // last pulse, so only a rank stopped, killed or cut off is missed.
    uint64_t since = mono_ns();
    while (came < who_.nranks) {
        uint64_t now = mono_ns(), next = UINT64_MAX;
        for (uint32_t r = 1; r < who_.nranks; r++)
            if (!answered_[r])
                next = std::min(next, due_ns(r, since, timeout_s_, true));
        if (now >= next)
            break;
        void *buf = nullptr;
        size_t len = 0;
        int from = 0;
        int rc = ops_->recv(&buf, &len, -1, TAG_ARRIVE, &from, std::min(static_cast<double>(next - now) / 1e9,
                                                                          PULSE_LOOK_S));
        if (rc == -ETIMEDOUT)
            continue;
        if (rc)
            break;
        int64_t msg[2] = {0, 0};
        memcpy(msg, buf, std::min(len, sizeof(msg)));
        free(buf);
        if (msg[0] != seq_ || from <= 0 || static_cast<uint32_t>(from) >= who_.nranks || answered_[from])
            continue; // a late rank's earlier arrival: it was counted missing then
        answered_[from] = true;
        came++;
        worst = std::max(worst, msg[1]);
    }
    uint64_t margin = std::clamp<uint64_t>(4 * answers_ns_, 2000000ull, 2000000000ull);
    int64_t answer[3] = {came == who_.nranks ? 0 : -1, worst, static_cast<int64_t>(realtime_ns() + margin)};
    if (start)
        *start = static_cast<uint64_t>(answer[2]);
    uint64_t t0 = mono_ns();
    for (uint32_t r = 1; r < who_.nranks; r++)
        if (answered_[r])
            ops_->send(answer, sizeof(answer), static_cast<int>(r), TAG_ANSWER, timeout_s_);
    answers_ns_ = mono_ns() - t0;
    if (came == who_.nranks)
        return worst;
    lost_ = true;
    std::string who;
    for (uint32_t r = 0; r < who_.nranks; r++)
        if (!answered_[r])
            who += (who.empty() ? "" : ", ") + std::to_string(r) + " (" + hosts_[r] + ")";
    char text[1024];
    snprintf(text, sizeof(text), "rank%s %s did not answer within %gs at %s: the report holds the %u group%s "
             "the other ranks finished", came + 1 < who_.nranks ? "s" : "", who.c_str(), timeout_s_, step.c_str(),
             groups_, groups_ == 1 ? "" : "s");
    lost_text_ = text; // said with the report's errors (merge)
    return -1;
}

void world::rank0_lost(const std::string &step)
{
    held_stderr_release_now(); // what this rank found is not lost with the world
    std::fprintf(stderr, "ioplan: error: rank %u (%s): rank 0 did not answer within %gs at %s; stopping every rank\n",
                 who_.rank, who_.host.c_str(), 2 * timeout_s_ + 1, step.c_str());
    std::fflush(stderr);
    lost_step_ = "rank 0 did not answer at " + step;
    keep_finished_groups(true);
    ops_->abort_world(1);
    _exit(1);
}

// The merge is rank 0's work, one rank at a time: a rank waits for its turn
// (a token from rank 0) before it sends.  It is work, not a step of the run:
// its deadline is --rank-timeout but never under a minute (a rank may take
// seconds to write its rank file and text on a loaded host), once for each
// rank ahead for the wait for a turn, and on top of the time the merge has
// taken so far for rank 0's wait for a result, so a slow merge of big rank
// files does not time the world out while every rank is alive.  Rank 0 hands out the next turn before it parses the
// text in hand, so the next transfer overlaps the parse; it holds two texts
// at most.
std::string world::merge(results *r, const plan_source &src, double straggler_pct, bool threads)
{
    merged_ = true;
    if (who_.rank != 0) {
        std::string text = r ? rank_file_text(*r, who_, src) : std::string();
        void *buf = nullptr;
        size_t len = 0;
        int from = 0;
        if (ops_->recv(&buf, &len, 0, TAG_TURN, &from, merge_timeout_s() * who_.rank))
            lost("waiting for rank 0 to take the result");
        free(buf);
        if (ops_->send(text.data(), text.size(), 0, TAG_RESULT, merge_timeout_s()))
            lost("sending the result to rank 0");
        return "";
    }
    if (lost_ && r)
        res_msg_add(r, RES_MSG_ERROR, "mpi/lost-rank", -1, "%s", lost_text_.c_str());
    else if (lost_)
        std::fprintf(stderr, "ioplan: error: %s\n", lost_text_.c_str());
    std::string problems = fold_results(r, straggler_pct, threads);
    for (uint32_t i = 0; r && r->world && i < who_.nranks && lost_; i++)
        if (!answered_[i]) // no result, but a name
            snprintf(r->world->ranks[i].host, sizeof(r->world->ranks[i].host), "%s", hosts_[i].c_str());
    return problems;
}

// Rank 0: every rank's text received in rank order and folded into r.
// After a lost rank only those that answered send: the lost stay ENODATA.
std::string world::fold_results(results *r, double straggler_pct, bool threads)
{
    uint64_t t0 = mono_ns();
    std::unique_ptr<rank_merger> m;
    if (r)
        m = std::make_unique<rank_merger>(r, who_, who_.nranks, false, threads);
    std::vector<int> senders;
    for (uint32_t i = 1; i < who_.nranks; i++)
        if (!lost_ || answered_[i])
            senders.push_back(static_cast<int>(i));
    std::string problems;
    char token = 0;
    if (!senders.empty() && ops_->send(&token, 1, senders[0], TAG_TURN, timeout_s_))
        lost_ranks({static_cast<uint32_t>(senders[0])}, timeout_s_, "collecting the ranks' results");
    for (size_t k = 0; k < senders.size(); k++) {
        void *buf = nullptr;
        size_t len = 0;
        int from = 0;
        // A rank may still be writing its rank file and text while the ones
        // before it are folded in: it has the deadline on top of that time.
        double wait_s = merge_timeout_s() + static_cast<double>(mono_ns() - t0) / 1e9;
        if (ops_->recv(&buf, &len, senders[k], TAG_RESULT, &from, wait_s))
            lost_ranks({static_cast<uint32_t>(senders[k])}, wait_s, "collecting the ranks' results");
        if (k + 1 < senders.size() && ops_->send(&token, 1, senders[k + 1], TAG_TURN, timeout_s_))
            lost_ranks({static_cast<uint32_t>(senders[k + 1])}, timeout_s_, "collecting the ranks' results");
        std::string text(static_cast<char *>(buf), len);
        free(buf);
        if (text.empty() || !m)
            continue; // that rank (or this one) has no result: its error was agreed already
        rank_info who;
        plan_source their;
        try {
            results *theirs = rank_file_parse(text, &who, &their);
            std::string why = m->add(*theirs, who);
            results_free(theirs);
            if (!why.empty())
                problems += "rank " + std::to_string(from) + ": " + why + "\n";
        } catch (const std::runtime_error &e) {
            problems += "rank " + std::to_string(from) + ": " + e.what() + "\n";
        }
    }
    if (m)
        m->finish(mono_ns() - t0, straggler_pct);
    return problems;
}

double world::merge_timeout_s() const
{
    return std::max(timeout_s_, 60.0);
}

void world::leave()
{
    if (lost_ && who_.rank == 0)
        ops_->abort_world(1); // MPI_Finalize would wait for the lost rank
    if (lost_) {
        // Rank 0 is still reporting; its abort ends this rank.
        std::this_thread::sleep_for(std::chrono::duration<double>(timeout_s_ + 1));
        _exit(1);
    }
    watchdog dog(join_s_, "leaving the world (MPI_Finalize)");
    // The supervisor stops testing the pulses when the run ends, and one sent
    // at its last tick may still be in flight: MPI_Finalize wants every send
    // completed, and only the test that finds it done frees its request.
    // Half the watchdog's time at most: the other half is MPI_Finalize's.
    uint64_t until = mono_ns() + static_cast<uint64_t>(join_s_ * 0.5e9);
    while (reap_pulses() && mono_ns() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ops_->finalize();
}

} // namespace cli

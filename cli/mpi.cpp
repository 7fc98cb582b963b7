// cli/mpi.cpp - one rank of many: the module, the agreements, the hooks and
// the merge (cli/mpi.hpp has the design).
#include "cli/mpi.hpp"

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
#include <memory>
#include <stdexcept>
#include <unistd.h>

#include "cli/rank_merge.hpp"

namespace cli {

namespace {

constexpr int TAG_CLOCK_ASK = 10;
constexpr int TAG_CLOCK_TELL = 11;
constexpr int TAG_RESULT = 20;
constexpr int TAG_PLAN = 30;
constexpr int CLOCK_ROUNDS = 4;

uint64_t realtime_ns()
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t mono_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

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

// One rank's status for agree(): fixed size, so one gather carries them all.
struct status_rec {
    int32_t code;
    char host[64];
    char msg[440];
};

uint64_t fnv1a(const std::string &s)
{
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : s)
        h = (h ^ c) * 1099511628211ull;
    return h;
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

world *world::join(int rank_shift, double timeout_s, std::string *err)
{
    static world w;
    if (w.ops_)
        return &w;
    block_run_signals();
    const ioplan_mpi_ops *ops = load_module(err);
    if (!ops)
        return nullptr;
    int rank = 0, size = 1, local = 0;
    char host[64] = "";
    if (ops->init(&rank, &size, &local, host, sizeof(host)) != 0) {
        *err = "the MPI module could not join the world (MPI_Init failed)";
        return nullptr;
    }
    w.ops_ = ops;
    w.timeout_s_ = timeout_s;
    w.who_.rank = static_cast<uint32_t>(rank);
    w.who_.nranks = static_cast<uint32_t>(size);
    w.who_.host = host;
    w.share_hosts(host);
    w.share_run_id();
    long shift = ((rank_shift % size) + size) % size;
    set_var("IOPLAN_RANK", std::to_string(rank), true);
    set_var("IOPLAN_NRANKS", std::to_string(size), true);
    set_var("IOPLAN_LOCAL_RANK", std::to_string(local), true);
    set_var("IOPLAN_HOST", host, true);
    set_var("IOPLAN_READ_RANK", std::to_string((rank + shift) % size), true);
    return &w;
}

void world::lost(const char *step)
{
    std::fprintf(stderr,
                 "ioplan: error: rank %u (%s): no answer from the other ranks within %gs at %s; stopping every rank\n",
                 who_.rank, who_.host.c_str(), timeout_s_, step);
    std::fflush(stderr);
    ops_->abort_world(1);
    _exit(1);
}

int world::agree(int code, const std::string &msg, const char *step)
{
    status_rec mine{};
    mine.code = code;
    snprintf(mine.host, sizeof(mine.host), "%s", who_.host.c_str());
    snprintf(mine.msg, sizeof(mine.msg), "%s", msg.c_str());
    std::vector<status_rec> all(who_.rank == 0 ? who_.nranks : 0);
    if (ops_->gather(&mine, sizeof(mine), all.empty() ? nullptr : all.data(), 0, timeout_s_))
        lost(step);
    int32_t worst = 0;
    for (uint32_t r = 0; r < all.size(); r++) {
        worst = std::max(worst, all[r].code);
        if (all[r].code && all[r].msg[0])
            std::fprintf(stderr, "ioplan: error: rank %u (%s): %s\n", r, all[r].host, all[r].msg);
    }
    if (ops_->bcast(&worst, sizeof(worst), 0, timeout_s_))
        lost(step);
    agreed_++;
    return worst;
}

bool world::same_plan(const std::string &identity)
{
    uint64_t mine = fnv1a(identity);
    std::vector<uint64_t> all(who_.rank == 0 ? who_.nranks : 0);
    if (ops_->gather(&mine, sizeof(mine), all.empty() ? nullptr : all.data(), 0, timeout_s_))
        lost("comparing the plans");
    int32_t first = -1;
    std::string which;
    for (uint32_t r = 1; r < all.size(); r++)
        if (all[r] != all[0]) {
            first = first < 0 ? static_cast<int32_t>(r) : first;
            which += (which.empty() ? "" : ", ") + std::to_string(r);
        }
    if (ops_->bcast(&first, sizeof(first), 0, timeout_s_))
        lost("comparing the plans");
    if (first < 0)
        return true;
    if (who_.rank == static_cast<uint32_t>(first) &&
        ops_->send(identity.data(), identity.size(), 0, TAG_PLAN, timeout_s_))
        lost("comparing the plans");
    if (who_.rank != 0)
        return true;
    void *buf = nullptr;
    size_t len = 0;
    int from = 0;
    if (ops_->recv(&buf, &len, first, TAG_PLAN, &from, timeout_s_))
        lost("comparing the plans");
    std::string theirs(static_cast<char *>(buf), len);
    free(buf);
    std::fprintf(stderr, "ioplan: error: rank%s %s run%s another plan than rank 0 (first difference: %s); nothing was run\n",
                 which.find(',') == std::string::npos ? "" : "s", which.c_str(),
                 which.find(',') == std::string::npos ? "s" : "", first_difference(identity, theirs, first).c_str());
    return false;
}

const eng_sync *world::sync()
{
    sync_.ctx = this;
    sync_.layout_done = hook_layout_done;
    sync_.segment_start = hook_segment_start;
    sync_.segment_end = hook_segment_end;
    return &sync_;
}

// Which ranks share rank 0's host (and so its clock): rank 0 learns every
// rank's host, every rank learns rank 0's.
void world::share_hosts(const char *host)
{
    char mine[64];
    snprintf(mine, sizeof(mine), "%s", host);
    std::vector<char> all(who_.rank == 0 ? who_.nranks * sizeof(mine) : 0);
    char first[64];
    memcpy(first, mine, sizeof(first));
    if (ops_->gather(mine, sizeof(mine), all.empty() ? nullptr : all.data(), 0, timeout_s_) ||
        ops_->bcast(first, sizeof(first), 0, timeout_s_))
        lost("joining the world");
    first[sizeof(first) - 1] = '\0';
    same_host_.assign(who_.nranks, false);
    for (uint32_t r = 0; r < all.size() / sizeof(mine); r++)
        same_host_[r] = !strncmp(&all[r * sizeof(mine)], first, sizeof(mine));
    if (who_.rank != 0)
        same_host_[who_.rank] = who_.host == first;
}

// Rank 0's run id, in every rank's file: a merge refuses a file of another run.
void world::share_run_id()
{
    char id[24] = "";
    if (who_.rank == 0)
        snprintf(id, sizeof(id), "%s", new_run_id().c_str());
    if (ops_->bcast(id, sizeof(id), 0, timeout_s_))
        lost("joining the world");
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
                    lost("the clock offset measure");
                free(buf);
                uint64_t t = realtime_ns();
                if (ops_->send(&t, sizeof(t), static_cast<int>(r), TAG_CLOCK_TELL, timeout_s_))
                    lost("the clock offset measure");
            } else if (who_.rank == r) {
                uint64_t t1 = realtime_ns(), t0 = 0;
                void *buf = nullptr;
                size_t len = 0;
                int from = 0;
                if (ops_->send(&t1, sizeof(t1), 0, TAG_CLOCK_ASK, timeout_s_) ||
                    ops_->recv(&buf, &len, 0, TAG_CLOCK_TELL, &from, timeout_s_))
                    lost("the clock offset measure");
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

int world::layout_done(int status)
{
    std::string msg = status ? std::string("layout: ") + strerror(-status) : "";
    int worst = agree(status ? 1 : 0, msg, "the end of layout");
    if (worst)
        return status ? status : -ECANCELED;
    measure_clock_offsets();
    return 0;
}

// Rank 0 picks a start time far enough ahead for its broadcast to reach
// every rank: four times what a barrier costs now, at least 2 ms, at most 2 s.
uint64_t world::common_start_ns(int64_t local_barrier_ns)
{
    uint64_t margin = std::clamp<uint64_t>(4 * static_cast<uint64_t>(local_barrier_ns), 2000000ull, 2000000000ull);
    uint64_t start = realtime_ns() + margin;
    if (ops_->bcast(&start, sizeof(start), 0, timeout_s_))
        lost("a group start");
    return start;
}

int world::segment_start(uint32_t first_job, uint32_t run, bool stop_wanted)
{
    int64_t stop = stop_wanted ? 1 : 0;
    if (ops_->allreduce_i64(&stop, 1, IOPLAN_MPI_MAX, timeout_s_))
        lost("a group start");
    if (stop)
        return -ECANCELED;
    uint64_t t = mono_ns();
    if (ops_->barrier(timeout_s_))
        lost("a group start");
    uint64_t start = common_start_ns(static_cast<int64_t>(mono_ns() - t));
    // Rank 0's time on this rank's clock: offset = rank 0's clock - ours.
    uint64_t local = static_cast<uint64_t>(static_cast<int64_t>(start) - who_.clock_offset_ns);
    timespec ts{static_cast<time_t>(local / 1000000000ull), static_cast<long>(local % 1000000000ull)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
    uint64_t now = realtime_ns();
    who_.start_late_ns.push_back(now > local ? now - local : 0);
    return 0;
}

int world::segment_end(uint32_t, uint32_t)
{
    if (ops_->barrier(timeout_s_))
        lost("a group end");
    return 0;
}

std::string world::merge(results *r, const plan_source &src)
{
    if (who_.rank != 0) {
        std::string text = r ? rank_file_text(*r, who_, src) : std::string();
        if (ops_->send(text.data(), text.size(), 0, TAG_RESULT, timeout_s_))
            lost("sending the result to rank 0");
        return "";
    }
    uint64_t t0 = mono_ns();
    std::unique_ptr<rank_merger> m;
    if (r)
        m = std::make_unique<rank_merger>(r, who_, who_.nranks);
    std::string problems;
    for (uint32_t i = 1; i < who_.nranks; i++) {
        void *buf = nullptr;
        size_t len = 0;
        int from = 0;
        if (ops_->recv(&buf, &len, -1, TAG_RESULT, &from, timeout_s_))
            lost("collecting the ranks' results");
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
        m->finish(mono_ns() - t0);
    return problems;
}

void world::leave()
{
    ops_->finalize();
}

} // namespace cli

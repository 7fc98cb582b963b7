// cli/mpi/rank_file.cpp - struct results <-> JSON for rank files (rank_file.hpp).
//
// Each struct is described once, by a visit_* function over its fields; the
// writer and the reader are two visitors, so the two directions cannot drift
// apart.  Arrays the engine allocates (histograms, series, traces, jobs) are
// allocated here with calloc so results_free releases a parsed result.
// Histograms and series are packed by rank_pack.cpp.
#include "cli/mpi/rank_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <sys/random.h>
#include <sys/stat.h>
#include <string_view>
#include <type_traits>
#include <unistd.h>
#include <isa-l/crc.h>
#include <nlohmann/json.hpp>

#include "cli/mpi/rank_json.hpp"
#include "cli/mpi/rank_pack.hpp"
#include "results/record.hpp"

namespace cli {

namespace {

using json = nlohmann::json;
constexpr int rank_file_version = 4;

template <class T> T *alloc_array(size_t n)
{
    T *p = static_cast<T *>(calloc(n ? n : 1, sizeof(T)));
    if (!p)
        throw std::bad_alloc();
    return p;
}

// Writes each visited field into an object.
struct writer {
    static constexpr bool writes = true;
    json &o;
    template <class T> void operator()(const char *k, T &v) { o[k] = v; }
    void arr(const char *k, uint64_t *a, size_t n) { o[k] = std::vector<uint64_t>(a, a + n); }
    void owned(const char *k, uint64_t *&a, size_t n)
    {
        if (a)
            arr(k, a, n);
    }
    template <class T> void own(T *&, size_t) {}
    void at_most(const char *, uint64_t, uint64_t, const char *) {}
    void str(const char *k, char *s, size_t cap) { o[k] = std::string(s, strnlen(s, cap)); }
    void cstr(const char *k, char *&s) { o[k] = s ? std::string(s) : std::string(); }
    void hist(const char *k, uint64_t *&h)
    {
        if (h)
            o[k] = hist_pack(h);
    }
    void samples(const char *k, res_sample *&items, uint32_t &nr) { o[k] = samples_pack(items, nr); }
    template <class F> void obj(const char *k, F f)
    {
        writer w{o[k] = json::object()};
        f(w);
    }
    template <class T, class F> void fixed(const char *k, T *items, size_t n, F f)
    {
        json a = json::array();
        for (size_t i = 0; i < n; i++) {
            json e = json::object();
            writer w{e};
            f(w, items[i]);
            a.push_back(std::move(e));
        }
        o[k] = std::move(a);
    }
    template <class T, class N, class F> void list(const char *k, T *&items, N &nr, F f)
    {
        json a = json::array();
        for (N i = 0; i < nr; i++) {
            json e = json::object();
            writer w{e};
            f(w, items[i]);
            a.push_back(std::move(e));
        }
        o[k] = std::move(a);
    }
};

// Reads each visited field from an object; a missing key leaves the default.
// Every value is checked for its type and range (a negative byte count is not
// read as 2^64 - n); an error names the field's path in the document.
struct reader {
    static constexpr bool writes = false;
    using value_t = rank_json::value;
    value_t o;
    const reader *up = nullptr;
    const char *key = nullptr; // this object's key in up, or null for an array element
    size_t index = 0;

    std::string path(const char *k = nullptr) const
    {
        std::string p = up ? up->path() : "";
        if (up)
            p += key ? (p.empty() ? "" : ".") + std::string(key) : "[" + std::to_string(index) + "]";
        return k ? p + (p.empty() ? "" : ".") + k : p;
    }
    [[noreturn]] void fail(const char *k, const std::string &what) const
    {
        throw std::runtime_error(path(k) + ": " + what);
    }
    template <class T> T value(const value_t &v, const char *k) const
    {
        if constexpr (std::is_same_v<T, bool>) {
            if (!v.is_boolean())
                fail(k, "not true or false");
            return v.get_bool();
        } else if constexpr (std::is_integral_v<T>) {
            if (v.is_number_unsigned()) {
                if (v.get_u64() > static_cast<uint64_t>(std::numeric_limits<T>::max()))
                    fail(k, v.dump() + " is out of range");
                return static_cast<T>(v.get_u64());
            }
            if (!v.is_number_integer())
                fail(k, "not an integer");
            if (v.get_i64() < static_cast<int64_t>(std::numeric_limits<T>::min()))
                fail(k, v.dump() + (std::is_unsigned_v<T> ? " is negative" : " is out of range"));
            return static_cast<T>(v.get_i64());
        } else if constexpr (std::is_floating_point_v<T>) {
            if (!v.is_number())
                fail(k, "not a number");
            return static_cast<T>(v.get_double());
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!v.is_string())
                fail(k, "not a string");
            return v.get_string();
        } else {
            if (!v.is_array())
                fail(k, "not a list");
            T out;
            for (value_t e : v)
                out.push_back(value<typename T::value_type>(e, k));
            return out;
        }
    }
    // A count the struct holds that many of at most.
    void at_most(const char *k, uint64_t n, uint64_t max, const char *what) const
    {
        if (n > max)
            fail(k, std::to_string(n) + " " + what + ", at most " + std::to_string(max));
    }
    reader child(const value_t &v, const char *k) const { return reader{v, this, k, 0}; }
    reader element(const value_t &v, size_t i) const { return reader{v, this, nullptr, i}; }
    value_t array(const char *k) const
    {
        value_t a = o.at(k);
        if (!a.is_array())
            fail(k, "not a list");
        return a;
    }

    template <class T> void operator()(const char *k, T &v)
    {
        value_t x = o.find(k);
        if (x.exists())
            v = value<T>(x, k);
    }
    void arr(const char *k, uint64_t *a, size_t n)
    {
        if (!o.contains(k))
            return;
        size_t i = 0;
        for (value_t e : array(k))
            if (i < n)
                a[i++] = value<uint64_t>(e, k);
    }
    void owned(const char *k, uint64_t *&a, size_t n)
    {
        a = nullptr;
        if (!o.contains(k))
            return;
        if (array(k).size() != n)
            fail(k, "holds " + std::to_string(array(k).size()) + " values, not " + std::to_string(n));
        a = alloc_array<uint64_t>(n);
        arr(k, a, n);
    }
    template <class T> void own(T *&p, size_t n) { p = alloc_array<T>(n); }
    void str(const char *k, char *s, size_t cap)
    {
        std::string v = o.contains(k) ? value<std::string>(o.at(k), k) : "";
        snprintf(s, cap, "%s", v.c_str());
    }
    void cstr(const char *k, char *&s)
    {
        s = strdup(o.contains(k) ? value<std::string>(o.at(k), k).c_str() : "");
        if (!s)
            throw std::bad_alloc();
    }
    void hist(const char *k, uint64_t *&h)
    {
        h = nullptr;
        if (!o.contains(k))
            return;
        h = alloc_array<uint64_t>(RES_HIST_NR);
        std::string why = hist_unpack(packed(k), h);
        if (!why.empty())
            fail(k, why);
    }
    void samples(const char *k, res_sample *&items, uint32_t &nr)
    {
        items = nullptr;
        nr = 0;
        if (!o.contains(k))
            return;
        std::string why = samples_unpack(packed(k), &items, &nr);
        if (!why.empty())
            fail(k, why);
    }
    // A packed list's text as written (base64 has no escapes to undo).
    std::string_view packed(const char *k) const
    {
        value_t v = o.at(k);
        if (!v.is_string())
            fail(k, "not a string");
        return v.raw();
    }
    template <class F> void obj(const char *k, F f)
    {
        value_t v = o.find(k);
        if (v.exists() && !v.is_object())
            fail(k, "not an object");
        reader r = child(v, k);
        f(r);
    }
    template <class T, class F> void fixed(const char *k, T *items, size_t n, F f)
    {
        if (!o.contains(k))
            return;
        value_t a = array(k);
        reader in = child(a, k);
        size_t i = 0;
        for (value_t e : a) {
            if (i >= n)
                break;
            reader r = in.element(e, i);
            f(r, items[i]);
            i++;
        }
    }
    template <class T, class N, class F> void list(const char *k, T *&items, N &nr, F f)
    {
        items = nullptr;
        nr = 0;
        value_t x = o.find(k);
        if (!x.exists() || x.empty())
            return;
        value_t a = array(k);
        if (a.size() > std::numeric_limits<N>::max())
            fail(k, "too many entries");
        reader in = child(a, k);
        items = alloc_array<T>(a.size());
        for (value_t e : a) {
            // Counted before it is read: an element a bad field stops half-way
            // is still freed with the rest (items are zeroed).
            N at = nr++;
            reader r = in.element(e, at);
            f(r, items[at]);
        }
    }
};

template <class V> void visit_lat(V &v, res_lat &l)
{
    v("n", l.n);
    v("min_ns", l.min_ns);
    v("max_ns", l.max_ns);
    v("sum_ns", l.sum_ns);
    v("sumsq_lo", l.sumsq_lo);
    v("sumsq_hi", l.sumsq_hi);
    v.hist("hist", l.hist);
}

template <class V> void visit_sample_stat(V &v, res_sample_stat &s)
{
    v("n", s.n);
    v("min", s.min);
    v("max", s.max);
    v("mean", s.mean);
    v("m2", s.m2);
}

template <class V> void visit_ddir(V &v, res_ddir &d)
{
    v("bytes", d.bytes);
    v("ios", d.ios);
    v("short_ios", d.short_ios);
    v("drop_ios", d.drop_ios);
    v("runtime_ns", d.runtime_ns);
    v.obj("slat", [&](V &w) { visit_lat(w, d.slat); });
    v.obj("clat", [&](V &w) { visit_lat(w, d.clat); });
    v.obj("lat", [&](V &w) { visit_lat(w, d.lat); });
    v.obj("sched_lat", [&](V &w) { visit_lat(w, d.sched_lat); });
    v.obj("bw_kib_s", [&](V &w) { visit_sample_stat(w, d.bw_kib_s); });
    v.obj("iops", [&](V &w) { visit_sample_stat(w, d.iops); });
    v("target_bytes_per_s", d.target_bytes_per_s);
    v("target_iops", d.target_iops);
    v("nr_prios", d.nr_prios);
    if (d.nr_prios > RES_PRIO_MAX)
        throw std::runtime_error("more than " + std::to_string(RES_PRIO_MAX) + " priorities");
    v.fixed("prios", d.prios, d.nr_prios, [](V &w, res_prio &p) {
        w("ioprio", p.ioprio);
        w.obj("lat", [&](V &x) { visit_lat(x, p.lat); });
    });
}

template <class V> void visit_series(V &v, res_series &s)
{
    v("interval_ns", s.interval_ns);
    v.samples("samples", s.samples, s.nr);
    s.cap = s.nr;
}

template <class V> void visit_trace(V &v, res_io_rec &t)
{
    v("t_ns", t.t_ns);
    v("offset", t.offset);
    v("lat_ns", t.lat_ns);
    v("bytes", t.bytes);
    v("file_index", t.file_index);
    v("ddir", t.ddir);
}

template <class V> void visit_error(V &v, res_error &e)
{
    v("err", e.err);
    v("ddir", e.ddir);
    v("file_index", e.file_index);
    v("offset", e.offset);
    v("len", e.len);
    v("done", e.done);
    v.str("what", e.what, sizeof(e.what));
}

template <class V> void visit_clone_times(V &v, res_clone &c)
{
    v("clone_index", c.clone_index);
    v("thread_number", c.thread_number);
    v("tid", c.tid);
    v("start_ns", c.start_ns);
    v("end_ns", c.end_ns);
    v("thread_start_ns", c.thread_start_ns);
    v("thread_end_ns", c.thread_end_ns);
    v("late_start_ns", c.late_start_ns);
    v("after_ns", c.after_ns);
    v("usr_ns", c.usr_ns);
    v("sys_ns", c.sys_ns);
    v("ctx", c.ctx);
    v("majf", c.majf);
    v("minf", c.minf);
    v("cpu_bound", c.cpu_bound);
    v.arr("depth", c.depth, RES_DEPTH_NR);
    v.arr("submit", c.submit, RES_BATCH_NR);
    v.arr("complete", c.complete, RES_BATCH_NR);
    v.arr("latbkt", c.latbkt, RES_LATBKT_NR);
}

// DISKSPD's effective distribution of one file (zoned_ranges=diskspd): the
// ranges its offsets were drawn from, for the report's "Effective IO
// Distributions" and <Distribution>.
template <class V> void visit_zones(V &v, res_zones &z)
{
    v("io_span", z.io_span);
    v("nr", z.nr);
    v.at_most("nr", z.nr, PLAN_RAND_ZONES_MAX, "ranges"); // before the ranges are read into z.zone
    v.fixed("zone", z.zone, z.nr, [](V &w, res_zone &r) {
        w("io_first", r.io_first);
        w("io_pct", r.io_pct);
        w("offset", r.offset);
        w("bytes", r.bytes);
    });
}

template <class V> void visit_clone(V &v, res_clone &c)
{
    visit_clone_times(v, c);
    v.fixed("ddir", c.ddir, PLAN_DDIR_NR, [](V &w, res_ddir &d) { visit_ddir(w, d); });
    v.obj("sync_lat", [&](V &w) { visit_lat(w, c.sync_lat); });
    v("sync_ios", c.sync_ios);
    bool shared = c.iops_series.samples == c.bw_series.samples;
    v("iops_series_shared", shared);
    v.obj("bw_series", [&](V &w) { visit_series(w, c.bw_series); });
    if (shared)
        c.iops_series = c.bw_series;
    else
        v.obj("iops_series", [&](V &w) { visit_series(w, c.iops_series); });
    v.list("trace", c.trace, c.trace_nr, [](V &w, res_io_rec &t) { visit_trace(w, t); });
    c.trace_cap = c.trace_nr;
    if (!V::writes || c.zones) // only a DISKSPD -rd job's clones have them
        v.list("zones", c.zones, c.nr_zones, [](V &w, res_zones &z) { visit_zones(w, z); });
    v("error", c.error);
    v("total_err", c.total_err);
    v("nr_errors", c.nr_errors);
    if (c.nr_errors > RES_ERRORS_MAX)
        c.nr_errors = RES_ERRORS_MAX;
    v.fixed("errors", c.errors, c.nr_errors, [](V &w, res_error &e) { visit_error(w, e); });
    v("verify_failures", c.verify_failures);
    v("stalled", c.stalled);
    v("replay_ios", c.replay_ios);
    v("replay_late", c.replay_late);
    v("replay_lag_max_ns", c.replay_lag_max_ns);
    v("ioprio", c.ioprio);
    v("lat_depth", c.lat_depth);
    v("file_bytes", c.file_bytes); // absent from older files: 0, the plan's size then
}

// A steady-state record (ss_dur): each rank judges its own jobs, so a merged
// result carries rank 0's records.
template <class V> void visit_ss(V &v, res_ss &s)
{
    v("on", s.on);
    v("flags", s.flags);
    v("limit", s.limit);
    v("dur_s", s.dur_s);
    v("ramp_ns", s.ramp_ns);
    v("criterion", s.criterion);
    v("slope", s.slope);
    v("deviation", s.deviation);
    v.owned("iops", s.iops, s.dur_s);
    v.owned("bw", s.bw, s.dur_s);
    v("nr_samples", s.nr_samples);
    v("last_sample_ns", s.last_sample_ns);
    v("attained_ns", s.attained_ns);
}

template <class V> void visit_job(V &v, res_job &j)
{
    v("job_id", j.job_id);
    v("groupid", j.groupid);
    v("run", j.run);
    v("discarded", j.discarded);
    v("start_ns", j.start_ns);
    v("end_ns", j.end_ns);
    v.list("clones", j.clones, j.nr_clones, [](V &w, res_clone &c) { visit_clone(w, c); });
    bool has_ss = j.ss != nullptr;
    v("has_ss", has_ss);
    if (has_ss) {
        if (!j.ss)
            v.own(j.ss, j.nr_clones);
        v.fixed("ss", j.ss, j.nr_clones, [](V &w, res_ss &s) { visit_ss(w, s); });
    }
}

template <class V> void visit_disk(V &v, res_disk &d)
{
    v.str("name", d.name, sizeof(d.name));
    v("read_ios", d.read_ios);
    v("write_ios", d.write_ios);
    v("read_merges", d.read_merges);
    v("write_merges", d.write_merges);
    v("read_sectors", d.read_sectors);
    v("write_sectors", d.write_sectors);
    v("read_ticks_ms", d.read_ticks_ms);
    v("write_ticks_ms", d.write_ticks_ms);
    v("in_queue_ms", d.in_queue_ms);
    v("io_ticks_ms", d.io_ticks_ms);
    v("elapsed_ns", d.elapsed_ns);
}

template <class V> void visit_msg(V &v, res_msg &m)
{
    int level = m.level;
    v("level", level);
    m.level = static_cast<res_msg_level>(level);
    v.cstr("code", m.code);
    v.cstr("text", m.text);
    v("job_id", m.job_id);
}

template <class V> void visit_cpu(V &v, res_cpu &c)
{
    v("id", c.id);
    v("user_ns", c.user_ns);
    v("system_ns", c.system_ns);
    v("idle_ns", c.idle_ns);
}

template <class V> void visit_idle(V &v, res_idle &i)
{
    int mode = i.mode;
    v("mode", mode);
    i.mode = static_cast<res_idle_mode>(mode);
    v("system_pct", i.system_pct);
    v.list("cpus", i.cpus, i.nr_cpus, [](V &w, res_idle_cpu &c) {
        w("id", c.id);
        w("pct", c.pct);
    });
    v("unit_mean_us", i.unit_mean_us);
    v("unit_stddev_us", i.unit_stddev_us);
}

template <class V> void visit_results(V &v, results &r)
{
    v("start_wall_ns", r.start_wall_ns);
    v("start_mono_ns", r.start_mono_ns);
    v("end_mono_ns", r.end_mono_ns);
    v("interrupted", r.interrupted);
    v("error", r.error);
    v.str("hostname", r.hostname, sizeof(r.hostname));
    v.str("kernel", r.kernel, sizeof(r.kernel));
    v.str("clock_source", r.clock_source, sizeof(r.clock_source));
    v("clock_cost_ns", r.clock_cost_ns);
    // A report so far's estimate of the time left (an answer to rank 0's ask):
    // the world's is its longest (live.cpp); rank files and final results have none.
    if (!V::writes || r.eta_ns)
        v("eta_ns", r.eta_ns);
    v.list("jobs", r.jobs, r.nr_jobs, [](V &w, res_job &j) { visit_job(w, j); });
    v.list("disks", r.disks, r.nr_disks, [](V &w, res_disk &d) { visit_disk(w, d); });
    v.list("msgs", r.msgs, r.nr_msgs, [](V &w, res_msg &m) { visit_msg(w, m); });
    v.list("cpus", r.cpus, r.nr_cpus, [](V &w, res_cpu &c) { visit_cpu(w, c); });
    v.obj("idle", [&](V &w) { visit_idle(w, r.idle); });
}

template <class V> void visit_rank(V &v, rank_info &who)
{
    v("rank", who.rank);
    v("nranks", who.nranks);
    v("run_id", who.run_id);
    v("host", who.host);
    v("clock_offset_ns", who.clock_offset_ns);
    v("start_late_ns", who.start_late_ns);
    v("groups_done", who.groups_done);
    if (!V::writes || !who.clone_paths.empty())
        v("clone_paths", who.clone_paths);
}

template <class V> void visit_source(V &v, plan_source &src)
{
    v("argv", src.argv);
    v("job_names", src.job_names);
    v("job_texts", src.job_texts);
    v("plan_id", src.plan_id);
}

// Only in a file written with --save: its presence is what says --save was given.
template <class V> void visit_saved(V &v, plan_source &src)
{
    v("label", src.save_label);
    v("preset", src.preset);
}

std::string crc_text(const std::string &text)
{
    char hex[24];
    // CRC-32C as verify=crc32c stores it (ISA-L: initial ~0, no final inversion);
    // a rank file is at most rank_file_max_bytes, so its length fits the int.
    uint32_t crc = crc32_iscsi(reinterpret_cast<unsigned char *>(const_cast<char *>(text.data())),
                               static_cast<int>(text.size()), ~0u);
    snprintf(hex, sizeof(hex), "crc32c:%08x", crc);
    return hex;
}

// Counters the reports add and multiply: a file's value beyond this is no
// real run's (a wrapped negative number), and so is a sum of ranks beyond it.
constexpr uint64_t counter_max = uint64_t(INT64_MAX);

void check_lat(const res_lat &l, const std::string &where)
{
    if (l.n > counter_max || l.sum_ns > counter_max)
        throw std::runtime_error(where + ": a count or sum of " + std::to_string(std::max(l.n, l.sum_ns)) +
                                 " is beyond any run");
    // n samples between min and max add up to between n*min and n*max: an edited
    // sum (the mean) or extreme fails here, whatever checksum came with it.
    using u128 = unsigned __int128;
    if (l.n && (l.min_ns > l.max_ns || l.sum_ns < (u128)l.n * l.min_ns || l.sum_ns > (u128)l.n * l.max_ns))
        throw std::runtime_error(where + ": " + std::to_string(l.n) + " samples from " + std::to_string(l.min_ns) +
                                 " to " + std::to_string(l.max_ns) + " ns cannot add up to " +
                                 std::to_string(l.sum_ns) + " ns");
    if (!l.hist)
        return;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < RES_HIST_NR; i++)
        if (__builtin_add_overflow(sum, l.hist[i], &sum) || sum > counter_max)
            throw std::runtime_error(where + ": histogram buckets add up beyond any run");
    if (sum != l.n)
        throw std::runtime_error(where + ": histogram buckets add up to " + std::to_string(sum) + ", its count is " +
                                 std::to_string(l.n));
}

void check_ddir(const res_ddir &d, const std::string &where)
{
    if (d.bytes > counter_max || d.ios > counter_max)
        throw std::runtime_error(where + ": " + std::to_string(std::max(d.bytes, d.ios)) +
                                 " bytes or I/Os is beyond any run (a negative number wrapped?)");
    check_lat(d.slat, where + ".slat");
    check_lat(d.clat, where + ".clat");
    check_lat(d.lat, where + ".lat");
    // Every I/O timed is counted (a failed one is counted untimed).
    for (const res_lat *l : { &d.slat, &d.clat, &d.lat })
        if (l->n > d.ios)
            throw std::runtime_error(where + ": " + std::to_string(l->n) + " I/Os timed, " + std::to_string(d.ios) +
                                     " counted");
    check_lat(d.sched_lat, where + ".sched_lat");
    for (uint32_t p = 0; p < d.nr_prios; p++)
        check_lat(d.prios[p].lat, where + ".prios[" + std::to_string(p) + "].lat");
}

// An effective distribution as the engine makes one (engine/gen/diskspd_zones.h):
// ranges that each take a share of the I/O, the shares adding up to io_span (at
// most 100), each range within the 64-bit offsets.  The report divides by the
// shares and prints the ranges: none may be missing, zero or past the end.
void check_zones(const res_zones &z, const std::string &where)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i < z.nr; i++) {
        const res_zone &x = z.zone[i];
        if (!x.io_pct || x.io_pct > 100 || x.io_first > 100 - x.io_pct || x.bytes > UINT64_MAX - x.offset)
            throw std::runtime_error(where + ".zone[" + std::to_string(i) + "]: " + std::to_string(x.io_pct) +
                                     "% of the I/O (from its " + std::to_string(x.io_first) + "%) to the " +
                                     std::to_string(x.bytes) + " bytes at " + std::to_string(x.offset) +
                                     " is no range of a distribution");
        sum += x.io_pct;
    }
    if (!z.nr || sum != z.io_span || z.io_span > 100)
        throw std::runtime_error(where + ": " + std::to_string(z.nr) + " ranges whose shares add up to " +
                                 std::to_string(sum) + "% of the I/O, not the " + std::to_string(z.io_span) +
                                 "% it says");
}

// What the types alone do not say: counts in range, histograms that hold
// as many samples as their counts (a percentile is read from the buckets),
// effective distributions the report can print.
void check_counts(const results &r)
{
    for (uint32_t j = 0; j < r.nr_jobs; j++)
        for (uint32_t c = 0; c < r.jobs[j].nr_clones; c++) {
            const res_clone &k = r.jobs[j].clones[c];
            std::string at = "results.jobs[" + std::to_string(j) + "].clones[" + std::to_string(c) + "]";
            for (int d = 0; d < PLAN_DDIR_NR; d++)
                check_ddir(k.ddir[d], at + ".ddir[" + std::to_string(d) + "]");
            check_lat(k.sync_lat, at + ".sync_lat");
            for (uint32_t f = 0; f < k.nr_zones; f++)
                check_zones(k.zones[f], at + ".zones[" + std::to_string(f) + "]");
        }
}

} // namespace

std::vector<std::vector<std::vector<std::string>>> clone_paths_of(const results &r)
{
    std::vector<std::vector<std::vector<std::string>>> out;
    if (!r.plan)
        return out;
    for (uint32_t j = 0; j < r.nr_jobs; j++) {
        out.emplace_back();
        const plan_job *pj = plan_job_at(r.plan, r.jobs[j].job_id);
        for (uint32_t c = 0; c < r.jobs[j].nr_clones; c++) {
            out.back().emplace_back();
            uint32_t k = r.jobs[j].clones[c].clone_index;
            for (uint32_t f = 0; pj && k < pj->nr_clones && f < pj->clones[k].nr_files; f++) {
                const char *path = pj->clones[k].files[f].path;
                out.back().back().push_back(path ? path : "");
            }
        }
    }
    return out;
}

std::string rank_file_text(const results &r, const rank_info &who, const plan_source &src)
{
    rank_info named_who = who;
    if (named_who.clone_paths.empty())
        named_who.clone_paths = clone_paths_of(r);
    json doc = json::object();
    writer w{doc};
    int version = rank_file_version;
    w("ioplan_rank_file", version);
    // The writer only reads: the visitors take references so one description serves both ways.
    w.obj("rank", [&](writer &x) { visit_rank(x, named_who); });
    plan_source named = src;
    if (named.plan_id.empty())
        named.plan_id = crc_text(src.identity);
    w.obj("plan_source", [&](writer &x) { visit_source(x, named); });
    if (src.save)
        w.obj("saved_as", [&](writer &x) { visit_saved(x, named); });
    w.obj("results", [&](writer &x) { visit_results(x, const_cast<results &>(r)); });
    // The checksum is of the document without it; "checksum" sorts first,
    // so the text with it spliced in is what dump() would write.
    std::string body = doc.dump();
    return "{\"checksum\":\"" + crc_text(body) + "\"," + body.substr(1) + "\n";
}

// The checksum a rank file carries, and the text it is of: the document as
// written without it ("{" and what follows the member, its newline aside).
// Checked on the text as read, not on a re-serialisation of it: a document
// written again by another program (reformatted, keys reordered) is another
// text, and reading it back needs no second JSON pass.
void check_sum(const std::string &text, const rank_json::value &doc)
{
    static const char head[] = "{\"checksum\":\"crc32c:";
    constexpr size_t head_len = sizeof(head) - 1, member_len = head_len + 8 + 2; // 8 hex digits, '",'
    if (!doc.contains("checksum") || !doc.at("checksum").is_string())
        throw std::runtime_error("no checksum (written by an older ioplan, or not by ioplan)");
    std::string said = doc.at("checksum").get_string();
    if (text.compare(0, head_len, head) != 0 || text.size() < member_len || text.compare(member_len - 2, 2, "\",") != 0)
        throw std::runtime_error("the checksum " + said + " is not the document's first member, where ioplan writes it: "
                                 "the file was changed or rewritten after its run");
    size_t len = text.size() - member_len - (text.back() == '\n');
    auto *body = reinterpret_cast<unsigned char *>(const_cast<char *>(text.data() + member_len));
    unsigned char brace = '{';
    uint32_t crc = crc32_iscsi(body, static_cast<int>(len), crc32_iscsi(&brace, 1, ~0u));
    char is[24];
    snprintf(is, sizeof(is), "crc32c:%08x", crc);
    if (said != is)
        throw std::runtime_error("checksum " + std::string(is) + " does not match the " + said +
                                 " it was written with: the file was changed or damaged after its run");
}

namespace {

// --save's label and preset, when the file has them; a label --save itself
// refuses (digits only: it would name another run by its id) is refused here.
void read_saved(reader &top, const rank_json::value &doc, plan_source *src)
{
    src->save = doc.contains("saved_as");
    if (!src->save)
        return;
    top.obj("saved_as", [&](reader &x) { visit_saved(x, *src); });
    const std::string &l = src->save_label;
    if (!l.empty() && l.find_first_not_of("0123456789") == std::string::npos)
        throw std::runtime_error("saved_as.label: \"" + l + "\" is digits only, a label --save refuses");
}

} // namespace

results *rank_file_parse(const std::string &text, rank_info *who, plan_source *src)
{
    std::unique_ptr<rank_json::document> parsed;
    try {
        parsed = std::make_unique<rank_json::document>(text);
    } catch (const rank_json::syntax_error &e) {
        throw rank_json::syntax_error(e.byte, "not a JSON document: " + e.why,
                                      std::string("not a JSON document (") + e.what() + ")");
    }
    rank_json::value doc = parsed->root();
    if (!doc.is_object() || !doc.exists())
        throw std::runtime_error("not a JSON document");
    if (!doc.contains("ioplan_rank_file"))
        throw std::runtime_error("not an ioplan rank file (no \"ioplan_rank_file\" key)");
    rank_json::value version = doc.at("ioplan_rank_file");
    if (!version.is_number_unsigned() || version.get_u64() != rank_file_version)
        throw std::runtime_error("rank file version " + version.dump() + ", this ioplan reads " +
                                 std::to_string(rank_file_version) +
                                 " (merge rank files with the ioplan version that wrote them)");
    check_sum(text, doc);
    results *r = alloc_array<results>(1);
    r->abi_version = RESULTS_ABI_VERSION;
    try {
        reader top{doc};
        top.obj("rank", [&](reader &x) { visit_rank(x, *who); });
        top.obj("plan_source", [&](reader &x) { visit_source(x, *src); });
        read_saved(top, doc, src);
        top.obj("results", [&](reader &x) { visit_results(x, *r); });
        check_counts(*r);
        if (who->rank >= who->nranks)
            throw std::runtime_error("rank " + std::to_string(who->rank) + " of a world of " +
                                     std::to_string(who->nranks));
        // MPI numbers its ranks with an int: a larger world is no run's.
        if (who->nranks > static_cast<uint32_t>(INT32_MAX))
            throw std::runtime_error("a world of " + std::to_string(who->nranks) +
                                     " ranks, more than MPI numbers (" + std::to_string(INT32_MAX) + ")");
    } catch (...) {
        results_free(r);
        throw;
    }
    return r;
}

std::string job_text_of(const plan_source &src)
{
    std::string text;
    for (const std::string &t : src.job_texts)
        text += (text.empty() || text.back() == '\n' ? "" : "\n") + t;
    if (!text.empty())
        return text;
    for (const std::string &arg : src.argv)
        text += (text.empty() ? "" : " ") + arg;
    return text;
}

std::string world_uuid(const std::string &run_id, const std::string &missing)
{
    return resdb::sha256_hex("ioplan world " + run_id + (missing.empty() ? "" : " without ranks " + missing))
        .substr(0, 32);
}

std::string new_run_id()
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof(v), 0) != sizeof(v))
        v = static_cast<uint64_t>(time(nullptr)) ^ (static_cast<uint64_t>(getpid()) << 32);
    char hex[20];
    snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(v));
    return hex;
}

namespace {

// "--save=LABEL --preset=NAME" as a rank file records them, or "no --save".
std::string save_words(const plan_source &src)
{
    if (!src.save)
        return "no --save";
    return "--save" + (src.save_label.empty() ? "" : "=" + src.save_label) +
           (src.preset.empty() ? "" : " --preset=" + src.preset);
}

} // namespace

std::string rank_file_mismatch(const rank_info &first, const plan_source &first_src, const rank_info &who,
                               const plan_source &src)
{
    if (who.run_id != first.run_id)
        return "from another run (run id " + who.run_id + ", the first file's is " + first.run_id + ")";
    if (who.nranks != first.nranks)
        return "from a world of " + std::to_string(who.nranks) + " ranks, the first file's has " +
               std::to_string(first.nranks);
    if (src.plan_id != first_src.plan_id)
        return "ran another plan than the first file's (plan " + src.plan_id + ", not " + first_src.plan_id + ")";
    if (save_words(src) != save_words(first_src))
        return "was run with " + save_words(src) + ", the first file's with " + save_words(first_src) +
               " (the merge would be stored under one of them)";
    return "";
}

std::string rank_file_read(const std::string &path)
{
    // O_NONBLOCK: a FIFO with no writer would block the open.
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        throw std::runtime_error(path + ": cannot read: " + strerror(errno));
    struct stat st;
    std::string why;
    if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device, not a rank file" : "not a regular file";
    else if (static_cast<uint64_t>(st.st_size) > rank_file_max_bytes)
        why = std::to_string(st.st_size) + " bytes, more than a rank file holds (" +
              std::to_string(rank_file_max_bytes >> 20) + " MiB)";
    std::string text;
    if (why.empty())
        text.reserve(static_cast<size_t>(st.st_size) + 1); // one allocation, no copies as it grows
    while (why.empty()) {
        char buf[65536];
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            why = n < 0 ? strerror(errno) : "";
            break;
        }
        text.append(buf, static_cast<size_t>(n));
        if (text.size() > rank_file_max_bytes) // grew while read
            why = "more than a rank file holds (" + std::to_string(rank_file_max_bytes >> 20) + " MiB)";
    }
    close(fd);
    if (!why.empty())
        throw std::runtime_error(path + ": " + why);
    return text;
}

} // namespace cli

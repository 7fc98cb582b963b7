// cli/rank_file.cpp - struct results <-> JSON for rank files (rank_file.hpp).
//
// Each struct is described once, by a visit_* function over its fields; the
// writer and the reader are two visitors, so the two directions cannot drift
// apart.  Arrays the engine allocates (histograms, series, traces, jobs) are
// allocated here with calloc so results_free releases a parsed result.
#include "cli/rank_file.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace cli {

namespace {

using json = nlohmann::json;
constexpr int rank_file_version = 1;

template <class T> T *alloc_array(size_t n)
{
    T *p = static_cast<T *>(calloc(n ? n : 1, sizeof(T)));
    if (!p)
        throw std::bad_alloc();
    return p;
}

// Writes each visited field into an object.
struct writer {
    json &o;
    template <class T> void operator()(const char *k, T &v) { o[k] = v; }
    void arr(const char *k, uint64_t *a, size_t n) { o[k] = std::vector<uint64_t>(a, a + n); }
    void owned(const char *k, uint64_t *&a, size_t n)
    {
        if (a)
            arr(k, a, n);
    }
    template <class T> void own(T *&, size_t) {}
    void str(const char *k, char *s, size_t cap) { o[k] = std::string(s, strnlen(s, cap)); }
    void cstr(const char *k, char *&s) { o[k] = s ? std::string(s) : std::string(); }
    void hist(const char *k, uint64_t *&h)
    {
        if (!h)
            return;
        json pairs = json::array();
        for (uint32_t i = 0; i < RES_HIST_NR; i++)
            if (h[i])
                pairs.push_back({i, h[i]});
        o[k] = pairs;
    }
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
struct reader {
    const json &o;
    template <class T> void operator()(const char *k, T &v)
    {
        if (o.contains(k))
            v = o.at(k).get<T>();
    }
    void arr(const char *k, uint64_t *a, size_t n)
    {
        if (!o.contains(k))
            return;
        const json &v = o.at(k);
        for (size_t i = 0; i < n && i < v.size(); i++)
            a[i] = v[i].get<uint64_t>();
    }
    void owned(const char *k, uint64_t *&a, size_t n)
    {
        a = nullptr;
        if (!o.contains(k))
            return;
        a = alloc_array<uint64_t>(n);
        arr(k, a, n);
    }
    template <class T> void own(T *&p, size_t n) { p = alloc_array<T>(n); }
    void str(const char *k, char *s, size_t cap)
    {
        std::string v = o.contains(k) ? o.at(k).get<std::string>() : "";
        snprintf(s, cap, "%s", v.c_str());
    }
    void cstr(const char *k, char *&s)
    {
        s = strdup(o.contains(k) ? o.at(k).get<std::string>().c_str() : "");
        if (!s)
            throw std::bad_alloc();
    }
    void hist(const char *k, uint64_t *&h)
    {
        h = nullptr;
        if (!o.contains(k))
            return;
        h = alloc_array<uint64_t>(RES_HIST_NR);
        for (const json &p : o.at(k)) {
            uint32_t i = p.at(0).get<uint32_t>();
            if (i >= RES_HIST_NR)
                throw std::runtime_error("histogram bucket " + std::to_string(i) + " out of range");
            h[i] = p.at(1).get<uint64_t>();
        }
    }
    template <class F> void obj(const char *k, F f)
    {
        static const json empty = json::object();
        reader r{o.contains(k) ? o.at(k) : empty};
        f(r);
    }
    template <class T, class F> void fixed(const char *k, T *items, size_t n, F f)
    {
        if (!o.contains(k))
            return;
        const json &a = o.at(k);
        for (size_t i = 0; i < n && i < a.size(); i++) {
            reader r{a[i]};
            f(r, items[i]);
        }
    }
    template <class T, class N, class F> void list(const char *k, T *&items, N &nr, F f)
    {
        items = nullptr;
        nr = 0;
        if (!o.contains(k) || o.at(k).empty())
            return;
        const json &a = o.at(k);
        items = alloc_array<T>(a.size());
        for (const json &e : a) {
            reader r{e};
            f(r, items[nr]);
            nr++;
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

template <class V> void visit_sample(V &v, res_sample &s)
{
    v("t_start_ns", s.t_start_ns);
    v("t_end_ns", s.t_end_ns);
    v.arr("bytes", s.bytes, PLAN_DDIR_NR);
    v.arr("ios", s.ios, PLAN_DDIR_NR);
    v.arr("lat_sum_ns", s.lat_sum_ns, PLAN_DDIR_NR);
    v.arr("lat_max_ns", s.lat_max_ns, PLAN_DDIR_NR);
}

template <class V> void visit_series(V &v, res_series &s)
{
    v("interval_ns", s.interval_ns);
    v.list("samples", s.samples, s.nr, [](V &w, res_sample &x) { visit_sample(w, x); });
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
    v("start_ns", c.start_ns);
    v("end_ns", c.end_ns);
    v("thread_start_ns", c.thread_start_ns);
    v("thread_end_ns", c.thread_end_ns);
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
    v("host", who.host);
    v("clock_offset_ns", who.clock_offset_ns);
    v("start_late_ns", who.start_late_ns);
    v("groups_done", who.groups_done);
}

template <class V> void visit_source(V &v, plan_source &src)
{
    v("argv", src.argv);
    v("job_names", src.job_names);
    v("job_texts", src.job_texts);
}

} // namespace

std::string rank_file_text(const results &r, const rank_info &who, const plan_source &src)
{
    json doc = json::object();
    writer w{doc};
    int version = rank_file_version;
    w("ioplan_rank_file", version);
    // The writer only reads: the visitors take references so one description serves both ways.
    w.obj("rank", [&](writer &x) { visit_rank(x, const_cast<rank_info &>(who)); });
    w.obj("plan_source", [&](writer &x) { visit_source(x, const_cast<plan_source &>(src)); });
    w.obj("results", [&](writer &x) { visit_results(x, const_cast<results &>(r)); });
    return doc.dump() + "\n";
}

results *rank_file_parse(const std::string &text, rank_info *who, plan_source *src)
{
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        throw std::runtime_error("not a JSON document");
    if (!doc.contains("ioplan_rank_file"))
        throw std::runtime_error("not an ioplan rank file (no \"ioplan_rank_file\" key)");
    if (doc.at("ioplan_rank_file").get<int>() != rank_file_version)
        throw std::runtime_error("rank file version " + doc.at("ioplan_rank_file").dump() + ", this ioplan reads " +
                                 std::to_string(rank_file_version));
    results *r = alloc_array<results>(1);
    r->abi_version = RESULTS_ABI_VERSION;
    try {
        reader top{doc};
        top.obj("rank", [&](reader &x) { visit_rank(x, *who); });
        top.obj("plan_source", [&](reader &x) { visit_source(x, *src); });
        top.obj("results", [&](reader &x) { visit_results(x, *r); });
    } catch (const json::exception &e) {
        results_free(r);
        throw std::runtime_error(std::string("malformed: ") + e.what());
    } catch (...) {
        results_free(r);
        throw;
    }
    return r;
}

} // namespace cli

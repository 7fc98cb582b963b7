// report/showplan.cpp - plan -> JSON, field for field (see showplan.hpp).
#include "report/showplan.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace report {

namespace {

using json = nlohmann::ordered_json;

template <typename T>
json per_ddir(const T (&v)[PLAN_DDIR_NR])
{
    json o = json::object();
    for (int d = 0; d < PLAN_DDIR_NR; d++)
        o[plan_ddir_name((plan_ddir)d)] = v[d];
    return o;
}

bool named_in(const char *key, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (std::strcmp(key, names[i]) == 0)
            return true;
    return false;
}

} // namespace

// The target's or the peer's name, and the permissions to write there (showplan.hpp).
bool host_specific_option(const char *key)
{
    static const char *const names[] = {"filename",  "directory",       "opendir",   "filename_format",
                                        "replay_redirect", "donorname", "hostname",  "interface",
                                        "uri",       "allow_device_write", "allow_existing_file_write",
                                        "allow_mounted_write"};
    return named_in(key, names, sizeof names / sizeof names[0]);
}

// An output file's name: that the option is on is kept, not where it writes.
bool output_name_option(const char *key)
{
    static const char *const names[] = {"write_bw_log",  "write_iops_log", "write_lat_log",
                                        "write_hist_log", "write_iolog",   "merge_blktrace_file"};
    return named_in(key, names, sizeof names / sizeof names[0]);
}

namespace {

// The options as typed (the whole view), or by name less the host's names (the workload's).
json kvs(const plan_kv *kv, uint32_t n, showplan_view view = showplan_view::whole)
{
    json o = json::object();
    if (view == showplan_view::whole) {
        for (uint32_t i = 0; i < n; i++)
            o[kv[i].key] = kv[i].value;
        return o;
    }
    std::vector<const plan_kv *> kept;
    for (uint32_t i = 0; i < n; i++)
        if (!host_specific_option(kv[i].key))
            kept.push_back(&kv[i]);
    std::sort(kept.begin(), kept.end(),
              [](const plan_kv *a, const plan_kv *b) { return std::strcmp(a->key, b->key) < 0; });
    for (const plan_kv *e : kept)
        o[e->key] = output_name_option(e->key) ? "" : e->value;
    return o;
}

json block_sizes(const plan_job &j)
{
    json o = json::object();
    for (int d = 0; d < PLAN_DDIR_NR; d++) {
        const plan_bs &b = j.bs[d];
        json e = {{"min_bytes", b.min_bytes}, {"max_bytes", b.max_bytes}, {"align_bytes", b.align_bytes}};
        json split = json::array();
        for (uint32_t i = 0; i < b.nr_split; i++)
            split.push_back({{"bs_bytes", b.split[i].bs_bytes}, {"pct", b.split[i].pct}});
        e["split"] = split;
        o[plan_ddir_name((plan_ddir)d)] = e;
    }
    return o;
}

json pattern_json(const plan_job &j)
{
    json o = json::object();
    o["rw"] = plan_rw_name(j.rw);
    o["rw_seq_skip_bytes"] = j.rw_seq_skip_bytes;
    o["rwmixread_pct"] = j.rwmixread_pct;
    o["bs"] = block_sizes(j);
    o["bs_unaligned"] = j.bs_unaligned;
    o["bs_is_seq_rand"] = j.bs_is_seq_rand;
    o["percentage_random_pct"] = per_ddir(j.percentage_random_pct);
    o["random_distribution"] = plan_random_dist_name(j.random_distribution);
    o["random_dist_param"] = j.random_dist_param;
    o["random_dist_center"] = j.random_dist_center;
    if (j.random_dist_centered) // shown only when set: plans stored before it keep their hash
        o["random_dist_centered"] = true;
    json zones = json::array();
    for (uint32_t i = 0; i < j.nr_rand_zones; i++)
        zones.push_back({{"io_pct", j.rand_zones[i].io_pct}, {"range_pct", j.rand_zones[i].range_pct},
                         {"range_bytes", j.rand_zones[i].range_bytes}});
    o["rand_zones"] = zones;
    if (j.rand_zone_rule)  // only when set: a job without it keeps its plan hash
        o["rand_zone_rule"] = plan_zone_rule_name(j.rand_zone_rule);
    o["norandommap"] = j.norandommap;
    if (j.softrandommap)   // only when set: a job without it keeps its plan hash
        o["softrandommap"] = true;
    o["randrepeat"] = j.randrepeat;
    o["randseed"] = j.randseed;
    o["interlocked"] = j.interlocked;
    o["sequential_parallel"] = j.sequential_parallel;
    o["sequential_stride_bytes"] = j.sequential_stride_bytes;
    // Only when set, as every key added since plans were first stored (region_json).
    if (j.rw_seq_back_bytes)
        o["rw_seq_back_bytes"] = j.rw_seq_back_bytes;
    if (j.rw_seq_nr > 1)
        o["rw_seq_nr"] = j.rw_seq_nr;
    if (j.rw_seq_only)
        o["rw_seq_only"] = true;
    if (j.rw_seq_identical)
        o["rw_seq_identical"] = true;
    if (j.random_lfsr)
        o["random_lfsr"] = true;
    if (j.random_tausworthe64)
        o["random_tausworthe64"] = true;
    return o;
}

json region_json(const plan_job &j)
{
    json o = {{"size_bytes", j.size_bytes}, {"size_ppm", j.size_ppm}, {"filesize_min_bytes", j.filesize_min_bytes},
            {"filesize_max_bytes", j.filesize_max_bytes}, {"offset_bytes", j.offset_bytes},
            {"offset_ppm", j.offset_ppm}, {"offset_increment_bytes", j.offset_increment_bytes},
            {"io_size_bytes", j.io_size_bytes}, {"number_ios", j.number_ios}, {"loops", j.loops},
            {"zone_size_bytes", j.zone_size_bytes}, {"zone_range_bytes", j.zone_range_bytes}, {"zone_range_ppm", j.zone_range_ppm},
            {"zone_skip_bytes", j.zone_skip_bytes}, {"fill_device", j.fill_device}, {"nrfiles", j.nrfiles},
            {"openfiles", j.openfiles}, {"file_service", plan_file_service_name(j.file_service)}};
    // Only when set: stored runs are matched by the hash of this text, and earlier plans had no such key.
    if (j.io_size_ppm)
        o["io_size_ppm"] = j.io_size_ppm;
    if (j.offset_increment_ppm)
        o["offset_increment_ppm"] = j.offset_increment_ppm;
    // Each regular file's offset is its size when the job's files are set up, in the run: none here.
    if (j.file_append)
        o["file_append"] = true;
    if (j.file_service_extra)
        o["file_service_extra"] = j.file_service_extra;
    if (j.file_service > PLAN_FILE_SERVICE_RANDOM) {  // a law's parameter, and its centre when given
        o["file_service_param"] = j.file_service_param;
        if (j.file_service_center >= 0)
            o["file_service_center"] = j.file_service_center;
    }
    return o;
}

// The CPUs of a set from CPU `from` on, as a CPU list ("64-127,200"); "" when none.
std::string cpu_list_from(const plan_cpus &set, unsigned from)
{
    auto has = [&set](unsigned c) { return c < PLAN_CPUS_MAX && (set.word[c / 64] >> (c % 64) & 1); };
    std::string out;
    for (unsigned c = from; c < PLAN_CPUS_MAX; c++) {
        if (!has(c))
            continue;
        unsigned last = c;
        while (has(last + 1))
            last++;
        out += (out.empty() ? "" : ",") + std::to_string(c) + (last > c ? "-" + std::to_string(last) : "");
        c = last;
    }
    return out;
}

json engine_json(const plan_job &j)
{
    // io_uring's own options keep the keys and places they had as plan fields: stored runs
    // are matched by the hash of this text (test_showplan.cpp).
    auto uring = [&j](const char *name) { return plan_engopt_int(j.engine_opts, j.ioengine, name) != 0; };
    json o = {{"ioengine", plan_ioengine_name(j.ioengine)}, {"iodepth", j.iodepth},
            {"iodepth_batch_submit", j.iodepth_batch_submit},
            {"iodepth_batch_complete_min", j.iodepth_batch_complete_min},
            {"iodepth_batch_complete_max", j.iodepth_batch_complete_max}, {"iodepth_low", j.iodepth_low},
            {"uring_fixedbufs", uring("fixedbufs")}, {"uring_registerfiles", uring("registerfiles")},
            {"uring_sqthread_poll", uring("sqthread_poll")}, {"uring_hipri", j.uring_hipri},
            // The keys keep the names --showplan has always printed.
            {"hipri_percentage", j.hipri_percentage}, {"pvsync2_uncached", j.rwf_uncached},
            {"pvsync2_nowait", j.rwf_nowait},
            {"cpus_allowed_mask", j.cpus_allowed.word[0]}, {"cpus_allowed_split", j.cpus_allowed_split},
            {"nice", j.nice}};
    // The mask keeps CPUs 0-63, as --showplan has always printed it (stored runs match by this
    // text's hash); CPUs past them are listed only when a job names some.
    std::string above = cpu_list_from(j.cpus_allowed, 64);
    if (!above.empty())
        o["cpus_allowed_above_63"] = above;
    // Only when set, so that a job without it keeps its plan hash.
    if (j.ioscheduler)
        o["ioscheduler"] = j.ioscheduler;
    return o;
}

json files_json(const plan_job &j)
{
    json o = {{"direct", j.direct}, {"sync_mode", plan_sync_mode_name(j.sync_mode)}, {"fsync_every", j.fsync_every},
              {"fdatasync_every", j.fdatasync_every}, {"end_fsync", j.end_fsync},
              {"fsync_on_close", j.fsync_on_close}, {"create_fsync", j.create_fsync}, {"create_only", j.create_only},
              {"allow_file_create", j.allow_file_create}, {"overwrite", j.overwrite}, {"invalidate", j.invalidate},
              {"unlink", j.unlink}, {"unlink_each_loop", j.unlink_each_loop}, {"pre_read", j.pre_read},
              {"fallocate", plan_fallocate_name(j.fallocate)}};
    // Only when set, so that a job without it keeps its plan hash.
    if (j.create_on_open)
        o["create_on_open"] = true;
    // Only when set, so that a job without sync_file_range= keeps its plan hash.
    if (j.sync_file_range_flags) {
        o["sync_file_range_every"] = j.sync_file_range_every;
        o["sync_file_range_flags"] = j.sync_file_range_flags;
    }
    return o;
}

json time_rate_json(const plan_job &j)
{
    return {{"runtime_ns", j.runtime_ns}, {"time_based", j.time_based}, {"ramp_time_ns", j.ramp_time_ns},
            {"cooldown_ns", j.cooldown_ns}, {"startdelay_min_ns", j.startdelay_min_ns},
            {"startdelay_max_ns", j.startdelay_max_ns}, {"rate_bytes_per_s", per_ddir(j.rate_bytes_per_s)},
            {"rate_iops", per_ddir(j.rate_iops)}, {"rate_min_bytes_per_s", per_ddir(j.rate_min_bytes_per_s)},
            {"rate_iops_min", per_ddir(j.rate_iops_min)}, {"rate_process", plan_rate_process_name(j.rate_process)},
            {"rate_cycle_ns", j.rate_cycle_ns}, {"thinktime_ns", j.thinktime_ns},
            {"thinktime_spin_ns", j.thinktime_spin_ns}, {"thinktime_blocks", j.thinktime_blocks}};
}

json buffers_verify_json(const plan_job &j)
{
    std::string hex;
    static const char digits[] = "0123456789abcdef";
    for (uint32_t i = 0; i < j.buffer_pattern_len; i++) {
        hex += digits[j.buffer_pattern[i] >> 4];
        hex += digits[j.buffer_pattern[i] & 15];
    }
    return {{"buffer_fill", plan_buffer_fill_name(j.buffer_fill)}, {"refill_buffers", j.refill_buffers},
            {"scramble_buffers", j.scramble_buffers}, {"buffer_compress_pct", j.buffer_compress_pct},
            {"buffer_compress_chunk_bytes", j.buffer_compress_chunk_bytes}, {"buffer_pattern_hex", hex},
            {"write_source_bytes", j.write_source_bytes}, {"verify", plan_verify_name(j.verify)},
            {"do_verify", j.do_verify}, {"verify_only", j.verify_only}, {"verify_fatal", j.verify_fatal},
            {"verify_interval_bytes", j.verify_interval_bytes}, {"continue_on_error", j.continue_on_error},
            {"stall_timeout_ns", j.stall_timeout_ns}, {"io_trace_max", j.io_trace_max}};
}

json stats_json(const plan_job &j)
{
    json pct = json::array();
    for (uint32_t i = 0; i < j.nr_percentiles; i++)
        pct.push_back(j.percentiles[i]);
    json o = {{"disable_lat", j.disable_lat}, {"disable_clat", j.disable_clat}, {"disable_slat", j.disable_slat},
            {"clat_percentiles", j.clat_percentiles}, {"lat_percentiles", j.lat_percentiles},
            {"slat_percentiles", j.slat_percentiles}, {"percentiles", pct}, {"bw_avg_time_ns", j.bw_avg_time_ns},
            {"iops_avg_time_ns", j.iops_avg_time_ns}, {"kb_base", j.kb_base}, {"repeat", j.repeat},
            {"repeat_discard", j.repeat_discard}, {"repeat_aggregate", plan_repeat_aggregate_name(j.repeat_aggregate)},
            {"repeat_pause_ns", j.repeat_pause_ns}, {"group_pause_ns", j.group_pause_ns}};
    if (j.diskspd_iops_stddev)  // only when set: a job without it keeps its plan hash
        o["diskspd_iops_stddev"] = true;
    if (j.diskspd_no_latency)  // only when set: a job without it keeps its plan hash
        o["diskspd_latency"] = false;
    return o;
}

json job_json(const plan_job &j, showplan_view view)
{
    json o = {{"name", j.name}, {"section", j.section}, {"description", j.description}, {"job_id", j.job_id},
              {"groupid", j.groupid}, {"source_file", j.source_file}, {"stonewall", j.stonewall},
              {"new_group", j.new_group}, {"wait_for_job_id", j.wait_for_job_id},
              {"group_reporting", j.group_reporting}, {"exitall", j.exitall}, {"numjobs", j.nr_clones}};
    for (const json &part : {pattern_json(j), region_json(j), engine_json(j), files_json(j), time_rate_json(j),
                             buffers_verify_json(j), stats_json(j)})
        for (auto it = part.begin(); it != part.end(); ++it)
            o[it.key()] = it.value();
    o["options"] = kvs(j.opts, j.nr_opts, view);
    return o;
}

// Writes the text json::dump(2) would give for the whole plan, but one job and one file at a
// time: a tree with a node per file cost most of a many-file run's CPU and memory (and the plan
// hash is SHA-256 of these bytes, so they must not change). Leaves and small subtrees still go
// through nlohmann's serializer, so escaping and number formatting are its own.
class plan_writer {
public:
    plan_writer(std::ostream &out, showplan_view view)
        : out_(out), ser_(nlohmann::detail::output_adapter<char>(out), ' ', json::error_handler_t::replace),
          view_(view)
    {
    }
    showplan_view view() const { return view_; }

    // `"key": ` at the given depth, after the separator from the previous member.
    void key(unsigned depth, bool first, const char *k)
    {
        out_ << (first ? "\n" : ",\n");
        indent(depth);
        if (plain(k))
            out_ << '"' << k << '"';
        else
            ser_.dump(json(k), true, false, 2, 0);
        out_ << ": ";
    }
    void element(unsigned depth, bool first)
    {
        out_ << (first ? "\n" : ",\n");
        indent(depth);
    }
    void close(unsigned depth, char c)
    {
        out_ << '\n';
        indent(depth);
        out_ << c;
    }
    void value(const json &v, unsigned depth) { ser_.dump(v, true, false, 2, depth * 2); }
    void members(const json &o, unsigned depth, bool first)
    {
        for (auto it = o.begin(); it != o.end(); ++it, first = false) {
            key(depth, first, it.key().c_str());
            value(it.value(), depth);
        }
    }
    std::ostream &out() { return out_; }

    // A file's object, as dump(2) writes it, in one write: a plan may hold 300 000
    // files, and building each as a json object was most of plan_hash's cost.
    void file(const plan_file &pf, unsigned depth)
    {
        std::string &t = scratch_;
        t.assign("{");
        if (view_ == showplan_view::workload) {  // the workload's file: its sizes, not its name
            t += "\n";
            t.append((depth + 1) * 2, ' ');
            t += "\"size_bytes\": ";
            char buf[24];
            t.append(buf, (size_t)(std::to_chars(buf, buf + sizeof(buf), pf.size_bytes).ptr - buf));
        } else {
            member(t, depth + 1, "path");
            if (pf.path && plain(pf.path)) {
                t += '"';
                t += pf.path;
                t += '"';
            } else {
                out_.write(t.data(), (std::streamsize)t.size());
                value(pf.path ? json(pf.path) : json(nullptr), depth + 1);
                t.clear();
            }
            number(t, depth + 1, "size_bytes", pf.size_bytes);
        }
        number(t, depth + 1, "size_ppm", pf.size_ppm);
        number(t, depth + 1, "offset_bytes", pf.offset_bytes);
        number(t, depth + 1, "offset_ppm", pf.offset_ppm);
        number(t, depth + 1, "region_bytes", pf.region_bytes);
        member(t, depth + 1, "shared");
        t += pf.shared ? "true" : "false";
        member(t, depth + 1, "is_device");
        t += pf.is_device ? "true" : "false";
        t += '\n';
        t.append(depth * 2, ' ');
        t += '}';
        out_.write(t.data(), (std::streamsize)t.size());
    }

private:
    // `"key": ` of a member after the object's opening or the previous member.
    static void member(std::string &t, unsigned depth, const char *k)
    {
        t += t.empty() || t.back() != '{' ? ",\n" : "\n";
        t.append(depth * 2, ' ');
        t += '"';
        t += k;
        t += "\": ";
    }
    static void number(std::string &t, unsigned depth, const char *k, uint64_t v)
    {
        char buf[24];
        member(t, depth, k);
        t.append(buf, (size_t)(std::to_chars(buf, buf + sizeof(buf), v).ptr - buf));
    }
    // A key JSON writes as it is: printable ASCII without a quote or backslash.
    static bool plain(const char *k)
    {
        for (; *k; k++)
            if (*k < 0x20 || *k > 0x7e || *k == '"' || *k == '\\')
                return false;
        return true;
    }
    void indent(unsigned depth)
    {
        static const char spaces[] = "                                ";
        for (unsigned n = depth * 2; n; ) {
            unsigned k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
            out_.write(spaces, k);
            n -= k;
        }
    }
    std::ostream &out_;
    nlohmann::detail::serializer<json> ser_;
    std::string scratch_;
    showplan_view view_;
};

// An array member's value at `depth`: `[]` when empty, as dump(2) writes it.
template <typename F>
void write_array(plan_writer &w, unsigned depth, uint32_t n, F each)
{
    if (n == 0) {
        w.out() << "[]";
        return;
    }
    w.out() << '[';
    for (uint32_t i = 0; i < n; i++) {
        w.element(depth + 1, i == 0);
        each(i, depth + 1);
    }
    w.close(depth, ']');
}

void write_clone(plan_writer &w, const plan_clone &c, unsigned depth)
{
    w.out() << '{';
    json o = {{"clone_index", c.clone_index}, {"thread_number", c.thread_number}};
    // Not in the workload: with randrepeat=0 the seed is drawn from the OS for each run,
    // and every run was a workload of its own; otherwise randseed and the thread's number,
    // both kept, give it.
    if (w.view() == showplan_view::whole)
        o["seed"] = c.seed;
    o["offset_bytes"] = c.offset_bytes;
    if (c.zones_off) // only where set, so that other plans keep their hash
        o["zones_off"] = true;
    w.members(o, depth + 1, true);
    w.key(depth + 1, false, "files");
    write_array(w, depth + 1, c.nr_files, [&](uint32_t f, unsigned d) { w.file(c.files[f], d); });
    w.close(depth, '}');
}

void write_job(plan_writer &w, const plan_job &j, unsigned depth)
{
    w.out() << '{';
    w.members(job_json(j, w.view()), depth + 1, true);
    w.key(depth + 1, false, "clones");
    write_array(w, depth + 1, j.nr_clones, [&](uint32_t c, unsigned d) { write_clone(w, j.clones[c], d); });
    w.close(depth, '}');
}

void write_group(plan_writer &w, const plan_group &g, unsigned depth)
{
    w.out() << '{';
    w.key(depth + 1, true, "id");
    w.value(g.id, depth + 1);
    w.key(depth + 1, false, "jobs");
    write_array(w, depth + 1, g.nr_jobs, [&](uint32_t i, unsigned d) { write_job(w, g.jobs[i], d); });
    w.close(depth, '}');
}

} // namespace

void write_showplan(const plan &p, std::ostream &out, showplan_view view)
{
    plan_writer w(out, view);
    out << '{';
    json head = {{"plan_abi_version", p.abi_version}, {"nr_groups", p.nr_groups}, {"nr_jobs", p.nr_jobs},
                 {"nr_threads", p.nr_threads}, {"global_options", kvs(p.global_opts, p.nr_global_opts, view)}};
    if (view == showplan_view::whole) {  // where this host lets it write: no part of the workload
        head["allow_device_write"] = p.allow_device_write ? p.allow_device_write : "";
        head["allow_existing_file_write"] = p.allow_existing_file_write;
    }
    w.members(head, 1, true);
    w.key(1, false, "groups");
    write_array(w, 1, p.nr_groups, [&](uint32_t g, unsigned d) { write_group(w, p.groups[g], d); });
    w.close(0, '}');
    out << "\n";
}

} // namespace report

// parser/job_finalize.cpp - a job once all of it is read: the settings that
// follow from several options (fio's init does the same after parsing), and the
// relations between options that are refused with the option's position.
#include "parser/planner.hpp"
#include "parser/options.hpp"
#include "parser/values.hpp"

#include <algorithm>
#include <string>

namespace parser {

namespace {

// cpuio and exec as fio's init sets them up: the job runs until runtime whatever
// size says, thinking think_ns after each of its "I/Os" (one block's worth).
void run_until_runtime(plan_job &j, uint64_t think_ns)
{
    j.time_based = true;
    j.thinktime_ns = think_ns;
    j.thinktime_spin_ns = 0;
    j.thinktime_blocks = 1;
    if (!j.size_bytes && !j.filesize_min_bytes && !j.size_ppm)
        j.size_bytes = j.bs[PLAN_DDIR_READ].max_bytes ? j.bs[PLAN_DDIR_READ].max_bytes : 4096;
}

// The job's engine's required options (plan_engopt.required): set, and not 0 or empty.
void check_engine_required(const job_def &d)
{
    enum plan_ioengine e = d.spec.pj.ioengine;
    const plan_engopts *t = plan_engopts_of(e);
    for (uint32_t i = 0; i < t->nr; i++) {
        const plan_engopt &o = t->opts[i];
        const engine_value *v = engine_value_of(d.spec, o.name);
        if (o.required && (!v || (!v->i && v->s.empty())))
            fail(d.header, "job '" + job_name(d) + "': ioengine=" + plan_ioengine_name(e) + " needs " + o.name +
                               "= (" + o.required + ")");
    }
}

// cpuio: after each burn of cpuchunks the thread sleeps for the rest of the cycle.  A load
// above 100 % burns all of it, as fio clamps it, rather than refusing a job file fio runs.
void finalize_cpuio(job_def &d)
{
    plan_job &j = d.spec.pj;
    if (j.ioengine != PLAN_IOENGINE_CPUIO)
        return;
    uint64_t load = std::min<uint64_t>((uint64_t)engine_int(d.spec, "cpuload"), 100);
    uint64_t chunk_us = (uint64_t)engine_int(d.spec, "cpuchunks");
    run_until_runtime(j, chunk_us * 1000ull * (100 - load) / load);
}

// exec: the job looks at its program every 50 ms.
void finalize_exec(job_def &d)
{
    if (d.spec.pj.ioengine == PLAN_IOENGINE_EXEC)
        run_until_runtime(d.spec.pj, 50000000ull);
}

// filecreate, dircreate and dirdelete without a size: fio's engines size each
// file or directory as one smallest block (their get_file_size), so the job
// makes or removes each one once (nrfiles=5: five creations, 20 KiB at bs=4k).
void finalize_made_files(job_def &d)
{
    plan_job &j = d.spec.pj;
    bool one_block = j.ioengine == PLAN_IOENGINE_FILECREATE || j.ioengine == PLAN_IOENGINE_DIRCREATE ||
                     j.ioengine == PLAN_IOENGINE_DIRDELETE;
    if (one_block && !j.size_bytes && !j.size_ppm && !j.filesize_min_bytes)
        j.filesize_min_bytes = j.filesize_max_bytes = plan_min_bs(&j);
}

// merge_blktrace_*: what fio's merge_blktrace_iologs checks, refused before any file is read.
void finalize_merge(const job_def &d)
{
    const job_spec &s = d.spec;
    const plan_job &j = s.pj;
    std::string who = "job '" + job_name(d) + "': ";
    if (s.merge_blktrace_file.empty()) {
        const char *list = j.nr_merge_scalars ? "merge_blktrace_scalars" : "merge_blktrace_iters";
        if (j.nr_merge_scalars || j.nr_merge_iters)
            fail(option_loc(d, list), who + list + " does nothing without merge_blktrace_file=");
        return;
    }
    if (s.read_iolog.empty())
        fail(option_loc(d, "merge_blktrace_file"),
             who + "merge_blktrace_file needs read_iolog= (the blktrace files to merge, separated by ':')");
    size_t files = split(s.read_iolog, ':').size();
    auto paired = [&](uint32_t have, const char *name) {
        if (have && have != files)
            fail(option_loc(d, name), who + name + " has " + std::to_string(have) + " entries for " +
                                          std::to_string(files) + " read_iolog files (one each)");
    };
    paired(j.nr_merge_scalars, "merge_blktrace_scalars");
    paired(j.nr_merge_iters, "merge_blktrace_iters");
}

// fio's "Nz" values: N zones of zonesize= (its zbd.c recalculates them at file setup).
void apply_zone_counts(job_def &d)
{
    plan_job &j = d.spec.pj;
    uint64_t *to[job_spec::NZ_NR] = {&j.size_bytes, &j.io_size_bytes, &j.offset_bytes, &j.offset_increment_bytes,
                                     &j.zone_skip_bytes};
    for (int i = 0; i < job_spec::NZ_NR; i++)
        if (d.spec.in_zones[i] && j.zone_size_bytes)
            *to[i] = (uint64_t)d.spec.in_zones[i] * j.zone_size_bytes;
}

// DISKSPD has one -b and one -r alignment: its ranges are laid out in them.
bool one_block_size(const plan_job &j)
{
    const plan_bs *first = nullptr;
    for (int dd = 0; dd < PLAN_DDIR_NR; dd++) {
        const plan_bs &b = j.bs[dd];
        if (!plan_rw_has_ddir(j.rw, (plan_ddir)dd))
            continue;
        if (b.min_bytes != b.max_bytes || b.nr_split ||
            (first && (b.min_bytes != first->min_bytes || b.align_bytes != first->align_bytes)))
            return false;
        first = &b;
    }
    return true;
}

// zoned_ranges=: the rule the engine places the zones by, once every option is read.
void finalize_zone_rule(job_def &d)
{
    plan_job &j = d.spec.pj;
    const std::string who = "job '" + job_name(d) + "': ";
    bool zoned = j.random_distribution == PLAN_RAND_ZONED, diskspd = j.rand_zone_rule != PLAN_ZONES_FIO;
    j.rand_zone_rule = PLAN_ZONES_FIO;  // without zones, zoned_ranges= has nothing to place
    if (zoned && d.spec.zones_abs_rest && !diskspd)
        fail(option_loc(d, "random_distribution"),
             who + "a blank last zoned_abs range (the rest of the region) needs zoned_ranges=diskspd");
    if (!zoned || !diskspd)
        return;
    j.rand_zone_rule = d.spec.zones_abs ? PLAN_ZONES_DISKSPD_ABS : PLAN_ZONES_DISKSPD_PCT;
    if (!one_block_size(j))
        fail(option_loc(d, "zoned_ranges"), who + "zoned_ranges=diskspd needs one block size and blockalign "
                                                  "for every direction (DISKSPD has one -b and -r)");
    if (j.zone_size_bytes)
        fail(option_loc(d, "zoned_ranges"), who + "zoned_ranges=diskspd and zonemode=strided exclude each other");
    uint64_t bs = j.bs[plan_rw_has_ddir(j.rw, PLAN_DDIR_READ) ? PLAN_DDIR_READ : PLAN_DDIR_WRITE].min_bytes;
    for (uint32_t i = 0; d.spec.zones_abs && i < j.nr_rand_zones; i++) {
        bool rest = d.spec.zones_abs_rest && i + 1 == j.nr_rand_zones;
        if (!rest && j.rand_zones[i].range_bytes < bs)  // DISKSPD refuses a range it cannot hold a block in
            fail(option_loc(d, "random_distribution"),
                 who + "zone " + std::to_string(i + 1) + " of random_distribution=zoned_abs (" +
                     std::to_string(j.rand_zones[i].range_bytes) + " bytes) is smaller than the block size (" +
                     std::to_string(bs) + " bytes), which zoned_ranges=diskspd refuses as DISKSPD does");
    }
}

} // namespace

// Relations between options that only make sense once the whole job is known.
void finalize_spec(job_def &d)
{
    plan_job &j = d.spec.pj;
    apply_zone_counts(d);
    // Unset (0), the most reaped at once is the minimum (1 by default), so each
    // completion is followed by a new submission and iodepth holds.
    plan_job_resolve_queue(&j);
    if (!d.spec.hipri_percentage_set)
        j.hipri_percentage = 100; // fio's default: every I/O of a hipri job is polled
    check_engine_required(d);
    finalize_cpuio(d);
    finalize_exec(d);
    finalize_made_files(d);
    finalize_merge(d);
    finalize_zone_rule(d);
    // As fio's fixup_options: the spin is part of the think, never longer than it
    // (thinktime=100ms thinktime_spin=1s spun 1 s a think; fio 3.33 cuts it to 100 ms).
    if (j.thinktime_spin_ns > j.thinktime_ns)
        j.thinktime_spin_ns = j.thinktime_ns;
    if (j.fadvise_hint == PLAN_FADVISE_BY_RW)
        j.fadvise_hint = plan_rw_is_random(j.rw) ? PLAN_FADVISE_RANDOM : PLAN_FADVISE_SEQUENTIAL;
    if (j.random_distribution != PLAN_RAND_UNIFORM)
        j.norandommap = true; // fio: non-uniform distributions never use the random map
    if (j.interlocked && plan_rw_is_random(j.rw))
        fail(option_loc(d, "interlocked"),
             "job '" + job_name(d) + "': interlocked=1 needs a sequential rw= (read, write or rw), not " +
                           plan_rw_name(j.rw));
    if (j.sequential_parallel && (plan_rw_is_random(j.rw) || j.interlocked))
        fail(option_loc(d, "sequential_parallel"),
             "job '" + job_name(d) + "': sequential_parallel=1 needs a sequential rw= and no interlocked=1");
    if (j.interlocked && (j.offset_increment_bytes || j.offset_increment_ppm))
        fail(option_loc(d, "offset_increment"),
             "job '" + job_name(d) + "': interlocked=1 (one offset shared by all clones) and "
                       "offset_increment= (a region per clone) exclude each other");
    if (j.zone_size_bytes && !j.zone_range_bytes && !j.zone_range_ppm)
        j.zone_range_bytes = j.zone_size_bytes;
    if ((j.verify == PLAN_VERIFY_PATTERN || j.verify == PLAN_VERIFY_PATTERN_HDR) && d.spec.verify_pattern.empty())
        fail(option_loc(d, "verify"), "job '" + job_name(d) + "': verify=pattern needs verify_pattern=");
    if (j.buffer_fill == PLAN_BUF_PATTERN && d.spec.pattern.empty())
        j.buffer_fill = PLAN_BUF_RANDOM;
    // fio's fill_io_buffer asks for a pattern before zero_buffers, whichever came last.
    if (j.buffer_fill == PLAN_BUF_ZERO && !d.spec.pattern.empty())
        j.buffer_fill = PLAN_BUF_PATTERN;
    if (j.buffer_fill == PLAN_BUF_RANDOM_ONCE && !j.write_source_bytes)
        j.write_source_bytes = j.bs[PLAN_DDIR_WRITE].max_bytes; // one block's worth, as DISKSPD -Z alone
    if (j.verify != PLAN_VERIFY_NONE || j.buffer_compress_pct)
        j.refill_buffers = true; // as fio: verified or compressible data is generated per write
    // As fio's buffer_pattern callback: a read into a shared buffer would leave its data in the
    // next write, so a job that reads writes the pattern afresh each time.
    if (j.buffer_fill == PLAN_BUF_PATTERN && plan_rw_has_ddir(j.rw, PLAN_DDIR_READ))
        j.refill_buffers = true;
    for (int dd = 0; dd < PLAN_DDIR_NR; dd++)
        if (j.bs[dd].min_bytes == 0)
            fail(option_loc(d, "bs"), "job '" + job_name(d) + "': block size 0");
}

} // namespace parser

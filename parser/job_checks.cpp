// parser/job_checks.cpp - what a run would only find out after starting a job,
// refused when the job is planned, with the option's position: regions that
// hold no block (a filesize= range's once its files are drawn), offsets past
// the files' end, zones that do not fit, engine options under another engine,
// cmdprio modes that exclude each other, zone modes, block_error_percentiles,
// rates that exclude each other.  Apart from planner_build.cpp, which turns
// the checked job into plan memory.
#include "parser/options.hpp"
#include "parser/planner.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <string>

namespace parser {

namespace {

// The zones of random_distribution=zoned/zoned_abs over a region of `each`
// bytes cut in blocks of the job's smallest alignment, as the engine cuts them:
// a zone that gets I/O must hold a block, and the zones must fit (fio finds
// "zoned_abs sizes exceed file size" at run time).
uint64_t zone_align(const plan_job &j)
{
    uint64_t align = UINT64_MAX;
    for (int dd = 0; dd < PLAN_DDIR_NR; dd++)
        if (plan_rw_has_ddir(j.rw, (plan_ddir)dd))
            align = std::min(align, j.bs[dd].align_bytes ? j.bs[dd].align_bytes : j.bs[dd].min_bytes);
    return align;
}

void check_zones(const job_def &d, uint64_t each)
{
    const plan_job &j = d.spec.pj;
    uint64_t align = zone_align(j), blocks, used = 0;
    blocks = each / align;
    for (uint32_t i = 0; i < j.nr_rand_zones; i++) {
        const plan_rand_zone &z = j.rand_zones[i];
        uint64_t len = z.range_bytes ? z.range_bytes / align : blocks * z.range_pct / 100;
        used += z.range_bytes;
        if (z.io_pct && !len)
            fail(option_loc(d, "random_distribution"),
                 "job '" + job_name(d) + "': zone " + std::to_string(i + 1) + " of random_distribution gets " +
                               std::to_string(z.io_pct) + "% of the I/O but holds no whole block of " +
                               std::to_string(align) + " bytes");
    }
    if (used > each)
        fail(option_loc(d, "random_distribution"),
             "job '" + job_name(d) + "': the zones of random_distribution=zoned_abs cover " +
                           std::to_string(used) + " bytes, more than the " + std::to_string(each) + " of the region");
}

// fio: with filesize= a file's region runs from offset= to its end; none left
// there, fio lays the files out and stops ("blocksize is larger than data set
// range"), or says "you need to specify valid offset=" of a clone past it.
// file_append starts at the file's end whatever offset= says.
void check_offsets_fit(const job_def &d)
{
    const plan_job &j = d.spec.pj;
    if (!j.filesize_min_bytes || j.file_append)
        return;
    const std::string files =
        " at or past the end of its files (filesize=" + std::to_string(j.filesize_max_bytes) + " bytes)";
    if (j.offset_bytes >= j.filesize_max_bytes)
        fail(option_loc(d, "offset"),
             "job '" + job_name(d) + "': offset=" + std::to_string(j.offset_bytes) + " is" + files + ": no I/O is left to make");
    uint32_t n = d.spec.numjobs;
    uint64_t last = j.offset_bytes + (uint64_t)(n - 1) * j.offset_increment_bytes;
    if (n > 1 && j.offset_increment_bytes && last >= j.filesize_max_bytes)
        fail(option_loc(d, "offset_increment"),
             "job '" + job_name(d) + "': clone " + std::to_string(n) + " of " + std::to_string(n) + " would start at byte " +
                 std::to_string(last) + " (offset=" + std::to_string(j.offset_bytes) + " + " + std::to_string(n - 1) +
                 " x offset_increment=" + std::to_string(j.offset_increment_bytes) + ")," + files);
}

// fio's plain or holed sequential pass of one block size reads on past a
// file's share of size= into what an existing file holds
// (plan_seq_uses_file_size): nrfiles=3 size=8k bs=4k, rw=read or rw=read:4k,
// reads a block of the first two 16 KiB files.  So a share under one
// block of `need` bytes is refused unless size= holds one (else fio: "blocksize
// is larger than data set range") and every file holds one past offset= now;
// a new one fio lays out to the share and reads nothing of.  A file an earlier
// job of the run makes is not known here.
bool files_hold_a_block(const job_def &d, plan_ddir dd, uint64_t need)
{
    const plan_job &j = d.spec.pj;
    if (!plan_seq_uses_file_size(&j) || plan_seq_fixed_bs(&j, dd) != need || j.size_bytes < need ||
        j.filesize_min_bytes || j.offset_ppm || j.ioengine == PLAN_IOENGINE_NULL)
        return false;
    for (const std::string &path : clone_paths(d, d.section, 0)) {
        struct stat st;
        if (stat(path.c_str(), &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < j.offset_bytes + need)
            return false;
    }
    return true;
}

// The least a region must hold for one I/O of direction dd: a block, or a
// random job's blockalign step when that is longer (DISKSPD -r<align): a
// shorter region holds no offset.
uint64_t region_need(const plan_job &j, plan_ddir dd, bool *by_align)
{
    const plan_bs &bs = j.bs[dd];
    *by_align = plan_rw_is_random(j.rw) && bs.align_bytes > bs.min_bytes;
    return *by_align ? bs.align_bytes : bs.min_bytes;
}

// "less than one write block (4096 bytes)", or the blockalign step's words.
std::string one_block(const plan_job &j, plan_ddir dd)
{
    bool by_align;
    uint64_t need = region_need(j, dd, &by_align);
    return std::string("less than one ") + plan_ddir_name(dd) + (by_align ? " blockalign step (" : " block (") +
           std::to_string(need) + " bytes)";
}

// A filesize= range: each file takes fio's draw, cut to whole blocks, so a low
// end under a block is no error (check_drawn_regions, once drawn).
bool filesize_range(const plan_job &j)
{
    return j.filesize_min_bytes != j.filesize_max_bytes;
}

// What a run would only find out after starting the job: a region that holds
// no whole block (fio: "size too small"; with nrfiles or a per-direction bs
// fio runs and does nothing) and a null job with nothing to size it.  Sizes
// taken from existing files are checked when the files are opened.
void check_regions(const job_def &d)
{
    const plan_job &j = d.spec.pj;
    check_offsets_fit(d);	// size=N% of filesize= leaves no I/O past its end either
    if (j.size_ppm || filesize_range(j))
        return;
    if (!j.size_bytes && !j.filesize_min_bytes) {
        // A replay's null targets are sized by the trace (replay_stage), as fio's need no size=.
        if (j.ioengine == PLAN_IOENGINE_NULL && d.spec.read_iolog.empty())
            fail(option_loc(d, "size"), // size=0 where the job wrote it, else its header
                 "job '" + job_name(d) + "': the null engine needs size= (it has no file to take a size from)");
        return;
    }
    size_t nfiles = clone_paths(d, d.section, 0).size();
    if (!nfiles)
        return;	// nrfiles=0 without filename=: no file, no I/O, as fio's
    uint64_t each = j.filesize_min_bytes ? j.filesize_min_bytes : j.size_bytes / nfiles;
    std::string what = nfiles > 1 || j.filesize_min_bytes ? "each file's region" : "the size";
    for (int dd = 0; dd < PLAN_DDIR_NR; dd++) {
        bool by_align;
        uint64_t need = region_need(j, (plan_ddir)dd, &by_align);
        if (plan_rw_has_ddir(j.rw, (plan_ddir)dd) && each < need && !files_hold_a_block(d, (plan_ddir)dd, need))
            fail(option_loc(d, j.filesize_min_bytes ? "filesize" : "size"),
                 "job '" + job_name(d) + "': " + what + " (" + std::to_string(each) + " bytes) is " +
                     one_block(j, (plan_ddir)dd));
    }
    // DISKSPD's rule places what fio's refuses: ranges without a whole block, past the end.
    if (j.random_distribution == PLAN_RAND_ZONED && plan_rw_is_random(j.rw) && !j.rand_zone_rule)
        check_zones(d, each);
}

// The bytes of a clone's file its I/O may use: from its start (offset=, the
// clone's offset_increment) to the end of its size.  A percentage offset is
// left to the run, which knows the file (0 here: no refusal of a run fio makes).
uint64_t drawn_region(const plan_clone &c, const plan_file &f)
{
    uint64_t start = f.offset_ppm ? 0 : c.offset_bytes ? c.offset_bytes : f.offset_bytes;
    return f.size_bytes > start ? f.size_bytes - start : 0;
}

// One clone of a filesize= range, its files drawn: the largest region and the
// least of those that hold `need` bytes.
void drawn_extremes(const plan_clone &c, uint64_t need, uint64_t *largest, uint64_t *least)
{
    *largest = 0;
    *least = UINT64_MAX;
    for (uint32_t f = 0; f < c.nr_files; f++) {
        uint64_t n = drawn_region(c, c.files[f]);
        *largest = std::max(*largest, n);
        if (n >= need)
            *least = std::min(*least, n);
    }
}

} // namespace

// fio draws a filesize= range's sizes (get_rand_file_size) and cuts each to
// the smallest block size, so a draw under one block makes a file of no
// length, which gets no I/O while the others do (fsperf's filesize=10:1m
// bs=4k: 147456, 323584, 311296 and 937984 bytes; 1:8k leaves files of 0 and
// 4096).  fio refuses the clone only when its files together hold no block
// ("blocksize is larger than data set range"); a bigger block in one direction
// than any file holds fio runs and does nothing of, refused here as for size=.
// The zones are those of the least file that gets I/O.
void check_drawn_regions(const job_def &d, const plan_job &j)
{
    if (!filesize_range(j) || j.size_ppm || j.file_append || !j.filesize_min_bytes)
        return;
    for (uint32_t c = 0; c < j.nr_clones; c++) {
        const plan_clone &pc = j.clones[c];
        std::string whose = j.nr_clones > 1 ? "clone " + std::to_string(c + 1) + "'s " : "its ";
        uint64_t largest, least;
        if (!pc.nr_files)
            continue;	// a later clone whose names the first claimed: no file, no I/O (fill_files)
        for (int dd = 0; dd < PLAN_DDIR_NR; dd++) {
            bool by_align;
            uint64_t need = region_need(j, (plan_ddir)dd, &by_align);
            if (!plan_rw_has_ddir(j.rw, (plan_ddir)dd))
                continue;
            drawn_extremes(pc, need, &largest, &least);
            if (largest < need)
                fail(option_loc(d, "filesize"),
                     "job '" + job_name(d) + "': the largest region of " + whose + std::to_string(pc.nr_files) +
                         " files drawn from filesize=" + std::to_string(j.filesize_min_bytes) + "-" +
                         std::to_string(j.filesize_max_bytes) + " (" + std::to_string(largest) + " bytes) is " +
                         one_block(j, (plan_ddir)dd));
        }
        drawn_extremes(pc, zone_align(j), &largest, &least);
        if (j.random_distribution == PLAN_RAND_ZONED && plan_rw_is_random(j.rw) && !j.rand_zone_rule)
            check_zones(d, least);
    }
}

namespace {

// "a", "a or b", "a, b or c" from a space-separated list.
std::string owner_list(const std::string &engines)
{
    std::string s = engines;
    size_t last = s.rfind(' ');
    if (last != std::string::npos)
        s.replace(last, 1, " or ");
    for (size_t at = s.find(' '); at < last; at = s.find(' ', at + 2))
        s.replace(at, 1, ", ");
    return s;
}

// Engine options belong to their engines: fio rejects uncached= under psync as an
// unknown option, so a job that sets one for another engine gets an error, not a
// silently ignored flag.  What a [global] set under its own engine is not the
// job's when the job picks an engine of another table (the planner's
// settle_engine_options put those back to their defaults, as fio does).
void check_engine_options(const job_def &d)
{
    std::string eng = plan_ioengine_name(d.spec.pj.ioengine);
    for (const engine_field &f : engine_fields())
        if (f.set(d.spec) && option_foreign_to(*find_option(f.name), eng.c_str()))
            fail(option_loc(d, f.name), "job '" + job_name(d) + "': " + foreign_engine_option(*find_option(f.name),
                                                                                             d.spec.pj.ioengine));
    check_remote_options(d);
    // Only options written in the job's own section: fio's e4defrag2.fio sets donorname
    // in [global] and runs a libaio job under it, which fio accepts.  This also
    // refuses hipri=0 or nowait=0 under psync, which the check above (values
    // set) lets by and fio calls a bad option.
    for (const std::string &name : d.spec.engine_opts_set) {
        const option *o = find_option(name);
        bool own = std::any_of(d.spec.echo.begin(), d.spec.echo.end(), [&](const entry &en) {
            const option *eo = find_option(en.key);
            return eo == o;
        });
        if (o && own && option_foreign_to(*o, eng.c_str()))
            fail(option_loc(d, name.c_str()), "job '" + job_name(d) + "': " + foreign_engine_option(*o, d.spec.pj.ioengine));
    }
}

} // namespace

std::string foreign_engine_option(const option &o, plan_ioengine e)
{
    std::string of = o.engines;
    std::replace(of.begin(), of.end(), ' ', ',');
    if (engine_field_of(o.name))	/* the options several engines read: "a or b" */
        of = owner_list(o.engines);
    return std::string(o.name) + " is an option of ioengine=" + of + ", not of ioengine=" + plan_ioengine_name(e);
}

namespace {

// fio's cmdprio modes exclude each other (engines/cmdprio.c fio_cmdprio_init);
// fio finds it when the engine starts, here at cmdprio_bssplit's position.
void check_cmdprio(const job_def &d)
{
    const plan_job &j = d.spec.pj;
    if (j.cmdprio_bssplit && (j.cmdprio[0].pct || j.cmdprio[1].pct))
        fail(option_loc(d, "cmdprio_bssplit"), "job '" + job_name(d) +
                                                   "': cmdprio_percentage and cmdprio_bssplit are mutually exclusive");
}

// fio 3.33 (init.c fixup_options) refuses zonesize= unless zonemode=strided, and
// zonemode=strided without a zonesize=; so does ioplan, naming the job.
void check_zone_mode(const job_def &d)
{
    bool sized = d.spec.pj.zone_size_bytes != 0;
    if (sized && !d.spec.zone_strided)
        fail(option_loc(d, "zonesize"),
             "job '" + job_name(d) + "': zonesize= needs zonemode=strided (fio: \"--zonemode=none and "
                                               "--zonesize are not compatible\")");
    if (!sized && d.spec.zone_strided)
        fail(option_loc(d, "zonemode"), "job '" + job_name(d) + "': zonemode=strided needs a zonesize=");
}

// fio 3.33 (init.c): "block error histogram only available with a single file per job".
void check_block_error_hist(const job_def &d)
{
    if (!d.spec.pj.block_error_hist)
        return;	// the paths of a million-file job are not built for nothing
    size_t n = clone_paths(d, d.section, 0).size();
    if (n != 1)
        fail(option_loc(d, "block_error_percentiles"),
             "job '" + job_name(d) + "': block_error_percentiles needs a single file per job, not " +
                           std::to_string(n));
}

// fio 3.33 (init.c fixup_options): a job is paced in bytes or in I/Os, not both
// ("rate and rate_iops are mutually exclusive", so are rate_min and
// rate_iops_min, whatever the directions), and a minimum above the pace the job
// keeps can only fail it ("minimum rate exceeds rate").
void check_rates(const job_def &d)
{
    const plan_job &j = d.spec.pj;
    bool bytes = false, iops = false, min_bytes = false, min_iops = false;
    for (int k = 0; k < PLAN_DDIR_NR; k++) {
        bytes = bytes || j.rate_bytes_per_s[k];
        iops = iops || j.rate_iops[k];
        min_bytes = min_bytes || j.rate_min_bytes_per_s[k];
        min_iops = min_iops || j.rate_iops_min[k];
    }
    if (bytes && iops)
        fail(option_loc(d, "rate_iops"), "job '" + job_name(d) + "': rate and rate_iops are mutually exclusive");
    if (min_bytes && min_iops)
        fail(option_loc(d, "rate_iops_min"),
             "job '" + job_name(d) + "': rate_min and rate_iops_min are mutually exclusive");
    // A minimum above the pace it must keep: "rate_min=2097152 is above rate=1048576 for reads".
    auto over = [&d](const char *min_key, uint64_t min, const char *key, uint64_t pace, int k, const char *unit) {
        if (pace && pace < min)
            fail(option_loc(d, min_key), "job '" + job_name(d) + "': " + min_key + "=" + std::to_string(min) +
                                             " is above " + key + "=" + std::to_string(pace) + " for " +
                                             plan_ddir_name((plan_ddir)k) + "s" + unit +
                                             ": the job could never keep it");
    };
    for (int k = 0; k < PLAN_DDIR_NR; k++) {
        over("rate_min", j.rate_min_bytes_per_s[k], "rate", j.rate_bytes_per_s[k], k, " (bytes a second)");
        over("rate_iops_min", j.rate_iops_min[k], "rate_iops", j.rate_iops[k], k, "");
    }
}

} // namespace

void check_job(const job_def &d)
{
    check_regions(d);
    check_engine_options(d);
    check_cmdprio(d);
    check_zone_mode(d);
    check_block_error_hist(d);
    check_rates(d);
}

} // namespace parser

// parser/options.cpp - the option table (data; exempt from the file-length rule).
//
// Each entry names its fields (the opt builder in options.hpp), one per line, so
// an entry reads without the struct beside it; a choice carries the value its
// applier stores, so adding an option or a choice is one entry here.
// Order matters in one place only: kb_base comes first so that size defaults
// are parsed under it.  Appliers are one-liners over parser/convert.hpp helpers;
// the longer ones are in parser/compound_options.cpp.
#include "parser/options.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <strings.h>
#include <unistd.h>

#include "parser/compound_options.hpp"
#include "parser/cmdprio.hpp"

namespace parser {

#define A(...) [](job_spec &j, const option &o, const std::string &v) { (void)j; (void)o; (void)v; __VA_ARGS__; }
#define U32(x) ((uint32_t)(x))
#define FOR_DDIR(stmt) for_each_ddir(o, v, [&](int d, const std::string &s) { stmt; })

static const char *const CAT_JOB = "job", *const CAT_FILES = "files", *const CAT_PATTERN = "pattern",
                         *const CAT_ENGINE = "engine", *const CAT_RATE = "rate", *const CAT_TIME = "time",
                         *const CAT_BUF = "buffers", *const CAT_VERIFY = "verify", *const CAT_STATS = "stats",
                         *const CAT_SAFETY = "safety", *const CAT_REPEAT = "repeat";

// ioengine='s choices: the engine list (engine/plan_ioengines.h), in its order.
static std::vector<opt_choice> ioengine_choices()
{
#define IOENGINE_CHOICE(token, suffix, help, opts) {#token, help, PLAN_IOENGINE_##suffix},
    return {PLAN_IOENGINES(IOENGINE_CHOICE)};
#undef IOENGINE_CHOICE
}

static void set_bs_fixed(job_spec &j, const option &o, const std::string &v)
{
    std::string t = trim(v);
    for_each_ddir(o, t, [&](int d, const std::string &s) {
        uint64_t b = size_in(j, o, s);
        // fio's bsrange=/bssplit= sizes outrank bs= in either order (bs= only fills a minimum left 0).
        if (j.bs_range_set[d])
            return;
        j.pj.bs[d].min_bytes = j.pj.bs[d].max_bytes = b;
        j.pj.bs[d].nr_split = 0;
    });
}

static void set_bsrange(job_spec &j, const option &o, const std::string &v)
{
    for_each_ddir(o, v, [&](int d, const std::string &s) {
        auto r = parse_size_range(s, j.kb_base);
        if (r.first == 0)
            throw value_error("bsrange minimum must be above 0");
        j.pj.bs[d].min_bytes = r.first;
        j.pj.bs[d].max_bytes = r.second;
        j.pj.bs[d].nr_split = 0;
        j.bs_range_set[d] = true;
    });
}

static void set_startdelay(job_spec &j, const option &o, const std::string &v)
{
    std::string t = trim(v);
    size_t dash = t.find('-');
    j.pj.startdelay_min_ns = time_in(o, t.substr(0, dash));
    j.pj.startdelay_max_ns = dash == std::string::npos ? j.pj.startdelay_min_ns : time_in(o, t.substr(dash + 1));
    if (j.pj.startdelay_max_ns < j.pj.startdelay_min_ns)
        std::swap(j.pj.startdelay_min_ns, j.pj.startdelay_max_ns);
}

static void set_filesize(job_spec &j, const option &o, const std::string &v)
{
    auto r = parse_size_range(v, j.kb_base);
    if (r.first == 0)
        throw value_error("filesize must be above 0");
    j.pj.filesize_min_bytes = r.first;
    j.pj.filesize_max_bytes = r.second;
}

static void set_continue_on_error(job_spec &j, const option &o, const std::string &v)
{
    j.pj.continue_on_error = U32(choice_of(o, v));
}

static void set_verify(job_spec &j, const option &o, const std::string &v)
{
    if (!strcasecmp(trim(v).c_str(), "none"))
        throw value_error("verify=none is refused by fio 3.33, which drops the job; write verify=0 for no "
                          "verification");
    j.pj.verify = (enum plan_verify)choice_of(o, trim(v));
    j.verify_set = true;
}

// fio: the pattern fills every write; without verify= it is what is checked, after a header.
static void set_verify_pattern(job_spec &j, const option &o, const std::string &v)
{
    std::vector<uint32_t> at;
    j.verify_pattern = j.pattern = parse_pattern(v, &at);
    if (at.size() > PLAN_VERIFY_OFFSET_FMTS)
        throw value_error("more than " + std::to_string(PLAN_VERIFY_OFFSET_FMTS) + " %o in one pattern");
    j.pj.nr_verify_pattern_offsets = U32(at.size());
    std::copy(at.begin(), at.end(), j.pj.verify_pattern_offset_at);
    j.pj.buffer_fill = PLAN_BUF_PATTERN;
    if (!j.verify_set)
        j.pj.verify = PLAN_VERIFY_PATTERN_HDR;
}

// fio 3.33's exitall is a callback that ignores its value (str_exitall_cb):
// exitall=0 turns it on there, so a 0 is refused rather than read as off.
static void set_exitall(job_spec &j, const option &o, const std::string &v)
{
    if (!flag_value(o, v))
        throw value_error("exitall off would be exitall on in fio 3.33, whose exitall takes no value (any value, "
                          "0 too, sets it); leave exitall out to keep it off");
    j.pj.exitall = true;
}

static void set_gtod_reduce(job_spec &j, const option &o, const std::string &v)
{
    // fio's str_gtod_reduce_cb: disable_bw too (the per-I/O bw and iops log lines go), and
    // no percentiles, which a later disable_clat=0 (say) does not bring back.
    if (flag_value(o, v)) {
        j.pj.disable_lat = j.pj.disable_clat = j.pj.disable_slat = j.pj.disable_bw = true;
        j.pj.clat_percentiles = j.pj.lat_percentiles = j.pj.slat_percentiles = false;
    }
}

// fio's str_size_cb leaves a percentage given before an absolute size in place
// ([global] size=50%, then size=256k in the job, or --size=50% on the command line),
// and its setup then takes that share of the size: 128k.  ioplan reads the size
// written last; the report says fio's reading.
static void set_size(job_spec &j, const option &o, const std::string &v)
{
    uint32_t before = j.pj.size_ppm;
    size_pct_or_zones(j, o, v, job_spec::NZ_SIZE, &j.pj.size_bytes, &j.pj.size_ppm, PCT_SIZE);
    if (!before || before >= 1000000 || j.pj.size_ppm || !j.pj.size_bytes)
        return;
    char pct[32];
    snprintf(pct, sizeof(pct), "%g%%", before / 10000.0);
    note_reading(std::string("fio 3.33 keeps the size=") + pct + " given before it and runs " + pct + " of " +
                 trim(v) + "; ioplan runs " + trim(v) + " (give the size alone for a value both read alike)");
}

static void set_pattern(job_spec &j, const option &o, const std::string &v)
{
    j.pattern = parse_pattern(v);
    j.pj.buffer_fill = PLAN_BUF_PATTERN;
}

// fio's mem=TYPE[:FILE]: for the mmap types FILE backs the buffers (fio creates
// it and unlinks it at the end, or resizes one that was there and keeps it);
// after another type fio ignores it.  Every type is ioplan's same aligned
// private memory, so FILE is neither made, changed nor removed.
static void set_mem(job_spec &, const option &o, const std::string &v)
{
    size_t colon = v.find(':');
    choice_of(o, v.substr(0, colon));
    if (colon != std::string::npos && colon + 1 < v.size())
        note_reading("'" + v.substr(colon + 1) + "' is not used: ioplan's buffers are its own private memory, and it "
                     "neither creates, changes nor removes that file (fio backs mmap buffers with it, and unlinks it when it "
                     "made it)");
}

// fio adds iomem_align to a page-aligned buffer's start: a multiple of the page
// size leaves every buffer page-aligned, as ioplan's always are; another value
// would put buffers off a page boundary, which ioplan does not do.
static void set_iomem_align(job_spec &j, const option &o, const std::string &v)
{
    uint64_t a = size_in(j, o, v), page = (uint64_t)sysconf(_SC_PAGESIZE);
    if (a % page)
        throw value_error("iomem_align=" + trim(v) + " would start buffers off a page boundary, which ioplan does "
                          "not do (a multiple of the page size, " + std::to_string(page) + ", is taken: its buffers "
                          "are page-aligned)");
}

static void set_numjobs(job_spec &j, const option &o, const std::string &v)
{
    j.numjobs = U32(int_in(o, v));
}

// fio's TYPE:N (file_service_nr): N I/Os to a file before the next pick; N is
// read as atoi reads it, so 0 keeps one file for good, as in fio.  A skewed
// type's postfix is its law's parameter instead, and a centre: zipf:1.2:0.5.
static void set_file_service(job_spec &j, const option &o, const std::string &v)
{
    std::vector<std::string> parts = split(trim(v), ':');
    auto kind = (enum plan_file_service)choice_of(o, parts[0]);
    j.pj.file_service = kind;
    j.pj.file_service_extra = 0;
    j.pj.file_service_center = -1;
    if (kind <= PLAN_FILE_SERVICE_RANDOM) {
        size_t colon = v.find(':');
        uint32_t n = colon == std::string::npos ? 1 : (uint32_t)std::atoi(v.substr(colon + 1).c_str());
        j.pj.file_service_extra = n - 1;
        return;
    }
    // fio's defaults when no parameter is given (FIO_DEF_ZIPF, FIO_DEF_PARETO, a deviation of 0).
    double p = kind == PLAN_FILE_SERVICE_ZIPF ? 1.1 : kind == PLAN_FILE_SERVICE_PARETO ? 0.2 : 0.0;
    if (parts.size() > 3)
        throw value_error("file_service_type=" + parts[0] + " takes a parameter and a centre at most");
    if (parts.size() >= 2)
        p = parse_float(parts[1]);
    if (parts.size() == 3)
        j.pj.file_service_center = parse_float(parts[2]);
    if (parts.size() == 3 && !(j.pj.file_service_center >= 0 && j.pj.file_service_center <= 1))
        throw value_error("file_service_type centre must be within 0..1");
    if (kind == PLAN_FILE_SERVICE_ZIPF && (p == 1.0 || p < 0))
        throw value_error("zipf theta must be 0 or more and not 1.0");
    if (kind == PLAN_FILE_SERVICE_PARETO && !(p > 0 && p < 1))
        throw value_error("pareto h must be within 0..1 (exclusive)");
    if (kind == PLAN_FILE_SERVICE_NORMAL && !(p >= 0 && p < 100))
        throw value_error("normal deviation must be within 0..100 (percent of the files, 100 excluded)");
    j.pj.file_service_param = p;
}

static void set_rate_process(job_spec &j, const option &o, const std::string &v)
{
    j.pj.rate_process = (enum plan_rate_process)choice_of(o, v);
}

// replay_skip=read,write,trim,sync: which kinds of trace I/O a replay leaves out.
static uint32_t replay_skip_mask(const std::string &v)
{
    static const char *const kinds[] = {"read", "write", "trim", "sync"};
    uint32_t mask = 0;
    size_t pos = 0;
    std::string t = trim(v);
    while (pos <= t.size()) {
        size_t comma = t.find(',', pos);
        std::string item = trim(t.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        size_t k = 0;
        while (k < 4 && item != kinds[k])
            k++;
        if (k == 4)
            throw value_error("replay_skip: '" + item + "' is not one of read, write, trim, sync", pos);
        // sync: a trace's flushes of either kind (fio's blktrace has only the one).
        mask |= k == 3 ? 1u << PLAN_REPLAY_SYNC | 1u << PLAN_REPLAY_DATASYNC : 1u << k;
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    return mask;
}

// merge_blktrace_scalars / _iters: a ':' list, one entry per read_iolog file.  fio
// reads floats and keeps their integer part; an entry below 1 would zero a trace's
// times or drop it, so it is refused (fio would silently end its list there).
static uint32_t merge_list(const std::string &v, const char *name, int32_t *out)
{
    std::vector<std::string> items = split(trim(v), ':');
    if (items.size() > PLAN_MERGE_MAX)
        throw value_error(std::string(name) + " has more than " + std::to_string(PLAN_MERGE_MAX) + " entries");
    size_t pos = 0;
    for (size_t i = 0; i < items.size(); i++) {
        double x = parse_float(items[i]);
        if (!(x >= 1 && x < 2147483648.0))
            throw value_error(std::string(name) + ": '" + trim(items[i]) + "' is not a number from 1 up", pos);
        out[i] = (int32_t)x;
        pos += items[i].size() + 1;
    }
    return (uint32_t)items.size();
}

// fio options ioplan knows and refuses: each reason completes "option 'NAME' ...",
// so a job that uses one is told why instead of "unknown option".
static const char *const WHY_NEWER =
    "is not supported (an fio option newer than 3.33: steady state is sampled once a second, as fio 3.33 does)";
static const char *const WHY_DEPRECATED =
    "is deprecated (fio 3.33 refuses it too)";
static const char *const WHY_PLACEMENT =
    "is not supported (scheduling and NUMA placement)";
static const char *const WHY_THREADS =
    "is not supported (ioplan's clones are threads of one process: no per-job user, cgroup or file lock)";
static const char *const WHY_ASYNC_VERIFY =
    "is not supported (asynchronous verification)";
static const char *const WHY_ZONED =
    "is not supported (zoned block devices)";
static const char *const WHY_UNSUPPORTED =
    "is not supported";
static const char *const WHY_PROFILE =
    "is an fio profile option (profiles are not supported)";
static const char *const WHY_ENGINE =
    "is an option of an ioengine ioplan does not support";

// A refused fio option's row: its name and why (options() leaves it out).
static opt no(const char *name, const char *why)
{
    return opt(name, opt_type::string, "refused").refused(why);
}

static const std::vector<option> core_table = {
    // ---- job control ------------------------------------------------------------
    opt("kb_base", opt_type::choice, CAT_STATS)
        .fio_prio(1)
        .def("1024")
        .choices({
            {"1024", "k = 1024 (IEC meaning of k, m, g)", 1024},
            {"1000", "k = 1000 (SI)", 1000},
        })
        .help("Base of the k, m, g suffixes in input and of the units in output.")
        .apply(A(j.kb_base = j.pj.kb_base = U32(choice_of(o, v)))),
    opt("name", opt_type::string, CAT_JOB)
        .help("Job name as displayed (the section name by default); in [global] it names no job, as in fio.")
        .apply(A(j.name = trim(v); if (j.name.empty()) throw value_error("empty job name"))),
    opt("description", opt_type::string, CAT_JOB)
        .help("Free text shown with the job's results.")
        .apply(A(j.description = trim(v))),
    opt("numjobs", opt_type::integer, CAT_JOB)
        .def("1")
        .range(1, 65536)
        .help("Number of clones (threads) of this job, each with its own files unless filename= is set.")
        .apply(set_numjobs),
    opt("loops", opt_type::integer, CAT_JOB)
        .def("1")
        .range(0, 1e9)
        .help("Passes over the region (0 is one, as fio); at iodepth>1 each completes its I/Os before the next starts, as fio's.")
        .apply(A(j.pj.loops = std::max<uint32_t>(1, U32(int_in(o, v))))),
    opt("runtime", opt_type::time, CAT_TIME)
        .aliases({"timeout"})
        .unit("s")
        .def("0")
        .range(0, 1e9)
        .help("Stop the measured window after this long (0: when the I/O amount is done).")
        .apply(A(j.pj.runtime_ns = time_in(o, v))),
    opt("time_based", opt_type::flag, CAT_TIME)
        .def("0")
        .help("Run for runtime=, looping over the region.")
        .apply(A(j.pj.time_based = flag_value(o, v))),
    opt("ramp_time", opt_type::time, CAT_TIME)
        .unit("s")
        .def("0")
        .range(0, 1e9)
        .help("Warm-up before the measured window: not reported, but its I/O counts toward size= (a job done inside it reports its I/O, without latencies).")
        .apply(A(j.pj.ramp_time_ns = time_in(o, v))),
    opt("cooldown", opt_type::time, CAT_TIME)
        .unit("s")
        .def("0")
        .range(0, 1e9)
        .help("Keep running this long after the measured window, not counted (DISKSPD -C).")
        .apply(A(j.pj.cooldown_ns = time_in(o, v)))
        .ioplan_only(),
    // ---- steady state (fio's steadystate.c; engine/steadystate.h) ----
    opt("steadystate", opt_type::choice, CAT_TIME)
        .aliases({"ss"})
        .def("iops_slope:0.01%")
        .choices({
            {"iops", "iops:LIMIT[%]: every IOPS sample of the window within LIMIT (or LIMIT% of the mean) of the mean", PLAN_SS_IOPS},
            {"iops_slope", "iops_slope:LIMIT[%]: least-squares slope of the IOPS samples below LIMIT (or LIMIT% of the mean)", PLAN_SS_IOPS | PLAN_SS_SLOPE},
            {"bw", "bw:LIMIT[%]: every bandwidth sample within LIMIT bytes/s (size suffixes) or LIMIT% of the mean", PLAN_SS_BW},
            {"bw_slope", "bw_slope:LIMIT[%]: least-squares slope of the bandwidth samples below LIMIT or LIMIT%", PLAN_SS_BW | PLAN_SS_SLOPE},
        })
        .help("Criterion and limit of steady state: the job ends once the last steadystate_duration of "
              "per-second samples meets it (with group_reporting, the group's summed samples).")
        .apply(set_steadystate),
    opt("steadystate_duration", opt_type::time, CAT_TIME)
        .aliases({"ss_dur"})
        .unit("s")
        .def("0")
        .range(0, 1e6)
        .help("Window of steady-state samples, one per second (whole seconds); 0: no steady-state detection.")
        .apply(A(j.pj.ss_dur_s = U32(time_in(o, v) / 1000000000ull))),
    opt("steadystate_ramp_time", opt_type::time, CAT_TIME)
        .aliases({"ss_ramp"})
        .unit("s")
        .def("0")
        .range(0, 1e9)
        .help("Take no steady-state sample before this long after the job starts (the first comes 1 s after it, as fio).")
        .apply(A(j.pj.ss_ramp_ns = time_in(o, v))),
    opt("startdelay", opt_type::time, CAT_TIME)
        .unit("s")
        .def("0")
        .range(0, 1e9)
        .help("Delay before the job starts; lo-hi picks one per clone.")
        .apply(set_startdelay),
    opt("stonewall", opt_type::flag, CAT_JOB)
        .aliases({"wait_for_previous"})
        .def("0")
        .help("Wait for every earlier job to finish, and start a new reporting group.")
        .apply(A(j.pj.stonewall = flag_value(o, v))),
    opt("new_group", opt_type::flag, CAT_JOB)
        .def("0")
        .help("Start a new reporting group (no barrier).")
        .apply(A(j.pj.new_group = flag_value(o, v))),
    opt("wait_for", opt_type::string, CAT_JOB)
        .help("Start only after the named earlier job has finished.")
        .apply(A(j.wait_for = trim(v))),
    opt("exitall", opt_type::flag, CAT_JOB)
        .help("Set in any job, for the whole run, as fio's: when any clone ends, stop the other jobs of its "
              "group (or those its job's exit_what names). Off unless given; exitall=0 is refused (fio 3.33 "
              "sets it whatever the value).")
        .apply(set_exitall),
    opt("thread", opt_type::flag, CAT_JOB)
        .def("0")
        .help("Accepted for fio compatibility: ioplan always runs clones as threads; the normal output's "
              "banner counts threads and processes by it, as fio's does.")
        .apply(A(j.pj.thread = flag_value(o, v))),
    opt("threads", opt_type::integer, CAT_JOB)
        .help("Accepted for fio compatibility: fio's tiobench profile option, without effect unless a profile runs (none does in ioplan).")
        .apply(A(parse_int(v))),
    opt("group_reporting", opt_type::flag, CAT_STATS)
        .def("0")
        .help("Report each group as one merged job.")
        .apply(A(j.pj.group_reporting = flag_value(o, v))),
    opt("unified_rw_reporting", opt_type::choice, CAT_STATS)
        .def("none")
        .choices({
            {"none", "report each direction on its own", PLAN_UNIFIED_NONE},
            {"mixed", "report reads, writes and trims as one merged \"mixed\" direction", PLAN_UNIFIED_MIXED},
            {"both", "report each direction, then the merged \"mixed\" one", PLAN_UNIFIED_BOTH},
            {"0", "same as none", PLAN_UNIFIED_NONE},
            {"1", "same as mixed", PLAN_UNIFIED_MIXED},
            {"2", "same as both", PLAN_UNIFIED_BOTH},
        })
        .help("Report the directions separately, merged into one \"mixed\" direction, or both.")
        .apply(A(j.pj.unified_rw_reporting = (enum plan_unified)choice_of(o, v))),
    opt("create_only", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Lay out the files, then stop.")
        .apply(A(j.pj.create_only = flag_value(o, v))),
    opt("stall_timeout", opt_type::time, CAT_SAFETY)
        .unit("s")
        .def("0")
        .range(0, 1e6)
        .help("Report a clone that completes no I/O for this long (0: off).")
        .apply(A(j.pj.stall_timeout_ns = time_in(o, v)))
        .ioplan_only(),
    opt("io_trace", opt_type::integer, CAT_STATS)
        .def("0")
        .range(0, PLAN_IO_TRACE_TOTAL_MAX)
        .help("Record the first N I/Os of each clone (time, offset, size, latency) in the results; "
              "a run keeps at most 262144 records over all clones and repeats.")
        .apply(A(j.pj.io_trace_max = (uint64_t)int_in(o, v)))
        .ioplan_only(),

    // ---- repetition (CrystalDiskMark) -------------------------------------------------
    opt("repeat", opt_type::integer, CAT_REPEAT)
        .def("1")
        .range(1, 1000)
        .help("Measured runs of the job's group.")
        .apply(A(j.pj.repeat = U32(int_in(o, v))))
        .ioplan_only(),
    opt("repeat_discard", opt_type::integer, CAT_REPEAT)
        .def("0")
        .range(0, 1000)
        .help("Extra runs first, not counted (warm-up runs).")
        .apply(A(j.pj.repeat_discard = U32(int_in(o, v))))
        .ioplan_only(),
    opt("repeat_aggregate", opt_type::choice, CAT_REPEAT)
        .def("max")
        .choices({
            {"max", "best run: highest throughput, lowest latency (CrystalDiskMark)", PLAN_AGG_MAX},
            {"median", "median run", PLAN_AGG_MEDIAN},
            {"mean", "mean of the runs", PLAN_AGG_MEAN},
            {"min", "worst run", PLAN_AGG_MIN},
        })
        .help("How the repeated runs are summarised (every run is kept in the results).")
        .apply(A(j.pj.repeat_aggregate = (enum plan_repeat_aggregate)choice_of(o, v)))
        .ioplan_only(),
    opt("repeat_pause", opt_type::time, CAT_REPEAT)
        .unit("s")
        .def("0")
        .range(0, 1e6)
        .help("Sleep between repeated runs.")
        .apply(A(j.pj.repeat_pause_ns = time_in(o, v)))
        .ioplan_only(),
    opt("group_pause", opt_type::time, CAT_REPEAT)
        .unit("s")
        .def("0")
        .range(0, 1e6)
        .help("Sleep before this job's group starts (CrystalDiskMark's interval between tests).")
        .apply(A(j.pj.group_pause_ns = time_in(o, v)))
        .ioplan_only(),

    // ---- files ---------------------------------------------------------------------
    opt("directory", opt_type::path_list, CAT_FILES)
        .help("Directory for the job's files (it must exist, as in fio); d1:d2 spreads clones over several.")
        .apply(A(j.directories = path_list(trim(v)))),
    opt("filename", opt_type::path_list, CAT_FILES)
        .fio_prio(-1) // fio parses it after directory=, and echoes it after the rest
        .help("Fixed file or device name(s), a:b, shared by every clone; overrides nrfiles. Each filename= "
              "adds to the names before it ([global]'s and the job's), under the directory= set before it, "
              "as fio: a job file section's own directory= wherever it is written; on the command line, "
              "--directory= given before.")
        .apply(A(add_files(j, path_list(trim(v))))),
    opt("file_append", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("I/O starts at each regular file's end instead of offset=, so writes append, as fio: its size "
              "when the job's files are set up, before any job runs and after the earlier jobs' (a file an "
              "earlier job lays out is appended to past that job's region); the append is one pass (fio's "
              "later passes start at the new end, where nothing fits). Writing into a file ioplan did "
              "not create still needs allow_existing_file_write=1.")
        .apply(A(j.pj.file_append = flag_value(o, v))),
    opt("opendir", opt_type::string, CAT_FILES)
        .help("Add every regular file under this directory (recursively, in name order; links not followed, "
              "empty files too: without size= the job runs past them, as fio) to the job's files, as fio; "
              "writing to them needs "
              "allow_existing_file_write=1 like any file ioplan did not create. fio prints "
              "'fio: opendir added N files' as it reads the section; run as fio, ioplan prints it where fio "
              "does (stdout, or the --output file), as ioplan it is a note in the report.")
        .apply(set_opendir),
    opt("filename_format", opt_type::string, CAT_FILES)
        .fio_prio(-1)
        .def("$jobname.$jobnum.$filenum")
        .help("Name of generated files, with $jobname, $jobnum (clone), $filenum, and under mpirun $rank and $host; $clientuid is empty, as fio's outside client/server mode. "
              "As fio, a clone after the first gets no file whose name the first clone of a job with numjobs>1 "
              "generated (a name without $jobnum): with no file left it does no I/O, no error.")
        .apply(A(j.filename_format = trim(v); if (j.filename_format.empty()) throw value_error("empty filename_format"))),
    opt("nrfiles", opt_type::integer, CAT_FILES)
        .aliases({"nr_files"})
        .def("1")
        .range(0, 1e6)
        .help("Files per clone; size= is split over them.")
        .apply(A(j.pj.nrfiles = U32(int_in(o, v)))),
    opt("openfiles", opt_type::integer, CAT_FILES)
        .def("0")
        .range(0, 1e6)
        .help("Files kept open at once (0: all).")
        .apply(A(j.pj.openfiles = U32(int_in(o, v)))),
    opt("file_service_type", opt_type::choice, CAT_FILES)
        .def("roundrobin")
        .choices({
            {"roundrobin", "each I/O to the next file", PLAN_FILE_SERVICE_ROUNDROBIN},
            {"sequential", "finish one file, then the next", PLAN_FILE_SERVICE_SEQUENTIAL},
            {"random", "a random file per I/O", PLAN_FILE_SERVICE_RANDOM},
            {"zipf", "files drawn by a zipf law (zipf:THETA[:CENTRE], default 1.1)", PLAN_FILE_SERVICE_ZIPF},
            {"pareto", "files drawn by a pareto law (pareto:H[:CENTRE], default 0.2)", PLAN_FILE_SERVICE_PARETO},
            {"normal", "files drawn by a normal law (normal:DEV%[:CENTRE], default 0)", PLAN_FILE_SERVICE_NORMAL},
            {"gauss", "the same as normal", PLAN_FILE_SERVICE_NORMAL},
        })
        .help("How a clone with several files picks the file for each I/O; TYPE:N picks a file for N I/Os at a time "
              "(roundrobin, sequential, random).  With zipf, pareto or normal a file whose pass is done starts over, "
              "so size= bounds the job, as in fio.")
        .apply(set_file_service),
    opt("size", opt_type::size_pct, CAT_FILES)
        .unit("bytes")
        .def("0")
        .help("Bytes of I/O region per clone, split over its files; or a percentage of the existing file/device "
              "(or of filesize=), a whole number from 1% to 100%.")
        .apply(set_size),
    opt("filesize", opt_type::size_range, CAT_FILES)
        .unit("bytes")
        .help("Size of each file (lo-hi: one size per file in range); the region runs from offset= to its end and size= is the amount, as in fio.")
        .apply(set_filesize),
    opt("io_size", opt_type::size_pct, CAT_FILES)
        .aliases({"io_limit"})
        .unit("bytes")
        .def("0")
        .help("Bytes to transfer (default: size), or a percentage of each file's region; past size=, further rounds of "
              "the region, as fio's (its read-backs count).")
        .apply(A(size_pct_or_zones(j, o, v, job_spec::NZ_IO_SIZE, &j.pj.io_size_bytes, &j.pj.io_size_ppm))),
    opt("offset", opt_type::size_pct, CAT_FILES)
        .aliases({"fileoffset"})
        .unit("bytes")
        .def("0")
        .help("Start of the I/O region in each file, or a percentage.")
        .apply(A(size_pct_or_zones(j, o, v, job_spec::NZ_OFFSET, &j.pj.offset_bytes, &j.pj.offset_ppm,
                                   PCT_ZERO_IS_NONE))),
    opt("offset_increment", opt_type::size_pct, CAT_FILES)
        .unit("bytes")
        .def("0")
        .help("Each clone's region starts this much after the previous clone's (DISKSPD -T), or this percentage "
              "of the file's size (of an existing file; rounded up to offset_align or the smallest block size).")
        .apply(A(size_pct_or_zones(j, o, v, job_spec::NZ_OFFSET_INCREMENT, &j.pj.offset_increment_bytes,
                                   &j.pj.offset_increment_ppm, PCT_ZERO_IS_NONE))),
    opt("rank_offset_increment", opt_type::size, CAT_FILES)
        .unit("bytes")
        .def("0")
        .help("Under mpirun: each rank's regions start this much after the previous rank's (rank R adds R times it "
              "to every clone's offset): IOR's segments in one shared file without ${IOPLAN_RANK} arithmetic.")
        .apply(A(j.rank_offset_increment = size_in(j, o, v)))
        .ioplan_only(),
    opt("number_ios", opt_type::integer, CAT_FILES)
        .def("0")
        .range(0, 1e18)
        .help("Stop after this many I/Os a loop (0: no limit; time_based runs past it).")
        .apply(A(j.pj.number_ios = (uint64_t)int_in(o, v))),
    opt("fill_device", opt_type::boolean, CAT_FILES)
        .aliases({"fill_fs"})
        .def("0")
        .help("Write until the device or file system is full; ENOSPC then ends the job, not as an error.")
        .apply(A(j.pj.fill_device = flag_value(o, v))),
    opt("allow_file_create", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Create missing files (0: a missing file is an error).")
        .apply(A(j.pj.allow_file_create = flag_value(o, v))),
    opt("create_fsync", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Make a file's data durable once its layout has written it: an fsync each, or for new files of at most 1 MiB on ext4, XFS, btrfs and f2fs one syncfs per batch of up to 256 (a file only sized for a write job is not synced, as fio's).")
        .apply(A(j.pj.create_fsync = flag_value(o, v))),
    opt("create_serialize", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Accepted for fio compatibility: ioplan always lays out files before any job starts (so the disk stats name the disk of a file in a directory the job's setup makes, where fio 3.33 with create_serialize=0 names none).")
        .apply(A(flag_value(o, v))),
    opt("create_on_open", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("As fio's, nothing is laid out before the job.  A job that only writes, with an engine that opens its files (psync, libaio, io_uring...), finds a missing one made empty (mode 0600, as fio's open makes it), so its writes grow it; an existing one is used as it is.  A job that reads still has its files laid out (fio's reads of the empty file fail with a sync engine and read nothing with libaio or io_uring).  filestat stats its files as they are, and one missing fails the job; filedelete's get no data (they are only sized: ioplan deletes only files carrying its mark, which the layout gives an empty one).  mmap's files, which it cannot extend, are still laid out.")
        .apply(A(j.pj.create_on_open = flag_value(o, v))),
    opt("unique_filename", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Accepted for fio compatibility (client/server names); no effect on a local run.")
        .apply(A(flag_value(o, v))),
    opt("fallocate", opt_type::choice, CAT_FILES)
        .def("native")
        .choices({
            {"native", "fallocate(), ignored where unsupported", PLAN_FALLOCATE_NATIVE},
            {"none", "no preallocation: a written file grows as the job writes it", PLAN_FALLOCATE_NONE},
            {"0", "same as none", PLAN_FALLOCATE_NONE},
            {"posix", "posix_fallocate()", PLAN_FALLOCATE_POSIX},
            {"1", "same as posix", PLAN_FALLOCATE_POSIX},
            {"keep", "fallocate() with FALLOC_FL_KEEP_SIZE: blocks reserved, the size grows as written", PLAN_FALLOCATE_KEEP},
            {"truncate", "ftruncate() to the size, nothing allocated (fio's verify tests pass it)", PLAN_FALLOCATE_TRUNCATE},
        })
        .help("How a write-only job's files are preallocated; only truncate (or the mmap engine) sets their size first, as fio's.")
        .apply(A(j.pj.fallocate = (enum plan_fallocate)choice_of(o, v))),
    opt("overwrite", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Write jobs lay out (fill) their files first.")
        .apply(A(j.pj.overwrite = flag_value(o, v))),
    opt("pre_read", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Read the files once into the page cache before the job.")
        .apply(A(j.pj.pre_read = flag_value(o, v))),
    opt("invalidate", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Drop the files' cached pages before the job and wherever a file starts over (a new loop, a full random map, a sequential wrap; as fio), so buffered reads measure the device.")
        .apply(A(j.pj.invalidate = flag_value(o, v))),
    opt("unlink", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Delete the job's files when it is done (only files ioplan created).")
        .apply(A(j.pj.unlink = flag_value(o, v))),
    opt("unlink_each_loop", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Before each loop after the first, delete the job's files and start each again empty, as fio (only files ioplan created that no other job uses; the last loop's stay).")
        .apply(A(j.pj.unlink_each_loop = flag_value(o, v))),
    opt("zonemode", opt_type::choice, CAT_PATTERN)
        .def("none")
        .choices({
            {"none", "no zones", 0},
            {"strided", "do zonesize bytes within zonerange, then move to the next zone (back to the region's start past the file's end)", 0},
        })
        .help("Zones from the region's start to the file's end: in an existing file or device larger than the region they go on past it, as fio's (size= then bounds the bytes moved, not where the zones go). strided needs zonesize=, and zonesize= needs strided, as in fio 3.33 (zoned block devices, zonemode=zbd, are not supported).")
        .apply(A(if (trim(v) == "zbd") throw value_error("zonemode=zbd (zoned block devices) is not supported");
          choice_of(o, v);
          // Only the planner's check needs the mode: zonesize= is what the engine zones by.
          j.zone_strided = !strcasecmp(trim(v).c_str(), "strided"))),
    opt("zonesize", opt_type::size, CAT_PATTERN)
        .unit("bytes")
        .def("0")
        .help("Bytes done in each zone before the next one (zonemode=strided).")
        .apply(A(j.pj.zone_size_bytes = size_in(j, o, v))),
    opt("zonerange", opt_type::size_pct, CAT_PATTERN)
        .unit("bytes")
        .def("0")
        .help("Distance between zone starts and the span I/O stays in (default: zonesize): sequential I/O goes round it again, random I/O draws only from it with a fresh random map every zonerange bytes; a percentage spreads zones over the region (1% = 100 samples).")
        .apply(A(size_or_pct(j, o, v, &j.pj.zone_range_bytes, &j.pj.zone_range_ppm))),
    opt("zoneskip", opt_type::size, CAT_PATTERN)
        .unit("bytes")
        .def("0")
        .help("Extra bytes skipped after each zone.")
        .apply(A(size_pct_or_zones(j, o, v, job_spec::NZ_ZONE_SKIP, &j.pj.zone_skip_bytes, nullptr))),

    // ---- safety ----------------------------------------------------------------------
    opt("allow_device_write", opt_type::string, CAT_SAFETY)
        .help("The one block device writes may go to (exact path); never one that is mounted, swap or RAID/LVM member.")
        .apply(A(j.allow_device_write = trim(v)))
        .ioplan_only(),
    opt("allow_existing_file_write", opt_type::boolean, CAT_SAFETY)
        .def("0")
        .help("Allow writing into existing regular files ioplan did not create (on when ioplan runs as fio); "
              "devices, mounts, swap and loop backing files stay refused.")
        .apply(A(j.allow_existing_file_write = flag_value(o, v)))
        .ioplan_only(),

    // ---- pattern ----------------------------------------------------------------------
    opt("rw", opt_type::choice, CAT_PATTERN)
        .aliases({"readwrite"})
        .def("read")
        .choices({
            {"read", "sequential reads", PLAN_RW_READ},
            {"write", "sequential writes", PLAN_RW_WRITE},
            {"trim", "sequential trims", PLAN_RW_TRIM},
            {"randread", "random reads", PLAN_RW_RANDREAD},
            {"randwrite", "random writes", PLAN_RW_RANDWRITE},
            {"randtrim", "random trims", PLAN_RW_RANDTRIM},
            {"rw", "sequential mixed reads and writes", PLAN_RW_RW},
            {"readwrite", "same as rw", PLAN_RW_RW},
            {"randrw", "random mixed reads and writes", PLAN_RW_RANDRW},
            {"trimwrite", "trim then write each block", PLAN_RW_TRIMWRITE},
            {"randtrimwrite", "random trim then write", PLAN_RW_RANDTRIMWRITE},
        })
        .help("Direction and order of the I/O; read:4k leaves a 4k gap after each sequential I/O.")
        .apply(set_rw),
    opt("rwmixread", opt_type::integer, CAT_PATTERN)
        .unit("%")
        .def("50")
        .range(0, 100)
        .help("Percentage of reads in mixed jobs.")
        .apply(A(j.pj.rwmixread_pct = U32(int_in(o, v)))),
    opt("rwmixwrite", opt_type::integer, CAT_PATTERN)
        .unit("%")
        .def("50")
        .range(0, 100)
        .help("Percentage of writes in mixed jobs.")
        .apply(A(j.pj.rwmixread_pct = 100 - U32(int_in(o, v)))),
    opt("bs", opt_type::size_ddir, CAT_PATTERN)
        .aliases({"blocksize"})
        .unit("bytes")
        .def("4k")
        .range(1, 1ull << 30)
        .help("Block size, or read,write,trim sizes.")
        .apply(set_bs_fixed),
    opt("bsrange", opt_type::size_range_ddir, CAT_PATTERN)
        .aliases({"blocksize_range"})
        .unit("bytes")
        .help("Block size range lo-hi (per direction with commas).")
        .apply(set_bsrange),
    opt("bssplit", opt_type::bssplit, CAT_PATTERN)
        .unit("bytes")
        .help("Weighted block sizes: 4k/30:64k/70 (per direction with commas).")
        .apply(set_bssplit),
    opt("ba", opt_type::size_ddir, CAT_PATTERN)
        .aliases({"blockalign"})
        .unit("bytes")
        .def("0")
        .help("Alignment of random offsets (default: the block size).")
        .apply(A(FOR_DDIR(j.pj.bs[d].align_bytes = size_in(j, o, s)))),
    opt("bs_unaligned", opt_type::flag, CAT_PATTERN)
        .aliases({"blocksize_unaligned"})
        .def("0")
        .help("Block sizes from a range need not be multiples of the minimum; a size no block divides is used to its end.")
        .apply(A(j.pj.bs_unaligned = flag_value(o, v))),
    opt("bs_is_seq_rand", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("bs=a,b means sequential,random instead of read,write: each I/O takes the size of its kind (a random job's sequential turns the first), and the random map still counts in each direction's own size, as fio's.")
        .apply(A(j.pj.bs_is_seq_rand = flag_value(o, v))),
    opt("percentage_random", opt_type::int_ddir, CAT_PATTERN)
        .unit("%")
        .def("100")
        .range(0, 100)
        .help("Share of random I/Os in a random job (the rest sequential).")
        .apply(A(FOR_DDIR(j.pj.percentage_random_pct[d] = U32(int_in(o, s))))),
    opt("random_distribution", opt_type::choice, CAT_PATTERN)
        .def("random")
        .choices({
            {"random", "uniform", PLAN_RAND_UNIFORM},
            {"zipf", "zipf[:theta[:center]] (theta 1.1 when not given, as fio)", PLAN_RAND_ZIPF},
            {"pareto", "pareto[:h[:center]] (h 0.2 when not given, as fio)", PLAN_RAND_PARETO},
            {"normal", "normal[:dev[:center]]: fio's bell (sd range/12) widened by a uniform dev% (0..99)", PLAN_RAND_NORMAL},
            {"zoned", "zoned:io%/range%:... (DISKSPD -rdpct)", PLAN_RAND_ZONED},
            {"zoned_abs", "zoned_abs:io%/bytes:... (DISKSPD -rdabs)", PLAN_RAND_ZONED},
        })
        .help("Distribution of random offsets; non-uniform ones imply norandommap. zipf, pareto and normal "
              "draw fio's offsets: one generator per file over ranges of the least of the read and write "
              "sizes, seeded from the file's name and the thread number (randrepeat=1), the offset first "
              "and a length that fits it; an offset past the region ends the pass, as in fio.")
        .apply(set_random_distribution),
    opt("zoned_ranges", opt_type::choice, CAT_PATTERN)
        .def("fio")
        .choices({
            {"fio", "fio's zones, one after the other: each lastb * range% / 100 blocks (zoned_abs: its bytes)", PLAN_ZONES_FIO},
            // zoned_abs's byte ranges make it PLAN_ZONES_DISKSPD_ABS once the job is read (finalize_zone_rule)
            {"diskspd", "DISKSPD's effective distribution of -rdpct/-rdabs (a blank last zoned_abs range: the rest)",
             PLAN_ZONES_DISKSPD_PCT},
        })
        .help("How random_distribution=zoned/zoned_abs zones become offset ranges. diskspd: as DISKSPD applies "
              "-rdpct and -rdabs to each file's region: percent bounds rounded down to blockalign, the last "
              "reaching the last aligned offset, ranges with no aligned offset giving their I/O to a neighbour; "
              "byte ranges cut at the region's end and those past it dropped, their I/O share with them. Needs "
              "one block size.")
        .apply(A(j.pj.rand_zone_rule = (enum plan_zone_rule)choice_of(o, v)))
        .ioplan_only(),
    opt("random_generator", opt_type::choice, CAT_PATTERN)
        .def("tausworthe")
        .choices({
            {"tausworthe", "accepted", 0},
            {"lfsr", "every block once per pass, even with norandommap", 1},
            {"tausworthe64", "fio's 64-bit generator for the same draws", 2},
        })
        .help("tausworthe: fio's generator and seeds where lengths vary or with norandommap, else a permutation (each block once per pass); tausworthe64: fio's 64-bit generator for those draws (block sizes, offsets, random file picks, file sizes); lfsr: each block once per pass even with norandommap.")
        .apply(A(j.pj.random_lfsr = choice_of(o, v) == 1; j.pj.random_tausworthe64 = choice_of(o, v) == 2)),
    opt("norandommap", opt_type::flag, CAT_PATTERN)
        .def("0")
        .help("Random offsets drawn independently (blocks may repeat).")
        .apply(A(j.pj.norandommap = flag_value(o, v))),
    opt("softrandommap", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("When a random map cannot be allocated, run without one, as fio: offsets drawn as with norandommap "
              "(blocks may repeat), with a note; 0: the job fails with ENOMEM. ioplan keeps a map (a bit a block) "
              "only where fio's draws need one (lengths that vary, sequential turns, a mix over several files) "
              "in files of up to 2^30 blocks; its other random jobs cover each block once a pass by a "
              "permutation that takes no memory, so there is nothing to fall back from.")
        .apply(A(j.pj.softrandommap = flag_value(o, v))),
    opt("randrepeat", opt_type::boolean, CAT_PATTERN)
        .def("1")
        .help("Same random sequence on every run.")
        .apply(A(j.pj.randrepeat = flag_value(o, v))),
    opt("allrandrepeat", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("Every generator repeats from run to run, even with randrepeat=0: fio's seeds (0xb1899bed x thread number + the generator's index) whatever randseed is.")
        .apply(A(j.allrandrepeat = flag_value(o, v))),
    opt("randseed", opt_type::integer, CAT_PATTERN)
        .def("0x89")
        .range(0, 1.8e19)
        .help("Seed of the random sequences: clone k of the job uses randseed + k (without randseed=, 0x89 + thread number - 1). "
              "As fio's, it turns randrepeat off: each loop goes on with the draws instead of repeating the first.")
        .apply(A(j.pj.randseed = (uint64_t)int_in(o, v); j.randseed_set = true)),
    opt("interlocked", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("Clones of a sequential job share one atomic next offset (DISKSPD -si).")
        .apply(A(j.pj.interlocked = flag_value(o, v)))
        .ioplan_only(),
    opt("sequential_parallel", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("Each of the iodepth outstanding I/Os follows its own sequential stream from the same start (DISKSPD -p).")
        .apply(A(j.pj.sequential_parallel = flag_value(o, v)))
        .ioplan_only(),
    opt("sequential_stride", opt_type::size, CAT_PATTERN)
        .unit("bytes")
        .def("0")
        .help("Step between sequential I/Os (0: the block size; DISKSPD -s<stride>).")
        .apply(A(j.pj.sequential_stride_bytes = size_in(j, o, v)))
        .ioplan_only(),

    // ---- engine --------------------------------------------------------------------------
    opt("ioengine", opt_type::choice, CAT_ENGINE)
        .def("psync")
        .choices(ioengine_choices())
        .help("How I/O is issued (a name starting aio or linuxaio is libaio, as in fio).")
        .apply(set_ioengine),
    opt("iodepth", opt_type::integer, CAT_ENGINE)
        .def("1")
        .range(1, 65536)
        .help("I/Os kept in flight per clone (async engines).")
        .apply(A(j.pj.iodepth = U32(int_in(o, v)))),
    opt("iodepth_batch", opt_type::integer, CAT_ENGINE)
        .aliases({"iodepth_batch_submit"})
        .def("1")
        .range(0, 65536)
        .help("I/Os submitted at once.")
        .apply(A(j.pj.iodepth_batch_submit = U32(int_in(o, v)))),
    opt("iodepth_batch_complete_min", opt_type::integer, CAT_ENGINE)
        .aliases({"iodepth_batch_complete"})
        .def("1")
        .range(0, 65536)
        .help("Completions waited for at once.")
        .apply(A(j.pj.iodepth_batch_complete_min = U32(int_in(o, v)))),
    opt("iodepth_batch_complete_max", opt_type::integer, CAT_ENGINE)
        .range(0, 65536)
        .help("Most completions reaped at once (default: iodepth_batch_complete_min, as fio).")
        .apply(A(j.pj.iodepth_batch_complete_max = U32(int_in(o, v)))),
    opt("iodepth_low", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(0, 65536)
        .help("Refill the queue when it drains to this depth (0: iodepth).")
        .apply(A(j.pj.iodepth_low = U32(int_in(o, v)))),
    opt("hipri", opt_type::flag, CAT_ENGINE)
        .def("0")
        .help("io_uring: polled completions; pvsync2: RWF_HIPRI.")
        .apply(A(j.pj.uring_hipri = flag_value(o, v))),
    opt("hipri_percentage", opt_type::integer, CAT_ENGINE)
        .range(0, 100)
        .help("pvsync2: percentage of I/Os that get RWF_HIPRI when hipri is set (default 100, as fio).")
        .apply(A(j.pj.hipri_percentage = U32(int_in(o, v)); j.hipri_percentage_set = true)),
    opt("uncached", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(0, 1)
        .help("pvsync2, io_uring: RWF_UNCACHED (fio's value 0x40) on buffered reads and writes.")
        .apply(A(j.pj.rwf_uncached = int_in(o, v) != 0)),
    opt("nowait", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("pvsync2, io_uring, libaio: RWF_NOWAIT (an I/O that would block fails with EAGAIN).")
        .apply(A(j.pj.rwf_nowait = flag_value(o, v))),
    opt("direct", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("O_DIRECT: bypass the page cache.")
        .apply(A(j.pj.direct = flag_value(o, v))),
    opt("atomic", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("fio 3.33's atomic I/O: O_DIRECT whatever direct= says (the O_ATOMIC bit fio adds is one Linux ignores).")
        .apply(A(j.atomic = flag_value(o, v))),
    opt("buffered", opt_type::boolean, CAT_ENGINE)
        .def("1")
        .help("The opposite of direct.")
        .apply(A(j.pj.direct = !flag_value(o, v))),
    opt("sync", opt_type::choice, CAT_ENGINE)
        .def("none")
        .choices({
            {"none", "no sync flag", PLAN_SYNC_NONE},
            {"0", "same as none", PLAN_SYNC_NONE},
            {"sync", "O_SYNC", PLAN_SYNC_SYNC},
            {"1", "same as sync", PLAN_SYNC_SYNC},
            {"dsync", "O_DSYNC", PLAN_SYNC_DSYNC},
        })
        .help("Open files with O_SYNC or O_DSYNC.")
        .apply(A(j.pj.sync_mode = (enum plan_sync_mode)choice_of(o, v))),
    opt("fsync", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(0, 1e9)
        .help("fsync after every N writes (0: never; rw=trimwrite makes none, as fio's turn of trim then write takes the sync's place).")
        .apply(A(j.pj.fsync_every = U32(int_in(o, v)))),
    opt("fdatasync", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(0, 1e9)
        .help("fdatasync after every N writes (0: never).")
        .apply(A(j.pj.fdatasync_every = U32(int_in(o, v)))),
    opt("sync_file_range", opt_type::string, CAT_ENGINE)
        .choices({
            {"wait_before", "SYNC_FILE_RANGE_WAIT_BEFORE: wait for the range's writeback already under way",
             PLAN_SFR_WAIT_BEFORE},
            {"write", "SYNC_FILE_RANGE_WRITE: start writeback of the range's dirty pages", PLAN_SFR_WRITE},
            {"wait_after", "SYNC_FILE_RANGE_WAIT_AFTER: wait for the range's writeback to end", PLAN_SFR_WAIT_AFTER},
        })
        .help("FLAG[,FLAG...][:N]: after every N writes issued (default 1; 0: never), sync_file_range() with these "
              "flags on each file's bytes written since its last sync, from the lowest offset to the highest end of "
              "the writes completed (before a file's first sync, from offset 0), as fio; nothing where none was "
              "written. Counted among the syncs. The flags add to those given before (a job's to its [global]'s), "
              "as fio's.")
        .apply(set_sync_file_range),
    opt("write_barrier", opt_type::integer, CAT_ENGINE)
        .def("0")
        .help("Accepted for fio compatibility: fio 3.33 makes every Nth write a barrier write only with its sg "
              "engine (IO_U_F_BARRIER), which ioplan does not have; with every engine ioplan has, fio accepts it "
              "and nothing changes, and so does ioplan.")
        .apply(A((void)int_in(o, v))),
    opt("end_fsync", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("fsync the files written to as each loop ends, in the runtime.")
        .apply(A(j.pj.end_fsync = flag_value(o, v))),
    opt("fsync_on_close", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("fsync each file written to as it closes and as each loop ends.")
        .apply(A(j.pj.fsync_on_close = flag_value(o, v))),
    opt("mem", opt_type::choice, CAT_BUF)
        .aliases({"iomem"})
        .def("malloc")
        .choices({
            {"malloc", "accepted", 0},
            {"shm", "accepted", 0},
            {"shmhuge", "accepted", 0},
            {"mmap", "accepted", 0},
            {"mmaphuge", "accepted", 0},
            {"mmapshared", "accepted", 0},
        })
        .help("Accepted for fio compatibility: ioplan always uses page-aligned private buffers.  fio's "
              "mem=mmap:FILE (mmaphuge, mmapshared) backs them with FILE; ioplan neither creates nor "
              "removes FILE.")
        .apply(set_mem),
    opt("iomem_align", opt_type::size, CAT_BUF)
        .aliases({"mem_align"})
        .unit("bytes")
        .def("0")
        .help("Offset of the I/O buffers from a page boundary (fio's); ioplan's buffers are page-aligned, so only a multiple of the page size is taken.")
        .apply(set_iomem_align),
    opt("cpus_allowed", opt_type::cpu_list, CAT_ENGINE)
        .help("CPUs the job's threads may run on (0-3,6; CPUs 0 to 1023).  A CPU this machine lacks "
              "is refused before any I/O, as fio refuses it.")
        .apply(A(j.pj.cpus_allowed = parse_cpu_list(trim(v)))),
    opt("cpus_allowed_policy", opt_type::choice, CAT_ENGINE)
        .fio_prio(1)
        .def("shared")
        .choices({
            {"shared", "every thread may use every allowed CPU", 0},
            {"split", "the run's k-th thread (every job's clones counted in order) runs on the k-th allowed CPU (round robin)", 1},
        })
        .help("How the job's threads share the allowed CPUs.")
        .apply(A(j.pj.cpus_allowed_split = choice_of(o, v))),
    opt("fadvise_hint", opt_type::choice, CAT_ENGINE)
        .def("1")
        .choices({
            {"0", "no hint", PLAN_FADVISE_NONE},
            {"1", "random for a random rw=, else sequential", PLAN_FADVISE_BY_RW},
            {"sequential", "sequential access (more readahead)", PLAN_FADVISE_SEQUENTIAL},
            {"random", "random access (no readahead)", PLAN_FADVISE_RANDOM},
        })
        .help("The access-pattern advice (posix_fadvise) given for each file when it is opened, as fio "
              "gives it: with buffered I/O, random advice turns readahead off, so a random read is one "
              "device read.")
        .apply(A(j.pj.fadvise_hint = static_cast<plan_fadvise>(choice_of(o, v)))),
    opt("buffer_fill", opt_type::choice, CAT_BUF)
        .def("random")
        .choices({
            {"random", "random data, varied per write", PLAN_BUF_RANDOM},
            {"zero", "zeros (zero_buffers)", PLAN_BUF_ZERO},
            {"pattern", "buffer_pattern", PLAN_BUF_PATTERN},
            {"random_once", "one random source reused (write_source_size)", PLAN_BUF_RANDOM_ONCE},
        })
        .help("What write buffers hold.")
        .apply(A(j.pj.buffer_fill = (enum plan_buffer_fill)choice_of(o, v)))
        .ioplan_only(),
    opt("nice", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(-20, 19)
        .help("Scheduling niceness of the job's threads.")
        .apply(A(j.pj.nice = (int32_t)int_in(o, v))),

    // ---- rate and think time ----------------------------------------------------------------
    opt("rate", opt_type::size_ddir, CAT_RATE)
        .unit("bytes/s")
        .def("0")
        .help("Bandwidth cap per clone (read,write,trim).")
        .apply(A(FOR_DDIR(j.pj.rate_bytes_per_s[d] = size_in(j, o, s)))),
    opt("rate_min", opt_type::size_ddir, CAT_RATE)
        .aliases({"ratemin"})
        .unit("bytes/s")
        .def("0")
        .help("Fail the job if bandwidth drops below this.")
        .apply(A(FOR_DDIR(j.pj.rate_min_bytes_per_s[d] = size_in(j, o, s)))),
    opt("rate_iops", opt_type::int_ddir, CAT_RATE)
        .unit("IOPS")
        .def("0")
        .range(0, 1e12)
        .help("IOPS cap per clone (read,write,trim); with a block size range, paced as bytes at the smallest "
              "block, as fio's.")
        .apply(A(FOR_DDIR(j.pj.rate_iops[d] = (uint64_t)int_in(o, s)))),
    opt("rate_iops_min", opt_type::int_ddir, CAT_RATE)
        .unit("IOPS")
        .def("0")
        .range(0, 1e12)
        .help("Fail the job if IOPS drop below this.")
        .apply(A(FOR_DDIR(j.pj.rate_iops_min[d] = (uint64_t)int_in(o, s)))),
    opt("rate_process", opt_type::choice, CAT_RATE)
        .def("linear")
        .choices({
            {"linear", "evenly spaced", PLAN_RATE_LINEAR},
            {"poisson", "exponential gaps", PLAN_RATE_POISSON},
        })
        .help("Arrival process of rate-limited I/O.")
        .apply(set_rate_process),
    opt("rate_cycle", opt_type::time, CAT_RATE)
        .aliases({"ratecycle"})
        .unit("ms")
        .def("1000")
        .range(1, 1e9)
        .help("Least time between rate_min checks, which judge the completions since the last one (after a 2 s settle, as fio).")
        .apply(A(j.pj.rate_cycle_ns = time_in(o, v))),
    opt("thinktime", opt_type::time, CAT_RATE)
        .unit("us")
        .def("0")
        .range(0, 1e12)
        .help("Pause after every thinktime_blocks I/Os.")
        .apply(A(j.pj.thinktime_ns = time_in(o, v))),
    opt("thinktime_spin", opt_type::time, CAT_RATE)
        .unit("us")
        .def("0")
        .range(0, 1e12)
        .help("Part of thinktime spent busy-waiting.")
        .apply(A(j.pj.thinktime_spin_ns = time_in(o, v))),
    opt("thinktime_blocks", opt_type::integer, CAT_RATE)
        .def("1")
        .range(0, 1e9)
        .help("I/Os between think times (0: a think after each I/O even when none completed since, as fio).")
        .apply(A(j.pj.thinktime_blocks = U32(int_in(o, v)); j.pj.thinktime_blocks_set = true)),

    // ---- buffers ------------------------------------------------------------------------------
    opt("zero_buffers", opt_type::flag, CAT_BUF)
        .def("0")
        .help("Write zeros; a file laid out for reading holds zeros too, as fio's (verify= other than null writes random data, as fio's).")
        .apply(A(if (flag_value(o, v)) j.pj.buffer_fill = PLAN_BUF_ZERO)),
    opt("refill_buffers", opt_type::flag, CAT_BUF)
        .def("0")
        .help("Fresh random data for every write.")
        .apply(A(j.pj.refill_buffers = flag_value(o, v))),
    opt("scramble_buffers", opt_type::boolean, CAT_BUF)
        .def("1")
        .help("Vary each write buffer cheaply (defeats dedupe).")
        .apply(A(j.pj.scramble_buffers = flag_value(o, v))),
    opt("buffer_compress_percentage", opt_type::integer, CAT_BUF)
        .unit("%")
        .def("0")
        .range(0, 100)
        .help("Make write data (and files laid out for reading) this compressible.")
        .apply(A(j.pj.buffer_compress_pct = U32(int_in(o, v)))),
    opt("buffer_compress_chunk", opt_type::size, CAT_BUF)
        .unit("bytes")
        .def("512")
        .range(0, 1e9)
        .help("Granularity of buffer_compress_percentage; 0: the smallest write size, as fio.")
        .apply(A(j.pj.buffer_compress_chunk_bytes = size_in(j, o, v))),
    opt("buffer_pattern", opt_type::pattern, CAT_BUF)
        .help("Fill write buffers with this pattern (0xhex, \"text\", number); files laid out for reading hold it "
              "too, restarted at every largest write, as fio's. In a job that also reads, every write is "
              "filled afresh (refill_buffers, as fio), so no read's data reaches a write.")
        .apply(set_pattern),
    opt("write_source_size", opt_type::size, CAT_BUF)
        .unit("bytes")
        .def("0")
        .range(0, 1ull << 34)
        .help("Take write data from one random source buffer of this size (DISKSPD -Z<size>); 0: off.")
        .apply(A(j.pj.write_source_bytes = size_in(j, o, v); if (j.pj.write_source_bytes) j.pj.buffer_fill = PLAN_BUF_RANDOM_ONCE))
        .ioplan_only(),

    // ---- verify -----------------------------------------------------------------------------
    // No "none": fio 3.33 refuses verify=none and drops the job (its "no" is 0).
    opt("verify", opt_type::choice, CAT_VERIFY)
        .def("0")
        .choices({
            {"0", "no verification", PLAN_VERIFY_NONE},
            {"md5", "MD5 of each block (OpenSSL)", PLAN_VERIFY_MD5},
            {"crc64", "CRC-64 (Jones polynomial, ISA-L)", PLAN_VERIFY_CRC64},
            {"crc32", "CRC-32 (0x04C11DB7, ISA-L)", PLAN_VERIFY_CRC32},
            {"crc32c", "CRC-32C (Castagnoli, ISA-L)", PLAN_VERIFY_CRC32C},
            {"crc32c-intel", "crc32c (fio's name for its SSE4.2 code; ISA-L picks it)", PLAN_VERIFY_CRC32C_INTEL},
            {"crc16", "CRC-16/ARC", PLAN_VERIFY_CRC16},
            {"crc7", "CRC-7/MMC", PLAN_VERIFY_CRC7},
            {"sha256", "SHA-256 (OpenSSL)", PLAN_VERIFY_SHA256},
            {"sha512", "SHA-512 (OpenSSL)", PLAN_VERIFY_SHA512},
            {"sha3-224", "SHA3-224 (OpenSSL)", PLAN_VERIFY_SHA3_224},
            {"sha3-256", "SHA3-256 (OpenSSL)", PLAN_VERIFY_SHA3_256},
            {"sha3-384", "SHA3-384 (OpenSSL)", PLAN_VERIFY_SHA3_384},
            {"sha3-512", "SHA3-512 (OpenSSL)", PLAN_VERIFY_SHA3_512},
            {"xxhash", "XXH32 seeded 1 (libxxhash)", PLAN_VERIFY_XXHASH},
            {"sha1", "SHA-1 (OpenSSL)", PLAN_VERIFY_SHA1},
            {"meta", "the block header alone (offset, length, seed, header crc), and verify_pattern if given", PLAN_VERIFY_META},
            {"pattern", "compare every byte against verify_pattern (no header)", PLAN_VERIFY_PATTERN},
            {"null", "read back, check nothing", PLAN_VERIFY_NULL},
        })
        .help("Check written data when it is read back: a header per block (fio's layout) and the method's digest of the data.")
        .apply(set_verify),
    opt("do_verify", opt_type::boolean, CAT_VERIFY)
        .def("1")
        .help("Read back and check after the write phase.")
        .apply(A(j.pj.do_verify = flag_value(o, v))),
    opt("verify_only", opt_type::flag, CAT_VERIFY)
        .def("0")
        .help("Only check data an earlier run wrote.")
        .apply(A(j.pj.verify_only = flag_value(o, v))),
    opt("verify_fatal", opt_type::boolean, CAT_VERIFY)
        .def("0")
        .help("Stop at the first mismatching chunk, also under continue_on_error=verify; without it, the job stops after the I/O that held one (its other chunks reported), as fio's.")
        .apply(A(j.pj.verify_fatal = flag_value(o, v))),
    // No default to parse: unset is the block size (0 in the plan), while a value given is at
    // least 80, twice the block header, as fio's minimum (fio: "min value out of range").
    opt("verify_interval", opt_type::size, CAT_VERIFY)
        .unit("bytes")
        .help("Bytes per checksum (unset: the block size), at least 80 (fio refuses less); as fio, at most the least write (or read, in a job that reads), and the gcd of the least and largest write where it does not divide both.")
        .apply(A(uint64_t iv = size_in(j, o, v);
                 if (iv < 80) throw value_error("verify_interval must be at least 80 bytes, twice the block "
                                                "header (fio refuses less); leave it unset for the block size");
                 j.pj.verify_interval_bytes = iv)),
    opt("verify_pattern", opt_type::pattern, CAT_VERIFY)
        .help("Pattern every write carries (%o: the block's offset); checked by verify=pattern and meta, and alone (after a header) without verify=.")
        .apply(set_verify_pattern),
    opt("verify_offset", opt_type::size, CAT_VERIFY)
        .unit("bytes")
        .def("0")
        .range(0, 1ull << 31)
        .help("Keep each block's header at this offset (swapped with the data there), as fio; 0, or at least 40, "
              "the header's size (fio refuses less).")
        .apply(A(uint64_t at = size_in(j, o, v);
                 if (at && at < 40) throw value_error("verify_offset must be 0 or at least 40, the size of the "
                                                      "block header it moves (fio refuses less)");
                 j.pj.verify_offset_bytes = U32(at))),
    opt("verify_backlog", opt_type::size, CAT_VERIFY)
        .def("0")
        .range(0, 1ull << 31)
        .help("Read back and check written I/Os whenever N of them are unchecked (a write over unchecked ones replaces them), the queue drained first (0: after the write phase); N takes fio's suffixes (1m: 1048576).")
        .apply(A(j.pj.verify_backlog = U32(size_in(j, o, v)))),
    opt("verify_backlog_batch", opt_type::integer, CAT_VERIFY)
        .def("0")
        .range(0, 1ull << 31)
        .help("Written I/Os a verify_backlog check reads back (0: verify_backlog's N); more than were unchecked: the next writes too.")
        .apply(A(j.pj.verify_backlog_batch = U32(int_in(o, v)))),
    opt("verify_dump", opt_type::boolean, CAT_VERIFY)
        .def("0")
        .help("Write a bad block to FILE.OFFSET.received (a bad header: .hdr_fail) and, for a digest or pattern that did not match, the block as written (fio's data again from its header's seed) to FILE.OFFSET.expected, as fio names them; one not written is the job's error.")
        .apply(A(j.pj.verify_dump = flag_value(o, v))),
    opt("verify_state_save", opt_type::boolean, CAT_VERIFY)
        .def("1")
        .help("When a verifying write job's thread ends (also when interrupted or triggered), write its last completed writes to local-JOB-N-verify.state in fio's format (N: the thread's index across all jobs), for a later verify_state_load=1 run. By default (as fio's) a file by that name ioplan did not write is left alone with a warning, and a state that cannot be written is a warning; given explicitly, the first refuses the run and the second fails the job.")
        .apply(A(j.pj.verify_state_save = flag_value(o, v); j.pj.verify_state_save_asked = true)),
    opt("verify_state_load", opt_type::boolean, CAT_VERIFY)
        .def("0")
        .help("verify_only reads the saved state file (fio's or ioplan's) and stops where fio stops, at the first write that never completed, so an interrupted run verifies clean.")
        .apply(A(j.pj.verify_state_load = flag_value(o, v))),
    opt("experimental_verify", opt_type::boolean, CAT_VERIFY)
        .def("0")
        .help("fio: verify by regenerating offsets instead of logging them. ioplan always reads back exactly the blocks written, from a bitmap: the same result.")
        .apply(A((void)flag_value(o, v))),
    opt("verify_async", opt_type::integer, CAT_VERIFY)
        .def("0")
        .range(0, 64)
        .help("Threads per clone that check the blocks read back, off the I/O thread (0: the I/O thread checks them).")
        .apply(A(j.pj.verify_async = U32(int_in(o, v)))),
    opt("verify_async_cpus", opt_type::cpu_list, CAT_VERIFY)
        .help("CPUs the verify_async threads run on (0-3,6), as cpus_allowed.")
        .apply(A(j.pj.verify_async_cpus = parse_cpu_list(trim(v)))),
    opt("trim_percentage", opt_type::integer, CAT_VERIFY)
        .def("0")
        .range(0, 100)
        .help("Percentage of a verifying job's written blocks it trims again (every trim_backlog writes), as fio.")
        .apply(A(j.pj.trim_percentage = U32(int_in(o, v)))),
    opt("trim_verify_zero", opt_type::boolean, CAT_VERIFY)
        .def("1")
        .help("The read-back checks that trimmed blocks read as zeroes (0: trimmed blocks are not read back).")
        .apply(A(j.pj.trim_verify_zero = flag_value(o, v))),
    opt("trim_backlog", opt_type::size, CAT_VERIFY)
        .def("0")
        .range(0, 1ull << 40)
        .help("Trim the blocks trim_percentage picked after every N writes (0: no trims, as fio).")
        .apply(A(j.pj.trim_backlog = size_in(j, o, v))),
    opt("trim_backlog_batch", opt_type::integer, CAT_VERIFY)
        .def("0")
        .range(0, 1ull << 31)
        .help("Accepted as fio's: fio 3.33 trims every listed block each time whatever its value, and so does ioplan.")
        .apply(A(j.pj.trim_backlog_batch = U32(int_in(o, v)))),

    // ---- errors ------------------------------------------------------------------------------
    opt("continue_on_error", opt_type::choice, CAT_SAFETY)
        .def("none")
        .choices({
            {"none", "stop at the first error", 0},
            {"0", "same as none", 0},
            {"read", "continue on read errors", PLAN_COE_READ},
            {"write", "continue on write errors", PLAN_COE_WRITE},
            {"io", "continue on read and write errors", PLAN_COE_READ | PLAN_COE_WRITE},
            {"verify", "continue on verify errors", PLAN_COE_VERIFY},
            {"all", "continue on every error", PLAN_COE_ALL},
            {"1", "same as all", PLAN_COE_ALL},
        })
        .help("Which kinds of error a job records and continues after: of those, EIO and EILSEQ, or the errors ignore_error lists (as fio).")
        .apply(set_continue_on_error),

    // ---- statistics ---------------------------------------------------------------------------
    opt("disable_lat", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Do not measure total latency.")
        .apply(A(j.pj.disable_lat = flag_value(o, v))),
    opt("disable_clat", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Do not measure completion latency.")
        .apply(A(j.pj.disable_clat = flag_value(o, v))),
    opt("disable_slat", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Do not measure submission latency.")
        .apply(A(j.pj.disable_slat = flag_value(o, v))),
    opt("gtod_reduce", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Measure no latencies (bandwidth and IOPS only); as fio's, it sets disable_bw_measurement and "
              "the *_percentiles options off (a later disable_clat=0 measures clat again, without "
              "percentiles) and makes no per-I/O bw or iops log lines.")
        .apply(set_gtod_reduce),
    opt("clat_percentiles", opt_type::boolean, CAT_STATS)
        .def("1")
        .help("Report completion latency percentiles.")
        .apply(A(j.pj.clat_percentiles = flag_value(o, v))),
    opt("lat_percentiles", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Report total latency percentiles.")
        .apply(A(j.pj.lat_percentiles = flag_value(o, v))),
    opt("slat_percentiles", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Report submission latency percentiles.")
        .apply(A(j.pj.slat_percentiles = flag_value(o, v))),
    opt("percentile_list", opt_type::float_list, CAT_STATS)
        .unit("%")
        .def("1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99")
        .help("Percentiles to report, colon-separated; at most 20 (fio keeps the first 20 of a longer "
              "list, and so does ioplan, with a note).")
        .apply(set_percentiles),
    opt("bwavgtime", opt_type::time, CAT_STATS)
        .unit("ms")
        .def("500")
        .range(1, 1e9)
        .help("Interval of bandwidth samples.")
        .apply(A(j.pj.bw_avg_time_ns = time_in(o, v); j.bw_avg_set = true)),
    opt("iopsavgtime", opt_type::time, CAT_STATS)
        .unit("ms")
        .def("500")
        .range(1, 1e9)
        .help("Interval of IOPS samples (DISKSPD -D).")
        .apply(A(j.pj.iops_avg_time_ns = time_in(o, v); j.iops_avg_set = true)),
    opt("diskspd_iops_stddev", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("DISKSPD reports (--output-format=diskspd, diskspd-xml) show the standard deviation of IOPS over "
              "iopsavgtime intervals (IopsStdDev, XML's <Iops> buckets), as DISKSPD's -D; a DISKSPD line's "
              "job sets it for -D.")
        .apply(A(j.pj.diskspd_iops_stddev = flag_value(o, v)))
        .ioplan_only(),
    opt("diskspd_latency", opt_type::boolean, CAT_STATS)
        .def("1")
        .help("DISKSPD reports (--output-format=diskspd, diskspd-xml) show latency: the AvgLat and LatStdDev "
              "columns and the percentile tables, as DISKSPD's -L; 0 leaves them out, as DISKSPD without -L (a "
              "DISKSPD line's job without -L sets 0).  Latency is measured either way.")
        .apply(A(j.pj.diskspd_no_latency = !flag_value(o, v)))
        .ioplan_only(),

    // ---- fio's log files (engine/logs/logs.h) ----
    opt("write_bw_log", opt_type::string, CAT_STATS)
        .help("Write a bandwidth log (KiB/s): PREFIX_bw.N.log per thread (N its number), or PREFIX_bw.log with "
              "per_job_logs=0; written bare, PREFIX is the job name.")
        .apply(A(j.log_on[0] = true; j.log_prefix[0] = trim(v))),
    opt("write_iops_log", opt_type::string, CAT_STATS)
        .help("Write an IOPS log: PREFIX_iops.N.log (see write_bw_log).")
        .apply(A(j.log_on[1] = true; j.log_prefix[1] = trim(v))),
    opt("write_lat_log", opt_type::string, CAT_STATS)
        .help("Write latency logs (ns): PREFIX_lat.N.log, PREFIX_clat.N.log and PREFIX_slat.N.log (see write_bw_log); "
              "disable_lat, disable_clat, disable_slat drop their file.")
        .apply(A(j.log_on[2] = true; j.log_prefix[2] = trim(v))),
    opt("log_avg_msec", opt_type::time, CAT_STATS)
        .unit("ms")
        .def("0")
        .range(0, 1e9)
        .help("Average log entries over this interval (one entry per direction per interval); 0: one entry per I/O.")
        .apply(A(j.pj.log_avg_ns = time_in(o, v))),
    opt("log_max_value", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Averaged latency entries hold the interval's largest value instead of its mean.")
        .apply(A(j.pj.log_max_value = flag_value(o, v))),
    opt("log_offset", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Add each I/O's offset as a column of the logs.")
        .apply(A(j.pj.log_offset = flag_value(o, v))),
    opt("per_job_logs", opt_type::boolean, CAT_STATS)
        .def("1")
        .help("One log file per thread (PREFIX_bw.N.log); 0: every thread appends to PREFIX_bw.log (never truncated, as in fio).")
        .apply(A(j.pj.per_job_logs = flag_value(o, v))),
    opt("log_unix_epoch", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Log times as unix milliseconds instead of milliseconds since the measured window's start.")
        .apply(A(j.pj.log_unix_epoch = flag_value(o, v))),
    opt("log_alternate_epoch", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Log times in milliseconds since the epoch of the clock log_alternate_epoch_clock_id names.")
        .apply(A(j.pj.log_alternate_epoch = flag_value(o, v))),
    opt("log_alternate_epoch_clock_id", opt_type::integer, CAT_STATS)
        .def("0")
        .range(0, 15)
        .help("The clock_gettime() clock whose epoch log_unix_epoch and log_alternate_epoch use (0: CLOCK_REALTIME).")
        .apply(A(j.pj.log_epoch_clock_id = (int32_t)int_in(o, v))),
    opt("log_entries", opt_type::integer, CAT_STATS)
        .def("1024")
        .range(1024, 1048576)
        .help("fio's initial in-memory log size; ioplan streams every log through fixed 4096-entry chunks, so "
              "no entry is lost at any value and memory stays bounded.")
        .apply(A((void)int_in(o, v))),
    opt("write_hist_log", opt_type::string, CAT_STATS)
        .help("Write completion latency histograms: PREFIX_clat_hist.N.log, one line per direction per "
              "log_hist_msec: time, ddir, bs, then fio's 1856 bucket counts of the window (see write_bw_log).")
        .apply(A(j.log_on[3] = true; j.log_prefix[3] = trim(v))),
    opt("log_hist_msec", opt_type::time, CAT_STATS)
        .unit("ms")
        .def("0")
        .range(0, 1e9)
        .help("Interval of the histogram log's lines; 0 writes none (as fio).")
        .apply(A(j.pj.log_hist_ns = time_in(o, v))),
    opt("log_hist_coarseness", opt_type::integer, CAT_STATS)
        .def("0")
        .range(0, 10)
        .help("Sum 2^N neighbouring buckets into each histogram log column (1856 >> N columns); "
              "past 6, fio's layout: the last column sums the last 2^N buckets (fio 3.33 crashes past 10).")
        .apply(A(j.pj.log_hist_coarseness = (uint32_t)int_in(o, v))),
    opt("log_compression", opt_type::size, CAT_STATS)
        .def("0")
        .range(0, 4294967295.0)
        .help("zlib chunk size for log_store_compressed (at least 1024 when set); alone it changes nothing "
              "in the files, as in fio.")
        .apply(A(j.pj.log_gz_bytes = U32(size_in(j, o, v));
                 // fio's minval: a smaller chunk would compress worse than none.
                 if (j.pj.log_gz_bytes && j.pj.log_gz_bytes < 1024)
                     throw value_error("log_compression must be 0 or at least 1024 (bytes)"))),
    opt("log_compression_cpus", opt_type::cpu_list, CAT_STATS)
        .help("CPUs the thread that formats and compresses the logs may run on (0-3,6), to keep that work "
              "off the CPUs under test.  One thread writes every job's logs: it runs on the CPUs all jobs "
              "name together.")
        .apply(A(j.pj.log_gz_cpus = parse_cpu_list(trim(v)))),
    opt("log_store_compressed", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Write the logs as fio's compressed NAME.log.fz files (read them with --inflate-log).")
        .apply(A(j.pj.log_store_compressed = flag_value(o, v))),
    opt("log_prio", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Log the I/O priority as fio's ioprio value (0x0000) instead of 0/1 (real-time class or not).")
        .apply(A(j.pj.log_prio = flag_value(o, v))),

    // ---- capture and replay (fio's iolog; parser/iolog/iolog.h, parser/replay_stage.cpp) ---------
    opt("write_iolog", opt_type::string, CAT_STATS)
        .help("Record every I/O the job issues in FILE, in fio's iolog version 3 (times in microseconds), "
              "appending as fio does; fio 3.33 and ioplan replay it with read_iolog.")
        .apply(A(j.write_iolog = trim(v); if (j.write_iolog.empty()) throw value_error("write_iolog needs a file name"))),
    opt("read_iolog", opt_type::string, CAT_PATTERN)
        .help("Replay FILE instead of generating I/O: a fio iolog (version 2 or 3) or a blktrace binary. The trace's "
              "files (or replay_redirect) are the job's files; each I/O is issued at its trace time (open loop) and "
              "the report gives the share issued late and the worst lag. Read whole and checked before any I/O.")
        .apply(A(j.read_iolog = trim(v); if (j.read_iolog.empty()) throw value_error("read_iolog needs a file name"))),
    opt("read_iolog_chunked", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("Accepted for fio compatibility (fio reads the trace as it goes); ioplan reads the whole trace first, "
              "to refuse a bad or out-of-range trace before any I/O. The replay is the same.")
        .apply(A((void)flag_value(o, v))),
    opt("replay_no_stall", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("Replay as fast as the queue allows, ignoring the trace's times.")
        .apply(A(j.pj.replay_no_stall = flag_value(o, v))),
    opt("replay_time_scale", opt_type::integer, CAT_PATTERN)
        .unit("%")
        .def("100")
        .range(1, 1000000)
        .help("Replay at this percentage of the trace's pace: 200 issues the I/Os twice as fast, 50 at half speed.")
        .apply(A(j.pj.replay_time_scale_pct = U32(int_in(o, v)))),
    opt("replay_redirect", opt_type::string, CAT_PATTERN)
        .help("Send every I/O of the trace to this file or device instead of the ones it names (safety rules apply: "
              "a device is written only with allow_device_write).")
        .apply(A(j.replay_redirect = trim(v))),
    opt("replay_align", opt_type::size, CAT_PATTERN)
        .unit("bytes")
        .def("0")
        .help("Round each trace offset down to a multiple of this.")
        .apply(A(j.pj.replay_align_bytes = size_in(j, o, v))),
    opt("replay_scale", opt_type::integer, CAT_PATTERN)
        .def("1")
        .range(1, 1e18)
        .help("Divide each trace offset by this.")
        .apply(A(j.pj.replay_scale = (uint64_t)int_in(o, v))),
    opt("replay_skip", opt_type::string, CAT_PATTERN)
        .help("Leave out these kinds of trace I/O: a comma list of read, write, trim, sync.")
        .apply(A(j.pj.replay_skip_mask = replay_skip_mask(v))),
    opt("merge_blktrace_file", opt_type::string, CAT_PATTERN)
        .help("Merge the blktrace files read_iolog names (separated by ':') into this one file, ordered by time, "
              "then replay it. An existing file is kept when it already holds this merge; other data there is refused.")
        .apply(A(j.merge_blktrace_file = trim(v);
                 if (j.merge_blktrace_file.empty()) throw value_error("merge_blktrace_file needs a file name"))),
    opt("merge_blktrace_scalars", opt_type::float_list, CAT_PATTERN)
        .unit("%")
        .help("With merge_blktrace_file: scale each trace's times by this percentage, one entry per read_iolog file "
              "(50:100 runs the first at twice the speed).")
        .apply(A(j.pj.nr_merge_scalars = merge_list(v, "merge_blktrace_scalars", j.pj.merge_scalars_pct))),
    opt("merge_blktrace_iters", opt_type::float_list, CAT_PATTERN)
        .help("With merge_blktrace_file: repeat each trace this many times, one entry per read_iolog file; each "
              "repetition starts where the last one ended.")
        .apply(A(j.pj.nr_merge_iters = merge_list(v, "merge_blktrace_iters", j.pj.merge_iters))),

    // ---- fio's pattern, data, error and environment options --------------------------------
    opt("rw_sequencer", opt_type::choice, CAT_PATTERN)
        .def("sequential")
        .choices({
            {"sequential", "the I/Os between two random draws continue where the last one ended", 0},
            {"identical", "the I/Os between two random draws repeat the last offset", 1},
        })
        .help("With rw=randread:<n> (a random offset every n I/Os): what the other I/Os do.")
        .apply(A(j.pj.rw_seq_identical = choice_of(o, v) != 0)),
    opt("offset_align", opt_type::size, CAT_FILES)
        .unit("bytes")
        .def("0")
        .help("A percentage offset= rounds up to a multiple of this (0: of the smallest block size, as fio).")
        .apply(A(j.pj.offset_align_bytes = size_in(j, o, v))),
    opt("thinktime_blocks_type", opt_type::choice, CAT_RATE)
        .def("complete")
        .choices({
            {"complete", "count completed I/Os towards thinktime_blocks", 0},
            {"issue", "count issued I/Os towards thinktime_blocks", 1},
        })
        .help("Whether thinktime_blocks counts completions or submissions.")
        .apply(A(j.pj.thinktime_on_issue = choice_of(o, v) != 0)),
    opt("thinktime_iotime", opt_type::time, CAT_RATE)
        .unit("s")
        .def("0")
        .range(0, 1e12)
        .help("Think after this long of I/O (the think time included), instead of by thinktime_blocks unless that is set too.")
        .apply(A(j.pj.thinktime_iotime_ns = time_in(o, v))),
    opt("rate_ignore_thinktime", opt_type::boolean, CAT_RATE)
        .def("0")
        .help("The rate schedule pauses during think time, so thinking lowers the average rate; by default "
              "the I/Os after a think catch up.")
        .apply(A(j.pj.rate_ignore_thinktime = flag_value(o, v))),
    opt("ignore_error", opt_type::string, CAT_SAFETY)
        .help("Errors to continue after, per kind: READ,WRITE,VERIFY lists of errno names or numbers joined by ':' "
              "(EIO:ENOSPC,28); a kind with a list continues as with continue_on_error, on those errors only "
              "(without a list continue_on_error survives EIO and EILSEQ only, as fio).")
        .apply(set_ignore_error),
    opt("error_dump", opt_type::boolean, CAT_SAFETY)
        .def("0")
        .help("Accepted for fio compatibility: ioplan always reports each error (job, file, offset, errno; "
              "the first 16 per thread) with the results.")
        .apply(A(j.pj.error_dump = flag_value(o, v))),
    opt("exitall_on_error", opt_type::flag, CAT_JOB)
        .def("0")
        .help("When a clone of this job fails, stop the jobs exit_what names.")
        .apply(A(j.pj.exitall_on_error = flag_value(o, v))),
    opt("exit_what", opt_type::choice, CAT_JOB)
        .def("group")
        .choices({
            {"group", "the jobs of this job's group", PLAN_EXIT_GROUP},
            {"stonewall", "every running job; the next stonewalled jobs still run", PLAN_EXIT_STONEWALL},
            {"all", "every running job, and no later job starts", PLAN_EXIT_ALL},
        })
        .help("Whom exitall and exitall_on_error stop.")
        .apply(A(j.pj.exit_what = U32(choice_of(o, v)))),
    opt("dedupe_percentage", opt_type::integer, CAT_BUF)
        .unit("%")
        .def("0")
        .range(0, 100)
        .help("Share of the write buffers that repeat an earlier one, so a deduplicating device stores fewer "
              "(of a file laid out for reading too, in pieces of the largest write); not with verify=, as fio.")
        .apply(A(j.pj.dedupe_pct = U32(int_in(o, v)))),
    opt("dedupe_mode", opt_type::choice, CAT_BUF)
        .def("repeat")
        .choices({
            {"repeat", "a repeated buffer is the last unique one", 0},
            {"working_set", "a repeated buffer is one of dedupe_working_set_percentage of the region", 1},
        })
        .help("Which earlier buffer a dedupe_percentage repeat copies.")
        .apply(A(j.pj.dedupe_working_set = choice_of(o, v) != 0)),
    opt("dedupe_working_set_percentage", opt_type::integer, CAT_BUF)
        .unit("%")
        .def("5")
        .range(0, 100)
        .help("dedupe_mode=working_set: the repeats come from this share of the region's blocks.")
        .apply(A(j.pj.dedupe_working_set_pct = U32(int_in(o, v)))),
    opt("dedupe_global", opt_type::boolean, CAT_BUF)
        .def("0")
        .help("dedupe_mode=working_set: every job draws its repeats from one working set, so jobs dedupe "
              "against each other.")
        .apply(A(j.pj.dedupe_global = flag_value(o, v))),
    opt("cpumask", opt_type::integer, CAT_ENGINE)
        .help("CPUs the job's threads may run on, as a bit mask (0x3: CPUs 0 and 1); the same as cpus_allowed.")
        .apply(A(int64_t m = parse_int(v); if (m <= 0) throw value_error("cpumask must name at least one CPU");
                 j.pj.cpus_allowed = plan_cpus{}; j.pj.cpus_allowed.word[0] = (uint64_t)m)),
    opt("numa_cpu_nodes", opt_type::cpu_list, CAT_ENGINE)
        .help("NUMA nodes whose CPUs the job's threads run on (0-1,3), within cpus_allowed (libnuma).")
        .apply(A(j.pj.numa_cpu_nodes_mask = parse_node_list(trim(v)))),
    opt("numa_mem_policy", opt_type::string, CAT_ENGINE)
        .help("Where the job's threads allocate memory: default, local, prefer:NODE, bind:NODES or "
              "interleave:NODES (set_mempolicy through libnuma).")
        .apply(set_numa_mem_policy),
    opt("exec_prerun", opt_type::string, CAT_JOB)
        .help("Shell command each clone runs before its I/O, output in JOBNAME.prerun.txt; if it fails, so "
              "does the clone (fio skips its I/O without an error).")
        .apply(A(j.exec_prerun = trim(v))),
    opt("exec_postrun", opt_type::string, CAT_JOB)
        .help("Shell command each clone runs after its I/O, output in JOBNAME.postrun.txt; a failure is the "
              "clone's error.")
        .apply(A(j.exec_postrun = trim(v))),
    opt("ioscheduler", opt_type::string, CAT_ENGINE)
        .help("I/O scheduler (none, mq-deadline, kyber, bfq, ...) written into the queue/scheduler of the block "
              "devices under the job's files before its I/O, as fio; ioplan puts each device's scheduler back "
              "when the run ends. A name the device does not offer fails the job (EINVAL).")
        .apply(A(j.ioscheduler = trim(v);
                 if (j.ioscheduler.empty()) throw value_error("ioscheduler needs a scheduler name"))),
    opt("lockmem", opt_type::size, CAT_ENGINE)
        .unit("bytes")
        .def("0")
        .help("Pin this much memory (mlock) while each clone runs, so the system has that much less (fio's "
              "way to test with less memory).")
        .apply(A(j.pj.lockmem_bytes = size_in(j, o, v))),
    // No word for "no hint": fio 3.33 has none (write_hint=ignore drops its job);
    // without write_hint= no hint is set.
    opt("write_hint", opt_type::choice, CAT_ENGINE)
        .choices({
            {"none", "RWH_WRITE_LIFE_NONE", 1},
            {"short", "RWH_WRITE_LIFE_SHORT", 2},
            {"medium", "RWH_WRITE_LIFE_MEDIUM", 3},
            {"long", "RWH_WRITE_LIFE_LONG", 4},
            {"extreme", "RWH_WRITE_LIFE_EXTREME", 5},
        })
        .help("Lifetime hint of the data written to the job's files (fcntl F_SET_RW_HINT); a refused hint is an "
              "error, as in fio.")
        .apply(A(j.pj.write_hint = U32(choice_of(o, v)))),
    opt("allow_mounted_write", opt_type::boolean, CAT_SAFETY)
        .def("0")
        .help("Accepted for fio compatibility: ioplan never writes to a device that holds a mounted filesystem, "
              "whatever this says (it writes files inside the filesystem instead).")
        .apply(A(flag_value(o, v))),
    opt("clocksource", opt_type::choice, CAT_STATS)
        .def("clock_gettime")
        .choices({
            {"clock_gettime", "accepted", 0},
            {"gettimeofday", "accepted", 0},
            {"cpu", "accepted", 0},
        })
        .help("Accepted for fio compatibility: whatever it names, ioplan times with the TSC (rdtsc, calibrated "
              "against CLOCK_MONOTONIC) where the CPU's TSC is invariant and every CPU ioplan may run on agrees "
              "with CLOCK_MONOTONIC, else with clock_gettime(CLOCK_MONOTONIC) (the vDSO, no system call).")
        .apply(A(choice_of(o, v))),
    opt("gtod_cpu", opt_type::integer, CAT_STATS)
        .range(0, 4095)
        .help("Accepted for fio compatibility: ioplan has no time-keeping thread to pin (each thread reads "
              "the clock itself: the TSC, or clock_gettime through the vDSO; see clocksource).")
        .apply(A(int_in(o, v))),

    // ---- flow control and submission (engine/flow.h, engine/worker/worker_flow.c) ----
    opt("flow_id", opt_type::integer, CAT_RATE)
        .def("0")
        .range(0, 4294967295.0)
        .help("The flow this job's flow= weight belongs to: jobs of one flow_id share its I/Os.")
        .apply(A(j.pj.flow_id = U32(int_in(o, v)))),
    opt("flow", opt_type::integer, CAT_RATE)
        .def("0")
        .range(0, 1000)
        .help("Weight of this job in its flow_id: jobs of one flow issue I/Os in proportion to their weights "
              "(flow=1 and flow=8: one I/O in nine and eight in nine); 0: no flow control.")
        .apply(A(j.pj.flow_weight = U32(int_in(o, v)))),
    opt("flow_sleep", opt_type::time, CAT_RATE)
        .unit("us")
        .def("0")
        .range(0, 1e12)
        .help("How long a job ahead of its flow share waits, after its I/Os in flight complete; 0: retry at once.")
        .apply(A(j.pj.flow_sleep_ns = time_in(o, v))),
    opt("io_submit_mode", opt_type::choice, CAT_ENGINE)
        .def("inline")
        .choices({
            {"inline", "the job's thread submits and reaps its I/Os", 0},
            {"offload", "accepted: fio hands I/Os to a submit thread; ioplan's thread submits them itself", 1},
        })
        .help("How I/Os are submitted. ioplan's worker thread always submits and reaps its own I/Os; offload is "
              "accepted so fio job files run, with the same queue depth.")
        .apply(A(j.pj.submit_offload = choice_of(o, v) != 0)),
    opt("serialize_overlap", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("An I/O that overlaps one of the same thread still in flight waits for it to complete.")
        .apply(A(j.pj.serialize_overlap = flag_value(o, v))),
    opt("max_latency", opt_type::time, CAT_RATE)
        .unit("us")
        .def("0")
        .range(0, 1e15)
        .help("Fail the job with ETIMEDOUT (fio's \"max latency exceeded\") when an I/O's total latency exceeds "
              "this (read,write,trim); 0: no limit.")
        .apply(A(FOR_DDIR(j.pj.max_latency_ns[d] = time_in(o, s)))),
    opt("latency_target", opt_type::time, CAT_RATE)
        .unit("us")
        .def("0")
        .range(0, 1e15)
        .help("Search for the deepest queue (up to iodepth) at which latency_percentile of the I/Os complete within "
              "this total latency, as fio: start at depth 1, double while each latency_window meets it, bisect "
              "once one does not; the depth found is reported (latency_depth); 0: no search.")
        .apply(A(j.pj.lat_target_ns = time_in(o, v))),
    opt("latency_window", opt_type::time, CAT_RATE)
        .unit("us")
        .def("0")
        .range(0, 1e15)
        .help("How long each queue depth runs before latency_target judges it; a window in which nothing "
              "completed is a miss, so with 0 (fio's default) an async job stays at depth 1.")
        .apply(A(j.pj.lat_window_ns = time_in(o, v))),
    opt("latency_percentile", opt_type::float_list, CAT_RATE)
        .unit("%")
        .def("100")
        .help("Share of I/Os (0-100) that must complete within latency_target in a window; at 100 one slower I/O "
              "lowers the depth at once, and at depth 1 fails the job with ETIMEDOUT.")
        .apply(set_latency_percentile),
    opt("latency_run", opt_type::boolean, CAT_RATE)
        .def("0")
        .help("Keep adjusting the queue depth to latency_target for the whole run; 0 (fio's default): once the "
              "depth settles, measure one more window at it and end the job.")
        .apply(A(j.pj.lat_run = flag_value(o, v))),

    // ---- fio's reporting options (report/fio/normal.cpp, model.cpp) ----
    opt("significant_figures", opt_type::integer, CAT_STATS)
        .def("4")
        .range(1, 10)
        .help("Significant figures of the normal output's sizes, bandwidths and IOPS (fio's num2str).")
        .apply(A(j.pj.sig_figs = (uint8_t)int_in(o, v))),
    opt("unit_base", opt_type::choice, CAT_STATS)
        .fio_prio(1)
        .def("0")
        .choices({
            {"0", "auto: bits for ioengine=net, else bytes", 0},
            {"8", "bandwidth in bytes per second", 8},
            {"1", "bandwidth in bits per second (Gibit/s)", 1},
        })
        .help("Unit of the normal output's bandwidths, as fio 3.33: 8 bytes, 1 bits, 0 bits for ioengine=net only.")
        .apply(A(j.pj.unit_base = (uint8_t)choice_of(o, v))),
    opt("stats", opt_type::boolean, CAT_STATS)
        .def("1")
        .help("0: the job runs but is left out of every report and of its group's totals; its log files "
              "are made and stay empty, as fio's.")
        .apply(A(j.pj.no_stats = !flag_value(o, v))),
    opt("disk_util", opt_type::boolean, CAT_STATS)
        .def("1")
        .help("Sample the utilization of the disks under the job's files (reported when some job keeps 1).")
        .apply(A(j.pj.no_disk_util = !flag_value(o, v))),
    opt("disable_bw_measurement", opt_type::boolean, CAT_STATS)
        .aliases({"disable_bw"})
        .def("0")
        .help("No per-I/O bandwidth log entries (write_bw_log without log_avg_msec), as fio 3.33; the reports' "
              "bandwidth statistics stay.")
        .apply(A(j.pj.disable_bw = flag_value(o, v))),
    opt("block_error_percentiles", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("fio's block lifetime section (trim counts per block); needs one file per job. ioplan's trims "
              "are not tracked per block: the section shows no percentiles and zero states, as fio's does "
              "for a job without trims.")
        .apply(A(j.pj.block_error_hist = flag_value(o, v))),

    // ---- io_uring_cmd's cmd_type, which fio lists for io_uring too (io_uring's and libaio's own options
    // are declared in their files: engine/ioengines/io_uring.c, libaio.c) ----
    opt("cmd_type", opt_type::choice, CAT_ENGINE)
        .engines("io_uring")
        .def("nvme")
        .choices({{"nvme", "NVMe commands", 0}})
        .help("io_uring_cmd's command set; fio lists it for io_uring too, where it does nothing (nor in ioplan).")
        .apply(A((void)choice_of(o, v))),

    // ---- I/O priorities: prio, prioclass and libaio/io_uring's cmdprio options (engine/prio.h) ----
    opt("prio", opt_type::integer, CAT_ENGINE)
        .range(0, 7)
        .help("I/O priority level of the job's threads (ioprio_set): 0 highest .. 7 lowest, within prioclass.")
        .apply(A(j.pj.ioprio_level = U32(int_in(o, v)); j.pj.ioprio_set = true)),
    opt("prioclass", opt_type::integer, CAT_ENGINE)
        .range(0, 3)
        .help("I/O priority class of the job's threads: 1 real-time (needs CAP_SYS_NICE), 2 best effort, 3 idle; "
              "0: best effort, as fio.")
        .apply(A(j.pj.ioprio_class = U32(int_in(o, v)); j.pj.ioprio_set = true)),
    opt("cmdprio_percentage", opt_type::int_ddir, CAT_ENGINE)
        .unit("%")
        .range(0, 100)
        .engines("libaio io_uring")
        .help("Share of the I/Os (read,write) issued with the priority of cmdprio_class and cmdprio; "
              "reports then show latency per priority.")
        .apply(A(FOR_DDIR(if (d < 2) j.pj.cmdprio[d].pct = U32(int_in(o, s))))),
    opt("cmdprio_class", opt_type::int_ddir, CAT_ENGINE)
        .range(1, 3)
        .engines("libaio io_uring")
        .help("Priority class (read,write) of cmdprio_percentage's I/Os and of cmdprio_bssplit entries without "
              "one: 1 real-time (fio's default), 2 best effort, 3 idle.")
        .apply(A(FOR_DDIR(if (d < 2) j.pj.cmdprio[d].prio_class = U32(int_in(o, s))))),
    opt("cmdprio", opt_type::int_ddir, CAT_ENGINE)
        .range(0, 7)
        .engines("libaio io_uring")
        .help("Priority level (read,write) of cmdprio_percentage's I/Os and of cmdprio_bssplit entries without "
              "one: 0 highest .. 7 lowest.")
        .apply(A(FOR_DDIR(if (d < 2) j.pj.cmdprio[d].level = U32(int_in(o, s))))),
    opt("cmdprio_bssplit", opt_type::string, CAT_ENGINE)
        .engines("libaio io_uring")
        .help("Priorities by block size: bs/percent or bs/percent/class/level entries joined by colons, e.g. "
              "64k/25/1/1:64k/75/3/2:1m/0; a comma separates the read and write lists.")
        .apply(set_cmdprio_bssplit),

    // ---- fio options ioplan refuses, with why ----------------------------------------------
    no("steadystate_check_interval", WHY_NEWER), no("ss_interval", WHY_NEWER),
    no("rwmixcycle", WHY_DEPRECATED), no("percentage_sequential", WHY_DEPRECATED),
    no("hugepage-size", WHY_PLACEMENT),
    no("daemonize", WHY_PLACEMENT),
    no("lockfile", WHY_THREADS), no("cgroup", WHY_THREADS),
    no("cgroup_weight", WHY_THREADS), no("cgroup_nodelete", WHY_THREADS), no("uid", WHY_THREADS),
    no("gid", WHY_THREADS),
    no("verify_write_sequence", WHY_ASYNC_VERIFY), no("verify_header_seed", WHY_ASYNC_VERIFY),
    no("verify_pattern_interval", WHY_ASYNC_VERIFY),
    no("zone_reset_frequency", WHY_ZONED), no("zone_reset_threshold", WHY_ZONED), no("max_open_zones", WHY_ZONED),
    no("job_max_open_zones", WHY_ZONED), no("read_beyond_wp", WHY_ZONED), no("zonecapacity", WHY_ZONED),
    no("ignore_zone_limits", WHY_ZONED), no("zone_append", WHY_ZONED),
    no("random_sequence_stride", WHY_UNSUPPORTED),
    no("fadvise_stream", WHY_UNSUPPORTED), no("num_range", WHY_UNSUPPORTED),
    no("fdp", WHY_UNSUPPORTED), no("fdp_pli", WHY_UNSUPPORTED), no("plids", WHY_UNSUPPORTED),
    no("dataplacement", WHY_UNSUPPORTED), no("sprandom", WHY_UNSUPPORTED), no("spr_num_regions", WHY_UNSUPPORTED),
    no("spr_op", WHY_UNSUPPORTED), no("ramp_size", WHY_UNSUPPORTED), no("size_increment", WHY_UNSUPPORTED),
    no("file_size", WHY_UNSUPPORTED), no("invalidate_cache", WHY_UNSUPPORTED),
    no("kb_base_output", WHY_UNSUPPORTED), no("bwavgtime_ms", WHY_UNSUPPORTED),
    no("loops_per_job", WHY_UNSUPPORTED), no("nr_range", WHY_UNSUPPORTED),
    no("group_reporting_each", WHY_UNSUPPORTED), no("new_group_each", WHY_UNSUPPORTED),
    no("profile", WHY_PROFILE), no("dir", WHY_PROFILE), no("size_gb", WHY_PROFILE),
    no("http_host", WHY_ENGINE), no("http_mode", WHY_ENGINE), no("http_verbose", WHY_ENGINE),
    no("https", WHY_ENGINE), no("gpu_dev_ids", WHY_ENGINE), no("gpu_dev_id", WHY_ENGINE), no("apptag", WHY_ENGINE),
    no("apptag_mask", WHY_ENGINE), no("http_s3_key", WHY_ENGINE), no("http_s3_keyid", WHY_ENGINE),
    no("http_s3_region", WHY_ENGINE), no("pi_act", WHY_ENGINE), no("pi_chk", WHY_ENGINE), no("pool", WHY_ENGINE),
    no("sg_write_mode", WHY_ENGINE), no("clientname", WHY_ENGINE), no("cuda_io", WHY_ENGINE),
    no("libblkio_driver", WHY_ENGINE), no("libblkio_path", WHY_ENGINE), no("md_per_io_size", WHY_ENGINE),
    no("verb", WHY_ENGINE), no("write_mode", WHY_ENGINE), no("brick", WHY_ENGINE), no("busy_poll", WHY_ENGINE),
    no("conf", WHY_ENGINE), no("cont", WHY_ENGINE), no("http_s3_sse_customer_algorithm", WHY_ENGINE),
    no("http_s3_sse_customer_key", WHY_ENGINE), no("http_s3_storage_class", WHY_ENGINE),
    no("http_swift_auth_token", WHY_ENGINE), no("nfs_url", WHY_ENGINE), no("rbdname", WHY_ENGINE),
    no("readfua", WHY_ENGINE), no("writefua", WHY_ENGINE), no("skip_bad", WHY_ENGINE), no("volume", WHY_ENGINE),
    no("rocm_io", WHY_ENGINE), no("bindname", WHY_ENGINE), no("namespace", WHY_ENGINE), no("hugepage", WHY_ENGINE),
    no("clustername", WHY_ENGINE), no("xnvme_be", WHY_ENGINE), no("xnvme_async", WHY_ENGINE),
    no("xnvme_sync", WHY_ENGINE), no("xnvme_admin", WHY_ENGINE), no("xnvme_dev_nsid", WHY_ENGINE),
    no("xnvme_iovec", WHY_ENGINE), no("sg_type", WHY_ENGINE), no("fixedbufs_percentage", WHY_ENGINE),
    no("registerfiles_percentage", WHY_ENGINE), no("pre_read_gb", WHY_ENGINE), no("rdma_ops", WHY_ENGINE),
    no("filestat_type", WHY_ENGINE), no("exec_prog", WHY_ENGINE), no("exec_args", WHY_ENGINE),
    no("chunk_size", WHY_ENGINE), no("odirect", WHY_ENGINE), no("dev_dax", WHY_ENGINE), no("pmem_path", WHY_ENGINE),
    no("libiscsi_url", WHY_ENGINE), no("spdk_json_conf", WHY_ENGINE), no("mtd", WHY_ENGINE),
    no("ime_psync", WHY_ENGINE), no("cpuio", WHY_ENGINE), no("gfapi", WHY_ENGINE), no("rados", WHY_ENGINE),
    no("rbd", WHY_ENGINE),
};

// An engine option's value, checked as the table's own options are, kept by name
// until fill_job knows the job's engine.
static void apply_engine_value(job_spec &j, const option &o, const std::string &v)
{
    engine_value &ev = j.engine_values[o.name];
    switch (o.engine_opt->type) {
    case PLAN_ENGOPT_BOOL:
    case PLAN_ENGOPT_FLAG: ev.i = flag_value(o, v); break;
    case PLAN_ENGOPT_INT: ev.i = int_in(o, v); break;
    case PLAN_ENGOPT_CHOICE: ev.i = choice_of(o, v); break;
    case PLAN_ENGOPT_STRING: ev.s = v; break;
    case PLAN_ENGOPT_SIZE: ev.i = (long long)size_in(j, o, v); break;
    }
}

// An engine's declared option as a table row, owned by the engines named.
static option engine_row(const plan_engopt &eo, const char *engines)
{
    static const opt_type types[] = {opt_type::boolean, opt_type::flag,   opt_type::integer,
                                     opt_type::choice,  opt_type::string, opt_type::size};
    option o = opt(eo.name, types[eo.type], CAT_ENGINE).help(eo.help).apply(apply_engine_value);
    if (eo.alias)
        o.aliases = {eo.alias};
    o.unit = eo.unit ? eo.unit : "";
    o.def = eo.def;
    o.min = eo.min;
    o.max = eo.max;
    for (const plan_engopt_choice *c = eo.choices; c && c->name; c++)
        o.choices.push_back({c->name, c->help, c->value});
    o.engines = engines;
    o.engine_opt = &eo;
    return o;
}

// The options the engines' files bring, each table once, in the engine list's
// order; an option's engines are those whose line names its table.
static std::vector<option> engine_rows()
{
    static std::map<const plan_engopts *, std::string> owners; // the rows point at these names
    std::vector<const plan_engopts *> order;
    for (int e = 0; e < PLAN_IOENGINE_NR; e++) {
        const plan_engopts *t = plan_engopts_of((plan_ioengine)e);
        std::string &names = owners[t];
        if (names.empty())
            order.push_back(t);
        names += (names.empty() ? "" : " ") + std::string(plan_ioengine_name((plan_ioengine)e));
    }
    std::vector<option> rows;
    for (const plan_engopts *t : order)
        for (uint32_t i = 0; i < t->nr; i++)
            rows.push_back(engine_row(t->opts[i], owners[t].c_str()));
    return rows;
}

const std::vector<engine_field> &engine_fields()
{
    static const std::vector<engine_field> rows = {
        {"uncached", "pvsync2 io_uring", [](const job_spec &s) { return s.pj.rwf_uncached; }},
        {"nowait", "pvsync2 io_uring libaio", [](const job_spec &s) { return s.pj.rwf_nowait; }},
        {"hipri_percentage", "pvsync2", [](const job_spec &s) { return s.hipri_percentage_set; }},
        {"hipri", "pvsync2 io_uring", [](const job_spec &s) { return s.pj.uring_hipri; }},
    };
    return rows;
}

const engine_field *engine_field_of(const char *name)
{
    for (const engine_field &f : engine_fields())
        if (!std::strcmp(f.name, name))
            return &f;
    return nullptr;
}

// The engines' rows go after the options several engines share (nowait last),
// where the engine options of the table sit, so help and man list them in one run.
const std::vector<option> &option_table()
{
    static const std::vector<option> table = [] {
        std::vector<option> v = core_table;
        for (option &o : v)
            if (const engine_field *f = engine_field_of(o.name))
                o.engines = f->engines;
        auto at = std::find_if(v.begin(), v.end(), [](const option &o) { return std::string(o.name) == "nowait"; });
        std::vector<option> rows = engine_rows();
        v.insert(at == v.end() ? at : at + 1, rows.begin(), rows.end());
        return v;
    }();
    return table;
}

const std::vector<option> &options()
{
    static const std::vector<option> accepted = [] {
        std::vector<option> v;
        for (const option &o : option_table())
            if (!o.refused)
                v.push_back(o);
        return v;
    }();
    return accepted;
}

} // namespace parser

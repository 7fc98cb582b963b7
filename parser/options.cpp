// parser/options.cpp - the option table (data; exempt from the file-length rule).
//
// Each entry names its fields (the opt builder in options.hpp), one per line, so
// an entry reads without the struct beside it; a choice carries the value its
// applier stores, so adding an option or a choice is one entry here.
// Order matters in one place only: kb_base comes first so that size defaults
// are parsed under it.  Appliers are one-liners over parser/convert.hpp helpers;
// the longer ones are in parser/appliers.cpp.
#include "parser/options.hpp"

#include <strings.h>

#include "parser/appliers.hpp"

namespace parser {

#define A(...) [](job_spec &j, const option &o, const std::string &v) { (void)j; (void)o; (void)v; __VA_ARGS__; }
#define U32(x) ((uint32_t)(x))
#define FOR_DDIR(stmt) for_each_ddir(o, v, [&](int d, const std::string &s) { stmt; })

static const char *const CAT_JOB = "job", *const CAT_FILES = "files", *const CAT_PATTERN = "pattern",
                         *const CAT_ENGINE = "engine", *const CAT_RATE = "rate", *const CAT_TIME = "time",
                         *const CAT_BUF = "buffers", *const CAT_VERIFY = "verify", *const CAT_STATS = "stats",
                         *const CAT_SAFETY = "safety", *const CAT_REPEAT = "repeat";

static void set_bs_fixed(job_spec &j, const option &o, const std::string &v)
{
    std::string t = trim(v);
    if (t.find('-') != std::string::npos)
        throw value_error("bs= takes one size per direction; for a range write bsrange=" + t, t.find('-'));
    for_each_ddir(o, t, [&](int d, const std::string &s) {
        uint64_t b = size_in(j, o, s);
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
    std::string t = trim(v);
    try {
        j.pj.verify = (enum plan_verify)choice_of(o, t);
    } catch (const value_error &) {
        throw value_error("verify=" + t + " is not supported (ioplan has crc32c, xxhash, pattern)");
    }
}

static void set_gtod_reduce(job_spec &j, const option &o, const std::string &v)
{
    if (flag_value(v))
        j.pj.disable_lat = j.pj.disable_clat = j.pj.disable_slat = true;
}

static void set_pattern(job_spec &j, const option &o, const std::string &v)
{
    j.pattern = parse_pattern(v);
    j.pj.buffer_fill = PLAN_BUF_PATTERN;
}

static void set_mem(job_spec &j, const option &o, const std::string &v)
{
    choice_of(o, v); // every choice allocates the same aligned private memory in ioplan
}

static void set_numjobs(job_spec &j, const option &o, const std::string &v)
{
    j.numjobs = U32(int_in(o, v));
}

static void set_rate_process(job_spec &j, const option &o, const std::string &v)
{
    j.pj.rate_process = (enum plan_rate_process)choice_of(o, v);
}

static const std::vector<option> table = {
    // ---- job control ------------------------------------------------------------
    opt("kb_base", opt_type::choice, CAT_STATS)
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
        .range(1, 1e9)
        .help("Passes over the region.")
        .apply(A(j.pj.loops = U32(int_in(o, v)))),
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
        .apply(A(j.pj.time_based = flag_value(v))),
    opt("ramp_time", opt_type::time, CAT_TIME)
        .unit("s")
        .def("0")
        .range(0, 1e9)
        .help("Warm-up before the measured window; not counted.")
        .apply(A(j.pj.ramp_time_ns = time_in(o, v))),
    opt("cooldown", opt_type::time, CAT_TIME)
        .unit("s")
        .def("0")
        .range(0, 1e9)
        .help("Keep running this long after the measured window, not counted (DISKSPD -C).")
        .apply(A(j.pj.cooldown_ns = time_in(o, v)))
        .ioplan_only(),
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
        .apply(A(j.pj.stonewall = flag_value(v))),
    opt("new_group", opt_type::flag, CAT_JOB)
        .def("0")
        .help("Start a new reporting group (no barrier).")
        .apply(A(j.pj.new_group = flag_value(v))),
    opt("wait_for", opt_type::string, CAT_JOB)
        .help("Start only after the named earlier job has finished.")
        .apply(A(j.wait_for = trim(v))),
    opt("exitall", opt_type::flag, CAT_JOB)
        .def("0")
        .help("When this job finishes, stop the other jobs of its group.")
        .apply(A(j.pj.exitall = flag_value(v))),
    opt("thread", opt_type::flag, CAT_JOB)
        .def("0")
        .help("Accepted for fio compatibility: ioplan always runs clones as threads.")
        .apply(A(flag_value(v))),
    opt("threads", opt_type::integer, CAT_JOB)
        .help("Accepted for fio compatibility: fio's tiobench profile option, without effect unless a profile runs (none does in ioplan).")
        .apply(A(parse_int(v))),
    opt("group_reporting", opt_type::flag, CAT_STATS)
        .def("0")
        .help("Report each group as one merged job.")
        .apply(A(j.pj.group_reporting = flag_value(v))),
    opt("create_only", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Lay out the files, then stop.")
        .apply(A(j.pj.create_only = flag_value(v))),
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
        .help("Directory for the job's files; d1:d2 spreads clones over several.")
        .apply(A(j.directories = path_list(trim(v)))),
    opt("filename", opt_type::path_list, CAT_FILES)
        .help("Fixed file or device name(s), a:b, shared by every clone; overrides nrfiles.")
        .apply(A(j.filenames = path_list(trim(v)))),
    opt("filename_format", opt_type::string, CAT_FILES)
        .def("$jobname.$jobnum.$filenum")
        .help("Name of generated files, with $jobname, $jobnum (clone), $filenum.")
        .apply(A(j.filename_format = trim(v); if (j.filename_format.empty()) throw value_error("empty filename_format"))),
    opt("nrfiles", opt_type::integer, CAT_FILES)
        .aliases({"nr_files"})
        .def("1")
        .range(1, 1e6)
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
        })
        .help("How a clone with several files picks the file for each I/O.")
        .apply(A(j.pj.file_service = (enum plan_file_service)choice_of(o, v))),
    opt("size", opt_type::size_pct, CAT_FILES)
        .unit("bytes")
        .def("0")
        .help("Bytes of I/O region per clone, split over its files; or a percentage of the existing file/device.")
        .apply(A(size_or_pct(j, o, v, &j.pj.size_bytes, &j.pj.size_ppm))),
    opt("filesize", opt_type::size_range, CAT_FILES)
        .unit("bytes")
        .help("Size of each file (lo-hi: one size per file in range).")
        .apply(set_filesize),
    opt("io_size", opt_type::size, CAT_FILES)
        .aliases({"io_limit"})
        .unit("bytes")
        .def("0")
        .help("Bytes to transfer (default: size); wraps in the region.")
        .apply(A(j.pj.io_size_bytes = size_in(j, o, v))),
    opt("offset", opt_type::size_pct, CAT_FILES)
        .aliases({"fileoffset"})
        .unit("bytes")
        .def("0")
        .help("Start of the I/O region in each file, or a percentage.")
        .apply(A(size_or_pct(j, o, v, &j.pj.offset_bytes, &j.pj.offset_ppm))),
    opt("offset_increment", opt_type::size, CAT_FILES)
        .unit("bytes")
        .def("0")
        .help("Each clone's region starts this much after the previous clone's (DISKSPD -T).")
        .apply(A(j.pj.offset_increment_bytes = size_in(j, o, v))),
    opt("number_ios", opt_type::integer, CAT_FILES)
        .def("0")
        .range(0, 1e18)
        .help("Stop after this many I/Os (0: no limit).")
        .apply(A(j.pj.number_ios = (uint64_t)int_in(o, v))),
    opt("fill_device", opt_type::boolean, CAT_FILES)
        .aliases({"fill_fs"})
        .def("0")
        .help("Write until the device or filesystem is full.")
        .apply(A(j.pj.fill_device = flag_value(v))),
    opt("allow_file_create", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Create missing files (0: a missing file is an error).")
        .apply(A(j.pj.allow_file_create = flag_value(v))),
    opt("create_fsync", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("fsync after laying out a file.")
        .apply(A(j.pj.create_fsync = flag_value(v))),
    opt("create_serialize", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Accepted for fio compatibility: ioplan always lays out files before any job starts.")
        .apply(A(flag_value(v))),
    opt("create_on_open", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Accepted for fio compatibility: ioplan always lays out files before any job starts.")
        .apply(A(flag_value(v))),
    opt("unique_filename", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Accepted for fio compatibility (client/server names); no effect on a local run.")
        .apply(A(flag_value(v))),
    opt("fallocate", opt_type::choice, CAT_FILES)
        .def("native")
        .choices({
            {"native", "fallocate(), ignored where unsupported", PLAN_FALLOCATE_NATIVE},
            {"none", "no preallocation", PLAN_FALLOCATE_NONE},
            {"0", "same as none", PLAN_FALLOCATE_NONE},
            {"posix", "posix_fallocate()", PLAN_FALLOCATE_POSIX},
            {"1", "same as posix", PLAN_FALLOCATE_POSIX},
            {"keep", "fallocate() with FALLOC_FL_KEEP_SIZE", PLAN_FALLOCATE_KEEP},
        })
        .help("How files are preallocated before layout.")
        .apply(A(j.pj.fallocate = (enum plan_fallocate)choice_of(o, v))),
    opt("overwrite", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Write jobs lay out (fill) their files first.")
        .apply(A(j.pj.overwrite = flag_value(v))),
    opt("pre_read", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Read the files once into the page cache before the job.")
        .apply(A(j.pj.pre_read = flag_value(v))),
    opt("invalidate", opt_type::boolean, CAT_FILES)
        .def("1")
        .help("Drop the files' cached pages before the job and at each new pass over them (as fio), so buffered reads measure the device.")
        .apply(A(j.pj.invalidate = flag_value(v))),
    opt("unlink", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Delete the job's files when it is done (only files ioplan created).")
        .apply(A(j.pj.unlink = flag_value(v))),
    opt("unlink_each_loop", opt_type::boolean, CAT_FILES)
        .def("0")
        .help("Delete and re-create the files after every loop.")
        .apply(A(j.pj.unlink_each_loop = flag_value(v))),
    opt("zonemode", opt_type::choice, CAT_PATTERN)
        .def("none")
        .choices({
            {"none", "no zones", 0},
            {"strided", "do zonesize bytes, then skip to the next zonerange boundary", 0},
        })
        .help("Zones within the region; zonesize= alone also selects strided, as in fio (zoned block devices, zonemode=zbd, are not supported).")
        .apply(A(if (trim(v) == "zbd") throw value_error("zonemode=zbd (zoned block devices) is not supported");
          choice_of(o, v))),
    opt("zonesize", opt_type::size, CAT_PATTERN)
        .unit("bytes")
        .def("0")
        .help("Bytes done in each zone (zonemode=strided).")
        .apply(A(j.pj.zone_size_bytes = size_in(j, o, v))),
    opt("zonerange", opt_type::size_pct, CAT_PATTERN)
        .unit("bytes")
        .def("0")
        .help("Distance between zone starts (default: zonesize); a percentage spreads zones over the region (1% = 100 samples).")
        .apply(A(size_or_pct(j, o, v, &j.pj.zone_range_bytes, &j.pj.zone_range_ppm))),
    opt("zoneskip", opt_type::size, CAT_PATTERN)
        .unit("bytes")
        .def("0")
        .help("Extra bytes skipped after each zone.")
        .apply(A(j.pj.zone_skip_bytes = size_in(j, o, v))),

    // ---- safety ----------------------------------------------------------------------
    opt("allow_device_write", opt_type::string, CAT_SAFETY)
        .help("The one block device writes may go to (exact path); never one that is mounted, swap or RAID/LVM member.")
        .apply(A(j.allow_device_write = trim(v)))
        .ioplan_only(),
    opt("allow_existing_file_write", opt_type::boolean, CAT_SAFETY)
        .def("0")
        .help("Allow writing into existing files ioplan did not create.")
        .apply(A(j.allow_existing_file_write = flag_value(v)))
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
    opt("blockalign", opt_type::size_ddir, CAT_PATTERN)
        .aliases({"ba"})
        .unit("bytes")
        .def("0")
        .help("Alignment of random offsets (default: the block size).")
        .apply(A(FOR_DDIR(j.pj.bs[d].align_bytes = size_in(j, o, s)))),
    opt("bs_unaligned", opt_type::flag, CAT_PATTERN)
        .def("0")
        .help("Block sizes from a range need not be multiples of the minimum.")
        .apply(A(j.pj.bs_unaligned = flag_value(v))),
    opt("bs_is_seq_rand", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("bs=a,b means sequential,random instead of read,write.")
        .apply(A(j.pj.bs_is_seq_rand = flag_value(v))),
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
            {"zipf", "zipf:theta[:center]", PLAN_RAND_ZIPF},
            {"pareto", "pareto:h[:center]", PLAN_RAND_PARETO},
            {"normal", "normal[:dev[:center]]: fio's bell (sd range/12) widened by a uniform dev% (0..99)", PLAN_RAND_NORMAL},
            {"gauss", "same as normal", PLAN_RAND_NORMAL},
            {"zoned", "zoned:io%/range%:... (DISKSPD -rdpct)", PLAN_RAND_ZONED},
            {"zoned_abs", "zoned_abs:io%/bytes:... (DISKSPD -rdabs)", PLAN_RAND_ZONED},
        })
        .help("Distribution of random offsets; non-uniform ones imply norandommap.")
        .apply(set_random_distribution),
    opt("random_generator", opt_type::choice, CAT_PATTERN)
        .def("tausworthe")
        .choices({
            {"tausworthe", "accepted", 0},
            {"lfsr", "accepted", 0},
            {"tausworthe64", "accepted", 0},
        })
        .help("Accepted for fio compatibility: ioplan covers every block once per pass with its own permutation generator.")
        .apply(A(choice_of(o, v))),
    opt("norandommap", opt_type::flag, CAT_PATTERN)
        .def("0")
        .help("Random offsets drawn independently (blocks may repeat).")
        .apply(A(j.pj.norandommap = flag_value(v))),
    opt("randrepeat", opt_type::boolean, CAT_PATTERN)
        .aliases({"allrandrepeat"})
        .def("1")
        .help("Same random sequence on every run.")
        .apply(A(j.pj.randrepeat = flag_value(v))),
    opt("randseed", opt_type::integer, CAT_PATTERN)
        .def("0x89")
        .range(0, 1.8e19)
        .help("Seed of the random sequences: clone k of the job uses randseed + k (without randseed=, 0x89 + thread number - 1).")
        .apply(A(j.pj.randseed = (uint64_t)parse_int(v); j.randseed_set = true)),
    opt("interlocked", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("Clones of a sequential job share one atomic next offset (DISKSPD -si).")
        .apply(A(j.pj.interlocked = flag_value(v)))
        .ioplan_only(),
    opt("sequential_parallel", opt_type::boolean, CAT_PATTERN)
        .def("0")
        .help("Each of the iodepth outstanding I/Os follows its own sequential stream from the same start (DISKSPD -p).")
        .apply(A(j.pj.sequential_parallel = flag_value(v)))
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
        .choices({
            {"psync", "pread/pwrite", PLAN_IOENGINE_PSYNC},
            {"sync", "read/write after lseek (skipped where the last I/O ended)", PLAN_IOENGINE_SYNC},
            {"null", "no data moves; measures the tool", PLAN_IOENGINE_NULL},
            {"libaio", "Linux native AIO", PLAN_IOENGINE_LIBAIO},
            {"io_uring", "io_uring (liburing)", PLAN_IOENGINE_IO_URING},
            {"pvsync", "preadv/pwritev", PLAN_IOENGINE_PVSYNC},
            {"pvsync2", "preadv2/pwritev2 with RWF_* flags (hipri, uncached, nowait)", PLAN_IOENGINE_PVSYNC2},
            {"vsync", "readv/writev after lseek; adjacent I/Os coalesce into one call", PLAN_IOENGINE_VSYNC},
            {"posixaio", "POSIX aio_read/aio_write", PLAN_IOENGINE_POSIXAIO},
            {"mmap", "memcpy to and from a mapping of the file", PLAN_IOENGINE_MMAP},
            {"falloc", "fallocate per I/O (reads keep size, trims punch holes); no data moves", PLAN_IOENGINE_FALLOC},
            {"ftruncate", "ftruncate to each write's offset; no data moves", PLAN_IOENGINE_FTRUNCATE},
        })
        .help("How I/O is issued.")
        .apply(set_ioengine),
    opt("iodepth", opt_type::integer, CAT_ENGINE)
        .def("1")
        .range(1, 65536)
        .help("I/Os kept in flight per clone (async engines).")
        .apply(A(j.pj.iodepth = U32(int_in(o, v)))),
    opt("iodepth_batch_submit", opt_type::integer, CAT_ENGINE)
        .aliases({"iodepth_batch"})
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
        .apply(A(j.pj.iodepth_batch_complete_max = U32(int_in(o, v)); j.iodepth_batch_complete_max_set = true)),
    opt("iodepth_low", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(0, 65536)
        .help("Refill the queue when it drains to this depth (0: iodepth).")
        .apply(A(j.pj.iodepth_low = U32(int_in(o, v)))),
    opt("fixedbufs", opt_type::flag, CAT_ENGINE)
        .def("0")
        .help("io_uring: registered buffers.")
        .apply(A(j.pj.uring_fixedbufs = flag_value(v))),
    opt("registerfiles", opt_type::flag, CAT_ENGINE)
        .def("0")
        .help("io_uring: registered files.")
        .apply(A(j.pj.uring_registerfiles = flag_value(v))),
    opt("sqthread_poll", opt_type::flag, CAT_ENGINE)
        .def("0")
        .help("io_uring: kernel submission polling thread.")
        .apply(A(j.pj.uring_sqthread_poll = flag_value(v))),
    opt("hipri", opt_type::flag, CAT_ENGINE)
        .def("0")
        .help("io_uring: polled completions; pvsync2: RWF_HIPRI.")
        .apply(A(j.pj.uring_hipri = flag_value(v))),
    opt("hipri_percentage", opt_type::integer, CAT_ENGINE)
        .range(0, 100)
        .help("pvsync2: percentage of I/Os that get RWF_HIPRI when hipri is set (default 100, as fio).")
        .apply(A(j.pj.hipri_percentage = U32(int_in(o, v)); j.hipri_percentage_set = true)),
    opt("uncached", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(0, 1)
        .help("pvsync2, io_uring: RWF_UNCACHED (fio's value 0x40) on buffered reads and writes.")
        .apply(A(j.pj.pvsync2_uncached = int_in(o, v) != 0)),
    opt("nowait", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("pvsync2, io_uring, libaio: RWF_NOWAIT (an I/O that would block fails with EAGAIN).")
        .apply(A(j.pj.pvsync2_nowait = flag_value(v))),
    opt("direct", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("O_DIRECT: bypass the page cache.")
        .apply(A(j.pj.direct = flag_value(v))),
    opt("buffered", opt_type::boolean, CAT_ENGINE)
        .def("1")
        .help("The opposite of direct.")
        .apply(A(j.pj.direct = !flag_value(v))),
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
        .help("fsync after every N writes (0: never).")
        .apply(A(j.pj.fsync_every = U32(int_in(o, v)))),
    opt("fdatasync", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(0, 1e9)
        .help("fdatasync after every N writes (0: never).")
        .apply(A(j.pj.fdatasync_every = U32(int_in(o, v)))),
    opt("end_fsync", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("fsync when the writes are done.")
        .apply(A(j.pj.end_fsync = flag_value(v))),
    opt("fsync_on_close", opt_type::boolean, CAT_ENGINE)
        .def("0")
        .help("fsync when closing each file.")
        .apply(A(j.pj.fsync_on_close = flag_value(v))),
    opt("mem", opt_type::choice, CAT_BUF)
        .aliases({"iomem"})
        .def("malloc")
        .choices({
            {"malloc", "accepted", 0},
            {"shm", "accepted", 0},
            {"shmhuge", "accepted", 0},
            {"mmap", "accepted", 0},
            {"mmaphuge", "accepted", 0},
        })
        .help("Accepted for fio compatibility: ioplan always uses page-aligned private buffers.")
        .apply(set_mem),
    opt("cpus_allowed", opt_type::cpu_list, CAT_ENGINE)
        .help("CPUs the job's threads may run on (0-3,6).")
        .apply(A(j.pj.cpus_allowed_mask = parse_cpu_list(trim(v)))),
    opt("cpus_allowed_policy", opt_type::choice, CAT_ENGINE)
        .def("shared")
        .choices({
            {"shared", "every thread may use every allowed CPU", 0},
            {"split", "clone k runs on the k-th allowed CPU (round robin)", 1},
        })
        .help("How the job's threads share the allowed CPUs.")
        .apply(A(j.pj.cpus_allowed_split = choice_of(o, v))),
    opt("fadvise_hint", opt_type::choice, CAT_ENGINE)
        .def("1")
        .choices({
            {"0", "no hint", 0},
            {"1", "accepted", 0},
            {"sequential", "accepted", 0},
            {"random", "accepted", 0},
        })
        .help("Accepted for fio compatibility: ioplan gives the kernel no access-pattern hints (buffered I/O only).")
        .apply(A(choice_of(o, v))),
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
        .help("IOPS cap per clone (read,write,trim).")
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
        .range(1, 1e9)
        .help("I/Os between think times.")
        .apply(A(j.pj.thinktime_blocks = U32(int_in(o, v)))),

    // ---- buffers ------------------------------------------------------------------------------
    opt("zero_buffers", opt_type::flag, CAT_BUF)
        .def("0")
        .help("Write zeros.")
        .apply(A(if (flag_value(v)) j.pj.buffer_fill = PLAN_BUF_ZERO)),
    opt("refill_buffers", opt_type::flag, CAT_BUF)
        .def("0")
        .help("Fresh random data for every write.")
        .apply(A(j.pj.refill_buffers = flag_value(v))),
    opt("scramble_buffers", opt_type::boolean, CAT_BUF)
        .def("1")
        .help("Vary each write buffer cheaply (defeats dedupe).")
        .apply(A(j.pj.scramble_buffers = flag_value(v))),
    opt("buffer_compress_percentage", opt_type::integer, CAT_BUF)
        .unit("%")
        .def("0")
        .range(0, 100)
        .help("Make write data this compressible.")
        .apply(A(j.pj.buffer_compress_pct = U32(int_in(o, v)))),
    opt("buffer_compress_chunk", opt_type::size, CAT_BUF)
        .unit("bytes")
        .def("512")
        .range(1, 1e9)
        .help("Granularity of buffer_compress_percentage.")
        .apply(A(j.pj.buffer_compress_chunk_bytes = size_in(j, o, v))),
    opt("buffer_pattern", opt_type::pattern, CAT_BUF)
        .help("Fill write buffers with this pattern (0xhex, \"text\", number).")
        .apply(set_pattern),
    opt("write_source_size", opt_type::size, CAT_BUF)
        .unit("bytes")
        .def("0")
        .range(0, 1ull << 34)
        .help("Take write data from one random source buffer of this size (DISKSPD -Z<size>); 0: off.")
        .apply(A(j.pj.write_source_bytes = size_in(j, o, v); if (j.pj.write_source_bytes) j.pj.buffer_fill = PLAN_BUF_RANDOM_ONCE))
        .ioplan_only(),

    // ---- verify -----------------------------------------------------------------------------
    opt("verify", opt_type::choice, CAT_VERIFY)
        .def("none")
        .choices({
            {"none", "no verification", PLAN_VERIFY_NONE},
            {"0", "same as none", PLAN_VERIFY_NONE},
            {"crc32c", "CRC32C per block", PLAN_VERIFY_CRC32C},
            {"crc32c-intel", "same as crc32c", PLAN_VERIFY_CRC32C},
            {"xxhash", "XXH64 per block", PLAN_VERIFY_XXH64},
            {"pattern", "compare against verify_pattern", PLAN_VERIFY_PATTERN},
        })
        .help("Check written data when it is read back.")
        .apply(set_verify),
    opt("do_verify", opt_type::boolean, CAT_VERIFY)
        .def("1")
        .help("Read back and check after the write phase.")
        .apply(A(j.pj.do_verify = flag_value(v))),
    opt("verify_only", opt_type::flag, CAT_VERIFY)
        .def("0")
        .help("Only check data an earlier run wrote.")
        .apply(A(j.pj.verify_only = flag_value(v))),
    opt("verify_fatal", opt_type::boolean, CAT_VERIFY)
        .def("0")
        .help("Stop the job at the first mismatch.")
        .apply(A(j.pj.verify_fatal = flag_value(v))),
    opt("verify_interval", opt_type::size, CAT_VERIFY)
        .unit("bytes")
        .def("0")
        .help("Bytes per checksum (0: the block size).")
        .apply(A(j.pj.verify_interval_bytes = size_in(j, o, v))),
    opt("verify_pattern", opt_type::pattern, CAT_VERIFY)
        .help("Pattern written and checked by verify=pattern.")
        .apply(A(j.pattern = parse_pattern(v); j.pj.verify = PLAN_VERIFY_PATTERN; j.pj.buffer_fill = PLAN_BUF_PATTERN)),

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
        .help("Which errors a job records and continues after.")
        .apply(set_continue_on_error),

    // ---- statistics ---------------------------------------------------------------------------
    opt("disable_lat", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Do not measure total latency.")
        .apply(A(j.pj.disable_lat = flag_value(v))),
    opt("disable_clat", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Do not measure completion latency.")
        .apply(A(j.pj.disable_clat = flag_value(v))),
    opt("disable_slat", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Do not measure submission latency.")
        .apply(A(j.pj.disable_slat = flag_value(v))),
    opt("gtod_reduce", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Measure no latencies (bandwidth and IOPS only).")
        .apply(set_gtod_reduce),
    opt("clat_percentiles", opt_type::boolean, CAT_STATS)
        .def("1")
        .help("Report completion latency percentiles.")
        .apply(A(j.pj.clat_percentiles = flag_value(v))),
    opt("lat_percentiles", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Report total latency percentiles.")
        .apply(A(j.pj.lat_percentiles = flag_value(v))),
    opt("slat_percentiles", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Report submission latency percentiles.")
        .apply(A(j.pj.slat_percentiles = flag_value(v))),
    opt("percentile_list", opt_type::float_list, CAT_STATS)
        .unit("%")
        .def("1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99")
        .help("Percentiles to report, colon-separated.")
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

    // ---- fio's log files (engine/logs.h) ----
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
        .apply(A(j.pj.log_max_value = flag_value(v))),
    opt("log_offset", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Add each I/O's offset as a column of the logs.")
        .apply(A(j.pj.log_offset = flag_value(v))),
    opt("per_job_logs", opt_type::boolean, CAT_STATS)
        .def("1")
        .help("One log file per thread (PREFIX_bw.N.log); 0: every thread appends to PREFIX_bw.log (never truncated, as in fio).")
        .apply(A(j.pj.per_job_logs = flag_value(v))),
    opt("log_unix_epoch", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Log times as unix milliseconds instead of milliseconds since the measured window's start.")
        .apply(A(j.pj.log_unix_epoch = flag_value(v))),
    opt("log_alternate_epoch", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Log times in milliseconds since the epoch of the clock log_alternate_epoch_clock_id names.")
        .apply(A(j.pj.log_alternate_epoch = flag_value(v))),
    opt("log_alternate_epoch_clock_id", opt_type::integer, CAT_STATS)
        .def("0")
        .range(0, 15)
        .help("The clock_gettime() clock whose epoch log_unix_epoch and log_alternate_epoch use (0: CLOCK_REALTIME).")
        .apply(A(j.pj.log_epoch_clock_id = (int32_t)int_in(o, v))),
    opt("log_entries", opt_type::integer, CAT_STATS)
        .def("1024")
        .range(1024, 1048576)
        .help("Accepted for fio compatibility: fio's initial log size; ioplan's log buffers are fixed 4096-entry chunks.")
        .apply(A((void)int_in(o, v))),
    opt("log_prio", opt_type::boolean, CAT_STATS)
        .def("0")
        .help("Log the I/O priority as fio's ioprio value (0x0000) instead of 0/1 (real-time class or not).")
        .apply(A(j.pj.log_prio = flag_value(v))),
    // ---- flow control and submission (engine/flow.h, engine/worker_flow.c) ----
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
        .apply(A(j.pj.serialize_overlap = flag_value(v))),
    opt("max_latency", opt_type::time, CAT_RATE)
        .unit("us")
        .def("0")
        .range(0, 1e15)
        .help("Fail the job with ETIMEDOUT (fio's \"max latency exceeded\") when an I/O's total latency exceeds "
              "this (read,write,trim); 0: no limit.")
        .apply(A(FOR_DDIR(j.pj.max_latency_ns[d] = time_in(o, s)))),

    // ---- fio 3.33's io_uring and libaio options (engine/ioengines/io_uring.c, libaio.c) ----
    opt("force_async", opt_type::integer, CAT_ENGINE)
        .def("0")
        .range(0, 4294967295.0)
        .help("io_uring: set IOSQE_ASYNC (the kernel's worker threads) on every Nth I/O; 0: never.")
        .apply(A(j.pj.uring_force_async = U32(int_in(o, v)))),
    opt("nonvectored", opt_type::integer, CAT_ENGINE)
        .def("-1")
        .range(-1, 1)
        .help("io_uring: 1 or -1 (fio's default): plain read/write commands; 0: readv/writev commands.")
        .apply(A(j.pj.uring_nonvectored = (int32_t)int_in(o, v))),
    opt("sqthread_poll_cpu", opt_type::integer, CAT_ENGINE)
        .def("-1")
        .range(-1, 4095)
        .help("io_uring with sqthread_poll: the CPU the kernel's submission thread runs on; -1: any.")
        .apply(A(j.pj.uring_sq_cpu = (int32_t)int_in(o, v))),
    opt("cmd_type", opt_type::choice, CAT_ENGINE)
        .def("nvme")
        .choices({{"nvme", "NVMe commands", 0}})
        .help("io_uring_cmd's command set; fio lists it for io_uring too, where it does nothing (nor in ioplan).")
        .apply(A((void)choice_of(o, v))),
    opt("userspace_reap", opt_type::flag, CAT_ENGINE)
        .def("0")
        .help("libaio: reaps that need not wait (iodepth_batch_complete_min=0) read the completion ring "
              "directly instead of calling io_getevents().")
        .apply(A(j.pj.aio_userspace_reap = flag_value(v))),
};

const std::vector<option> &options()
{
    return table;
}

} // namespace parser

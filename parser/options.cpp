// parser/options.cpp - the option table (data; exempt from the file-length rule).
//
// Order matters in one place only: kb_base comes first so that size defaults
// are parsed under it.  Appliers are one-liners over parser/apply.hpp helpers.
#include "parser/options.hpp"

#include <strings.h>

#include "parser/apply.hpp"

namespace parser {

#define A(...) [](job_spec &j, const option &o, const std::string &v) { (void)j; (void)o; (void)v; __VA_ARGS__; }
#define U32(x) ((uint32_t)(x))
#define NR 1, 0 /* no numeric range */
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
    static const uint32_t map[] = {0, 0, PLAN_COE_READ, PLAN_COE_WRITE, PLAN_COE_READ | PLAN_COE_WRITE,
                                   PLAN_COE_VERIFY, PLAN_COE_ALL, PLAN_COE_ALL};
    j.pj.continue_on_error = map[choice_of(o, v)];
}

static void set_verify(job_spec &j, const option &o, const std::string &v)
{
    static const enum plan_verify map[] = {PLAN_VERIFY_NONE, PLAN_VERIFY_NONE, PLAN_VERIFY_CRC32C,
                                           PLAN_VERIFY_CRC32C, PLAN_VERIFY_XXH64, PLAN_VERIFY_PATTERN};
    std::string t = trim(v);
    try {
        j.pj.verify = map[choice_of(o, t)];
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
    j.pj.rate_process = choice_of(o, v) ? PLAN_RATE_POISSON : PLAN_RATE_LINEAR;
}

static const std::vector<option> table = {
    // ---- job control ------------------------------------------------------------
    {"kb_base", {}, opt_type::choice, "", "1024", NR, {{"1024", "k = 1024 (IEC meaning of k, m, g)"}, {"1000", "k = 1000 (SI)"}},
     CAT_STATS, "Base of the k, m, g suffixes in input and of the units in output.",
     A(j.kb_base = j.pj.kb_base = choice_of(o, v) ? 1000 : 1024), false},
    {"name", {}, opt_type::string, "", nullptr, NR, {}, CAT_JOB,
     "Job name as displayed (the section name by default); in [global] it names no job, as in fio.",
     A(j.name = trim(v); if (j.name.empty()) throw value_error("empty job name")), false},
    {"description", {}, opt_type::string, "", nullptr, NR, {}, CAT_JOB, "Free text shown with the job's results.",
     A(j.description = trim(v)), false},
    {"numjobs", {}, opt_type::integer, "", "1", 1, 65536, {}, CAT_JOB,
     "Number of clones (threads) of this job, each with its own files unless filename= is set.", set_numjobs, false},
    {"loops", {}, opt_type::integer, "", "1", 1, 1e9, {}, CAT_JOB, "Passes over the region.",
     A(j.pj.loops = U32(int_in(o, v))), false},
    {"runtime", {"timeout"}, opt_type::time, "s", "0", 0, 1e9, {}, CAT_TIME,
     "Stop the measured window after this long (0: when the I/O amount is done).", A(j.pj.runtime_ns = time_in(o, v)), false},
    {"time_based", {}, opt_type::flag, "", "0", NR, {}, CAT_TIME, "Run for runtime=, looping over the region.",
     A(j.pj.time_based = flag_value(v)), false},
    {"ramp_time", {}, opt_type::time, "s", "0", 0, 1e9, {}, CAT_TIME, "Warm-up before the measured window; not counted.",
     A(j.pj.ramp_time_ns = time_in(o, v)), false},
    {"cooldown", {}, opt_type::time, "s", "0", 0, 1e9, {}, CAT_TIME,
     "Keep running this long after the measured window, not counted (DISKSPD -C).", A(j.pj.cooldown_ns = time_in(o, v)), true},
    {"startdelay", {}, opt_type::time, "s", "0", 0, 1e9, {}, CAT_TIME, "Delay before the job starts; lo-hi picks one per clone.",
     set_startdelay, false},
    {"stonewall", {"wait_for_previous"}, opt_type::flag, "", "0", NR, {}, CAT_JOB,
     "Wait for every earlier job to finish, and start a new reporting group.", A(j.pj.stonewall = flag_value(v)), false},
    {"new_group", {}, opt_type::flag, "", "0", NR, {}, CAT_JOB, "Start a new reporting group (no barrier).",
     A(j.pj.new_group = flag_value(v)), false},
    {"wait_for", {}, opt_type::string, "", nullptr, NR, {}, CAT_JOB, "Start only after the named earlier job has finished.",
     A(j.wait_for = trim(v)), false},
    {"exitall", {}, opt_type::flag, "", "0", NR, {}, CAT_JOB, "When this job finishes, stop the other jobs of its group.",
     A(j.pj.exitall = flag_value(v)), false},
    {"thread", {}, opt_type::flag, "", "0", NR, {}, CAT_JOB,
     "Accepted for fio compatibility: ioplan always runs clones as threads.", A(flag_value(v)), false},
    {"threads", {}, opt_type::integer, "", nullptr, NR, {}, CAT_JOB,
     "Accepted for fio compatibility: fio's tiobench profile option, without effect unless a profile runs (none does in ioplan).",
     A(parse_int(v)), false},
    {"group_reporting", {}, opt_type::flag, "", "0", NR, {}, CAT_STATS, "Report each group as one merged job.",
     A(j.pj.group_reporting = flag_value(v)), false},
    {"create_only", {}, opt_type::boolean, "", "0", NR, {}, CAT_FILES, "Lay out the files, then stop.",
     A(j.pj.create_only = flag_value(v)), false},
    {"stall_timeout", {}, opt_type::time, "s", "0", 0, 1e6, {}, CAT_SAFETY,
     "Report a clone that completes no I/O for this long (0: off).", A(j.pj.stall_timeout_ns = time_in(o, v)), true},
    {"io_trace", {}, opt_type::integer, "", "0", 0, PLAN_IO_TRACE_TOTAL_MAX, {}, CAT_STATS,
     "Record the first N I/Os of each clone (time, offset, size, latency) in the results; "
     "a run keeps at most 262144 records over all clones and repeats.", A(j.pj.io_trace_max = (uint64_t)int_in(o, v)), true},

    // ---- repetition (CrystalDiskMark) -------------------------------------------------
    {"repeat", {}, opt_type::integer, "", "1", 1, 1000, {}, CAT_REPEAT, "Measured runs of the job's group.",
     A(j.pj.repeat = U32(int_in(o, v))), true},
    {"repeat_discard", {}, opt_type::integer, "", "0", 0, 1000, {}, CAT_REPEAT, "Extra runs first, not counted (warm-up runs).",
     A(j.pj.repeat_discard = U32(int_in(o, v))), true},
    {"repeat_aggregate", {}, opt_type::choice, "", "max", NR,
     {{"max", "best run: highest throughput, lowest latency (CrystalDiskMark)"}, {"median", "median run"},
      {"mean", "mean of the runs"}, {"min", "worst run"}},
     CAT_REPEAT, "How the repeated runs are summarised (every run is kept in the results).",
     A(static const enum plan_repeat_aggregate m[] = {PLAN_AGG_MAX, PLAN_AGG_MEDIAN, PLAN_AGG_MEAN, PLAN_AGG_MIN};
       j.pj.repeat_aggregate = m[choice_of(o, v)]), true},
    {"repeat_pause", {}, opt_type::time, "s", "0", 0, 1e6, {}, CAT_REPEAT, "Sleep between repeated runs.",
     A(j.pj.repeat_pause_ns = time_in(o, v)), true},
    {"group_pause", {}, opt_type::time, "s", "0", 0, 1e6, {}, CAT_REPEAT,
     "Sleep before this job's group starts (CrystalDiskMark's interval between tests).", A(j.pj.group_pause_ns = time_in(o, v)), true},

    // ---- files ---------------------------------------------------------------------
    {"directory", {}, opt_type::path_list, "", nullptr, NR, {}, CAT_FILES,
     "Directory for the job's files; d1:d2 spreads clones over several.", A(j.directories = path_list(trim(v))), false},
    {"filename", {}, opt_type::path_list, "", nullptr, NR, {}, CAT_FILES,
     "Fixed file or device name(s), a:b, shared by every clone; overrides nrfiles.", A(j.filenames = path_list(trim(v))), false},
    {"filename_format", {}, opt_type::string, "", "$jobname.$jobnum.$filenum", NR, {}, CAT_FILES,
     "Name of generated files, with $jobname, $jobnum (clone), $filenum.",
     A(j.filename_format = trim(v); if (j.filename_format.empty()) throw value_error("empty filename_format")), false},
    {"nrfiles", {"nr_files"}, opt_type::integer, "", "1", 1, 1e6, {}, CAT_FILES, "Files per clone; size= is split over them.",
     A(j.pj.nrfiles = U32(int_in(o, v))), false},
    {"openfiles", {}, opt_type::integer, "", "0", 0, 1e6, {}, CAT_FILES, "Files kept open at once (0: all).",
     A(j.pj.openfiles = U32(int_in(o, v))), false},
    {"file_service_type", {}, opt_type::choice, "", "roundrobin", NR,
     {{"roundrobin", "each I/O to the next file"}, {"sequential", "finish one file, then the next"}, {"random", "a random file per I/O"}},
     CAT_FILES, "How a clone with several files picks the file for each I/O.",
     A(static const enum plan_file_service m[] = {PLAN_FILE_SERVICE_ROUNDROBIN, PLAN_FILE_SERVICE_SEQUENTIAL, PLAN_FILE_SERVICE_RANDOM};
       j.pj.file_service = m[choice_of(o, v)]), false},
    {"size", {}, opt_type::size_pct, "bytes", "0", NR, {}, CAT_FILES,
     "Bytes of I/O region per clone, split over its files; or a percentage of the existing file/device.",
     A(size_or_pct(j, o, v, &j.pj.size_bytes, &j.pj.size_ppm)), false},
    {"filesize", {}, opt_type::size_range, "bytes", nullptr, NR, {}, CAT_FILES, "Size of each file (lo-hi: one size per file in range).",
     set_filesize, false},
    {"io_size", {"io_limit"}, opt_type::size, "bytes", "0", NR, {}, CAT_FILES, "Bytes to transfer (default: size); wraps in the region.",
     A(j.pj.io_size_bytes = size_in(j, o, v)), false},
    {"offset", {"fileoffset"}, opt_type::size_pct, "bytes", "0", NR, {}, CAT_FILES, "Start of the I/O region in each file, or a percentage.",
     A(size_or_pct(j, o, v, &j.pj.offset_bytes, &j.pj.offset_ppm)), false},
    {"offset_increment", {}, opt_type::size, "bytes", "0", NR, {}, CAT_FILES,
     "Each clone's region starts this much after the previous clone's (DISKSPD -T).", A(j.pj.offset_increment_bytes = size_in(j, o, v)), false},
    {"number_ios", {}, opt_type::integer, "", "0", 0, 1e18, {}, CAT_FILES, "Stop after this many I/Os (0: no limit).",
     A(j.pj.number_ios = (uint64_t)int_in(o, v)), false},
    {"fill_device", {"fill_fs"}, opt_type::boolean, "", "0", NR, {}, CAT_FILES, "Write until the device or filesystem is full.",
     A(j.pj.fill_device = flag_value(v)), false},
    {"allow_file_create", {}, opt_type::boolean, "", "1", NR, {}, CAT_FILES, "Create missing files (0: a missing file is an error).",
     A(j.pj.allow_file_create = flag_value(v)), false},
    {"create_fsync", {}, opt_type::boolean, "", "1", NR, {}, CAT_FILES, "fsync after laying out a file.",
     A(j.pj.create_fsync = flag_value(v)), false},
    {"create_serialize", {}, opt_type::boolean, "", "1", NR, {}, CAT_FILES,
     "Accepted for fio compatibility: ioplan always lays out files before any job starts.", A(flag_value(v)), false},
    {"create_on_open", {}, opt_type::boolean, "", "0", NR, {}, CAT_FILES,
     "Accepted for fio compatibility: ioplan always lays out files before any job starts.", A(flag_value(v)), false},
    {"unique_filename", {}, opt_type::boolean, "", "1", NR, {}, CAT_FILES,
     "Accepted for fio compatibility (client/server names); no effect on a local run.", A(flag_value(v)), false},
    {"fallocate", {}, opt_type::choice, "", "native", NR,
     {{"native", "fallocate(), ignored where unsupported"}, {"none", "no preallocation"}, {"0", "same as none"},
      {"posix", "posix_fallocate()"}, {"1", "same as posix"}, {"keep", "fallocate() with FALLOC_FL_KEEP_SIZE"}},
     CAT_FILES, "How files are preallocated before layout.",
     A(static const enum plan_fallocate m[] = {PLAN_FALLOCATE_NATIVE, PLAN_FALLOCATE_NONE, PLAN_FALLOCATE_NONE,
                                               PLAN_FALLOCATE_POSIX, PLAN_FALLOCATE_POSIX, PLAN_FALLOCATE_KEEP};
       j.pj.fallocate = m[choice_of(o, v)]), false},
    {"overwrite", {}, opt_type::boolean, "", "0", NR, {}, CAT_FILES, "Write jobs lay out (fill) their files first.",
     A(j.pj.overwrite = flag_value(v)), false},
    {"pre_read", {}, opt_type::boolean, "", "0", NR, {}, CAT_FILES, "Read the files once into the page cache before the job.",
     A(j.pj.pre_read = flag_value(v)), false},
    {"invalidate", {}, opt_type::boolean, "", "1", NR, {}, CAT_FILES, "Drop the files' cached pages before the job and at each new pass over them (as fio), so buffered reads measure the device.",
     A(j.pj.invalidate = flag_value(v)), false},
    {"unlink", {}, opt_type::boolean, "", "0", NR, {}, CAT_FILES, "Delete the job's files when it is done (only files ioplan created).",
     A(j.pj.unlink = flag_value(v)), false},
    {"unlink_each_loop", {}, opt_type::boolean, "", "0", NR, {}, CAT_FILES, "Delete and re-create the files after every loop.",
     A(j.pj.unlink_each_loop = flag_value(v)), false},
    {"zonemode", {}, opt_type::choice, "", "none", NR,
     {{"none", "no zones"}, {"strided", "do zonesize bytes, then skip to the next zonerange boundary"}},
     CAT_PATTERN, "Zones within the region; zonesize= alone also selects strided, as in fio (zoned block devices, zonemode=zbd, are not supported).",
     A(if (trim(v) == "zbd") throw value_error("zonemode=zbd (zoned block devices) is not supported");
       choice_of(o, v)), false},
    {"zonesize", {}, opt_type::size, "bytes", "0", NR, {}, CAT_PATTERN, "Bytes done in each zone (zonemode=strided).",
     A(j.pj.zone_size_bytes = size_in(j, o, v)), false},
    {"zonerange", {}, opt_type::size_pct, "bytes", "0", NR, {}, CAT_PATTERN,
     "Distance between zone starts (default: zonesize); a percentage spreads zones over the region (1% = 100 samples).",
     A(size_or_pct(j, o, v, &j.pj.zone_range_bytes, &j.pj.zone_range_ppm)), false},
    {"zoneskip", {}, opt_type::size, "bytes", "0", NR, {}, CAT_PATTERN, "Extra bytes skipped after each zone.",
     A(j.pj.zone_skip_bytes = size_in(j, o, v)), false},

    // ---- safety ----------------------------------------------------------------------
    {"allow_device_write", {}, opt_type::string, "", nullptr, NR, {}, CAT_SAFETY,
     "The one block device writes may go to (exact path); never one that is mounted, swap or RAID/LVM member.",
     A(j.allow_device_write = trim(v)), true},
    {"allow_existing_file_write", {}, opt_type::boolean, "", "0", NR, {}, CAT_SAFETY,
     "Allow writing into existing files ioplan did not create.", A(j.allow_existing_file_write = flag_value(v)), true},

    // ---- pattern ----------------------------------------------------------------------
    {"rw", {"readwrite"}, opt_type::choice, "", "read", NR,
     {{"read", "sequential reads"}, {"write", "sequential writes"}, {"trim", "sequential trims"},
      {"randread", "random reads"}, {"randwrite", "random writes"}, {"randtrim", "random trims"},
      {"rw", "sequential mixed reads and writes"}, {"readwrite", "same as rw"},
      {"randrw", "random mixed reads and writes"}, {"trimwrite", "trim then write each block"},
      {"randtrimwrite", "random trim then write"}},
     CAT_PATTERN, "Direction and order of the I/O; read:4k leaves a 4k gap after each sequential I/O.", set_rw, false},
    {"rwmixread", {}, opt_type::integer, "%", "50", 0, 100, {}, CAT_PATTERN, "Percentage of reads in mixed jobs.",
     A(j.pj.rwmixread_pct = U32(int_in(o, v))), false},
    {"rwmixwrite", {}, opt_type::integer, "%", "50", 0, 100, {}, CAT_PATTERN, "Percentage of writes in mixed jobs.",
     A(j.pj.rwmixread_pct = 100 - U32(int_in(o, v))), false},
    {"bs", {"blocksize"}, opt_type::size_ddir, "bytes", "4k", 1, 1ull << 30, {}, CAT_PATTERN,
     "Block size, or read,write,trim sizes.", set_bs_fixed, false},
    {"bsrange", {"blocksize_range"}, opt_type::size_range_ddir, "bytes", nullptr, NR, {}, CAT_PATTERN,
     "Block size range lo-hi (per direction with commas).", set_bsrange, false},
    {"bssplit", {}, opt_type::bssplit, "bytes", nullptr, NR, {}, CAT_PATTERN,
     "Weighted block sizes: 4k/30:64k/70 (per direction with commas).", set_bssplit, false},
    {"blockalign", {"ba"}, opt_type::size_ddir, "bytes", "0", NR, {}, CAT_PATTERN, "Alignment of random offsets (default: the block size).",
     A(FOR_DDIR(j.pj.bs[d].align_bytes = size_in(j, o, s))), false},
    {"bs_unaligned", {}, opt_type::flag, "", "0", NR, {}, CAT_PATTERN, "Block sizes from a range need not be multiples of the minimum.",
     A(j.pj.bs_unaligned = flag_value(v)), false},
    {"bs_is_seq_rand", {}, opt_type::boolean, "", "0", NR, {}, CAT_PATTERN, "bs=a,b means sequential,random instead of read,write.",
     A(j.pj.bs_is_seq_rand = flag_value(v)), false},
    {"percentage_random", {}, opt_type::int_ddir, "%", "100", 0, 100, {}, CAT_PATTERN,
     "Share of random I/Os in a random job (the rest sequential).", A(FOR_DDIR(j.pj.percentage_random_pct[d] = U32(int_in(o, s)))), false},
    {"random_distribution", {}, opt_type::choice, "", "random", NR,
     {{"random", "uniform"}, {"zipf", "zipf:theta[:center]"}, {"pareto", "pareto:h[:center]"},
      {"normal", "normal[:dev[:center]]: fio's bell (sd range/12) widened by a uniform dev% (0..99)"}, {"gauss", "same as normal"},
      {"zoned", "zoned:io%/range%:... (DISKSPD -rdpct)"}, {"zoned_abs", "zoned_abs:io%/bytes:... (DISKSPD -rdabs)"}},
     CAT_PATTERN, "Distribution of random offsets; non-uniform ones imply norandommap.", set_random_distribution, false},
    {"random_generator", {}, opt_type::choice, "", "tausworthe", NR,
     {{"tausworthe", "accepted"}, {"lfsr", "accepted"}, {"tausworthe64", "accepted"}}, CAT_PATTERN,
     "Accepted for fio compatibility: ioplan covers every block once per pass with its own permutation generator.",
     A(choice_of(o, v)), false},
    {"norandommap", {}, opt_type::flag, "", "0", NR, {}, CAT_PATTERN, "Random offsets drawn independently (blocks may repeat).",
     A(j.pj.norandommap = flag_value(v)), false},
    {"randrepeat", {"allrandrepeat"}, opt_type::boolean, "", "1", NR, {}, CAT_PATTERN, "Same random sequence on every run.",
     A(j.pj.randrepeat = flag_value(v)), false},
    {"randseed", {}, opt_type::integer, "", "0x89", 0, 1.8e19, {}, CAT_PATTERN, "Seed of the random sequences: clone k of the job uses randseed + k (without randseed=, 0x89 + thread number - 1).",
     A(j.pj.randseed = (uint64_t)parse_int(v); j.randseed_set = true), false},
    {"interlocked", {}, opt_type::boolean, "", "0", NR, {}, CAT_PATTERN,
     "Clones of a sequential job share one atomic next offset (DISKSPD -si).", A(j.pj.interlocked = flag_value(v)), true},
    {"sequential_parallel", {}, opt_type::boolean, "", "0", NR, {}, CAT_PATTERN,
     "Each of the iodepth outstanding I/Os follows its own sequential stream from the same start (DISKSPD -p).",
     A(j.pj.sequential_parallel = flag_value(v)), true},
    {"sequential_stride", {}, opt_type::size, "bytes", "0", NR, {}, CAT_PATTERN,
     "Step between sequential I/Os (0: the block size; DISKSPD -s<stride>).", A(j.pj.sequential_stride_bytes = size_in(j, o, v)), true},

    // ---- engine --------------------------------------------------------------------------
    {"ioengine", {}, opt_type::choice, "", "psync", NR,
     {{"psync", "pread/pwrite"}, {"sync", "read/write after lseek (skipped where the last I/O ended)"}, {"null", "no data moves; measures the tool"},
      {"libaio", "Linux native AIO"}, {"io_uring", "io_uring (liburing)"}, {"pvsync", "preadv/pwritev"},
      {"pvsync2", "preadv2/pwritev2 with RWF_* flags (hipri, uncached, nowait)"},
      {"vsync", "readv/writev after lseek; adjacent I/Os coalesce into one call"},
      {"posixaio", "POSIX aio_read/aio_write"}, {"mmap", "memcpy to and from a mapping of the file"},
      {"falloc", "fallocate per I/O (reads keep size, trims punch holes); no data moves"},
      {"ftruncate", "ftruncate to each write's offset; no data moves"}},
     CAT_ENGINE, "How I/O is issued.", set_ioengine, false},
    {"iodepth", {}, opt_type::integer, "", "1", 1, 65536, {}, CAT_ENGINE, "I/Os kept in flight per clone (async engines).",
     A(j.pj.iodepth = U32(int_in(o, v))), false},
    {"iodepth_batch_submit", {"iodepth_batch"}, opt_type::integer, "", "1", 0, 65536, {}, CAT_ENGINE, "I/Os submitted at once.",
     A(j.pj.iodepth_batch_submit = U32(int_in(o, v))), false},
    {"iodepth_batch_complete_min", {"iodepth_batch_complete"}, opt_type::integer, "", "1", 0, 65536, {}, CAT_ENGINE,
     "Completions waited for at once.", A(j.pj.iodepth_batch_complete_min = U32(int_in(o, v))), false},
    {"iodepth_batch_complete_max", {}, opt_type::integer, "", nullptr, 0, 65536, {}, CAT_ENGINE, "Most completions reaped at once (default: iodepth_batch_complete_min, as fio).",
     A(j.pj.iodepth_batch_complete_max = U32(int_in(o, v)); j.iodepth_batch_complete_max_set = true), false},
    {"iodepth_low", {}, opt_type::integer, "", "0", 0, 65536, {}, CAT_ENGINE, "Refill the queue when it drains to this depth (0: iodepth).",
     A(j.pj.iodepth_low = U32(int_in(o, v))), false},
    {"fixedbufs", {}, opt_type::flag, "", "0", NR, {}, CAT_ENGINE, "io_uring: registered buffers.",
     A(j.pj.uring_fixedbufs = flag_value(v)), false},
    {"registerfiles", {}, opt_type::flag, "", "0", NR, {}, CAT_ENGINE, "io_uring: registered files.",
     A(j.pj.uring_registerfiles = flag_value(v)), false},
    {"sqthread_poll", {}, opt_type::flag, "", "0", NR, {}, CAT_ENGINE, "io_uring: kernel submission polling thread.",
     A(j.pj.uring_sqthread_poll = flag_value(v)), false},
    // ---- engine-specific options (issue 27) ------------------------------------------------
    {"hipri", {}, opt_type::flag, "", "0", NR, {}, CAT_ENGINE, "io_uring: polled completions; pvsync2: RWF_HIPRI.",
     A(j.pj.uring_hipri = flag_value(v)), false},
    {"hipri_percentage", {}, opt_type::integer, "", nullptr, 0, 100, {}, CAT_ENGINE,
     "pvsync2: percentage of I/Os that get RWF_HIPRI when hipri is set (default 100, as fio).",
     A(j.pj.hipri_percentage = U32(int_in(o, v)); j.hipri_percentage_set = true), false},
    {"uncached", {}, opt_type::integer, "", "0", 0, 1, {}, CAT_ENGINE,
     "pvsync2: RWF_UNCACHED (fio's value 0x40) on buffered reads and writes.", A(j.pj.pvsync2_uncached = int_in(o, v) != 0), false},
    {"nowait", {}, opt_type::boolean, "", "0", NR, {}, CAT_ENGINE, "pvsync2: RWF_NOWAIT.",
     A(j.pj.pvsync2_nowait = flag_value(v)), false},

    {"direct", {}, opt_type::boolean, "", "0", NR, {}, CAT_ENGINE, "O_DIRECT: bypass the page cache.",
     A(j.pj.direct = flag_value(v)), false},
    {"buffered", {}, opt_type::boolean, "", "1", NR, {}, CAT_ENGINE, "The opposite of direct.",
     A(j.pj.direct = !flag_value(v)), false},
    {"sync", {}, opt_type::choice, "", "none", NR,
     {{"none", "no sync flag"}, {"0", "same as none"}, {"sync", "O_SYNC"}, {"1", "same as sync"}, {"dsync", "O_DSYNC"}},
     CAT_ENGINE, "Open files with O_SYNC or O_DSYNC.",
     A(static const enum plan_sync_mode m[] = {PLAN_SYNC_NONE, PLAN_SYNC_NONE, PLAN_SYNC_SYNC, PLAN_SYNC_SYNC, PLAN_SYNC_DSYNC};
       j.pj.sync_mode = m[choice_of(o, v)]), false},
    {"fsync", {}, opt_type::integer, "", "0", 0, 1e9, {}, CAT_ENGINE, "fsync after every N writes (0: never).",
     A(j.pj.fsync_every = U32(int_in(o, v))), false},
    {"fdatasync", {}, opt_type::integer, "", "0", 0, 1e9, {}, CAT_ENGINE, "fdatasync after every N writes (0: never).",
     A(j.pj.fdatasync_every = U32(int_in(o, v))), false},
    {"end_fsync", {}, opt_type::boolean, "", "0", NR, {}, CAT_ENGINE, "fsync when the writes are done.",
     A(j.pj.end_fsync = flag_value(v)), false},
    {"fsync_on_close", {}, opt_type::boolean, "", "0", NR, {}, CAT_ENGINE, "fsync when closing each file.",
     A(j.pj.fsync_on_close = flag_value(v)), false},
    {"mem", {"iomem"}, opt_type::choice, "", "malloc", NR,
     {{"malloc", "accepted"}, {"shm", "accepted"}, {"shmhuge", "accepted"}, {"mmap", "accepted"}, {"mmaphuge", "accepted"}},
     CAT_BUF, "Accepted for fio compatibility: ioplan always uses page-aligned private buffers.", set_mem, false},
    {"cpus_allowed", {}, opt_type::cpu_list, "", nullptr, NR, {}, CAT_ENGINE, "CPUs the job's threads may run on (0-3,6).",
     A(j.pj.cpus_allowed_mask = parse_cpu_list(trim(v))), false},
    {"cpus_allowed_policy", {}, opt_type::choice, "", "shared", NR,
     {{"shared", "every thread may use every allowed CPU"}, {"split", "clone k runs on the k-th allowed CPU (round robin)"}},
     CAT_ENGINE, "How the job's threads share the allowed CPUs.", A(j.pj.cpus_allowed_split = choice_of(o, v) == 1), false},
    {"fadvise_hint", {}, opt_type::choice, "", "1", NR,
     {{"0", "no hint"}, {"1", "accepted"}, {"sequential", "accepted"}, {"random", "accepted"}},
     CAT_ENGINE, "Accepted for fio compatibility: ioplan gives the kernel no access-pattern hints (buffered I/O only).",
     A(choice_of(o, v)), false},
    {"buffer_fill", {}, opt_type::choice, "", "random", NR,
     {{"random", "random data, varied per write"}, {"zero", "zeros (zero_buffers)"},
      {"pattern", "buffer_pattern"}, {"random_once", "one random source reused (write_source_size)"}},
     CAT_BUF, "What write buffers hold.",
     A(static const enum plan_buffer_fill m[] = {PLAN_BUF_RANDOM, PLAN_BUF_ZERO, PLAN_BUF_PATTERN, PLAN_BUF_RANDOM_ONCE};
       j.pj.buffer_fill = m[choice_of(o, v)]), true},
    {"nice", {}, opt_type::integer, "", "0", -20, 19, {}, CAT_ENGINE, "Scheduling niceness of the job's threads.",
     A(j.pj.nice = (int32_t)int_in(o, v)), false},

    // ---- rate and think time ----------------------------------------------------------------
    {"rate", {}, opt_type::size_ddir, "bytes/s", "0", NR, {}, CAT_RATE, "Bandwidth cap per clone (read,write,trim).",
     A(FOR_DDIR(j.pj.rate_bytes_per_s[d] = size_in(j, o, s))), false},
    {"rate_min", {"ratemin"}, opt_type::size_ddir, "bytes/s", "0", NR, {}, CAT_RATE, "Fail the job if bandwidth drops below this.",
     A(FOR_DDIR(j.pj.rate_min_bytes_per_s[d] = size_in(j, o, s))), false},
    {"rate_iops", {}, opt_type::int_ddir, "IOPS", "0", 0, 1e12, {}, CAT_RATE, "IOPS cap per clone (read,write,trim).",
     A(FOR_DDIR(j.pj.rate_iops[d] = (uint64_t)int_in(o, s))), false},
    {"rate_iops_min", {}, opt_type::int_ddir, "IOPS", "0", 0, 1e12, {}, CAT_RATE, "Fail the job if IOPS drop below this.",
     A(FOR_DDIR(j.pj.rate_iops_min[d] = (uint64_t)int_in(o, s))), false},
    {"rate_process", {}, opt_type::choice, "", "linear", NR, {{"linear", "evenly spaced"}, {"poisson", "exponential gaps"}},
     CAT_RATE, "Arrival process of rate-limited I/O.", set_rate_process, false},
    {"rate_cycle", {}, opt_type::time, "ms", "1000", 1, 1e9, {}, CAT_RATE, "Least time between rate_min checks, which judge the completions since the last one (after a 2 s settle, as fio).",
     A(j.pj.rate_cycle_ns = time_in(o, v)), false},
    {"thinktime", {}, opt_type::time, "us", "0", 0, 1e12, {}, CAT_RATE, "Pause after every thinktime_blocks I/Os.",
     A(j.pj.thinktime_ns = time_in(o, v)), false},
    {"thinktime_spin", {}, opt_type::time, "us", "0", 0, 1e12, {}, CAT_RATE, "Part of thinktime spent busy-waiting.",
     A(j.pj.thinktime_spin_ns = time_in(o, v)), false},
    {"thinktime_blocks", {}, opt_type::integer, "", "1", 1, 1e9, {}, CAT_RATE, "I/Os between think times.",
     A(j.pj.thinktime_blocks = U32(int_in(o, v))), false},

    // ---- buffers ------------------------------------------------------------------------------
    {"zero_buffers", {}, opt_type::flag, "", "0", NR, {}, CAT_BUF, "Write zeros.",
     A(if (flag_value(v)) j.pj.buffer_fill = PLAN_BUF_ZERO), false},
    {"refill_buffers", {}, opt_type::flag, "", "0", NR, {}, CAT_BUF, "Fresh random data for every write.",
     A(j.pj.refill_buffers = flag_value(v)), false},
    {"scramble_buffers", {}, opt_type::boolean, "", "1", NR, {}, CAT_BUF, "Vary each write buffer cheaply (defeats dedupe).",
     A(j.pj.scramble_buffers = flag_value(v)), false},
    {"buffer_compress_percentage", {}, opt_type::integer, "%", "0", 0, 100, {}, CAT_BUF, "Make write data this compressible.",
     A(j.pj.buffer_compress_pct = U32(int_in(o, v))), false},
    {"buffer_compress_chunk", {}, opt_type::size, "bytes", "512", 1, 1e9, {}, CAT_BUF, "Granularity of buffer_compress_percentage.",
     A(j.pj.buffer_compress_chunk_bytes = size_in(j, o, v)), false},
    {"buffer_pattern", {}, opt_type::pattern, "", nullptr, NR, {}, CAT_BUF, "Fill write buffers with this pattern (0xhex, \"text\", number).",
     set_pattern, false},
    {"write_source_size", {}, opt_type::size, "bytes", "0", 0, 1ull << 34, {}, CAT_BUF,
     "Take write data from one random source buffer of this size (DISKSPD -Z<size>); 0: off.",
     A(j.pj.write_source_bytes = size_in(j, o, v); if (j.pj.write_source_bytes) j.pj.buffer_fill = PLAN_BUF_RANDOM_ONCE), true},

    // ---- verify -----------------------------------------------------------------------------
    {"verify", {}, opt_type::choice, "", "none", NR,
     {{"none", "no verification"}, {"0", "same as none"}, {"crc32c", "CRC32C per block"}, {"crc32c-intel", "same as crc32c"},
      {"xxhash", "XXH64 per block"}, {"pattern", "compare against verify_pattern"}},
     CAT_VERIFY, "Check written data when it is read back.", set_verify, false},
    {"do_verify", {}, opt_type::boolean, "", "1", NR, {}, CAT_VERIFY, "Read back and check after the write phase.",
     A(j.pj.do_verify = flag_value(v)), false},
    {"verify_only", {}, opt_type::flag, "", "0", NR, {}, CAT_VERIFY, "Only check data an earlier run wrote.",
     A(j.pj.verify_only = flag_value(v)), false},
    {"verify_fatal", {}, opt_type::boolean, "", "0", NR, {}, CAT_VERIFY, "Stop the job at the first mismatch.",
     A(j.pj.verify_fatal = flag_value(v)), false},
    {"verify_interval", {}, opt_type::size, "bytes", "0", NR, {}, CAT_VERIFY, "Bytes per checksum (0: the block size).",
     A(j.pj.verify_interval_bytes = size_in(j, o, v)), false},
    {"verify_pattern", {}, opt_type::pattern, "", nullptr, NR, {}, CAT_VERIFY, "Pattern written and checked by verify=pattern.",
     A(j.pattern = parse_pattern(v); j.pj.verify = PLAN_VERIFY_PATTERN; j.pj.buffer_fill = PLAN_BUF_PATTERN), false},

    // ---- errors ------------------------------------------------------------------------------
    {"continue_on_error", {}, opt_type::choice, "", "none", NR,
     {{"none", "stop at the first error"}, {"0", "same as none"}, {"read", "continue on read errors"},
      {"write", "continue on write errors"}, {"io", "continue on read and write errors"},
      {"verify", "continue on verify errors"}, {"all", "continue on every error"}, {"1", "same as all"}},
     CAT_SAFETY, "Which errors a job records and continues after.", set_continue_on_error, false},

    // ---- statistics ---------------------------------------------------------------------------
    {"disable_lat", {}, opt_type::boolean, "", "0", NR, {}, CAT_STATS, "Do not measure total latency.",
     A(j.pj.disable_lat = flag_value(v)), false},
    {"disable_clat", {}, opt_type::boolean, "", "0", NR, {}, CAT_STATS, "Do not measure completion latency.",
     A(j.pj.disable_clat = flag_value(v)), false},
    {"disable_slat", {}, opt_type::boolean, "", "0", NR, {}, CAT_STATS, "Do not measure submission latency.",
     A(j.pj.disable_slat = flag_value(v)), false},
    {"gtod_reduce", {}, opt_type::boolean, "", "0", NR, {}, CAT_STATS, "Measure no latencies (bandwidth and IOPS only).",
     set_gtod_reduce, false},
    {"clat_percentiles", {}, opt_type::boolean, "", "1", NR, {}, CAT_STATS, "Report completion latency percentiles.",
     A(j.pj.clat_percentiles = flag_value(v)), false},
    {"lat_percentiles", {}, opt_type::boolean, "", "0", NR, {}, CAT_STATS, "Report total latency percentiles.",
     A(j.pj.lat_percentiles = flag_value(v)), false},
    {"slat_percentiles", {}, opt_type::boolean, "", "0", NR, {}, CAT_STATS, "Report submission latency percentiles.",
     A(j.pj.slat_percentiles = flag_value(v)), false},
    {"percentile_list", {}, opt_type::float_list, "%", "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99", NR, {},
     CAT_STATS, "Percentiles to report, colon-separated.", set_percentiles, false},
    {"bwavgtime", {}, opt_type::time, "ms", "500", 1, 1e9, {}, CAT_STATS, "Interval of bandwidth samples.",
     A(j.pj.bw_avg_time_ns = time_in(o, v)), false},
    {"iopsavgtime", {}, opt_type::time, "ms", "500", 1, 1e9, {}, CAT_STATS, "Interval of IOPS samples (DISKSPD -D).",
     A(j.pj.iops_avg_time_ns = time_in(o, v)), false},
};

const std::vector<option> &options()
{
    return table;
}

} // namespace parser

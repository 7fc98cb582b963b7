// parser/compound_options.cpp - the options whose value is a small language of
// its own (rw=read:4k, random_distribution=zipf:1.2, bssplit=, percentile_list=,
// ioengine=, ignore_error=, sync_file_range=write:4): their appliers are too long
// for a line of the option table.
#include "parser/compound_options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace parser {

// fio reads a random rw's postfix (how many I/Os share one random draw) with
// atoi into an unsigned count: "4k" is 4, "-8" is 2^32 - 8 (one draw, then
// sequential I/O), and no number at all is 0, with which no I/O draws.
static void set_rw_seq_nr(job_spec &j, const std::string &mod)
{
    size_t i = 0;
    if (i < mod.size() && (mod[i] == '-' || mod[i] == '+'))
        i++;
    size_t digits = i;
    while (i < mod.size() && isdigit((unsigned char)mod[i]))
        i++;
    long n = i > digits ? std::strtol(mod.substr(0, i).c_str(), nullptr, 10) : 0;
    note_ignored(mod.substr(i));
    j.pj.rw_seq_nr = (uint32_t)(int)n;
    j.pj.rw_seq_only = j.pj.rw_seq_nr == 0;
    if (j.pj.rw_seq_only)
        note_reading("no number of I/Os per random offset (fio reads 0): none is random, each goes on from "
                     "the last, from the region's start (a random block only at its end), as fio");
    else if ((long)j.pj.rw_seq_nr != n)   // negative, or past int: atoi's wrap
        note_reading("fio reads " + std::to_string(n) + " as " + std::to_string(j.pj.rw_seq_nr) +
                     " I/Os per random offset: the first is random, the rest go on from it, as fio");
}

void set_rw(job_spec &j, const option &o, const std::string &v0)
{
    std::string v = trim(v0), mod;
    size_t colon = v.find(':');
    if (colon != std::string::npos) {
        mod = trim(v.substr(colon + 1));
        v = v.substr(0, colon);
    }
    j.pj.rw = (enum plan_rw)choice_of(o, v);
    j.pj.rw_seq_skip_bytes = j.pj.rw_seq_back_bytes = 0;
    j.pj.rw_seq_nr = 1;
    j.pj.rw_seq_only = false;
    if (colon != std::string::npos && plan_rw_is_random(j.pj.rw))
        return set_rw_seq_nr(j, mod);   // "randread:" too: fio reads its empty postfix as 0
    if (mod.empty())
        return;
    if (mod[0] == '-')
        j.pj.rw_seq_back_bytes = parse_size(mod.substr(1), j.kb_base);
    else
        j.pj.rw_seq_skip_bytes = parse_size(mod, j.kb_base);
}

// One zone's percentage: 0..100, so a negative one cannot offset another's excess.
static uint32_t zone_pct(const std::string &text, const char *what)
{
    int64_t v = parse_int(text);
    if (v < 0 || v > 100)
        throw value_error(std::string("zone ") + what + " percentage " + trim(text) + " is not within 0..100");
    return (uint32_t)v;
}

// zoned:60/10:30/20:10/70 (percent of I/Os / percent of the region) or
// zoned_abs:60/1g:40/3g (percent of I/Os / bytes), zones from the start.
void set_zones(job_spec &j, const std::vector<std::string> &parts)
{
    bool abs = parts[0] == "zoned_abs";
    uint32_t io = 0, range = 0, blank = UINT32_MAX;
    if (parts.size() < 2 || parts.size() - 1 > PLAN_RAND_ZONES_MAX)
        throw value_error("random_distribution=" + parts[0] + " needs 1 to 16 zones (io%/range)");
    j.pj.random_distribution = PLAN_RAND_ZONED;
    j.pj.nr_rand_zones = 0;
    j.zones_abs = abs;
    j.zones_abs_rest = false;
    for (size_t i = 1; i < parts.size(); i++) {
        size_t slash = parts[i].find('/');
        if (slash == std::string::npos)
            throw value_error("zone '" + parts[i] + "' is not io%/range");
        plan_rand_zone &z = j.pj.rand_zones[j.pj.nr_rand_zones++];
        z = plan_rand_zone{};
        z.io_pct = zone_pct(parts[i].substr(0, slash), "I/O");
        std::string r = trim(parts[i].substr(slash + 1));
        if (r.find(',') != std::string::npos)
            throw value_error("per-direction zones (a ',' list) are not supported");
        if (r.empty() && !abs && blank == UINT32_MAX)
            blank = j.pj.nr_rand_zones - 1; // "20/": the rest of the region, as fio
        else if (r.empty() && abs && i + 1 == parts.size())
            j.zones_abs_rest = true;        // DISKSPD's -rdabs remainder (zoned_ranges=diskspd)
        else if (abs)
            z.range_bytes = parse_size(r, j.kb_base);
        else
            z.range_pct = zone_pct(r, "range");
        io += z.io_pct;
        range += z.range_pct;
    }
    if (io != 100)
        throw value_error("the zones' I/O percentages add up to " + std::to_string(io) + ", not 100");
    if (range > 100)
        throw value_error("the zones' range percentages add up to " + std::to_string(range) + " (more than 100)");
    if (blank != UINT32_MAX)
        j.pj.rand_zones[blank].range_pct = 100 - range;
    for (uint32_t i = 0; i < j.pj.nr_rand_zones; i++) {
        const plan_rand_zone &z = j.pj.rand_zones[i];
        // fio sends such a zone's I/O to one block; no run asks for that.
        bool rest = j.zones_abs_rest && i + 1 == j.pj.nr_rand_zones;
        if (z.io_pct && !z.range_pct && !z.range_bytes && !rest)
            throw value_error("zone " + std::to_string(i + 1) + " gets " + std::to_string(z.io_pct) +
                              "% of the I/O but covers none of the region");
    }
}

void set_random_distribution(job_spec &j, const option &o, const std::string &v)
{
    std::vector<std::string> parts = split(trim(v), ':');
    if (parts[0] == "sequence")
        throw value_error("random_distribution=sequence is not supported (ioplan has random, zipf, pareto, normal, zoned, zoned_abs)");
    if (parts[0] == "zoned" || parts[0] == "zoned_abs") {
        set_zones(j, parts);
        return;
    }
    auto kind = (enum plan_random_dist)choice_of(o, parts[0]);
    j.pj.random_distribution = kind;
    j.pj.nr_rand_zones = 0;
    j.zones_abs = j.zones_abs_rest = false;
    j.pj.random_dist_param = 0;
    j.pj.random_dist_center = 0;
    j.pj.random_dist_centered = false;
    // fio 3.33 reads no parameter of random (random:50 runs as random), so neither does ioplan.
    if (kind == PLAN_RAND_UNIFORM)
        return;
    // Without a parameter fio 3.33 takes its defaults (fio.h): zipf 1.1, pareto 0.2, normal 0.
    if (parts.size() >= 2)
        j.pj.random_dist_param = parse_float(parts[1]);
    else if (kind != PLAN_RAND_NORMAL)
        j.pj.random_dist_param = kind == PLAN_RAND_ZIPF ? 1.1 : 0.2;
    if (parts.size() >= 3) {
        j.pj.random_dist_center = parse_float(parts[2]);
        j.pj.random_dist_centered = true;
    }
    if (parts.size() > 3 || j.pj.random_dist_center < 0 || j.pj.random_dist_center > 1)
        throw value_error("random_distribution center must be within 0..1");
    if (kind == PLAN_RAND_ZIPF && j.pj.random_dist_param == 1.0)
        throw value_error("zipf theta must not be 1.0");
    // fio runs a negative theta with its zipf formula outside the law's domain.
    if (kind == PLAN_RAND_ZIPF && j.pj.random_dist_param < 0)
        throw value_error("zipf theta must be 0 or more (0: every block alike)");
    if (kind == PLAN_RAND_PARETO && (j.pj.random_dist_param <= 0 || j.pj.random_dist_param >= 1))
        throw value_error("pareto h must be within 0..1 (exclusive)");
    if (kind == PLAN_RAND_NORMAL && (j.pj.random_dist_param < 0 || j.pj.random_dist_param >= 100))
        throw value_error("normal deviation must be at least 0 and below 100");
}

void set_bssplit(job_spec &j, const option &o, const std::string &v)
{
    std::vector<std::string> dirs = split(trim(v), ',');
    if (dirs.size() > 3)
        throw value_error("bssplit takes at most three lists (read,write,trim)");
    for (int d = 0; d < 3; d++) {
        const std::string &text = dirs[std::min<size_t>(d, dirs.size() - 1)];
        if (trim(text).empty())
            continue;
        auto entries = parse_bssplit_dir(text, j.kb_base);
        if (entries.size() > PLAN_BSSPLIT_MAX)
            throw value_error("bssplit has more than 64 entries");
        plan_bs &bs = j.pj.bs[d];
        uint64_t fixed = bs.min_bytes; // bs=: fio's minimum when an entry is 0
        j.bs_range_set[d] = true;
        bs.nr_split = (uint32_t)entries.size();
        bs.min_bytes = UINT64_MAX;
        bs.max_bytes = 0;
        j.bssplit[d].clear();
        for (size_t i = 0; i < entries.size(); i++) {
            j.bssplit[d].push_back(plan_bssplit{entries[i].bs, entries[i].pct});
            bs.min_bytes = std::min(bs.min_bytes, entries[i].bs);
            bs.max_bytes = std::max(bs.max_bytes, entries[i].bs);
        }
        if (!bs.min_bytes)
            bs.min_bytes = fixed;
        if (!bs.max_bytes)
            bs.max_bytes = fixed;
    }
}

// A list longer than 20 runs in fio 3.33 with its first 20 (it says "the list
// exceeding max length 20" for each one more): refused, a job file fio runs did
// not run here.  The rest are still read, so a bad value anywhere is an error.
void set_percentiles(job_spec &j, const option &o, const std::string &v)
{
    std::vector<std::string> items = split(trim(v), ':');
    if (items.size() > PLAN_PERCENTILES_MAX)
        note_reading("it has " + std::to_string(items.size()) + " entries; the first " +
                     std::to_string(PLAN_PERCENTILES_MAX) + " are reported, as fio 3.33 reports them");
    j.pj.nr_percentiles = 0;
    for (const auto &it : items) {
        double p = parse_float(it);
        if (p <= 0 || p > 100)
            throw value_error("percentile " + trim(it) + " is not within (0, 100]");
        if (j.pj.nr_percentiles < PLAN_PERCENTILES_MAX)
            j.pj.percentiles[j.pj.nr_percentiles++] = p;
    }
}

// filename= and opendir= add to the job's files, each under the first directory=
// read so far (fio's add_file): a later directory= does not move them.
void add_files(job_spec &j, const std::vector<std::string> &names)
{
    const std::string dir = j.directories.empty() ? "" : j.directories[0];
    for (const std::string &n : names)
        j.filenames.push_back(named_file{n, dir});
}

// fio's opendir: every regular file under the directory, recursively, joins the
// job's files (in name order here; fio takes readdir's).  Read when the option is,
// as fio does.  As fio's (lstat), a symbolic link is not followed.  An empty file
// is listed too, as fio's: with size= it gets its share and is laid out; without,
// the job runs past it (fio notes it "may be ignored", engine/layout/layout_ignored.c).
// A directory with no regular file adds none, as fio's.
// Writing to them is still under ioplan's safety rules: files ioplan did not create
// are refused for writing unless allow_existing_file_write=1.
// The count fio then prints is its nr_files: the job's files so far (an
// inherited [global] list, filename=s read before).
void set_opendir(job_spec &j, const option &o, const std::string &v)
{
    namespace fs = std::filesystem;
    std::string dir = trim(v);
    std::error_code ec;
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(dir, ec), end;
    if (ec)
        throw value_error("opendir=" + dir + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec)
            throw value_error("opendir=" + dir + ": " + ec.message());
        if (fs::is_regular_file(it->symlink_status(ec)) && !ec)
            found.push_back(it->path().string());
        ec.clear();
    }
    // fio's str_opendir_cb: the job's count of files starts over at none when it has no
    // file yet, so an empty directory leaves it none: it runs and moves nothing (with
    // size=; without, "you need to specify size="), as fio's.
    if (j.filenames.empty())
        j.pj.nrfiles = 0;
    std::sort(found.begin(), found.end());
    add_files(j, found);
    j.opendir_counts.push_back((uint32_t)j.filenames.size());
}

// fio takes a one-entry float list and silently uses the first of several; ioplan says so.
void set_latency_percentile(job_spec &j, const option &o, const std::string &v)
{
    std::string t = trim(v);
    if (t.find(':') != std::string::npos)
        throw value_error("latency_percentile takes one percentage, not a list", t.find(':'));
    double p = parse_float(t);
    if (!(p >= 0 && p <= 100))
        throw value_error("latency_percentile " + t + " is not within [0, 100]");
    j.pj.lat_percentile = p;
}

void set_ioengine(job_spec &j, const option &o, const std::string &v)
{
    std::string name = trim(v);
    // fio's load_ioengine: any name starting "linuxaio" or "aio" is libaio.
    if (name.rfind("linuxaio", 0) == 0 || name.rfind("aio", 0) == 0)
        name = "libaio";
    try {
        j.pj.ioengine = (enum plan_ioengine)choice_of(o, name);
    } catch (const value_error &) {
        std::string names;
        for (const auto &c : o.choices)
            names += (names.empty() ? "" : ", ") + std::string(c.name);
        throw value_error("ioengine '" + name + "' is not supported (ioplan has " + names + ")");
    }
}

// fio's str2error: the names it knows are Linux's errnos 1..34, in order.
static int32_t errno_of(const std::string &name)
{
    static const char *const names[] = {
        "EPERM",  "ENOENT", "ESRCH",  "EINTR",  "EIO",    "ENXIO",  "E2BIG",   "ENOEXEC", "EBADF",
        "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY",  "EEXIST",  "EXDEV",
        "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG",
        "ENOSPC", "ESPIPE", "EROFS",  "EMLINK", "EPIPE",  "EDOM",   "ERANGE",
    };
    if (name[0] == 'E') {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (name == names[i])
                return (int32_t)i + 1;
        throw value_error("unknown error " + name + " (names EPERM to ERANGE, or a number)");
    }
    int64_t n = parse_int(name);
    if (n < 0)
        n = -n; // fio reads -5 as 5
    if (n == 0 || n > 4095)
        throw value_error("error number " + name + " is not an errno");
    return (int32_t)n;
}

// ignore_error=READ,WRITE,VERIFY: colon-separated errno names or numbers per
// kind; a kind with a list continues after those errors (fio's
// str_ignore_error_cb turns its continue_on_error bit on).
void set_ignore_error(job_spec &j, const option &o, const std::string &v)
{
    static const uint32_t bits[] = {PLAN_COE_READ, PLAN_COE_WRITE, PLAN_COE_VERIFY};
    std::vector<std::string> kinds = split(trim(v), ',');
    if (kinds.size() > 3)
        throw value_error("ignore_error takes at most three lists (read,write,verify)");
    size_t at = 0;
    for (size_t k = 0; k < kinds.size(); k++) {
        uint32_t n = 0;
        for (const std::string &e : split(kinds[k], ':')) {
            std::string name = trim(e);
            if (name.empty())
                break;
            if (n == PLAN_IGNORE_ERRORS_MAX)
                throw value_error("more than 16 errors in one ignore_error list", at);
            try {
                j.pj.ignore_errors[k][n++] = errno_of(name);
            } catch (value_error &err) {
                throw value_error(err.what(), at);
            }
            at += e.size() + 1;
        }
        j.pj.nr_ignore_errors[k] = n;
        if (n)
            j.pj.continue_on_error |= bits[k];
    }
}

// numa_mem_policy=MODE[:NODES], as fio: prefer names one node, bind and
// interleave a list, default and local none.
void set_numa_mem_policy(job_spec &j, const option &o, const std::string &v)
{
    static const std::pair<const char *, plan_numa_mem> modes[] = {
        {"default", PLAN_NUMA_MEM_DEFAULT},     {"prefer", PLAN_NUMA_MEM_PREFER},
        {"bind", PLAN_NUMA_MEM_BIND},           {"interleave", PLAN_NUMA_MEM_INTERLEAVE},
        {"local", PLAN_NUMA_MEM_LOCAL},
    };
    std::string t = trim(v);
    size_t colon = t.find(':');
    std::string mode = t.substr(0, colon), nodes = colon == std::string::npos ? "" : t.substr(colon + 1);
    plan_numa_mem m = PLAN_NUMA_MEM_UNSET;
    for (const auto &p : modes)
        if (mode == p.first)
            m = p.second;
    if (m == PLAN_NUMA_MEM_UNSET)
        throw value_error("numa_mem_policy=" + mode + " is not one of default, prefer, bind, interleave, local");
    bool wants = m == PLAN_NUMA_MEM_PREFER || m == PLAN_NUMA_MEM_BIND || m == PLAN_NUMA_MEM_INTERLEAVE;
    if (wants && nodes.empty())
        throw value_error("numa_mem_policy=" + mode + " needs nodes (" + mode + ":0)", t.size());
    if (!wants && !nodes.empty())
        throw value_error("numa_mem_policy=" + mode + " takes no nodes", colon + 1);
    uint64_t mask = 0;
    if (wants) {
        try {
            mask = parse_node_list(nodes);
        } catch (value_error &err) {
            throw value_error(err.what(), colon + 1 + err.offset);
        }
    }
    if (m == PLAN_NUMA_MEM_PREFER && (mask & (mask - 1)))
        throw value_error("numa_mem_policy=prefer names one node", colon + 1);
    j.pj.numa_mem_policy = m;
    j.pj.numa_mem_nodes_mask = mask;
}

} // namespace parser

namespace parser {

namespace {

// The limit of steadystate=CRIT:LIMIT: a percent of the window's mean, IOPS,
// or bytes/s with size suffixes (fio reads the bandwidth limit as a size).
double ss_limit(const job_spec &j, uint32_t *flags, const std::string &lim)
{
    std::string t = trim(lim);
    double v;
    // fio cuts the limit at its first '%': bench-fio's job files double it (iops:50%%).
    size_t pct = t.find('%');
    if (pct != std::string::npos && t.find_first_not_of('%', pct) == std::string::npos) {
        *flags |= PLAN_SS_PCT;
        v = parse_float(t.substr(0, pct));
    } else if (*flags & PLAN_SS_IOPS) {
        v = parse_float(t);
    } else {
        if (!t.empty() && t[0] == '-')
            throw value_error("the steady-state limit must be 0 or more");
        v = (double)parse_size(t, j.kb_base);
    }
    // fio accepts a negative limit and then can never attain: refuse it.
    if (v < 0)
        throw value_error("the steady-state limit must be 0 or more");
    return v;
}

} // namespace

void set_steadystate(job_spec &j, const option &o, const std::string &v)
{
    std::string t = trim(v);
    size_t colon = t.find(':');
    if (colon == std::string::npos)
        throw value_error("steadystate needs a limit after the criterion (e.g. " + t + ":0.1%)", t.size());
    uint32_t flags = static_cast<uint32_t>(choice_of(o, t.substr(0, colon)));
    double limit;
    try {
        limit = ss_limit(j, &flags, t.substr(colon + 1));
    } catch (value_error &err) {
        throw value_error(err.what(), colon + 1);
    }
    j.pj.ss_flags = flags;
    j.pj.ss_limit = limit;
}

// sync_file_range='s :N, the writes between two syncs: a whole number, 0 for
// never (as fio's 0, and as fsync=0).  fio reads it with atoi, so "4k" is 4 and
// "x" or "-1" turn the syncs off without a word: ioplan refuses them instead.
static uint32_t sfr_count(const std::string &text, size_t at)
{
    std::string t = trim(text);
    if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos)
        throw value_error("sync_file_range: the count after ':' must be a whole number of writes (0: never), "
                          "not '" + t + "'", at);
    if (t.size() > 10 || std::stoull(t) > 1000000000ull)
        throw value_error("sync_file_range: the count after ':' is out of range (0..1000000000 writes)", at);
    return (uint32_t)std::stoull(t);
}

// sync_file_range=FLAG[,FLAG...][:N], fio's FIO_OPT_STR_MULTI: the flags add to
// those set before (a job's to its [global]'s, fio's val_store with orval), N
// (default 1) is the last line's.  A flag fio does not know is refused, where
// fio prints its list and runs without it whenever another flag matched.
void set_sync_file_range(job_spec &j, const option &o, const std::string &v)
{
    size_t lead = v.find_first_not_of(" \t"), colon = v.find(':', lead == std::string::npos ? 0 : lead);
    std::string flags = v.substr(0, colon);
    uint32_t bits = 0;
    for (size_t pos = lead == std::string::npos ? v.size() : lead; pos < flags.size();) {
        size_t comma = std::min(flags.find(',', pos), flags.size());
        std::string item = flags.substr(pos, comma - pos);
        auto c = std::find_if(o.choices.begin(), o.choices.end(),
                              [&](const opt_choice &x) { return item == x.name; });
        if (c == o.choices.end() && !item.empty())
            throw value_error("sync_file_range: '" + item + "' is not a flag (wait_before, write, wait_after)", pos);
        bits |= c == o.choices.end() ? 0u : (uint32_t)c->value;
        pos = comma + 1;
    }
    if (!bits)
        throw value_error("sync_file_range needs a flag: wait_before, write or wait_after, joined by ','",
                          lead == std::string::npos ? 0 : lead);
    j.pj.sync_file_range_every = colon == std::string::npos ? 1 : sfr_count(v.substr(colon + 1), colon + 1);
    j.pj.sync_file_range_flags |= bits;
}

} // namespace parser

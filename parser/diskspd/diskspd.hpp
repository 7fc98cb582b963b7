// parser/diskspd/diskspd.hpp - DISKSPD 2.2 command lines as ioplan job text.
//
// Windows runbooks are written as DISKSPD command lines.  Rather than a second
// way into the plan, a command line is translated into job text in fio's INI
// language (plus a few ioplan-only options where fio has none), which the INI
// reader then turns into a plan like any job file.  So `--showplan` and "turn
// my runbook into a job file" come for free, and both paths share one set of
// semantics.  What the job language has no place for but DISKSPD's report
// prints (the command line, -L, -D, -R, -n ...) comes back beside the text.
//
// How cli/ uses it (`ioplan diskspd ARGS...`, or argv[0] named "diskspd"):
//
//     parser::diskspd::translation t =
//             parser::diskspd::translate(argv[0], {argv + 1, argv + argc});
//     for (const std::string &w : t.warnings)
//         std::cerr << "diskspd: warning: " << w << '\n';
//     if (!t.errors.empty()) {
//         for (const std::string &e : t.errors)
//             std::cerr << "diskspd: error: " << e << '\n';
//         return 2;
//     }
//     // t.ini is a job file: parse it as "<diskspd>" (parser::parse_text),
//     // run it, then copy t.facts into report::diskspd::options (same field
//     // names) and render with report::diskspd::write_text or write_xml;
//     // with t.facts.profile_only (-Rp) print the input parameters only.
//
// Per-thread seeds: DISKSPD seeds thread i (numbered across targets: target 0
// owns threads 0..t-1, target 1 owns t..2t-1, ...) with seed + i.  Each target
// becomes one job section whose randseed= is seed + its first thread number;
// the plan builder gives clone k of a job the seed randseed + k, so every
// thread gets exactly DISKSPD's seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace parser::diskspd {

enum class result_format { text, xml };

// One target (file or device) as the command line named it.
struct target {
	std::string path;
	uint64_t create_bytes = 0;	// -c: size to create; 0 = use the existing file
};

// One -rd range: io_pct of the I/Os go to the next `span` of the target
// (a percentage with -rdpct, bytes with -rdabs; 0: the rest of the target).
struct dist_range {
	uint32_t io_pct;
	uint64_t span;
};

// What DISKSPD's report needs that the job text does not carry.  The names
// match report::diskspd::options field by field.
struct facts {
	std::string command_line;	// argv joined by single spaces, argv[0] first
	bool measure_latency = false;	// -L
	bool iops_stddev = false;	// -D
	uint32_t iops_interval_ms = 1000;	// -D<ms>
	result_format format = result_format::text;	// -R
	bool profile_only = false;	// -Rp: print the parsed profile, do not run
	bool verbose = false;		// -v
	bool disable_affinity = false;	// -n
	std::vector<uint32_t> affinity;	// -a CPUs in order (empty = default)
	uint32_t duration_s = 10;	// -d
	uint32_t warmup_s = 5;		// -W
	uint32_t cooldown_s = 0;	// -C
	uint64_t seed = 0;		// -z (bare -z: milliseconds since boot)
	uint64_t block_bytes = 65536;	// -b
	uint32_t write_pct = 0;		// -w
	bool random = false;		// -r or -rs
	uint32_t random_pct = 0;	// -rs<pct>; 100 with plain -r
	uint64_t align_bytes = 65536;	// -r alignment or -s stride
	bool interlocked = false;	// -si
	uint64_t thread_stride_bytes = 0;	// -T
	uint32_t outstanding = 2;	// -o
	uint32_t threads_per_target = 1;	// -t
	uint32_t total_threads = 0;	// -F (0 = not given)
	bool unbuffered = false;	// -S, -Su, -Sh: O_DIRECT
	bool write_through = false;	// -Sw, -Sh: O_DSYNC
	bool zero_buffers = false;	// -Z
	bool random_per_write = false;	// -Zr
	uint64_t write_source_bytes = 0;	// -Z<size>
	uint64_t base_bytes = 0;	// -B
	uint64_t max_bytes = 0;		// -f<size> or -Bbase:length (end offset)
	uint64_t throughput_bytes_per_ms = 0;	// -g
	uint64_t throughput_iops = 0;	// -g<n>i
	uint32_t burst = 0;		// -i
	uint32_t think_ms = 0;		// -j
	bool distribution_abs = false;	// -rdabs (else -rdpct)
	std::vector<dist_range> distribution;	// -rd, with DISKSPD's remainder range; empty = uniform
	std::vector<target> targets;
};

struct translation {
	std::string ini;		// the job text (empty when errors is not)
	facts info;
	std::vector<std::string> warnings;
	std::vector<std::string> errors;	// each names the flag it is about
};

// Translates DISKSPD arguments (argv without argv[0]).  program is argv[0] as
// typed, echoed on "Command Line:".  Never throws for bad input: every problem
// is a line in errors, and all of them are collected, not just the first.
translation translate(const std::string &program, const std::vector<std::string> &args);

} // namespace parser::diskspd

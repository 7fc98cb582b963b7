// report/diskspd/diskspd.hpp - results in DISKSPD 2.2's text (-Rtext) and XML (-Rxml)
// layouts, so runbooks and the awk pipelines written against DISKSPD keep
// working on Linux.
//
// The workload parameters ("Input parameters:") are read from the plan, so
// any job can be rendered this way; the few facts a plan does not keep come
// in options.  cli/ fills them from parser::diskspd::facts (same names):
//
//     report::diskspd::options o;
//     o.command_line = t.info.command_line;
//     o.measure_latency = t.info.measure_latency;
//     o.iops_stddev = t.info.iops_stddev;
//     o.iops_interval_ms = t.info.iops_interval_ms;
//     o.disable_affinity = t.info.disable_affinity;
//     o.verbose = t.info.verbose;
//     if (t.info.profile_only)            // -Rp: no run
//         report::diskspd::write_profile(*plan, o, std::cout);
//     else if (t.info.format == parser::diskspd::result_format::xml)
//         report::diskspd::write_xml(*results, *plan, o, std::cout);
//     else
//         report::diskspd::write_text(*results, *plan, o, std::cout);
//
// For a job file run with --output-format=diskspd, leave the options at their
// defaults apart from command_line (latency is shown: ioplan always measures it,
// unless the jobs say diskspd_latency=0) and -D's two, which report/report.cpp
// takes from a job's diskspd_iops_stddev= and iopsavgtime=.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"

namespace report::diskspd {

// One range of DISKSPD's -rd: io_pct of the I/O to the next span of the
// target (percent, or bytes with -rdabs, 0 there being the rest of it).
struct io_range {
	uint32_t io_pct;
	uint64_t span;
};

struct options {
	std::string command_line;	// echoed on "Command Line:"
	bool measure_latency = true;	// -L: AvgLat/LatStdDev columns, percentile table
	bool iops_stddev = false;	// -D: IopsStdDev column, XML Iops buckets
	uint32_t iops_interval_ms = 1000;
	bool disable_affinity = false;	// -n: "affinity disabled"
	bool verbose = false;		// -v: "using verbose mode"
	uint64_t max_bytes = 0;		// -f or -Bbase:length, the end of the range: "max file size"
	uint32_t total_threads = 0;	// -F: DISKSPD's thread pool ("thread pool with N threads")
	std::vector<uint32_t> affinity;	// -a CPUs: "advanced affinity round robin"
	bool distribution_abs = false;	// -rdabs
	std::vector<io_range> distribution;	// -rd as DISKSPD states it: "IO Distribution:"
};

// DISKSPD's text: command line, input parameters, system information, the
// CPU table, Total/Read/Write IO tables and (with -L) the latency table.
// Throws std::bad_alloc only.
void write_text(const results &r, const plan &p, const options &o, std::ostream &out);

// DISKSPD's <Results> document: System, Profile, TimeSpan (CpuUtilization,
// Latency buckets, Iops buckets, Thread/Target).  Throws std::bad_alloc only.
void write_xml(const results &r, const plan &p, const options &o, std::ostream &out);

// -Rp / -Rptext: the command line and input parameters only (nothing ran).
void write_profile(const plan &p, const options &o, std::ostream &out);

// -Rpxml: the <Profile> element alone, at the top level, as DISKSPD prints it.
void write_xml_profile(const plan &p, const options &o, std::ostream &out);

} // namespace report::diskspd

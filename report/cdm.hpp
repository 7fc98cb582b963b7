// report/cdm.hpp - --output-format=cdm: CrystalDiskMark's text export layout.
//
// People paste CrystalDiskMark's "Copy" text into forums and scripts parse it,
// so the CrystalDiskMark presets (jobs/cdm-*.fio) print the same layout:
//
//     [Read]
//       SEQ    1MiB (Q=  8, T= 1):   561.763 MB/s [    535.7 IOPS] <  14881.26 us>
//       RND    4KiB (Q= 32, T= 1):   332.559 MB/s [  81191.2 IOPS] <    381.52 us>
//
//     [Write]
//       ...
//
//     Profile: Default
//        Test: 1 GiB (x5) [/mnt/ssd: 87% (814/931GiB)]
//        Mode: [Admin]
//        Time: Measure 5 sec / Interval 5 sec
//        Date: 2026/11/22 10:00:00
//          OS: Linux 6.1.0
//
// One row per plan job, under [Read] (read, randread), [Write] (write,
// randwrite), [Mix] Read P%/Write Q% (rw, randrw) or [Trim], in plan order.
// SEQ/RND from the job's rw, block size in KiB or MiB, Q = iodepth, T = numjobs.
// Figures are per run with all of the job's clones together (report/runs.hpp),
// scored by the job's repeat_aggregate; for the presets (max) that is
// CrystalDiskMark's rule: the highest MB/s over the measured runs with that
// run's IOPS, and the lowest mean latency (issue to completion) of any run.
// MB/s is 10^6 bytes/s.
//
// The cli calls, for --output-format=cdm:
//
//     report::cdm_options co;
//     co.target = report::cdm_target_usage(directory_of_the_test_file);  // or ""
//     co.admin = geteuid() == 0;
//     report::write_cdm(out, *results, *plan, co);
#pragma once

#include <ostream>
#include <string>

#include "engine/plan.h"
#include "engine/results.h"

namespace report {

struct cdm_options {
	// "Profile:" text; empty = named from the rows: Default, Default (NVMe SSD),
	// Peak Performance, Real World Performance, Demo, else Custom; "+ Mix" when
	// there are mixed rows.
	std::string profile;
	// Shown after "Test: 1 GiB (x5)" in brackets; empty = nothing.
	std::string target;
	bool admin = false;	// "Mode: [Admin]" rather than "[User]"
};

void write_cdm(std::ostream &out, const results &r, const plan &p, const cdm_options &o);

// "DIR: 87% (814/931GiB)": the share of the filesystem holding dir that is in
// use and used/total GiB, as CrystalDiskMark shows its drive; "" if statvfs fails.
std::string cdm_target_usage(const std::string &dir);

} // namespace report

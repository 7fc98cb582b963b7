// report/quick.hpp - the compact summaries of the quick-check presets, each in
// the style its users already read: winsat, hdparm -t, dd and GNOME Disks.
//
// The figures are ioplan's own measurement (report/runs.hpp: per run, all of a
// job's clones together); only the layout is the other tool's, so a user can
// set the two side by side.  Units follow the tool being imitated and say so:
//
//   winsat  one line per job, by its shape, MB/s = 10^6 bytes/s, the job's
//           score over its measured runs (repeat_aggregate):
//             Disk  Sequential 64.0 Read                   117.78 MB/s
//   hdparm  per measured run, MB = 2^20 bytes as hdparm counts:
//             " Timing buffered disk reads: 532 MB in  3.01 seconds = 176.97 MB/sec"
//           ("O_DIRECT" for direct=1 jobs, "writes" for write jobs), then
//           "  mean 176.97 MB/sec, range 170.88 - 181.99 MB/sec (10 runs)".
//   dd      per measured run, dd's line with its SI and IEC sizes and SI rate:
//             "1048576000 bytes (1.0 GB, 1000 MiB) copied, 5.79696 s, 181 MB/s"
//           then "  mean 180.88 MB/s, range 177.02 - 186.37 MB/s (10 runs)".
//   gnome-disks  for a strided sweep (zonemode=strided with io_trace): a table
//           of samples (offset, position %, MB/s) and "Average Read Rate";
//           for a random read job: "Average Access Time" in msec over the
//           recorded I/Os (or every I/O when none were recorded).
// Means and ranges come from every measured run's own result (runs.hpp); the
// hdparm and dd means are arithmetic means of the per-run rates, as users of
// those loops compute them.  Sweeps and access times read the I/O trace of a
// job's last measured run.
//
// The cli calls, for --output-format=NAME:
//
//     if (report::is_quick_format(name))
//         report::write_quick(name, out, *results, *plan);
//
// A preset names its compact format in its opening comment, on a line
// "; output-format: NAME" (cdm, winsat, hdparm, dd, gnome-disks).
#pragma once

#include <ostream>
#include <string>

#include "engine/plan.h"
#include "engine/results.h"

namespace report {

void write_winsat(std::ostream &out, const results &r, const plan &p);
void write_hdparm(std::ostream &out, const results &r, const plan &p);
void write_dd(std::ostream &out, const results &r, const plan &p);
void write_gnome_disks(std::ostream &out, const results &r, const plan &p);

// winsat, hdparm, dd, gnome-disks.
bool is_quick_format(const std::string &name);

// Runs the writer called name; false (and writes nothing) for another name.
bool write_quick(const std::string &name, std::ostream &out, const results &r, const plan &p);

// dd's human-readable size: one decimal below 10, else whole, with an SI (1000,
// "kB", "MB") or IEC (1024, "KiB", "MiB") prefix: "1.0 GB", "1000 MiB", "181 MB".
std::string dd_human(double v, bool si);

} // namespace report

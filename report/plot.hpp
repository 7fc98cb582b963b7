// report/plot.hpp - `ioplan plot`: charts of a result JSON, drawn by gnuplot.
//
// From one result document (ioplan's --output-format=json, or fio's own JSON)
// plot() writes a gnuplot script with its data inline and runs gnuplot on it.
// The chart file's extension picks the terminal: .svg (svg) or .png (pngcairo).
// Panels, one under the other, each only when the JSON has its data:
//
//   Bandwidth (MB/s) over time    ioplan.series: per job, run and direction
//   IOPS over time                ioplan.series
//   Latency percentiles (us)      jobs[].{read,write,trim}.lat_ns or clat_ns .percentile
//                                 (fio's keys, so fio's own JSON plots too)
//   Transfer rate over position   ioplan.traces of kind "sweep": MB/s per sample
//   with access time points       against the position in %, and the traced
//                                 latencies (ms, right axis) of kind "io" jobs
//                                 - GNOME Disks' benchmark picture
//
// Series are titled "<jobname> <direction>" (plus " run N" when a job ran more
// than once); the access time points are "<jobname> access time".
//
// The JSON keys this reads under "ioplan" (made by series_json and traces_json
// below; the JSON writer adds them as ioplan.series and ioplan.traces):
//
//   "series": [ { "jobname", "job_id", "run", "discarded", "interval_ns",
//                 "t_ns": [end of each interval, from the run's start],
//                 "read"|"write"|"trim": { "bytes": [...], "ios": [...],
//                                          "bw_bytes_per_s": [...], "iops": [...] } } ]
//       one entry per plan job per run, the job's clones added up interval by
//       interval (at the coarsest interval any clone kept); only the
//       directions the job does.
//   "traces": [ { "jobname", "job_id", "run", "discarded", "kind": "sweep"|"io",
//                 "region_bytes",
//                 "ios": { "t_ns", "offset", "bytes", "lat_ns", "ddir": [...] },
//                 "samples": [ { "offset", "bytes", "ns", "bytes_per_s" } ] } ]
//       one entry per job run that recorded I/Os (io_trace=N); "samples" (only
//       for kind "sweep", a zonemode=strided job) are the per-zone transfer
//       rates (report/runs.hpp sweep_samples).
//
// The cli's `ioplan plot RESULT.json -o FILE.svg|png`:
//
//     report::plot_options po;
//     po.output = "FILE.svg";
//     std::string err;
//     bool bad_input;
//     if (!report::plot(read_file("RESULT.json"), po, &err, &bad_input))
//         ... print "ioplan plot: " + err, exit bad_input ? 2 : 1 ...
#pragma once

#include <string>

#include "engine/plan.h"
#include "engine/results.h"
#include "report/json_util.hpp"

namespace report {

// ioplan.series and ioplan.traces of a run (see above).
ojson series_json(const results &r, const plan &p);
ojson traces_json(const results &r, const plan &p);

struct plot_options {
	std::string output;		// FILE.svg or FILE.png
	std::string script;		// where the gnuplot script goes; "" = output + ".gp"
	std::string gnuplot = "gnuplot";	// program, found on PATH
	int width = 900;		// pixels; each panel is 320 high
};

// The gnuplot script for result document doc (parsed JSON), drawing into
// o.output.  False with a reason in *err when the output extension is neither
// .svg nor .png or the document has nothing to draw.
bool plot_script(const ojson &doc, const plot_options &o, std::string *script, std::string *err);

// Parses json_text, writes the script, runs gnuplot.  False with a one-line
// reason in *err: bad JSON, nothing to plot, a file that cannot be written,
// gnuplot missing or failing (with its first error line), or a chart gnuplot
// left incomplete (it exits 0 on a full disk).  *bad_input (when given) tells
// the first kinds - the input or the chart's name - from the rest.
bool plot(const std::string &json_text, const plot_options &o, std::string *err, bool *bad_input = nullptr);

} // namespace report

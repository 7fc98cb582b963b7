// report/plot/plot.hpp - `ioplan plot`: charts of a result JSON, drawn by gnuplot.
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
//       directions the job does.  A job with ss_dur adds "steady": { "ss",
//       "attained", "window_start_ns", "window_end_ns" }: its last judged
//       window, which both time panels shade (green: steady; grey: never was).
//   "traces": [ { "jobname", "job_id", "run", "discarded", "kind": "sweep"|"io",
//                 "region_bytes",
//                 "ios": { "t_ns", "offset", "bytes", "lat_ns", "ddir": [...] },
//                 "samples": [ { "offset", "bytes", "ns", "bytes_per_s" } ] } ]
//       one entry per job run that recorded I/Os (io_trace=N); "samples" (only
//       for kind "sweep", a zonemode=strided job) are the per-zone transfer
//       rates (report/runs.hpp sweep_samples).
//
// fio's log files (write_bw_log, write_iops_log, write_lat_log; fio's or
// ioplan's, plot_logs.cpp) give the same time panels from their lines
// "time_ms, value, ddir, bs[, offset][, prio]": Bandwidth (MB/s; the logs
// hold KiB/s), IOPS, and Latency over time (us; lat, clat and slat logs hold
// ns), one series per file and direction, titled by the file's name without
// its kind ("job_bw.2.log" -> "job.2 read").  Times are put on one clock:
// a log whose first entry is more than a day in (log_unix_epoch or
// log_alternate_epoch: ms of a clock, not of the job) is drawn from the
// earliest such entry of all the logs, the others from their job's start.
// A series longer than 2000 points is averaged into 2000 time slots.
//
// The cli's `ioplan plot RESULT.json -o FILE.svg|png`:
//
//     report::plot_options po;
//     po.output = "FILE.svg";
//     std::string err;
//     bool bad_input;
//     if (!report::plot_document(parsed_result, po, &err, &bad_input))
//         ... print "ioplan plot: " + err, exit bad_input ? 2 : 1 ...
#pragma once

#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"
#include "report/fio/json_util.hpp"

namespace report {

// ioplan.series and ioplan.traces of a run (see above).
ojson series_json(const results &r, const plan &p);
ojson traces_json(const results &r, const plan &p);

struct plot_options {
	std::string output;		// FILE.svg or FILE.png; its script is FILE.svg.gp
	std::string chart;		// where gnuplot draws; "" = output (the cli draws into a
					// file of its own and replaces output only with a whole chart)
	// Set: the script kept beside the chart is handed back here for the
	// caller to write whole, not written over an older one here.
	std::string *kept_script = nullptr;
	std::string gnuplot = "gnuplot";	// program, found on PATH
	int width = 900;		// pixels; each panel is 320 high
};

// The gnuplot script for result document doc (parsed JSON), drawing into
// o.output.  False with a reason in *err when the output extension is neither
// .svg nor .png or the document has nothing to draw.
bool plot_script(const ojson &doc, const plot_options &o, std::string *script, std::string *err);

// Writes the script of a parsed result and runs gnuplot.  False with a
// one-line reason in *err: no JSON object (a discarded parse), nothing to plot,
// a file that cannot be written, gnuplot missing or failing (with its first
// error line), or a chart gnuplot left incomplete (it exits 0 on a full disk).
// *bad_input (when given) tells the first kinds - the input or the chart's
// name - from the rest.  The reader parses, so bad JSON is said where it is.
bool plot_document(const ojson &doc, const plot_options &o, std::string *err, bool *bad_input = nullptr);

// One fio log file: its path (its name says its kind) and its text.
struct log_input {
	std::string path;
	std::string text;
};

// Whether path's file name is a fio log's: NAME_bw|iops|lat|clat|slat[.N].log, or .log.fz compressed.
bool is_fio_log_name(const std::string &path);

// The gnuplot script for fio log files.  False with *err, and with *where
// ("path:line" or "path") when a file is at fault: a name that is not a log's,
// a line not in fio's format; or with nothing to draw.
bool logs_script(const std::vector<log_input> &logs, const plot_options &o, std::string *script,
		 std::string *where, std::string *err);

// logs_script, then gnuplot as plot() runs it.
bool plot_logs(const std::vector<log_input> &logs, const plot_options &o, std::string *where, std::string *err,
	       bool *bad_input = nullptr);

} // namespace report

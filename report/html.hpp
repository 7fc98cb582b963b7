// report/html.hpp - one self-contained HTML page of one or more results.
//
// The page is what a storage engineer hands to a colleague: the caveats
// first, a summary table per result (CrystalDiskMark's layout when the jobs
// are a CrystalDiskMark-style preset), under mpirun each rank's and host's
// figures and the groups' stragglers (ioplan.world, .ranks, .hosts), bar charts of bandwidth and IOPS,
// latency percentile curves, bandwidth over time from the per-second series
// (the steady-state window shaded), the machine, and with several results a
// side-by-side comparison.  It reads result documents (ioplan's JSON, or
// fio's own, which lacks only the ioplan object), so `--output-format=html`
// of a run and `ioplan report A.json B.json -o page.html` draw the same page.
//
// Self-contained on purpose: one file, no script, no font, no network access;
// charts are inline SVG drawn here (a charting library would mean JavaScript
// in a page that must read with scripts off and print); CSS is inline.
// Tables have header cells with scope, every chart a <title> and <desc>.
// Each figure cell carries data-key (its JSON path) and data-value (the raw
// number), so a test reads the page's figures back and compares them with
// the JSON they came from.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report/fio/json_util.hpp"

namespace report {

// The verdict `ioplan compare FIRST THIS` gives one figure of a result (the
// cli judges it with the store's compare: the report knows no noise).
struct html_verdict {
	std::string job;	// the job's name; ordinal: the k-th job of that name
	size_t ordinal = 1;
	std::string ddir;	// read, write, trim, mixed
	std::string metric;	// iops, bw_bytes, p99_ns
	std::string verdict;	// faster, slower, no measurable difference, not judged: ..., not comparable: ...
};

struct html_input {
	std::string name;	// what the page calls this result (a file name, "this run")
	ojson doc;		// the result document
	// Against the first result (none for it, or when a result could not be
	// judged): a change the page finds no verdict for is shown "not judged".
	std::vector<html_verdict> verdicts;
	// What makes its workload another than the first's, as compare says it
	// refusing the two ("job j: bs=4096 vs bs=1048576"): each a caveat.
	std::vector<std::string> differences;
};

// Writes the page; false with *err (nothing written) when a document is not a
// result (no "jobs" array).
bool write_html(const std::vector<html_input> &in, std::ostream &out, std::string *err);

// ---- charts (html_svg.cpp) ----

struct svg_bar {
	std::string label;
	std::string key;	// data-key of the figure
	double value = 0;	// as drawn
	double raw = 0;		// data-value: the JSON's own number at key
};

struct svg_series {
	std::string label;
	std::vector<std::pair<double, double>> points;	// x, y in data units
	std::vector<std::string> tips;	// each point's tooltip, or none
};

// A chart's number as its axes and bars print it ("0.25", "120", "1.02e+06").
std::string chart_number(double v);

// Horizontal bars, one per row; unit names the figure ("MB/s").
std::string svg_bar_chart(const std::string &id, const std::string &title, const std::string &unit,
			  const std::vector<svg_bar> &bars);

// Lines with a mark at each point.  log_y draws y on a log scale; x_ticks
// label chosen x values (e.g. percentiles); shade is an x range drawn behind
// (a steady-state window), empty when first >= second; y_text prints the
// y axis's ticks (chart_number when null).
std::string svg_line_chart(const std::string &id, const std::string &title, const std::string &x_name,
			   const std::string &y_name, const std::vector<svg_series> &series, bool log_y,
			   const std::vector<std::pair<double, std::string>> &x_ticks,
			   std::pair<double, double> shade = { 0, 0 }, std::string (*y_text)(double) = nullptr);

// Text as HTML character data (also safe inside attribute values); a control
// byte and a bidirectional embedding, override or isolate (U+202A..U+202E,
// U+2066..U+2069), which would turn the page's own words around, are '?'.
std::string html_escape(const std::string &s);

} // namespace report

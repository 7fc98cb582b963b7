// report/formats.hpp - the writers behind report::write, one per output format.
//
// Internal to report/: cli/ calls report::write (report.hpp), which builds the
// model once and hands it to these in fio's order (terse, json, normal).
#pragma once

#include <ostream>
#include <string>

#include "engine/plan.h"
#include "engine/results.h"
#include "report/fio/json_util.hpp"
#include "report/model.hpp"
#include "report/report.hpp"

namespace report {

// What a row of the format table (report.cpp) calls: render model m (built
// from r and p) in one format onto out.  A new writer implements this and adds
// one row there.
using writer_fn = void (*)(std::ostream &out, const model &m, const results &r, const plan &p,
			   const options &o);

// fio's terse output, version ver (2 to 5; fio's default is 3): one line per entry.
// version: field 2, report::version_string(options.who).
void write_terse(std::ostream &out, const model &m, const results &r, const std::string &version, int ver = 3);
std::string terse_line(const entry &e, const group_stat &g, const results &r, const std::string &version,
		       int ver = 3);
// The header row of --output-format=csv: a name for each field of write_terse's lines.
std::string terse_header(const model &m, const results &r, int ver = 3);

// fio's JSON (plus = json+ with histogram bins) with ioplan's own facts under "ioplan".
// version: "fio version", report::version_string(options.who).
// saved: ioplan.saved_as (options.saved_as), or none.
void write_json(std::ostream &out, const model &m, const results &r, const plan &p, bool plus,
		const std::string &version, const std::optional<saved_name> &saved = std::nullopt);

// The same document as a value, for writers that draw from it (the HTML page).
ojson json_document(const model &m, const results &r, const plan &p, bool plus, const std::string &version,
		    const std::optional<saved_name> &saved = std::nullopt);

// fio's human-readable layout: banners, per-entry blocks, group lines, disk stats.
void write_normal(std::ostream &out, const model &m, const results &r, const plan &p,
		  const options &o);
// Its opening (o.banner): the job banners (with o.said between them),
// version, "Starting N processes", layout lines and notes, which fio prints
// before the run; not write_banner's part when o.banner_written (it went out
// before the run).
void write_normal_opening(std::ostream &out, const results &r, const plan &p, const options &o);
// "fio: file F may be ignored\n" for the engine's file-ignored message m (layout_ignored.c), whose text
// names the job first and explains after fio's words; "" for any other message.
std::string fio_ignored_line(const res_msg &m, const plan &p);
// Each of those, in order: what fio prints ahead of a report without normal output.
void write_fio_ignored(std::ostream &out, const results &r, const plan &p);
// fio's notes as its threads start ("note: both iodepth >= 1 and synchronous ..."), one a line;
// threads_only: only those of jobs with thread=1 (what fio's --output file gets).
void write_fio_notes(std::ostream &out, const results &r, const plan &p, bool threads_only);

// Disk utilisation in percent over the time the counters cover, at most 100.
double disk_util_pct(const res_disk &d);

// A string field of terse output: ';' and line breaks would shift every later
// field, so they become '_' (fio prints them raw).
std::string terse_safe(const std::string &s);

} // namespace report

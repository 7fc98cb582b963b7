// report/report.hpp - the public face of report/: render a run's results.
//
// cli/ calls this after eng_finish():
//
//     report::options o;
//     std::string err;
//     if (!report::parse_formats(arg_of_output_format, &o.formats, &err))
//         ... print err, exit 2 ...
//     o.pid = getpid();
//     std::ostringstream text;
//     report::write(*results, *plan, o, text);
//     // and the cli writes text where it goes, checking every write (cli/output.hpp)
//
// Formats are written in fio's order whatever the order of the list: terse,
// then json/json+, then normal (the order of the format table in report.cpp).  The writers never print anything else, so a
// JSON-only stdout is exactly one valid JSON document.
//
// JSON guarantees, stricter than fio: no object has a key twice (fio repeats a
// key in "global options" and "job options" when an option is given twice;
// ioplan keeps one, the last value, in the place of the first), no NaN or
// infinity (a non-finite statistic is written as 0, or as no samples), names
// and paths escaped and invalid UTF-8 replaced by U+FFFD.  An interrupted run
// (ioplan.interrupted) and a failed one (ioplan.error, jobs[].error) still get
// the whole document with what was measured.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/results.h"
#include "report/personality.hpp"

namespace report {

// One bit per writer of the format table (report.cpp).
enum format_bits : unsigned {
	FORMAT_NORMAL = 1u << 0,
	FORMAT_TERSE = 1u << 1,
	FORMAT_JSON = 1u << 2,
	FORMAT_JSON_PLUS = 1u << 3,	// json with latency histogram bins; replaces json
	FORMAT_CDM = 1u << 4,		// CrystalDiskMark's text export
	FORMAT_WINSAT = 1u << 5,	// the quick checks' own compact lines
	FORMAT_HDPARM = 1u << 6,
	FORMAT_DD = 1u << 7,
	FORMAT_GNOME_DISKS = 1u << 8,
	FORMAT_DISKSPD = 1u << 9,	// DISKSPD 2.2's text (also the diskspd front end's default)
	FORMAT_DISKSPD_XML = 1u << 10,	// DISKSPD's -Rxml
	FORMAT_HTML = 1u << 11,		// one self-contained page (html.hpp)
	FORMAT_CSV = 1u << 12,		// terse lines under a header row naming the fields
};

// What fio prints as it reads the jobs, run as fio: before[k] goes before job
// k's banner line, before[nr_jobs] after the last; without the normal output,
// all of it ahead of the report.  Each entry whole lines.
struct fio_said {
	std::vector<std::string> before;
	// Job k's banner line is not the opening's: fio printed it as it read a
	// command-line job, in the format of that moment (it is in before[k], or
	// went to stdout ahead of an --output file), or printed none then.
	std::vector<bool> no_banner;
};

// The label and preset a run was saved under (--save[=LABEL], --preset=NAME).
struct saved_name {
	std::string label;
	std::string preset;
};

struct options {
	unsigned formats = FORMAT_NORMAL;
	// Shown in normal output's per-job lines where fio shows its pid, for a
	// job whose worker's thread id is unknown (each one's is shown): the CLI
	// passes getpid(); golden tests pass 0 or a fixed value.
	long pid = 0;
	// Normal output opens with fio's job banners, version, "Starting N threads"
	// and layout lines.  A CLI that printed those before the run clears this;
	// one that printed the banner alone (write_banner) sets banner_written,
	// and the opening keeps its layout lines and notes, unless it printed those
	// too as the jobs started (write_opening_notes): then notes_written.
	// notes_text: those notes as rendered then, for a report of results so far
	// (whose snapshot holds no messages) to open with.
	bool banner = true;
	bool banner_written = false;
	bool notes_written = false;
	std::string notes_text;
	// --output-format=cdm: "Profile:" (empty = named from the rows), the target
	// line ("DIR: 87% (814/931GiB)") and "Mode: [Admin]".
	std::string cdm_profile;
	std::string cdm_target;
	bool admin = false;
	// Which version the reports present: fio's level when run as `fio`.
	personality who = personality::ioplan;
	// --terse-version: 2, 3 (fio's default), 4 or 5.
	int terse_version = 3;
	// fio's notes ahead of a JSON or terse report: run as fio onto stdout, where
	// fio's log_info puts them.
	bool notes_first = false;
	// Run as fio with --output: fio's notes of the jobs it runs as processes
	// never reach that file (write_fio_notes), ahead of a report or in the
	// normal output; those of thread=1 jobs do.
	bool fio_output_file = false;
	// What fio prints as it reads the jobs (run as fio, on the stream the
	// report goes to); empty: none.
	fio_said said;
	// A run --save asked to keep that is reported without being stored (`ioplan merge`
	// of the rank files of a world that ended before rank 0 saved): JSON's
	// ioplan.saved_as, as a run kept unsaved carries it, so `ioplan results import`
	// stores it under its label and preset.  Unset: no saved_as.
	std::optional<saved_name> saved_as;
};

// Parses --output-format's comma list of format table names (normal, terse and
// its synonyms minimal and csv, json, json+).  Returns false with a one-line
// reason naming the valid names in *err for an unknown or empty name (without
// the flag's name, which the caller's message gives).
bool parse_formats(const std::string &list, unsigned *formats, std::string *err);

// The valid --output-format names, comma-separated, in table order (for --help).
std::string format_names();

// Writes the results of plan p in every format of o.formats to out.
// Throws std::bad_alloc only.
void write(const results &r, const plan &p, const options &o, std::ostream &out);

// Formats whose text has no place for a caveat: terse (and csv, its lines
// with a header), whose fields programs count by position.
constexpr unsigned FORMATS_WITHOUT_CAVEATS = FORMAT_TERSE | FORMAT_CSV;

// The run's caveats (caveats.hpp) as "ioplan: warning: ..." lines, for a CLI
// to put on stderr beside a report whose formats cannot carry them, as fio
// says its own warnings there; "" when there are none (normal_caveats.cpp).
std::string caveat_lines(const results &r, const plan &p);

// Normal output's opening: a banner line per job section ("..." after one with
// clones), "ioplan-<version>", "Starting N threads".  Part of write() unless
// o.banner is false; separate so a CLI can print it before the run starts.
// said: options::said, between the banner lines.  nranks: the processes
// running the plan each (under mpirun the world's size), whose every clone
// the Starting line counts.
void write_banner(const plan &p, std::ostream &out, personality who = personality::ioplan,
		  const fio_said &said = {}, uint32_t nranks = 1);

// What normal output's opening says after the banner: the layout lines and
// fio's notes as its jobs start, all in r once the engine's opening callback
// comes (engine.h), for a CLI that prints them then, as fio does;
// fio_output_file: options::fio_output_file.
void write_opening_notes(std::ostream &out, const results &r, const plan &p, personality who,
			 bool fio_output_file = false);

// One job's banner line ("..." after it when it has clones), as write_banner prints it.
std::string job_banner(const plan_job &j);

// "ioplan-<version>", ioplan's own version (personality.hpp: the one presented).
std::string version_string();

// The JSON Schema (draft 7) of json and json+ output: schema/result.schema.json.
std::string result_schema();

// Version of that schema, also written as ioplan.schema_version in every document.
constexpr int result_schema_version = 1;

} // namespace report

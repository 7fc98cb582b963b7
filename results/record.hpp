// results/record.hpp - one run as the results store keeps it, read from a JSON report.
//
// ioplan's JSON (json or json+) and fio 3.x's share fio's layout, so one
// reader serves a run just made, an fio result file being imported and a file
// named on `ioplan compare`'s command line.  What only ioplan records (the
// environment, the plan hash, per-interval samples, repeats) is read from
// the "ioplan" object when it is there.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace resdb {

// Bad input: a file that is not JSON, or not a result.  what() is the
// one-line reason; where() is "path:line:col" when there is a position.
struct input_error : std::runtime_error {
	std::string at;
	input_error(const std::string &where, const std::string &msg) : std::runtime_error(msg), at(where) {}
};

// The job options a comparison insists on: two runs that differ in one of
// these measured different workloads.
extern const std::vector<std::string> plan_keys;

// A job that ended with an error: its index and name in the report, fio's error (an errno).
struct job_failure {
	int job_index = -1;
	std::string job;
	int error = 0;
};

// The directions a result reports: read, write and trim, and "mixed", which
// unified_rw_reporting=mixed (or both) writes for them merged, fio's and
// ioplan's alike.  Read as those three alone, such a run was saved and imported
// with no figure at all, and compare found "no I/O" in it.
const char *const DDIRS[] = { "read", "write", "trim", "mixed" };

inline bool is_ddir(const std::string &d)
{
	return d == "read" || d == "write" || d == "trim" || d == "mixed";
}

// One job (or reporting group), one direction.
struct figure {
	int job_index = 0;
	std::string job;
	std::string ddir;			// read, write, trim, mixed
	std::map<std::string, std::string> plan;	// plan_keys as written ("" = default)
	uint64_t io_bytes = 0;
	uint64_t ios = 0;
	double runtime_s = 0;
	double bw_bytes = 0;			// bytes per second
	double iops = 0;
	double lat_mean_ns = 0;			// completion latency
	double p50_ns = 0, p99_ns = 0, p999_ns = 0;	// 0: not recorded (latency_recorded)
	std::vector<std::pair<uint64_t, uint64_t>> buckets;	// (latency ns, count), exact
	double interval_s = 0;			// of the samples below
	std::vector<double> iops_samples;	// per interval, measured window
	std::vector<double> bw_samples;		// bytes per second per interval
	std::vector<double> repeat_iops;	// per repeat run, when the job repeated
	std::vector<double> repeat_bw;
};

// A latency percentile of 0 is one the result did not record: a completed I/O
// takes time, and a file that lists no such percentile and holds no bins (fio's
// clat_percentiles=0, a percentile_list without it, in a json file) is read,
// stored and exported as 0.  Shown or judged as measured, it was a latency of
// 0 us, and compare called a run "-100.0%, faster" against such a file.
inline bool latency_recorded(double ns)
{
	return ns > 0;
}

// Under mpirun: one rank's share of one job and direction, as rank 0 merged it.
// The bytes and I/Os of every rank add up to the run's figure of that job and
// direction; the latency is the rank's over the job's directions.
struct rank_figure {
	int job_index = 0;			// the job's id in the plan
	std::string job;
	std::string ddir;
	uint64_t io_bytes = 0;
	uint64_t ios = 0;
	uint64_t runtime_ns = 0;		// the rank's longest clone of the job
	uint64_t lat_n = 0;
	double lat_mean_ns = 0;
	uint64_t lat_p50_ns = 0, lat_p99_ns = 0, lat_max_ns = 0;
};

// One rank of an mpirun run: where it ran, how it ended, its figures.
struct rank_record {
	int rank = 0;
	std::string host;
	int error = 0;				// errno, ENODATA for a rank that never reported
	uint64_t start_late_ns = 0;		// its latest start after the group's first
	std::vector<rank_figure> figures;
};

struct run_record {
	int64_t id = 0;				// in its store; 0 = not stored
	std::string uuid;			// the same run in two stores has the same uuid
	std::string label;
	std::string source;			// "ioplan" or "fio"
	std::string tool_version;
	int64_t started_s = 0;			// Unix time the run started
	std::string host, kernel, plan_hash, job_text;
	// The plan's workload less the names of this host's targets (ioplan.workload_hash;
	// an fio run's options less them): runs of one job on hosts whose devices are
	// named apart have one.  Stored as the fact workload; "" for runs saved before.
	std::string workload_hash;
	std::string environment;		// ioplan.environment as JSON text ("" = none)
	// Facts runs are grouped by (results summary --by), read from the environment.
	std::map<std::string, std::string> facts;
	std::vector<figure> figures;
	std::vector<std::string> warnings;
	std::vector<rank_record> ranks;		// empty unless the run was an mpirun world
	// Stopped by a signal before its plan finished (ioplan.interrupted): its
	// figures cover only what ran.  Stored as the fact interrupted=yes.
	bool interrupted = false;
	// The jobs that ended with an error (jobs[].error): the run is not the
	// workload asked.  Stored as the fact failed, a JSON array (failures_fact).
	std::vector<job_failure> failures;
};

// "job 'NAME' failed: error 28 (No space left on device)".
std::string failure_text(const job_failure &f);

// Why f's iops or bw_bytes are not what its counts over runtime_ms give (an
// edited result or store: an iops of 1e308 broke every table showing it), or "".
std::string rates_fault(const figure &f, double runtime_ms);
// The fact failed's value, and back; a value that is not one reads as one
// failure of unknown job, so a run marked failed is never read as a good one.
std::string failures_fact(const std::vector<job_failure> &f);
nlohmann::ordered_json failures_json(const std::vector<job_failure> &f);
std::vector<job_failure> failures_of(const std::string &fact);

// Reads a report document.  uuid_seed: text whose hash names a run that has
// no id of its own (an fio file's content); "" gives a fresh random id.
run_record record_of(const nlohmann::json &doc, const std::string &uuid_seed = "");

// Where the result document is in the text of a result file.  fio prints notes
// before its JSON, --status-interval adds a document per interval (the last is
// the run's end), and --output-format=json,normal puts its text around it: the
// document is the last one that starts a line ([begin, end); end is the text's
// end when it is cut short), else the text from its first '{'.  begin is npos
// when there is no '{'; documents counts those found.
struct result_span {
	size_t begin = std::string::npos, end = std::string::npos;
	size_t documents = 0;
};
result_span find_result(const std::string &text);

// Reads a JSON file (find_result: fio's notes, interval documents and text
// around it are passed over); the error of a bad one names path:line:col.
// documents (may be NULL) gets how many documents the file holds.
// A file of runs exported by ioplan (results export --output-format=json, an
// array, or results show's one run) is refused here (several) or read as its run.
run_record record_of_file(const std::string &path, size_t *documents = nullptr);

// What an import reads from a file: its result document's run (record_of_file),
// or the runs `results export --output-format=json` or `results show
// --output-format=json` wrote, each field checked as a result's figures are.
std::vector<run_record> runs_of_file(const std::string &path, size_t *documents = nullptr);

// "line:col" in text of a parser's 1-based byte offset (nlohmann's parse_error::byte).
std::string text_position(const std::string &text, size_t byte);

// The note a reader of several documents prints: which one it took.
std::string documents_note(const std::string &path, size_t documents);

// Where a figure's job stands among the run's jobs of the same name: fio
// writes one jobs[] entry per clone (numjobs=N without group_reporting), and
// two sections may share a name, so the name alone does not tell them apart.
struct job_ordinal {
	int k = 1;	// the k-th job of its name in jobs[] (1-based)
	int of = 1;	// how many jobs of the run have that name
};

// One per figure of r, in the order of r.figures.
std::vector<job_ordinal> job_ordinals(const run_record &r);

// "a", or "a #2" when several jobs are named a (several: in either run shown).
std::string job_label(const std::string &job, int k, bool several);

// The pct-th percentile of an exact histogram as fio reports it: the first
// bucket whose count so far reaches pct% of all, clamped to [min, max]; 0 for none.
double percentile_from_buckets(const std::vector<std::pair<uint64_t, uint64_t>> &buckets, double pct, double min,
			       double max);

// A fresh random id (32 hex digits).
std::string new_uuid();

// SHA-256 of text in hex.
std::string sha256_hex(const std::string &text);

} // namespace resdb

namespace resdb {

// A run as JSON (results show/export; record_export.cpp): every field, figures
// with their buckets, samples and repeats; the environment as an object.
nlohmann::ordered_json record_json(const run_record &r);

// The run as a result document in fio's layout (document.cpp): figures,
// percentiles from the buckets, the bandwidth series, warnings, environment.
nlohmann::ordered_json result_document(const run_record &r);

} // namespace resdb

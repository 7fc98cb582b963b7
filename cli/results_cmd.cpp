// cli/results_cmd.cpp - the results store on the command line (results_cmd.hpp).
//
// Every subcommand reads its own small set of flags, prints text or (with
// --output-format=json) one JSON document, and exits 2 with one line on
// stderr for bad input or a store it cannot use - before changing anything,
// so a failed `rm` or `import` leaves the store as it was.  A damaged store
// is the exception export and import make: they carry every run that still
// reads, name each one left out, and exit 1 (each_readable_run).
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output.hpp"
#include "cli/report_cmd.hpp"
#include "cli/results_cmd.hpp"
#include "report/html.hpp"
#include "report/report.hpp"
#include "results/compare.hpp"
#include "results/store.hpp"
#include "results/summary.hpp"
#include "results/table_cell.hpp"

namespace cli {

namespace {

using ojson = nlohmann::ordered_json;

struct usage_error : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// A command asked for rightly that ioplan declines (two different workloads,
// an interrupted run): the reason alone, since the usage text would bury it
// and suggest the command was mistyped.
struct refusal : std::runtime_error {
	using std::runtime_error::runtime_error;
};

struct cmd_opts {
	std::string db;
	std::string format = "normal";
	std::string by, preset, plan, workload;
	std::string metrics;	// compare: the metrics to show and gate on ("" = all)
	std::string output;	// where the command's text goes ("" = stdout)
	bool force = false;
	bool include_interrupted = false;	// summary: count the runs a signal stopped too
	bool include_failed = false;		// summary: count the runs with a failed job too
	double fail_pct = -1;
	std::vector<std::string> pos;
};

const char *const usage =
	"usage: ioplan results list|show RUN|rm RUN...|export [RUN...]|import FILE...|summary [--by FIELD] [--include-interrupted] [--include-failed]\n"
	"       ioplan results summary [--preset NAME | --plan HASH | --workload HASH]   (the runs of one)\n"
	"       ioplan results report RUN... [--output=PAGE.html]   (the HTML page; several runs compared)\n"
	"       ioplan compare A B [--force] [--fail-on-regression=PCT] [--metrics=LIST]\n"
	"       (each takes --results-db=PATH, --output-format=json and --output=FILE; RUN is an id, a label or a uuid)";

// The summary-only flag given, for the message refusing it elsewhere.
const char *summary_flag(const cmd_opts &o)
{
	return o.include_interrupted ? "--include-interrupted" : "--include-failed";
}

// A decimal number of 0 or more.  strtod alone took "nan", "inf", "1e400" and
// "0x10": a NaN or an infinite PCT is never exceeded, so such a gate passed
// every regression, exit 0, in CI.
double parse_pct(const std::string &v)
{
	char *end = nullptr;
	double d = std::strtod(v.c_str(), &end);
	bool decimal = !v.empty() && v.find_first_not_of("0123456789.eE+-") == std::string::npos;
	if (!decimal || *end || !std::isfinite(d) || d < 0)
		throw usage_error("--fail-on-regression: '" + v + "' is not a percentage (e.g. 5)");
	return d + 0.0;	// -0 is 0
}

cmd_opts parse(const std::vector<std::string> &args)
{
	cmd_opts o;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &a = args[i];
		if (a == "-o") {	// as ioplan report's
			if (i + 1 >= args.size())
				throw usage_error("option '-o' needs a value");
			o.output = args[++i];
			continue;
		}
		if (a.rfind("--", 0) != 0 || a == "--") {
			o.pos.push_back(a);
			continue;
		}
		size_t eq = a.find('=');
		std::string key = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
		bool has = eq != std::string::npos;
		if ((key == "force" || key == "include-interrupted" || key == "include-failed") && !has) {
			(key == "force" ? o.force : key == "include-failed" ? o.include_failed : o.include_interrupted) = true;
			continue;
		}
		std::string *dst = key == "results-db" ? &o.db : key == "output-format" ? &o.format : key == "by" ? &o.by
				 : key == "preset" ? &o.preset : key == "plan" ? &o.plan : key == "workload" ? &o.workload
				 : key == "metrics" ? &o.metrics : key == "output" ? &o.output : nullptr;
		if (!dst && key != "fail-on-regression")
			throw usage_error("unknown option '" + a + "'");
		if (!has && i + 1 >= args.size())
			throw usage_error("option '" + a + "' needs a value");
		std::string v = has ? a.substr(eq + 1) : args[++i];
		if (v.empty() && key != "output-format")
			throw usage_error("option '--" + key + "' needs a value");
		if (dst)
			*dst = v;
		else
			o.fail_pct = parse_pct(v);
	}
	if (o.db.empty())
		o.db = resdb::default_path();
	return o;
}

// Text or JSON; CSV is results export's alone (list, summary and compare with
// --output-format=csv printed their text table, exit 0, to a script that asked for CSV).
bool json_out(const cmd_opts &o)
{
	if (o.format == "json")
		return true;
	if (o.format == "normal")
		return false;
	throw usage_error("--output-format: '" + o.format + "' is not one of normal, json" +
			  (o.format == "csv" ? " (CSV is what results export writes)" : ""));
}

// What a command reads, which its --output may not replace.
std::vector<input_file> inputs_of(const cmd_opts &o)
{
	std::vector<input_file> inputs = store_inputs(o.db);
	for (const std::string &p : o.pos)
		inputs.push_back({ p, "the file " + p + " being read" });
	return inputs;
}

// A command's text to --output (never over the store or a file it read), else stdout.
int print(const cmd_opts &o, const std::string &text)
{
	return emit(text, "the output", o.output, inputs_of(o));
}

// For a command that changes the store: its --output is judged before the
// change, so an output it cannot write fails it with the store as it was.
bool output_first(const cmd_opts &o)
{
	output_file probe;	// a file it creates goes again
	std::string err;
	if (o.output.empty())
		return true;
	if (names_input(o.output, inputs_of(o), "the output"))
		return false;
	if (!probe.open(o.output, &err)) {
		std::fprintf(stderr, "ioplan: error: --output=%s: %s; the store is as it was\n", o.output.c_str(),
			     err.c_str());
		return false;
	}
	return !probe.replaces(inputs_of(o), "the output");
}

// A text that is not UTF-8 (a label an older ioplan stored as given) is
// written with U+FFFD for each bad byte: the library's exception ended the
// whole command, `results export` of every run included.
int print(const cmd_opts &o, const ojson &doc)
{
	return print(o, doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n");
}

std::string when(int64_t s)
{
	char buf[32];
	time_t t = (time_t)s;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

int list_cmd(const cmd_opts &o)
{
	bool js = json_out(o);
	std::vector<resdb::run_row> rows;
	struct stat st;
	if (stat(o.db.c_str(), &st) == 0)	// no store yet is an empty list (opening a FIFO would wait)
		rows = resdb::store(o.db, resdb::store::mode::read).list();
	if (js) {
		ojson a = ojson::array();
		for (const auto &r : rows)
			a.push_back(ojson{ { "id", r.id }, { "uuid", r.uuid }, { "label", r.label }, { "source", r.source },
					   { "host", r.host }, { "plan_hash", r.plan_hash },
					   { "workload_hash", r.workload_hash }, { "saved_s", r.saved_s },
					   { "started_s", r.started_s }, { "figures", r.figures },
					   { "interrupted", r.interrupted }, { "failed", r.failed } });
		return print(o, a);
	}
	std::string out;
	char line[512];
	std::snprintf(line, sizeof(line), "%6s  %-19s  %-20s  %-6s  %-16s  %-12s  %-12s  %s\n", "id", "started (UTC)",
		      "label", "source", "host", "plan", "workload", "figures");
	out += line;
	for (const auto &r : rows) {
		// A run saved before workload hashes has none: '-' (summary goes by its plan).
		std::snprintf(line, sizeof(line), "%6lld  %-19s  %s  %-6s  %s  %-12.12s  %-12.12s  %zu%s\n",
			      (long long)r.id, when(r.started_s).c_str(), resdb::column(r.label, 20).c_str(),
			      r.source.c_str(), resdb::column(r.host, 16).c_str(), r.plan_hash.c_str(),
			      r.workload_hash.empty() ? "-" : r.workload_hash.c_str(), r.figures,
			      r.interrupted ? "  interrupted" : r.failed ? "  failed" : "");
		out += line;
	}
	return print(o, out);
}

// An mpirun run's breakdown: each rank's share of each job and direction.
std::string ranks_text(const resdb::run_record &r)
{
	if (r.ranks.empty())
		return "";
	std::ostringstream s;
	char line[256];
	std::snprintf(line, sizeof(line), "\n%-5s %-16s %-16s %-5s %12s %12s %14s %12s %12s\n", "rank", "host", "job",
		      "dir", "IOPS", "MiB/s", "io bytes", "ios", "p99 us");
	s << line;
	for (const auto &k : r.ranks) {
		if (k.error) {
			std::snprintf(line, sizeof(line), "%-5d %s error %d (%s)\n", k.rank,
				      resdb::column(k.host, 16).c_str(), k.error,
				      std::strerror(k.error));
			s << line;
		}
		for (const auto &f : k.figures) {
			double sec = (double)f.runtime_ns / 1e9;
			std::snprintf(line, sizeof(line), "%-5d %s %s %-5s %12s %12s %14llu %12llu %12s\n",
				      k.rank, resdb::column(k.host, 16).c_str(), resdb::column(f.job, 16).c_str(), f.ddir.c_str(),
				      resdb::table_cell(sec > 0 ? f.ios / sec : 0.0, 1, 12).c_str(),
				      resdb::table_cell(sec > 0 ? f.io_bytes / sec / 1048576 : 0.0, 2, 12).c_str(),
				      (unsigned long long)f.io_bytes, (unsigned long long)f.ios,
				      resdb::latency_us_cell(f.lat_p99_ns, 1, 12).c_str());
			s << line;
		}
	}
	return s.str();
}

// The machine a run was measured on; fio's results name none ("host , " was printed).
std::string host_text(const resdb::run_record &r)
{
	if (r.host.empty() && r.kernel.empty())
		return "not recorded (" + r.source + "'s result names none)";
	return resdb::printable(r.host.empty() ? "?" : r.host) + ", " + resdb::printable(r.kernel.empty() ? "?" : r.kernel);
}

std::string show_text(const resdb::run_record &r)
{
	using resdb::printable;
	std::ostringstream s;
	s << "run " << r.id << " (" << r.uuid << ")" << (r.label.empty() ? "" : " label " + printable(r.label)) << "\n"
	  << "  source " << r.source << " " << printable(r.tool_version) << ", started " << when(r.started_s) << " UTC\n"
	  << "  host " << host_text(r) << "\n  plan " << r.plan_hash << "\n"
	  << "  workload " << (r.workload_hash.empty() ? "not recorded (saved before ioplan kept workload hashes)"
						       : r.workload_hash) << "\n";
	if (r.interrupted)
		s << "  interrupted: a signal stopped the run; its figures cover only what ran before the stop\n";
	for (const resdb::job_failure &f : r.failures)
		s << "  failed: " << printable(resdb::failure_text(f)) << "\n";
	for (const auto &kv : r.facts)
		if (!kv.second.empty() && kv.first != "host" && kv.first != "kernel" && kv.first != "plan" && kv.first != "workload" &&
		    kv.first != "interrupted" && kv.first != "failed" && kv.first != "source" && kv.first != "label")
			s << "  " << kv.first << ": " << printable(kv.second) << "\n";
	char line[256];
	std::snprintf(line, sizeof(line), "\n%-16s %-5s %12s %12s %12s %12s %12s\n", "job", "dir", "IOPS", "MiB/s",
		      "p50 us", "p99 us", "p99.9 us");
	s << line;
	std::vector<resdb::job_ordinal> ord = resdb::job_ordinals(r);
	auto us = [](double ns) { return resdb::latency_recorded(ns) ? resdb::latency_us_cell(ns, 1, 12) : "-"; };
	for (size_t i = 0; i < r.figures.size(); i++) {
		const resdb::figure &f = r.figures[i];
		std::string job = resdb::column(resdb::job_label(f.job, ord[i].k, ord[i].of > 1), 16);
		std::snprintf(line, sizeof(line), "%s %-5s %12s %12s %12s %12s %12s\n", job.c_str(), f.ddir.c_str(),
			      resdb::table_cell(f.iops, 1, 12).c_str(), resdb::table_cell(f.bw_bytes / 1048576, 2, 12).c_str(),
			      us(f.p50_ns).c_str(), us(f.p99_ns).c_str(), us(f.p999_ns).c_str());
		s << line;
	}
	s << ranks_text(r);
	for (const auto &w : r.warnings)
		s << "warning: " << printable(w) << "\n";
	return s.str();
}

int show_cmd(const cmd_opts &o)
{
	if (o.pos.size() != 1)
		throw usage_error("results show takes one RUN");
	resdb::store st(o.db, resdb::store::mode::read);
	resdb::run_record r = st.load(st.find(o.pos[0]));
	return json_out(o) ? print(o, resdb::record_json(r)) : print(o, show_text(r));
}

// The page of ioplan report, drawn from the store's runs (resdb::result_document).
int report_cmd(const cmd_opts &o)
{
	if (o.pos.empty())
		throw usage_error("results report takes the RUNs to show");
	resdb::store st(o.db, resdb::store::mode::read);
	std::vector<report::html_input> in;
	std::vector<std::optional<resdb::run_record>> runs;
	for (const auto &ref : o.pos) {
		resdb::run_record r = st.load(st.find(ref));
		std::string name = "run " + std::to_string(r.id) + (r.label.empty() ? "" : " (" + r.label + ")");
		in.push_back({ name, resdb::result_document(r), {}, {} });
		runs.push_back(std::move(r));
	}
	judge_against_first(in, runs);	// as `ioplan compare` judges the stored runs
	std::ostringstream page;
	std::string err;
	if (!report::write_html(in, page, &err))
		throw usage_error(err);
	return emit(page.str(), "the page", o.output, store_inputs(o.db));
}

int rm_cmd(const cmd_opts &o)
{
	if (o.pos.empty())
		throw usage_error("results rm takes the RUNs to remove");
	json_out(o);
	if (!output_first(o))
		return 2;
	resdb::store st(o.db, resdb::store::mode::update);
	std::vector<int64_t> ids;
	for (const auto &ref : o.pos)
		ids.push_back(st.find(ref));	// every one known before any is removed
	for (int64_t id : ids)
		st.remove(id);
	return json_out(o) ? print(o, ojson{ { "removed", ids } }) : 0;
}

std::string csv_field(const std::string &v)
{
	if (v.find_first_of(",\"\n") == std::string::npos)
		return v;
	std::string q = "\"";
	for (char c : v)
		q += c == '"' ? std::string("\"\"") : std::string(1, c);
	return q + "\"";
}

// The shortest text that reads back as the same double, as JSON export writes
// it: 12 significant digits turned 552359444227938 B/s into 5.52359444228e+14.
std::string exact(double d)
{
	char buf[64];
	auto r = std::to_chars(buf, buf + sizeof(buf), d);
	return std::string(buf, r.ptr);
}

// job_ordinal (compare's: the k-th job of its name) tells numjobs clones apart;
// it comes last so that a script reading the columns by position reads the same.
std::string export_csv_header()
{
	std::ostringstream s;
	s << "run_id,uuid,label,source,started_s,host,plan_hash,job,ddir";
	for (const auto &k : resdb::plan_keys)
		s << "," << k;
	s << ",io_bytes,ios,runtime_s,iops,bw_bytes,lat_mean_ns,p50_ns,p99_ns,p999_ns,job_ordinal,workload_hash\n";
	return s.str();
}

// A run's rows of the CSV, one per job and direction.
std::string export_csv_rows(const resdb::run_record &r)
{
	std::ostringstream s;
	std::vector<resdb::job_ordinal> ord = resdb::job_ordinals(r);
	for (size_t i = 0; i < r.figures.size(); i++) {
		const resdb::figure &f = r.figures[i];
		s << r.id << "," << r.uuid << "," << csv_field(r.label) << "," << r.source << "," << r.started_s << ","
		  << csv_field(r.host) << "," << r.plan_hash << "," << csv_field(f.job) << "," << f.ddir;
		for (const auto &k : resdb::plan_keys)
			s << "," << csv_field(f.plan.count(k) ? f.plan.at(k) : "");
		s << "," << f.io_bytes << "," << f.ios << "," << exact(f.runtime_s) << "," << exact(f.iops) << ","
		  << exact(f.bw_bytes) << "," << exact(f.lat_mean_ns) << "," << exact(f.p50_ns) << "," << exact(f.p99_ns)
		  << "," << exact(f.p999_ns) << "," << ord[i].k << "," << r.workload_hash << "\n";
	}
	return s.str();
}

// A run as an element of the JSON array export prints, as ojson::dump(2)
// indents an array's elements (a string holds no raw line break to indent).
std::string export_json_element(const resdb::run_record &r)
{
	std::string one = resdb::record_json(r).dump(2, ' ', false, ojson::error_handler_t::replace);
	std::string out = "  ";
	out.reserve(one.size() + one.size() / 8);
	for (char c : one) {
		out.push_back(c);
		if (c == '\n')
			out += "  ";
	}
	return out;
}

// Runs named for messages: the id, and the label when the store's list still
// reads.  The list is read once, at the first name asked: read for each run,
// a summary of a store of 100 000 damaged runs ran for over 14 CPU-minutes.
class run_namer {
public:
	explicit run_namer(resdb::store &st) : st_(st) {}

	std::string operator()(int64_t id)
	{
		if (!read_) {
			read_ = true;
			try {
				for (const auto &row : st_.list())
					if (!row.label.empty())
						labels_[row.id] = row.label;
			} catch (const resdb::store_error &) {
			}
		}
		auto it = labels_.find(id);
		return "run " + std::to_string(id) + (it == labels_.end() ? "" : " ('" + resdb::printable(it->second) + "')");
	}

private:
	resdb::store &st_;
	std::unordered_map<int64_t, std::string> labels_;
	bool read_ = false;
};

// Each run of ids that still reads, given to take.  A damaged run (a corrupt
// page, a value no save writes) fails its own load, not the others': export
// and import are how a user gets the rest out of a damaged store, so each run
// left out is said on stderr and counted in *left, and the command ends
// non-zero (left_out_exit).
void each_readable_run(resdb::store &st, const std::vector<int64_t> &ids, const char *into, size_t *left,
		       const std::function<void(int64_t, resdb::run_record &&)> &take)
{
	run_namer run_name(st);
	for (int64_t id : ids) {
		resdb::run_record r;
		try {
			r = st.load(id);
		} catch (const resdb::store_error &e) {
			if (!e.damaged)
				throw;
			std::fprintf(stderr, "ioplan: error: %s; %s is left out of the %s\n", e.what(),
				     run_name(id).c_str(), into);
			++*left;
			continue;
		}
		take(id, std::move(r));
	}
}

// The status of an export or import that left damaged runs out: 1 when it
// still carried some (done says what happened to them), 2 when none could be
// read, so nothing was done.
int left_out_exit(int status, size_t left, size_t carried, const char *done)
{
	if (!left || status)
		return status;
	std::string runs = left == 1 ? "1 run could not be read" : std::to_string(left) + " runs could not be read";
	if (!carried)
		std::fprintf(stderr, "ioplan: error: %s; nothing is %s\n", runs.c_str(), done);
	else
		std::fprintf(stderr, "ioplan: error: %s and %s left out; the %zu other(s) are %s\n", runs.c_str(),
			     left == 1 ? "is" : "are", carried, done);
	return carried ? 1 : 2;
}

// Each run is loaded, written into the text and let go: holding every run
// (its buckets and samples too) took 470 MB for the CSV of 10 000 disk runs
// and 1.7 GB for their JSON, so an export of a fleet's store ran out of memory.
int export_cmd(const cmd_opts &o)
{
	if (o.format != "csv" && o.format != "json" && o.format != "normal")
		throw usage_error("results export: --output-format is csv (the default) or json");
	bool js = o.format == "json";
	resdb::store st(o.db, resdb::store::mode::read);
	std::vector<int64_t> ids;
	for (const auto &ref : o.pos)
		ids.push_back(st.find(ref));
	if (o.pos.empty())
		ids = st.ids();
	size_t left = 0, runs = 0;
	std::string text = js ? "[" : export_csv_header();
	each_readable_run(st, ids, "export", &left, [&](int64_t, resdb::run_record &&r) {
		text += js ? (runs ? ",\n" : "\n") + export_json_element(r) : export_csv_rows(r);
		runs++;
	});
	if (left && !runs)
		return left_out_exit(0, left, 0, "exported");
	if (js)
		text += runs ? "\n]\n" : "]\n";
	return left_out_exit(print(o, text), left, runs, "exported");
}

bool is_sqlite(const std::string &path)
{
	char head[16] = {};
	std::ifstream in(path, std::ios::binary);
	return in.read(head, sizeof(head)) && std::string(head, 15) == "SQLite format 3";
}

// A source of an import: a result file, or a store and the ids of its runs that read.
struct import_source {
	std::string path;
	bool is_store = false;
	std::vector<int64_t> ids;	// a store's runs that read
	size_t runs = 0;		// how many runs it gives
	std::vector<resdb::run_record> held;	// a pipe's runs, read once: it cannot be read again
};

// A pipe, a FIFO or a terminal (/dev/stdin, <(...)): what it gives is read once.
bool read_once(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISBLK(st.st_mode);
}

// An import's sources, each read and checked whole and then let go (a pipe's
// runs are held: it reads once, and the store's sniff of its first bytes would
// eat them): a file that does not read is an error before anything is written,
// a store's damaged runs are named and counted in *left.
std::vector<import_source> import_sources(const cmd_opts &o, size_t *left, size_t *runs)
{
	std::vector<import_source> sources;
	for (const auto &path : o.pos) {
		import_source s;
		s.path = path;
		if (read_once(path) || !is_sqlite(path)) {
			size_t documents = 0;
			std::vector<resdb::run_record> runs_read = resdb::runs_of_file(path, &documents);
			s.runs = runs_read.size();
			if (read_once(path))
				s.held = std::move(runs_read);
			if (documents > 1)
				std::fputs(resdb::documents_note(path, documents).c_str(), stderr);
		} else {
			s.is_store = true;
			resdb::store other(path, resdb::store::mode::read);
			each_readable_run(other, other.ids(), "import", left,
					  [&](int64_t id, resdb::run_record &&) { s.ids.push_back(id); });
			s.runs = s.ids.size();
		}
		*runs += s.runs;
		sources.push_back(std::move(s));
	}
	return sources;
}

// Every source is read and checked before anything is written (all or
// nothing), then read again run by run into one transaction: holding every
// run of the import at once took about 1.3 GB for 100 000 fio files.
int import_cmd(const cmd_opts &o)
{
	if (o.pos.empty())
		throw usage_error("results import takes fio/ioplan JSON result files, results export's JSON or ioplan stores");
	json_out(o);
	size_t left = 0;	// runs of a damaged store that could not be read
	size_t total = 0;	// runs read
	std::vector<import_source> sources = import_sources(o, &left, &total);
	if (left && total == 0)
		return left_out_exit(0, left, 0, "imported");
	if (!output_first(o))
		return 2;
	resdb::store st(o.db, resdb::store::mode::write);
	std::string known;
	std::unordered_set<std::string> added_now;	// the uuids this import stored
	size_t added = 0, seen = 0;	// seen: the runs of the store pass, which a file replaced since the check may change
	resdb::store::batch into(st);
	for (auto &s : sources) {
		if (s.is_store) {
			resdb::store other(s.path, resdb::store::mode::read);
			for (int64_t id : s.ids) {
				resdb::run_record r = other.load(id);
				r.id = 0;
				added += into.add(r);
				seen++;
			}
			continue;
		}
		for (const auto &r : s.held.empty() ? resdb::runs_of_file(s.path) : std::move(s.held)) {
			// A run's own report carries its uuid: imported after --save, it is that run.
			int64_t id = st.id_of_uuid(r.uuid);
			seen++;
			if (id && !added_now.count(r.uuid))
				known += s.path + ": already stored as run " + std::to_string(id) + "; not stored again\n";
			if (into.add(r)) {
				added++;
				added_now.insert(r.uuid);
			}
		}
	}
	into.commit();
	if (json_out(o))
		return left_out_exit(print(o, ojson{ { "imported", added }, { "already_stored", seen - added },
						      { "unreadable", left } }),
				     left, total, "imported");
	return left_out_exit(print(o, known + "imported " + std::to_string(added) + " run(s), " +
					      std::to_string(seen - added) + " already stored, into " + o.db + "\n"),
			     left, total, "imported");
}

// The value of summary's --preset, --plan or --workload as stored.  A plan or
// a workload is also found by the start of its hash (`results list` shows its
// first 12 digits), as a run by the start of its uuid.  One no run has was an empty summary,
// exit 0: `--plan=44bcc629c93b` copied from the list, or a preset misspelt,
// passed a gate on the summary with nothing summed up.
std::string summary_filter(resdb::store &st, const std::string &name, const std::string &value)
{
	bool prefix = name == "plan" || name == "workload";
	std::vector<std::string> found = st.fact_values(name, value, prefix);
	if (found.size() == 1)
		return found[0];
	if (std::find(found.begin(), found.end(), value) != found.end())
		return value;
	if (found.empty())
		throw resdb::store_error(st.path() + ": no stored run has " + name + " '" + value + "'" +
					 (prefix ? " (nor one that starts so; results list shows each run's " + name + ")"
						 : std::string()));
	throw resdb::store_error(st.path() + ": '" + value + "' starts the " + name + "s " + found[0] + ", " + found[1] +
				 (found.size() > 2 ? ", ..." : "") + ": give more of it");
}

int summary_cmd(const cmd_opts &o)
{
	bool js = json_out(o);
	if (!o.by.empty() && std::find(resdb::summary_fields.begin(), resdb::summary_fields.end(), o.by) ==
				     resdb::summary_fields.end()) {
		std::string names;
		for (const auto &f : resdb::summary_fields)
			names += (names.empty() ? "" : ", ") + f;
		throw usage_error("--by: no field '" + o.by + "' (fields: " + names + ")");
	}
	if (!o.preset.empty() + !o.plan.empty() + !o.workload.empty() > 1)
		throw usage_error("give one of --preset, --plan and --workload");
	std::string fname = !o.preset.empty() ? "preset" : !o.plan.empty() ? "plan" : !o.workload.empty() ? "workload" : "";
	const std::string &given = fname == "preset" ? o.preset : fname == "plan" ? o.plan : o.workload;
	resdb::store st(o.db, resdb::store::mode::read);
	std::string fvalue = fname.empty() ? "" : summary_filter(st, fname, given);
	std::vector<std::pair<int64_t, std::string>> damaged;
	std::vector<resdb::summary_row> rows = st.summary_rows(o.by, fname, fvalue, &damaged);
	size_t readable = 0;	// runs with rows (in run order: each run's together)
	for (size_t i = 0; i < rows.size(); i++)
		readable += i == 0 || rows[i].run_id != rows[i - 1].run_id;
	resdb::left_out left_out = resdb::leave_out(rows, o.include_interrupted, o.include_failed);
	// A damaged run is left out as export leaves it out: named, counted, and
	// the summary of the others still printed, exit 1 (never a silent 0);
	// with no run that reads, nothing is printed, exit 2, as export does (an
	// empty summary with exit 1 read as "some runs left out").
	run_namer run_name(st);
	for (const auto &d : damaged)
		std::fprintf(stderr, "ioplan: error: %s; %s is left out of the summary\n", d.second.c_str(),
			     run_name(d.first).c_str());
	if (!damaged.empty() && readable == 0)
		return left_out_exit(0, damaged.size(), 0, "summed up");
	left_out.damaged = damaged.size();
	auto groups = resdb::summarize(rows);
	int status = js ? print(o, resdb::summary_json(groups, o.by, left_out))
			: print(o, resdb::summary_text(groups, o.by, left_out));
	return left_out_exit(status, damaged.size(), readable, "summed up");
}

// A compare operand: a result file (ioplan or fio JSON), else a run in the store.
resdb::run_record operand(const cmd_opts &o, const std::string &ref)
{
	std::ifstream f(ref);
	if (f.good() && !is_sqlite(ref))
		return resdb::record_of_file(ref);
	resdb::store st(o.db, resdb::store::mode::read);
	return st.load(st.find(ref));
}

// --metrics=iops,bw_bytes: a CI gate on throughput alone, where latency is not what is watched.
void keep_metrics(resdb::comparison &c, const std::string &list)
{
	if (list.empty())
		return;
	static const std::vector<std::string> known = { "iops", "bw_bytes", "p50_ns", "p99_ns", "p999_ns" };
	std::vector<std::string> want;
	std::stringstream in(list);
	for (std::string m; std::getline(in, m, ',');) {
		if (std::find(known.begin(), known.end(), m) == known.end())
			throw usage_error("--metrics: no metric '" + m + "' (metrics: iops, bw_bytes, p50_ns, p99_ns, p999_ns)");
		want.push_back(m);
	}
	std::vector<resdb::metric_cmp> kept;
	for (const auto &m : c.metrics)
		if (std::find(want.begin(), want.end(), m.metric) != want.end())
			kept.push_back(m);
	c.metrics = kept;
}

// A run a signal stopped measured part of its workload, and one with a job
// that failed did not measure the workload asked: set beside a whole one, its
// figures would read as a like-for-like result.  Refused, or with --force
// compared with a warning.
void cut_short(const resdb::run_record &r, const char *side, bool force)
{
	if (!r.interrupted && r.failures.empty())
		return;
	std::string who = std::string(side) + " (" + (r.id ? "run " + std::to_string(r.id) : std::string("the file")) +
			  (r.interrupted ? ") was interrupted: its figures cover only what ran before a signal stopped it"
					 : ") is not the workload asked: " + resdb::failure_text(r.failures[0]) +
						   (r.failures.size() > 1 ? " (and " + std::to_string(r.failures.size() - 1) +
										    " more)" : ""));
	if (!force)
		throw refusal(resdb::printable(who) + " (--force compares it anyway)");
	std::fprintf(stderr, "ioplan: warning: %s\n", resdb::printable(who).c_str());
}

// Runs of different workloads are refused, or with --force compared with each
// difference said on stderr, as cut_short says an interrupted run; with no job
// and direction in common (or no I/O in either) there is nothing to compare,
// even forced: an empty table and exit 0 passed --fail-on-regression with
// every job renamed.
void different_workloads(const resdb::comparison &c, bool force)
{
	std::string why;
	for (const auto &d : c.plan_differences)
		why += "\n  " + resdb::printable(d);
	if (c.metrics.empty())
		throw refusal(why.empty() ? "nothing to compare: neither run did any I/O"
					  : "nothing to compare: the two runs have no job and direction in common:" + why);
	if (!force && !why.empty())
		throw refusal("the two runs measured different workloads (--force compares them anyway):" + why);
	for (const auto &d : c.plan_differences)
		std::fprintf(stderr, "ioplan: warning: compared anyway (--force): %s\n", resdb::printable(d).c_str());
}

int compare_cmd(const cmd_opts &o)
{
	if (o.pos.size() != 2)
		throw usage_error("compare takes two runs or result files: ioplan compare A B");
	if (o.include_interrupted || o.include_failed)
		throw usage_error(std::string(summary_flag(o)) + " belongs to results summary (compare: --force)");
	bool js = json_out(o);
	resdb::run_record a = operand(o, o.pos[0]), b = operand(o, o.pos[1]);
	resdb::comparison c = resdb::compare(a, b);
	keep_metrics(c, o.metrics);
	different_workloads(c, o.force);
	cut_short(a, "A", o.force);
	cut_short(b, "B", o.force);
	int rc = js ? print(o, resdb::comparison_json(c, a, b)) : print(o, resdb::comparison_text(c, a, b));
	std::vector<const resdb::metric_cmp *> worse;
	if (o.fail_pct >= 0 && resdb::regressed(c, o.fail_pct, &worse)) {
		for (const auto *m : worse)
			std::fprintf(stderr, "ioplan: regression: job %s %s %s %+.1f%% (%s %.3g%%)\n",
				     resdb::printable(m->label).c_str(), m->ddir.c_str(), m->metric.c_str(), m->change * 100,
				     m->has_interval ? "beyond its noise and" : "noise unknown: worse by more than", o.fail_pct);
		return rc ? rc : 1;
	}
	return rc;
}

int dispatch(const std::string &command, const std::vector<std::string> &args)
{
	if (command == "compare")
		return compare_cmd(parse(args));
	if (args.empty())
		throw usage_error("results: which subcommand?");
	std::string sub = args[0];
	cmd_opts o = parse(std::vector<std::string>(args.begin() + 1, args.end()));
	if (o.fail_pct >= 0 || o.force || !o.metrics.empty())
		throw usage_error("--force, --metrics and --fail-on-regression belong to ioplan compare");
	if ((o.include_interrupted || o.include_failed) && sub != "summary")
		throw usage_error(std::string(summary_flag(o)) + " belongs to results summary");
	if (sub == "list")
		return list_cmd(o);
	if (sub == "show")
		return show_cmd(o);
	if (sub == "rm")
		return rm_cmd(o);
	if (sub == "report")
		return report_cmd(o);
	if (sub == "export")
		return export_cmd(o);
	if (sub == "import")
		return import_cmd(o);
	if (sub == "summary")
		return summary_cmd(o);
	throw usage_error("results: no subcommand '" + sub + "'");
}

} // namespace

int results_main(const std::string &command, const std::vector<std::string> &args)
{
	// --help anywhere asks for the usage, as it does of ioplan itself.
	if (std::any_of(args.begin(), args.end(), [](const std::string &a) { return a == "--help" || a == "-h"; }))
		return write_stdout(std::string(usage) + "\n", "the usage to stdout") ? 0 : 1;
	try {
		return dispatch(command, args);
	} catch (const usage_error &e) {
		std::fprintf(stderr, "ioplan: error: %s\n%s\n", e.what(), usage);
	} catch (const refusal &e) {
		std::fprintf(stderr, "ioplan: error: %s\n", e.what());
	} catch (const resdb::input_error &e) {
		std::fprintf(stderr, "%s%serror: %s\n", e.at.c_str(), e.at.empty() ? "" : ": ", e.what());
	} catch (const resdb::store_error &e) {
		std::fprintf(stderr, "ioplan: error: %s\n", e.what());
	}
	return 2;
}

} // namespace cli

// results/record.cpp - a JSON report read into a run_record (record.hpp).
//
// fio's layout: jobs[] with "job options" and read/write/trim objects holding
// io_bytes, bw_bytes, iops, runtime (ms), total_ios and clat_ns (percentiles,
// and with json+ the exact bins).  ioplan adds, in its "ioplan" object, the
// environment, the plan hash, per-interval series and repeat runs.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include <nettle/sha2.h>

#include "results/record.hpp"
#include "results/record_fields.hpp"

namespace resdb {

using json = nlohmann::json;

const std::vector<std::string> plan_keys = { "rw", "bs", "iodepth", "numjobs", "size", "direct", "ioengine" };

namespace fields {

const json &at(const json &o, const char *key)
{
	static const json none;
	return o.is_object() && o.contains(key) ? o[key] : none;
}

// A figure of the result: absent is 0; a number, or a string holding one (fio
// writes some as strings); anything else, or a negative or non-finite number,
// is not a result ioplan reads (a hand-edited file), refused rather than read as 0.
double num(const json &o, const char *key)
{
	const json &v = at(o, key);
	double d = 0;
	bool ok = v.is_null() || v.is_number();
	if (v.is_number())
		d = v.get<double>();
	if (v.is_string()) {
		const std::string &t = v.get_ref<const std::string &>();
		char *end = nullptr;
		d = std::strtod(t.c_str(), &end);
		ok = !t.empty() && end && !*end;
	}
	if (!ok || !std::isfinite(d) || d < 0)
		throw input_error("", std::string(key) + ": " + v.dump() + " is not a figure ioplan reads");
	return d;
}

// A count, a size or a time in ns: a whole figure SQLite's integers hold
// (below 2^63).  1e30 bytes or -5 I/Os were stored as 0 or as 2^64 - 5.
uint64_t u64(const json &o, const char *key)
{
	const json &v = at(o, key);
	if (v.is_number_unsigned() && v.get<uint64_t>() <= (uint64_t)INT64_MAX)
		return v.get<uint64_t>();
	if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() >= 0)
		return (uint64_t)v.get<int64_t>();
	if (!v.is_number_integer()) {
		double d = num(o, key);
		if (d < 9.2e18)
			return (uint64_t)d;
	}
	throw input_error("", std::string(key) + ": " + v.dump() + " is not a figure ioplan reads");
}

// A small whole number (a rank, an errno, a job's index).
int small(const json &o, const char *key)
{
	uint64_t x = u64(o, key);
	if (x > (uint64_t)INT32_MAX)
		throw input_error("", std::string(key) + ": " + at(o, key).dump() + " is not a figure ioplan reads");
	return (int)x;
}

// A run's start, Unix seconds: a date gmtime prints (up to 9999-12-31).
int64_t date_of(const json &o, const char *key)
{
	uint64_t s = u64(o, key);
	if (s > 253402300799)
		throw input_error("", std::string(key) + ": " + at(o, key).dump() + " is not a date ioplan reads");
	return (int64_t)s;
}

// A run's uuid as ioplan makes one: 32 lower-case hex digits.
bool is_run_id(const std::string &id)
{
	return id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// One per-interval sample: a number, finite, not negative (a string was
// nlohmann's type_error, exit 1; -1e300 was kept).
double sample(const json &v, const char *what)
{
	if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
		throw input_error("", std::string("series ") + what + ": " + v.dump() + " is not a figure ioplan reads");
	return v.get<double>();
}

std::string str(const json &o, const char *key)
{
	const json &v = at(o, key);
	return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
}

} // namespace fields

using namespace fields;

namespace {

// "4k" -> "4096": sizes compared by value, as the parser reads them (kb_base=1024).
std::string size_text(const std::string &v)
{
	if (v.empty() || !isdigit((unsigned char)v[0]))
		return v;
	size_t end = 0;
	errno = 0;
	unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
	end = v.find_first_not_of("0123456789");
	end = end == std::string::npos ? v.size() : end;
	std::string unit = v.substr(end);
	for (auto &c : unit)
		c = (char)tolower((unsigned char)c);
	static const std::map<std::string, int> shift = { { "", 0 },	 { "b", 0 },   { "k", 10 },  { "kb", 10 },
							  { "kib", 10 }, { "m", 20 },  { "mb", 20 }, { "mib", 20 },
							  { "g", 30 },	 { "gb", 30 }, { "gib", 30 }, { "t", 40 },
							  { "tb", 40 },	 { "tib", 40 } };
	auto it = shift.find(unit);
	/* A size past 2^64 is kept as written: compared as text, never as a wrapped number. */
	if (it == shift.end() || errno == ERANGE || (it->second && n >> (64 - it->second)))
		return v;
	return std::to_string(n << it->second);
}

// The plan keys of one job: its own options over the global ones, aliases and defaults resolved.
std::map<std::string, std::string> plan_of(const json &job, const json &global)
{
	static const std::map<std::string, std::string> alias = { { "readwrite", "rw" }, { "blocksize", "bs" } };
	static const std::map<std::string, std::string> dflt = { { "rw", "read" },   { "bs", "4096" },
								 { "iodepth", "1" }, { "numjobs", "1" },
								 { "direct", "0" },  { "ioengine", "psync" },
								 { "size", "" } };
	std::map<std::string, std::string> p = dflt;
	for (const json *src : { &global, &at(job, "job options") }) {
		if (!src->is_object())
			continue;
		for (auto it = src->begin(); it != src->end(); ++it) {
			std::string k = alias.count(it.key()) ? alias.at(it.key()) : it.key();
			if (p.count(k))
				p[k] = it->is_string() ? it->get<std::string>() : it->dump();
		}
	}
	p["bs"] = size_text(p["bs"]);
	p["size"] = size_text(p["size"]);
	return p;
}

// Every job's name and options, its global ones under its own, sorted by
// name; workload: less the options fio_host_option names, and those of
// fio_output_option without their value.
std::string fio_options_text(const json &doc, bool workload);

// fio records no plan hash: every option of every job names the workload,
// its global ones under its own.  Only the keys compare reads (rw, bs, ...)
// were hashed, so fio runs at rate_iops=1000 and 500 were one plan, one row
// of results summary.
std::string fio_plan_hash(const json &doc)
{
	return sha256_hex(fio_options_text(doc, false));
}

// An fio run's workload: its plan less the names of the host's targets, so the
// same job file run against /dev/sdb on one host and /dev/nvme0n1 on another
// is one workload, and one at another bs is another.
std::string fio_workload_hash(const json &doc)
{
	return sha256_hex("workload\n" + fio_options_text(doc, true));	// never the text of a plan hash
}

// The options the workload of an fio run leaves out, or keeps without their
// value, as report/showplan.cpp's host_specific_option and output_name_option
// judge ioplan's (tests/report/test_showplan.cpp checks the lists agree):
// the names of this host's targets and peers, the permissions to write
// there, and the names of the files the run writes its logs to.
bool fio_host_option(const std::string &key)
{
	static const std::set<std::string> names = { "filename",    "directory",	  "opendir",
						     "filename_format", "replay_redirect", "donorname",
						     "hostname",    "interface",	  "uri",
						     "allow_device_write", "allow_existing_file_write",
						     "allow_mounted_write" };
	return names.count(key) > 0;
}

bool fio_output_option(const std::string &key)
{
	static const std::set<std::string> names = { "write_bw_log",	"write_iops_log", "write_lat_log",
						     "write_hist_log", "write_iolog",	  "merge_blktrace_file" };
	return names.count(key) > 0;
}

std::string fio_options_text(const json &doc, bool workload)
{
	const json &jobs = at(doc, "jobs");
	std::string plan;
	for (const json &job : jobs.is_array() ? jobs : json::array()) {
		if (!at(job, "jobname").is_string())
			continue;
		std::map<std::string, std::string> o;
		for (const json *src : { &at(doc, "global options"), &at(job, "job options") }) {
			if (!src->is_object())
				continue;
			for (auto it = src->begin(); it != src->end(); ++it) {
				if (workload && fio_host_option(it.key()))
					continue;
				o[it.key()] = workload && fio_output_option(it.key()) ? ""
					      : it->is_string() ? it->get<std::string>() : it->dump();
			}
		}
		plan += "[" + job["jobname"].get<std::string>() + "]\n";
		for (const auto &kv : o)
			plan += kv.first + "=" + kv.second + "\n";
	}
	return plan;
}

double percentile(const json &lat, const char *key)
{
	return num(at(lat, "percentile"), key);
}

void read_latency(const json &dd, figure &f)
{
	const json *lat = &at(dd, "clat_ns");
	if (num(*lat, "N") == 0 && num(at(dd, "lat_ns"), "N") > 0)
		lat = &at(dd, "lat_ns");
	f.lat_mean_ns = num(*lat, "mean");
	f.p50_ns = percentile(*lat, "50.000000");
	f.p99_ns = percentile(*lat, "99.000000");
	f.p999_ns = percentile(*lat, "99.900000");
	const json &bins = at(*lat, "bins");
	if (bins.is_object())
		for (auto it = bins.begin(); it != bins.end(); ++it) {
			const std::string &k = it.key();
			if (k.empty() || k.size() > 19 || k.find_first_not_of("0123456789") != std::string::npos ||
			    !it->is_number_unsigned())
				throw input_error("", "latency bins: '" + k + "': " + it->dump() +
							  " is not a latency in ns and a count");
			f.buckets.emplace_back(std::stoull(k), it->get<uint64_t>());
		}
	const json &listed = at(*lat, "percentile");
	for (auto [key, pct, to] : { std::make_tuple("50.000000", 50.0, &f.p50_ns),
				     std::make_tuple("99.000000", 99.0, &f.p99_ns),
				     std::make_tuple("99.900000", 99.9, &f.p999_ns) })
		if (!(listed.is_object() && listed.contains(key)))
			*to = percentile_from_buckets(f.buckets, pct, num(*lat, "min"), num(*lat, "max"));
}

// Per-interval samples and repeat runs of entry i of ioplan.jobs[].  The
// series of the job's clones are summed interval by interval within one run;
// the runs of repeat=N follow each other, each interval once: summed, as they
// were, every interval of a repeat=4 job read 4 times its rate, and compare
// found it "faster" by +300% than the same job run once.
void read_ioplan_extras(const json &io, size_t i, figure &f)
{
	const json &ij = at(io, "jobs").is_array() && i < io["jobs"].size() ? io["jobs"][i] : json();
	const json &ids = at(ij, "job_ids");
	auto mine = [&](const json &o) {
		for (const auto &id : ids.is_array() ? ids : json::array())
			if (id == at(o, "job_id"))
				return true;
		return false;
	};
	std::map<double, std::pair<std::vector<double>, std::vector<double>>> runs;	// run -> iops, bw
	for (const auto &s : at(io, "series").is_array() ? io["series"] : json::array()) {
		if (!mine(s) || at(s, "discarded") == true)
			continue;
		f.interval_s = num(s, "interval_ns") / 1e9;
		const json &d = at(s, f.ddir.c_str());
		const json &iops = at(d, "iops"), &bw = at(d, "bw_bytes_per_s");
		auto &[ri, rb] = runs[num(s, "run")];
		for (size_t k = 0; iops.is_array() && k < iops.size(); k++) {
			if (k >= ri.size()) {
				ri.push_back(0);
				rb.push_back(0);
			}
			ri[k] += sample(iops[k], "iops");
			rb[k] += k < bw.size() ? sample(bw[k], "bw_bytes_per_s") : 0;
		}
	}
	for (const auto &run : runs) {
		f.iops_samples.insert(f.iops_samples.end(), run.second.first.begin(), run.second.first.end());
		f.bw_samples.insert(f.bw_samples.end(), run.second.second.begin(), run.second.second.end());
	}
	for (const auto &r : at(ij, "repeat").is_array() ? ij["repeat"] : json::array())
		for (const auto &run : at(r, "runs").is_array() ? r["runs"] : json::array()) {
			if (at(run, "discarded") == true)
				continue;
			const json &d = at(run, f.ddir.c_str());
			f.repeat_iops.push_back(num(d, "iops"));
			f.repeat_bw.push_back(num(d, "bw_bytes"));
		}
}

void check_rates(const figure &f, double runtime_ms, const std::string &where)
{
	std::string why = rates_fault(f, runtime_ms);
	if (!why.empty())
		throw input_error("", where + ": " + why);
}

// fio 3.33 writes an empty jobs[] entry, with no jobname and groupid 2^32 - 1,
// after a group whose later job asks for group_reporting and an earlier one
// does not (`[a] rw=read` then `[b] rw=write group_reporting`: "a" holds both,
// then the empty one).  Refused as "not a job", it kept such a file of fio's
// out of import and compare; it holds nothing to keep.
bool fio_empty_entry(const json &job)
{
	if (!job.is_object() || job.contains("jobname") || at(job, "groupid") != json(4294967295u))
		return false;
	for (const char *ddir : DDIRS)
		if (num(at(job, ddir), "io_bytes") != 0 || num(at(job, ddir), "total_ios") != 0)
			return false;
	return num(job, "error") == 0;
}

void read_jobs(const json &doc, run_record &r)
{
	const json &jobs = at(doc, "jobs");
	if (!jobs.is_array())
		throw input_error("", "not a result: no jobs[] array");
	if (jobs.empty())
		throw input_error("", "not a result: jobs[] is empty (no job ran, nothing to keep)");
	const json &global = at(doc, "global options");
	const json &io = at(doc, "ioplan");
	for (size_t i = 0; i < jobs.size(); i++) {
		std::string where = "jobs[" + std::to_string(i) + "]";
		if (fio_empty_entry(jobs[i]))
			continue;
		if (!jobs[i].is_object() || !at(jobs[i], "jobname").is_string())
			throw input_error("", where + ": not a job of a result (no jobname)");
		for (const char *ddir : DDIRS) {
			const json &dd = at(jobs[i], ddir);
			if (!dd.is_null() && !dd.is_object())
				throw input_error("", where + "." + ddir + ": " + dd.dump() + " is not a direction's figures");
			if (dd.is_null() || (num(dd, "io_bytes") == 0 && num(dd, "total_ios") == 0))
				continue;
			figure f;
			f.job_index = (int)i;
			f.job = str(jobs[i], "jobname");
			f.ddir = ddir;
			f.plan = plan_of(jobs[i], global);
			f.io_bytes = u64(dd, "io_bytes");
			f.ios = u64(dd, "total_ios");
			f.runtime_s = num(dd, "runtime") / 1000.0;
			f.bw_bytes = num(dd, "bw_bytes");
			f.iops = num(dd, "iops");
			check_rates(f, num(dd, "runtime"), where + "." + ddir);
			read_latency(dd, f);
			read_ioplan_extras(io, i, f);
			r.figures.push_back(std::move(f));
		}
	}
}


// The names of the plan's jobs by id, from ioplan.jobs[].job_ids.
std::map<uint64_t, std::string> job_names(const json &io)
{
	std::map<uint64_t, std::string> names;
	for (const auto &j : at(io, "jobs").is_array() ? io["jobs"] : json::array())
		for (const auto &id : at(j, "job_ids").is_array() ? j["job_ids"] : json::array())
			if (id.is_number())
				names[id.get<uint64_t>()] = str(j, "jobname");
	return names;
}

// Under mpirun, ioplan.ranks[]: each rank's host and its figures per job and
// direction (a direction it did no I/O in is left out, as in jobs[]).
void read_ranks(const json &io, run_record &r)
{
	std::map<uint64_t, std::string> names = job_names(io);
	for (const auto &k : at(io, "ranks").is_array() ? io["ranks"] : json::array()) {
		rank_record rk;
		rk.rank = small(k, "rank");
		rk.host = str(k, "host");
		rk.error = small(k, "error");
		rk.start_late_ns = u64(k, "start_late_max_ns");
		for (const auto &j : at(k, "jobs").is_array() ? k["jobs"] : json::array())
			for (const char *ddir : DDIRS) {
				const json &dd = at(j, ddir), &lat = at(j, "lat_ns");
				if (u64(dd, "io_bytes") == 0 && u64(dd, "total_ios") == 0)
					continue;
				rank_figure f;
				f.job_index = small(j, "job");
				f.job = names.count((uint64_t)f.job_index) ? names[(uint64_t)f.job_index] : "";
				f.ddir = ddir;
				f.io_bytes = u64(dd, "io_bytes");
				f.ios = u64(dd, "total_ios");
				f.runtime_ns = u64(j, "runtime_ns");
				f.lat_n = u64(lat, "N");
				f.lat_mean_ns = num(lat, "mean");
				f.lat_p50_ns = u64(lat, "p50");
				f.lat_p99_ns = u64(lat, "p99");
				f.lat_max_ns = u64(lat, "max");
				rk.figures.push_back(std::move(f));
			}
		r.ranks.push_back(std::move(rk));
	}
}

// jobs[].error: fio's and ioplan's errno of a job that failed (0: none).
void read_failures(const json &doc, run_record &r)
{
	const json &jobs = at(doc, "jobs");
	for (size_t i = 0; i < jobs.size(); i++) {
		int e = small(jobs[i], "error");
		if (e)
			r.failures.push_back(job_failure{ (int)i, str(jobs[i], "jobname"), e });
	}
}

} // namespace

namespace fields {

void read_facts(run_record &r, const json &env)
{
	r.facts["host"] = r.host;
	r.facts["kernel"] = r.kernel;
	r.facts["label"] = r.label;
	r.facts["source"] = r.source;
	r.facts["plan"] = r.plan_hash;
	if (!r.workload_hash.empty())	// none for runs saved before: summary groups them by plan
		r.facts["workload"] = r.workload_hash;
	if (r.interrupted)
		r.facts["interrupted"] = "yes";
	if (!r.failures.empty())
		r.facts["failed"] = failures_fact(r.failures);
	const json &virt = at(env, "virtualization"), &sys = at(env, "system");
	r.facts["virtualization"] = str(virt, "type");
	r.facts["instance_type"] = str(sys, "instance_type");
	r.facts["cpu_model"] = str(at(env, "cpu"), "model");
	r.facts["distribution"] = str(at(env, "distribution"), "pretty_name");
	const json &targets = at(env, "targets");
	if (targets.is_array() && !targets.empty() && at(targets[0], "stack").is_array() &&
	    !targets[0]["stack"].empty())
		r.facts["filesystem"] = str(targets[0]["stack"][0], "type");
	const json &disks = at(env, "disks");
	if (disks.is_array() && !disks.empty()) {
		std::string m = str(disks[0], "model");
		r.facts["disk_model"] = m.empty() ? str(disks[0], "name") : m;
	}
}

} // namespace fields

std::string text_position(const std::string &text, size_t byte)
{
	size_t line = 1, col = 1;
	for (size_t i = 0; i + 1 < byte && i < text.size(); i++, col++)
		if (text[i] == '\n') {
			line++;
			col = 0;
		}
	return std::to_string(line) + ":" + std::to_string(col);
}

// A percentile the result does not list (percentile_list=90:95), from its
// exact histogram as the report computed the ones it lists (res_lat_percentile:
// the first bucket whose count so far reaches pct% of all, within [min, max]).
// Stored as 0, it was a latency of 0 to show, export and the regression gate.
double percentile_from_buckets(const std::vector<std::pair<uint64_t, uint64_t>> &buckets, double pct, double min,
			       double max)
{
	std::vector<std::pair<uint64_t, uint64_t>> sorted = buckets;
	long double all = 0, sum = 0;
	std::sort(sorted.begin(), sorted.end());
	for (const auto &b : sorted)
		all += (long double)b.second;
	if (all == 0)
		return 0;
	for (const auto &b : sorted)
		if ((sum += (long double)b.second) >= (long double)pct * (all * 0.01L))
			return std::min(std::max((double)b.first, min), max);
	return max;
}

std::vector<job_ordinal> job_ordinals(const run_record &r)
{
	std::map<std::string, std::vector<int>> seen;	// name -> job indexes, in order
	for (const figure &f : r.figures) {
		std::vector<int> &v = seen[f.job];
		if (std::find(v.begin(), v.end(), f.job_index) == v.end())
			v.push_back(f.job_index);
	}
	std::vector<job_ordinal> out;
	for (const figure &f : r.figures) {
		const std::vector<int> &v = seen[f.job];
		out.push_back({ (int)(std::find(v.begin(), v.end(), f.job_index) - v.begin()) + 1, (int)v.size() });
	}
	return out;
}

std::string job_label(const std::string &job, int k, bool several)
{
	return several ? job + " #" + std::to_string(k) : job;
}

// Nettle's SHA-256: OpenSSL's EVP digests load openssl.cnf and their providers on first use.
std::string sha256_hex(const std::string &text)
{
	uint8_t md[SHA256_DIGEST_SIZE];
	sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, text.size(), reinterpret_cast<const uint8_t *>(text.data()));
	sha256_digest(&ctx, sizeof md, md);
	std::ostringstream hex;
	for (uint8_t b : md)
		hex << std::hex << std::setw(2) << std::setfill('0') << (int)b;
	return hex.str();
}

std::string new_uuid()
{
	std::random_device rd;
	std::ostringstream hex;
	for (int i = 0; i < 4; i++)
		hex << std::hex << std::setw(8) << std::setfill('0') << rd();
	return hex.str();
}

run_record record_of(const json &doc, const std::string &uuid_seed)
{
	if (!doc.is_object())
		throw input_error("", "not a result: the document is not a JSON object");
	run_record r;
	const json &io = at(doc, "ioplan");
	r.source = io.is_object() ? "ioplan" : "fio";
	r.tool_version = io.is_object() ? str(io, "version") : str(doc, "fio version");
	r.started_s = date_of(doc, "timestamp");
	r.host = str(io, "host");
	r.kernel = str(io, "kernel");
	r.plan_hash = str(io, "plan_hash");
	r.workload_hash = str(io, "workload_hash");
	r.job_text = str(io, "job_text");
	const json &env = at(io, "environment");
	r.environment = env.is_object() ? env.dump() : "";
	for (const auto &w : at(io, "warnings").is_array() ? io["warnings"] : json::array())
		r.warnings.push_back(w.is_string() ? w.get<std::string>() : w.dump());
	// A report of ioplan's own names its run (ioplan.uuid), as --save stored
	// it: importing the report then finds the run already there.
	std::string own = str(io, "uuid");
	r.uuid = is_run_id(own) ? own : uuid_seed.empty() ? new_uuid() : sha256_hex(uuid_seed).substr(0, 32);
	r.interrupted = at(io, "interrupted") == true;
	read_jobs(doc, r);
	read_failures(doc, r);
	read_ranks(io, r);
	if (r.source == "fio")
		r.workload_hash = fio_workload_hash(doc);
	if (r.plan_hash.empty())
		r.plan_hash = fio_plan_hash(doc);
	// A run --save could not store was kept with the label and preset it was given.
	const json &saved = at(io, "saved_as");
	r.label = str(saved, "label");
	read_facts(r, env);
	if (saved.is_object())
		r.facts["preset"] = str(saved, "preset");
	return r;
}

namespace {

// A result file holds at most this much: /dev/zero or an endless pipe is refused, not read until memory runs out.
// (The parser's read_file_bytes does the same for traces and logs; the store may not include the parser.)
constexpr size_t RESULT_FILE_MAX = size_t(256) << 20;

std::string result_text(const std::string &path)
{
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		throw input_error(path, std::string("cannot read the file: ") + std::strerror(errno));
	struct stat st;
	std::string text, why;
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode))
		why = "cannot read the file: not a file";
	else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		why = "a device, not a result file";
	char buf[65536];
	for (ssize_t n; why.empty() && (n = read(fd, buf, sizeof buf)) != 0;) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			why = std::string("cannot read the file: ") + std::strerror(errno);
		else if (text.append(buf, (size_t)n).size() > RESULT_FILE_MAX)
			why = "larger than " + std::to_string(RESULT_FILE_MAX >> 20) + " MiB: not a result file";
	}
	close(fd);
	if (!why.empty())
		throw input_error(path, why);
	return text;
}

} // namespace

namespace {

// The end of the JSON object opening at text[b]: just past its closing brace,
// braces inside strings not counted; text.size() when it never closes.  Hand
// counted because nlohmann's parser gives no end position of a value inside a
// longer text; the document found is then parsed, and checked, by nlohmann.
size_t object_end(const std::string &text, size_t b)
{
	int depth = 0;
	bool in_string = false;
	for (size_t i = b; i < text.size(); i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '{') {
			depth++;
		} else if (c == '}' && --depth == 0) {
			return i + 1;
		}
	}
	return text.size();
}

// The next '{' at or after from that starts a line, or npos.
size_t line_brace(const std::string &text, size_t from)
{
	if (from == 0 && !text.empty() && text[0] == '{')
		return 0;
	size_t at = text.find("\n{", from ? from - 1 : 0);
	return at == std::string::npos ? at : at + 1;
}

} // namespace

result_span find_result(const std::string &text)
{
	result_span r;
	for (size_t b = line_brace(text, 0); b != std::string::npos; b = line_brace(text, r.end)) {
		r.begin = b;
		r.end = object_end(text, b);
		r.documents++;
	}
	if (r.documents == 0 && (r.begin = text.find('{')) != std::string::npos) {
		r.end = object_end(text, r.begin);
		r.documents = 1;
	}
	return r;
}

constexpr int max_result_depth = 64;

std::string documents_note(const std::string &path, size_t documents)
{
	return path + ": note: " + std::to_string(documents) + " JSON documents, as fio --status-interval writes "
	       "one per interval: the last, the run's end, is read\n";
}

namespace {

// The JSON of text[start, end), its syntax errors at path:line:col.
json parse_at(const std::string &path, const std::string &text, size_t start, size_t end)
{
	json doc;
	// fio's results are a few levels deep; a value nested thousands deep would
	// be printed (an error naming it) by recursion, which overflows the stack.
	bool too_deep = false;
	auto shallow = [&too_deep](int depth, json::parse_event_t, json &) {
		too_deep = too_deep || depth > max_result_depth;
		return !too_deep;
	};
	try {
		doc = json::parse(text.begin() + (long)start, text.begin() + (long)end, shallow);
	} catch (const json::parse_error &e) {
		std::string msg = e.what();
		msg = msg.substr(msg.find(':') != std::string::npos ? msg.rfind(": ") + 2 : 0);
		throw input_error(path + ":" + text_position(text, start + e.byte), "not valid JSON: " + msg);
	} catch (const json::out_of_range &e) {
		/* 1e400: a number no double holds (nlohmann gives no position for it) */
		std::string msg = e.what();
		throw input_error(path, "not a result ioplan reads: " + msg.substr(msg.find(']') + 2));
	}
	if (too_deep)
		throw input_error(path, "values nested more than " + std::to_string(max_result_depth) +
					" deep: not a result ioplan reads");
	return doc;
}

} // namespace

std::vector<run_record> runs_of_file(const std::string &path, size_t *documents)
{
	std::string text = result_text(path);
	size_t first = text.find_first_not_of(" \t\r\n");
	result_span span = find_result(text);
	if (first != std::string::npos && text[first] == '[')
		span = result_span{ first, text.size(), 1 };
	if (documents)
		*documents = span.documents;
	if (span.begin == std::string::npos)
		throw input_error(path + ":1:1", "not a JSON result: no '{' in the file");
	json doc = parse_at(path, text, span.begin, span.end);
	std::vector<run_record> runs;
	try {
		if (doc.is_array() && doc.empty())
			throw input_error("", "an export of no runs: nothing to read");
		for (size_t i = 0; doc.is_array() && i < doc.size(); i++)
			runs.push_back(exported_run(doc[i], "[" + std::to_string(i) + "]"));
		if (is_exported_run(doc))
			runs.push_back(exported_run(doc, "run"));
		if (runs.empty())
			runs.push_back(record_of(doc, text));
	} catch (const input_error &e) {
		throw input_error(path, e.what());
	}
	return runs;
}

run_record record_of_file(const std::string &path, size_t *documents)
{
	std::vector<run_record> runs = runs_of_file(path, documents);
	if (runs.size() != 1)
		throw input_error(path, "holds " + std::to_string(runs.size()) +
						" runs (results export): one run is asked for here");
	return std::move(runs[0]);
}

} // namespace resdb

namespace resdb {

// fio writes iops as 1000 * total_ios / runtime (ms) and bw_bytes as 1000 * io_bytes /
// runtime, whole bytes.  The slack takes integer rounding (older fio) and the six
// decimals printed.
std::string rates_fault(const figure &f, double runtime_ms)
{
	auto off = [](double got, double want) { return std::fabs(got - want) > 1 + 1e-6 * want; };
	// No runtime, no rate: fio writes 0 for both then (show_ddir_status_json),
	// and an iops of 1e300 over a runtime of 0 was read as a measured one.
	double iops = runtime_ms > 0 ? 1000.0 * (double)f.ios / runtime_ms : 0;
	double bw = runtime_ms > 0 ? 1000.0 * (double)f.io_bytes / runtime_ms : 0;
	char why[200];
	if (runtime_ms <= 0 && (off(f.iops, 0) || off(f.bw_bytes, 0)))
		snprintf(why, sizeof(why), "%s %g over a runtime of 0 (fio writes 0 there)",
			 off(f.iops, 0) ? "iops" : "bw_bytes", off(f.iops, 0) ? f.iops : f.bw_bytes);
	else if (off(f.iops, iops))
		snprintf(why, sizeof(why), "iops %g is not total_ios / runtime (%.6f)", f.iops, iops);
	else if (off(f.bw_bytes, bw))
		snprintf(why, sizeof(why), "bw_bytes %g is not io_bytes / runtime (%.0f)", f.bw_bytes, bw);
	else
		return "";
	return why;
}

std::string failure_text(const job_failure &f)
{
	std::string job = f.job_index < 0 ? "a job" : "job '" + f.job + "'";
	return job + " failed: error " + std::to_string(f.error) + " (" + std::strerror(f.error) + ")";
}

nlohmann::ordered_json failures_json(const std::vector<job_failure> &fs)
{
	nlohmann::ordered_json a = nlohmann::ordered_json::array();
	for (const job_failure &f : fs)
		a.push_back(nlohmann::ordered_json{ { "job_index", f.job_index }, { "job", f.job }, { "error", f.error },
						    { "text", failure_text(f) } });
	return a;
}

std::string failures_fact(const std::vector<job_failure> &fs)
{
	return failures_json(fs).dump();
}

std::vector<job_failure> failures_of(const std::string &fact)
{
	std::vector<job_failure> out;
	json a = json::parse(fact, nullptr, false);
	for (const json &f : a.is_array() ? a : json::array()) {
		const json &i = at(f, "job_index"), &e = at(f, "error");
		if (i.is_number_integer() && i.get<int64_t>() >= -1 && i.get<int64_t>() <= INT32_MAX &&
		    e.is_number_integer() && e.get<int64_t>() > 0 && e.get<int64_t>() < 4096)
			out.push_back(job_failure{ i.get<int>(), str(f, "job"), e.get<int>() });
	}
	if (out.empty())	/* marked failed, however damaged the mark */
		out.push_back(job_failure{ -1, "", EIO });
	return out;
}

} // namespace resdb

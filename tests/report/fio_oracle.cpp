// tests/report/fio_oracle.cpp - runs fio and rebuilds its numbers as ioplan
// results (fio_oracle.hpp).
#include "tests/report/fio_oracle.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "report/report.hpp"

namespace t {

namespace {

std::string make_tmpdir()
{
	char tmpl[] = "/tmp/ioplan-oracle-XXXXXX";
	if (!mkdtemp(tmpl))
		throw std::runtime_error("mkdtemp failed");
	return tmpl;
}

// Splits fio's --output file: banner lines, terse lines, the JSON document
// (from a "{" line to the next "}" line), and the normal text after it.
fio_run parse_output(const std::string &text)
{
	fio_run r;
	std::istringstream in(text);
	std::string line, json;
	int state = 0;	// 0 banner, 1 json, 2 normal
	while (std::getline(in, line)) {
		if (state == 0 && line.rfind("3;fio-", 0) == 0)
			r.terse.push_back(line);
		else if (state == 0 && line == "{")
			state = 1, json = "{\n";
		else if (state == 0)
			r.banner += line + "\n";
		else if (state == 1) {
			json += line + "\n";
			if (line == "}")
				state = 2;
		} else
			r.normal += line + "\n";
	}
	r.json = nlohmann::json::parse(json);
	return r;
}

} // namespace

void rebuild_lat(res_lat *l, const nlohmann::json &o, bool widen)
{
	uint64_t n = o.at("N").get<uint64_t>();
	if (!n)
		return;
	l->n = n;
	l->min_ns = o.at("min").get<uint64_t>();
	l->max_ns = o.at("max").get<uint64_t>();
	double mean = o.at("mean").get<double>(), sd = o.at("stddev").get<double>();
	l->sum_ns = (uint64_t)std::llround(mean * (double)n);
	long double s = (long double)l->sum_ns;
	long double sq = (long double)sd * sd * (long double)(n - 1) + s * s / (long double)n;
	// Through 128 bits, not llroundl: the low word passes 2^63 once latencies
	// reach seconds (fio's stdev on a loaded machine), and a signed long long
	// then wraps.
	unsigned __int128 q = (unsigned __int128)(sq + 0.5L);
	l->sumsq_hi = (uint64_t)(q >> 64);
	l->sumsq_lo = (uint64_t)q;
	if (!o.contains("bins"))
		return;
	l->hist = (uint64_t *)std::calloc(RES_HIST_NR, sizeof(uint64_t));
	for (auto &kv : o.at("bins").items()) {
		uint64_t v = std::stoull(kv.key());
		l->hist[res_hist_index(v)] += kv.value().get<uint64_t>();
		if (widen && v < l->min_ns)
			l->min_ns = v;
		if (widen && v > l->max_ns)
			l->max_ns = v;
	}
}

namespace {

void rebuild_samples(res_sample_stat *s, const nlohmann::json &o, const char *pfx,
		     const char *dev)
{
	std::string p = pfx;
	s->n = o.at(p + "_samples").get<uint64_t>();
	if (!s->n)
		return;
	s->min = (double)o.at(p + "_min").get<uint64_t>();
	s->max = (double)o.at(p + "_max").get<uint64_t>();
	s->mean = o.at(p + "_mean").get<double>();
	double sd = o.at(p + dev).get<double>();
	s->m2 = sd * sd * (double)(s->n - 1);
}

// Counts that reproduce fio's percentages of total (exact while total < 10^4).
void counts_from_pct(uint64_t *out, const nlohmann::json &o, const char *const *keys, int n,
		     double total)
{
	for (int i = 0; i < n; i++)
		out[i] = (uint64_t)std::llround(o.at(keys[i]).get<double>() / 100.0 * total);
}

void rebuild_clone(res_clone &c, const nlohmann::json &j, bool widen)
{
	static const char *const dn[] = { "read", "write", "trim" };
	static const char *const depth[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	static const char *const lat[] = { "2", "4", "10", "20", "50", "100", "250", "500",
					   "750", "1000", "2000", ">=2000" };
	uint64_t total = 0;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		const nlohmann::json &o = j.at(dn[d]);
		res_ddir &dd = c.ddir[d];
		dd.bytes = o.at("io_bytes").get<uint64_t>();
		dd.ios = o.at("total_ios").get<uint64_t>();
		dd.short_ios = o.at("short_ios").get<uint64_t>();
		dd.drop_ios = o.at("drop_ios").get<uint64_t>();
		dd.runtime_ns = o.at("runtime").get<uint64_t>() * 1000000u;
		rebuild_lat(&dd.slat, o.at("slat_ns"), widen);
		rebuild_lat(&dd.clat, o.at("clat_ns"), widen);
		rebuild_lat(&dd.lat, o.at("lat_ns"), widen);
		rebuild_samples(&dd.bw_kib_s, o, "bw", "_dev");
		rebuild_samples(&dd.iops, o, "iops", "_stddev");
		total += dd.ios;
	}
	c.sync_ios = j.at("sync").at("total_ios").get<uint64_t>();
	rebuild_lat(&c.sync_lat, j.at("sync").at("lat_ns"), widen);
	uint64_t run_ms = j.at("job_runtime").get<uint64_t>();
	c.start_ns = 0;
	c.end_ns = run_ms * 1000000u;
	// fio's CPU times are whole ms (usr_cpu is usr ms over run ms).
	c.usr_ns = (uint64_t)std::llround(j.at("usr_cpu").get<double>() / 100.0 * (double)run_ms) * 1000000u;
	c.sys_ns = (uint64_t)std::llround(j.at("sys_cpu").get<double>() / 100.0 * (double)run_ms) * 1000000u;
	c.ctx = j.at("ctx").get<uint64_t>();
	c.majf = j.at("majf").get<uint64_t>();
	c.minf = j.at("minf").get<uint64_t>();
	counts_from_pct(c.depth, j.at("iodepth_level"), depth, 7, (double)total);
	/*
	 * fio's counts behind these are not in its JSON: out of 10^6, its six decimals are
	 * kept whole (out of 1000, 93.75% and 6.25% became 938 and 63 of 1001, printed
	 * 93.7% and 6.3% where fio printed 93.8% and 6.2%).
	 */
	counts_from_pct(c.submit, j.at("iodepth_submit"), batch, 7, 1e6);
	counts_from_pct(c.complete, j.at("iodepth_complete"), batch, 7, 1e6);
	counts_from_pct(c.latbkt, j.at("latency_ns"), lat, 10, (double)total);
	counts_from_pct(c.latbkt + 10, j.at("latency_us"), lat, 10, (double)total);
	counts_from_pct(c.latbkt + 20, j.at("latency_ms"), lat, 12, (double)total);
	if (j.contains("latency_depth")) // fio's: set when the job reached its I/O loop
		c.lat_depth = j.at("latency_depth").get<uint32_t>();
	if (j.contains("total_err")) {
		c.total_err = j.at("total_err").get<uint64_t>();
		c.error = j.at("first_error").get<int>();
	}
}

std::vector<std::pair<std::string, std::string>> kvs(const nlohmann::json &o)
{
	std::vector<std::pair<std::string, std::string>> out;
	for (auto &kv : o.items())
		out.emplace_back(kv.key(), kv.value().get<std::string>());
	return out;
}

// Which latency types kept percentiles, and the list, as fio's JSON shows them.
void percentile_setup(plan_job &pj, const nlohmann::json &j)
{
	std::vector<double> list;
	pj.clat_percentiles = pj.lat_percentiles = pj.slat_percentiles = false;
	for (const char *d : { "read", "write", "trim" }) {
		const nlohmann::json &o = j.at(d);
		pj.slat_percentiles |= o.at("slat_ns").contains("percentile");
		pj.clat_percentiles |= o.at("clat_ns").contains("percentile");
		pj.lat_percentiles |= o.at("lat_ns").contains("percentile");
		for (const char *l : { "slat_ns", "clat_ns", "lat_ns" })
			if (o.at(l).contains("percentile") && list.empty())
				for (auto &kv : o.at(l).at("percentile").items())
					list.push_back(std::stod(kv.key()));
	}
	if (list.empty())
		return;	// no samples: keep the default list
	pj.nr_percentiles = (uint32_t)list.size();
	for (size_t i = 0; i < list.size(); i++)
		pj.percentiles[i] = list[i];
}

// Splits s into text, number, text, number, ... (a number is -?[0-9]+(.[0-9]+)?);
// every number is preceded by its (maybe empty) text, a non-empty tail ends it.
std::vector<std::string> text_and_numbers(const std::string &s)
{
	std::vector<std::string> out;
	auto digit = [&s](size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
	size_t text = 0, i = 0;
	while (i < s.size()) {
		size_t start = i;
		if (s[i] == '-' && digit(i + 1))
			i++;
		if (!digit(i)) {
			i = start + 1;
			continue;
		}
		while (digit(i))
			i++;
		if (i < s.size() && s[i] == '.' && digit(i + 1))
			for (i++; digit(i); i++)
				;
		out.push_back(s.substr(text, start - text));
		out.push_back(s.substr(start, i - start));
		text = i;
	}
	if (text < s.size())
		out.push_back(s.substr(text));
	return out;
}

} // namespace

namespace {

fio_run run_fio_once(const std::string &job)
{
	std::string dir = make_tmpdir();
	std::ofstream(dir + "/job.fio") << job;
	int st = 0;
	std::string log = run("cd " + dir + " && /usr/bin/fio --output-format=terse,json+,normal "
				    "--output=out.txt job.fio 2>&1", &st);
	std::ifstream in(dir + "/out.txt");
	std::stringstream ss;
	ss << in.rdbuf();
	run("rm -rf " + dir);
	if (st != 0)
		throw std::runtime_error("fio failed: " + log);
	return parse_output(ss.str());
}

} // namespace

fio_run run_fio(const std::string &job)
{
	// The machine is shared: another test filling the disk for a moment
	// (ENOSPC) must not read as a wrong report.  fio gets three tries; what
	// ioplan prints is compared only with a complete fio run.
	for (int attempt = 1;; attempt++) {
		try {
			return run_fio_once(job);
		} catch (const std::exception &) {
			if (attempt == 3)
				throw;
			sleep(1);
		}
	}
}

rebuilt rebuild(const nlohmann::json &doc, const std::vector<enum plan_rw> &rw, bool widen,
		const std::vector<uint32_t> &members)
{
	const nlohmann::json &jobs = doc.at("jobs");
	std::vector<job_spec> specs;
	for (size_t i = 0; i < jobs.size(); i++) {
		const nlohmann::json &j = jobs[i];
		job_spec s;
		s.name = j.at("jobname").get<std::string>();
		s.rw = rw.at(i);
		s.groupid = j.at("groupid").get<uint32_t>();
		s.numjobs = i < members.size() ? members[i] : 1;
		s.group_reporting = s.numjobs > 1;
		if (j.contains("job options"))
			s.opts = kvs(j.at("job options"));
		s.tweak = [j, opts = s.opts](plan_job &pj) {
			pj.iodepth = j.at("latency_depth").get<uint32_t>();
			percentile_setup(pj, j);
			if (j.contains("desc")) {
				std::free(pj.description);
				pj.description = plan_strdup(j.at("desc").get<std::string>().c_str());
			}
			pj.continue_on_error = j.contains("total_err") ? PLAN_COE_ALL : 0;
			for (auto &kv : opts)
				if (kv.first == "kb_base")
					pj.kb_base = (uint32_t)std::stoul(kv.second);
		};
		specs.push_back(s);
	}
	std::vector<std::pair<std::string, std::string>> globals;
	if (doc.contains("global options"))
		globals = kvs(doc.at("global options"));
	rebuilt b;
	b.plan = std::make_unique<plan_holder>(specs, globals);
	b.res = std::make_unique<results_holder>(b.plan->get());
	for (size_t i = 0; i < jobs.size(); i++) {
		rebuild_clone(b.res->clone((uint32_t)i, 0), jobs[i], widen);
		uint32_t clones = plan_job_at(&b.plan->get(), (uint32_t)i)->nr_clones;
		for (uint32_t c = 1; c < clones; c++)
			b.res->clone((uint32_t)i, c).end_ns = 0;	// no window: adds nothing
	}
	if (doc.contains("disk_util"))
		for (auto &d : doc.at("disk_util")) {
			res_disk rd = {};
			std::snprintf(rd.name, sizeof(rd.name), "%s", d.at("name").get<std::string>().c_str());
			rd.read_ios = d.at("read_ios").get<uint64_t>();
			rd.write_ios = d.at("write_ios").get<uint64_t>();
			rd.read_merges = d.at("read_merges").get<uint64_t>();
			rd.write_merges = d.at("write_merges").get<uint64_t>();
			rd.read_ticks_ms = d.at("read_ticks").get<uint64_t>();
			rd.write_ticks_ms = d.at("write_ticks").get<uint64_t>();
			rd.in_queue_ms = d.at("in_queue").get<uint64_t>();
			// util% = io_ticks / 10^6: keeps all six decimals fio printed,
			// so rounding to fio's two decimals sees the same value.
			rd.elapsed_ns = 100000000000000ull;
			rd.io_ticks_ms = (uint64_t)std::llround(d.at("util").get<double>() * 1e6);
			b.res->add_disk(rd);
		}
	return b;
}

std::vector<std::string> ioplan_terse(rebuilt &b)
{
	std::ostringstream out;
	report::options o;
	o.formats = report::FORMAT_TERSE;
	report::write(b.res->get(), b.plan->get(), o, out);
	std::vector<std::string> lines = split(out.str(), '\n');
	lines.pop_back();
	return lines;
}

std::string ioplan_json_text(rebuilt &b, bool plus)
{
	std::ostringstream out;
	report::options o;
	o.formats = plus ? report::FORMAT_JSON_PLUS : report::FORMAT_JSON;
	report::write(b.res->get(), b.plan->get(), o, out);
	return out.str();
}

nlohmann::json ioplan_json(rebuilt &b, bool plus)
{
	return nlohmann::json::parse(ioplan_json_text(b, plus));
}

std::string ioplan_normal(rebuilt &b)
{
	std::ostringstream out;
	report::options o;
	o.formats = report::FORMAT_NORMAL;
	o.banner = false;
	report::write(b.res->get(), b.plan->get(), o, out);
	return out.str();
}

void key_paths(const nlohmann::json &j, const std::string &prefix,
	       std::vector<std::pair<std::string, std::string>> *out)
{
	std::string type = j.is_number_float()	 ? "float"
			   : j.is_number()	 ? "integer"
						 : std::string(j.type_name());
	out->emplace_back(prefix, type);
	if (j.is_object())
		for (auto &kv : j.items())
			key_paths(kv.value(), prefix + "/" + kv.key(), out);
	else if (j.is_array())
		for (auto &v : j)
			key_paths(v, prefix + "[]", out);
}

bool lines_match_approx(const std::string &a, const std::string &b, std::string *why)
{
	std::vector<std::string> ta = text_and_numbers(a), tb = text_and_numbers(b);
	if (ta.size() != tb.size()) {
		*why = "different shape";
		return false;
	}
	for (size_t i = 0; i < ta.size(); i++) {
		bool is_num = i % 2 == 1;
		if (!is_num && ta[i] != tb[i]) {
			*why = "text '" + ta[i] + "' vs '" + tb[i] + "'";
			return false;
		}
		if (is_num) {
			double x = std::stod(ta[i]), y = std::stod(tb[i]);
			if (std::fabs(x - y) > 0.011 + 1e-4 * std::fabs(y)) {
				*why = "number " + ta[i] + " vs " + tb[i];
				return false;
			}
		}
	}
	return true;
}

void split_percentile_blocks(const std::string &normal, std::vector<std::string> *blocks,
			     std::vector<std::string> *rest)
{
	std::istringstream in(normal);
	std::string line;
	while (std::getline(in, line)) {
		if (line.find(" percentiles (") != std::string::npos)
			blocks->push_back(line + "\n");
		else if (line.rfind("     |", 0) == 0 && !blocks->empty())
			blocks->back() += line + "\n";
		else
			rest->push_back(line);
	}
}

} // namespace t

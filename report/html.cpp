// report/html.cpp - the self-contained results page (html.hpp): caveats,
// tables, the ranks and hosts of an mpirun run, charts, the machine and a
// comparison, from result documents.
#include "report/html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <stdexcept>
#include <unordered_map>

#include "report/units.hpp"

namespace report {

namespace {

// "mixed": unified_rw_reporting=mixed (or both) reports reads, writes and trims
// as one direction under that key, fio's and ioplan's alike; without it such
// a job's row said "no I/O", its charts were empty and a comparison had no row.
const char *const DIRS[] = { "read", "write", "trim", "mixed" };

// overflow-wrap: a name of thousands of letters without a space (a job's, a
// file's, a label's) wraps inside its cell or line instead of pushing every
// figure off the page; "anywhere" for the name cells alone, since it lets a
// table squeeze its number cells down to a digit a line too.
const char *const STYLE = R"(body{font:14px/1.4 "Liberation Sans",Arial,sans-serif;color:#222;margin:1.5em auto;max-width:62em;padding:0 1em;overflow-wrap:break-word}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #bbb;padding:.2em .6em;text-align:right}
th[scope=row],td.l{text-align:left;overflow-wrap:anywhere}thead th{background:#eef2f6}.failed{color:#b00020;font-weight:bold}
.caveats{border:2px solid #d9620b;background:#fff6ee;padding:.4em 1em}.caveats li{margin:.2em 0}
.better{color:#1a7f37}.worse{color:#b00020}figure.chart{margin:1em 0}figcaption{font-size:.9em;color:#555}
svg .ct{font-size:14px;font-weight:bold;text-anchor:middle}svg .tick{font-size:11px;fill:#333}
svg .grid{stroke:#e3e3e3}svg .axis{stroke:#555}svg .shade{fill:#2a9d3f;fill-opacity:.12}
@media print{body{max-width:none}figure.chart,table{break-inside:avoid}.caveats{border-width:1px}})";

double num_at(const ojson &o, const char *key)
{
	auto it = o.find(key);
	return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string str_at(const ojson &o, const char *key)
{
	auto it = o.find(key);
	return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The latency object a direction reports percentiles of (fio keeps them for
// completion latency unless lat_percentiles=1), else the one with samples.
const ojson *lat_of(const ojson &dd)
{
	const ojson *any = nullptr;
	for (const char *k : { "lat_ns", "clat_ns" }) {
		auto it = dd.find(k);
		if (it == dd.end() || !it->is_object() || num_at(*it, "N") <= 0)
			continue;
		if (it->contains("percentile"))
			return &*it;
		any = any ? any : &*it;
	}
	return any;
}

// Percentile p of a fio latency object, in ns; < 0 when not reported.
double percentile(const ojson *lat, double p)
{
	if (!lat || !lat->contains("percentile"))
		return -1;
	const ojson &pc = (*lat)["percentile"];
	auto it = pc.find(strf("%f", p));
	return it != pc.end() && it->is_number() ? it->get<double>() : -1;
}

// A field of a result that the page reads but cannot draw as it is (an edited
// file: "interrupted": 1, a series that is not an object): write_html refuses
// that result naming the field, as a result that is not JSON is refused,
// where nlohmann's type_error escaped as "[json.exception.type_error.302]".
struct bad_field : std::runtime_error {
	using std::runtime_error::runtime_error;
};

const ojson &checked(const ojson &v, bool ok, const std::string &path, const char *what)
{
	if (!ok)
		throw bad_field(path + " is not " + what);
	return v;
}

// The ioplan object of a result (fio's own has none: an empty one).
const ojson &ioplan_of(const ojson &doc)
{
	static const ojson none = ojson::object();
	auto it = doc.find("ioplan");
	return it == doc.end() ? none : checked(*it, it->is_object(), "ioplan", "an object");
}

// A true/false field; absent is false.
bool flag_at(const ojson &o, const char *key, const std::string &path)
{
	auto it = o.find(key);
	return it != o.end() && checked(*it, it->is_boolean(), path + "." + key, "true or false").get<bool>();
}

// Element i of an array of numbers.
double number_in(const ojson &a, size_t i, const std::string &path)
{
	return checked(a[i], a[i].is_number(), strf("%s[%zu]", path.c_str(), i), "a number").get<double>();
}

bool ran(const ojson &job, const char *d)
{
	auto it = job.find(d);
	return it != job.end() && it->is_object() && (num_at(*it, "io_bytes") > 0 || num_at(*it, "total_ios") > 0);
}

std::string job_name(const ojson &job)
{
	std::string n = str_at(job, "jobname");
	return n.empty() ? "(unnamed)" : n;
}

// The jobs of one result by name, worked out once a table: fio writes one entry
// per clone of numjobs=N, and two sections may share a name.  Counted again for
// each job, the names made a page quadratic in its jobs (65 s for 10 000).
struct job_names {
	std::vector<std::string> name;
	std::vector<size_t> ordinal;	// 1-based, among the jobs of its name
	std::unordered_map<std::string, std::vector<size_t>> by_name;

	explicit job_names(const ojson &jobs)
	{
		for (size_t j = 0; j < jobs.size(); j++) {
			name.push_back(job_name(jobs[j]));
			std::vector<size_t> &same = by_name[name.back()];
			same.push_back(j);
			ordinal.push_back(same.size());
		}
	}

	bool shared(const std::string &n) const
	{
		auto it = by_name.find(n);
		return it != by_name.end() && it->second.size() > 1;
	}

	std::string numbered(size_t j) const { return name[j] + " #" + std::to_string(ordinal[j]); }

	// "a", or "a #2" where the result has several jobs named a.
	std::string label(size_t j) const { return shared(name[j]) ? numbered(j) : name[j]; }

	// The index of the k-th (1-based) job named n, or SIZE_MAX.
	size_t find(const std::string &n, size_t k) const
	{
		auto it = by_name.find(n);
		return it == by_name.end() || k > it->second.size() ? SIZE_MAX : it->second[k - 1];
	}
};

// data-value is the JSON's own number at key; the cell shows it scaled by div.
std::string cell(const std::string &key, double raw, const char *fmt, double div = 1)
{
	return strf("<td data-key=\"%s\" data-value=\"%.17g\">", html_escape(key).c_str(), raw) + strf(fmt, raw / div) +
	       "</td>";
}

// A latency figure: data-value the JSON's nanoseconds, the cell microseconds
// as `results show` prints them (latency_us_text: 20 ns is 0.020, not 0.02).
std::string lat_cell(const std::string &key, double ns)
{
	return strf("<td data-key=\"%s\" data-value=\"%.17g\">", html_escape(key).c_str(), ns) +
	       latency_us_text(ns, 2) + "</td>";
}

// The microseconds of the ranks' and hosts' tables: whole ones, as the normal
// output's Ranks lines give them, and one under a microsecond to the nanosecond.
std::string whole_us_text(double ns)
{
	return ns >= 1000 ? strf("%.0f", std::floor(ns / 1000)) : latency_us_text(ns, 0);
}

// The latency chart's ticks and tooltips: the tables' microseconds below
// one, the chart's own numbers from one up (1000, 1e+06).
std::string lat_tick(double us)
{
	return us * 1e3 < 999.5 ? latency_us_text(us * 1e3, 2) : chart_number(us);
}

// A job's error as `results show` says it: "error 2 (No such file or directory)";
// the page said only "error 2".  A number no errno is (an edited file) stays a number.
std::string error_text(double e)
{
	if (e != std::floor(e) || e < 1 || e > 4095)
		return strf("error %.0f", e);
	return strf("error %d (%s)", (int)e, std::strerror((int)e));
}

// The caveats of one result, each line led by who ("a.json: " among several);
// first names the result it is compared with.
std::string caveat_items(const html_input &r, const std::string &who, const std::string &first)
{
	std::string items;
	for (const std::string &d : r.differences)
		items += "<li>" + html_escape(who + "not the workload of " + first +
					      " (ioplan compare refuses the two): " + d) + "</li>\n";
	const ojson &io = ioplan_of(r.doc);
	if (io.contains("warnings") && io["warnings"].is_array())
		for (const ojson &w : io["warnings"])
			if (w.is_string())
				items += "<li>" + html_escape(who + w.get<std::string>()) + "</li>\n";
	for (const ojson &job : r.doc["jobs"])
		if (num_at(job, "error") != 0)
			items += "<li class=\"failed\">" +
				 html_escape(who + "job '" + job_name(job) + "' failed: " + error_text(num_at(job, "error"))) +
				 "</li>\n";
	if (flag_at(io, "interrupted", "ioplan"))
		items += "<li>" + html_escape(who + "the run was interrupted: the figures cover what ran") + "</li>\n";
	return items;
}

std::string caveats(const std::string &items)
{
	if (items.empty())
		return "<section aria-labelledby=\"cav\"><h2 id=\"cav\">Caveats</h2><p>None found.</p></section>\n";
	return "<section class=\"caveats\" aria-labelledby=\"cav\"><h2 id=\"cav\">Caveats</h2><ul>\n" + items +
	       "</ul></section>\n";
}

std::string summary_row(const ojson &jobs, const job_names &names, size_t j, const char *d)
{
	const ojson &dd = jobs[j][d];
	const ojson *lat = lat_of(dd);
	std::string base = strf("jobs.%zu.%s", j, d);
	std::string lk = dd.contains("lat_ns") && lat == &dd.at("lat_ns") ? "lat_ns" : "clat_ns";
	std::string s = "<tr><th scope=\"row\">" + html_escape(names.label(j)) + "</th><td class=\"l\">" + d + "</td>";
	s += cell(base + ".iops", num_at(dd, "iops"), "%.1f");
	s += cell(base + ".bw_bytes", num_at(dd, "bw_bytes"), "%.0f");
	s += strf("<td>%.3f</td>", num_at(dd, "bw_bytes") / 1e6);
	s += lat ? lat_cell(base + "." + lk + ".mean", num_at(*lat, "mean")) : "<td>-</td>";
	for (double p : { 50.0, 99.0, 99.9 }) {
		double v = percentile(lat, p);
		s += v < 0 ? "<td>-</td>" : lat_cell(base + "." + lk + ".percentile." + strf("%f", p), v);
	}
	return s + "</tr>\n";
}

std::string summary_table(const ojson &doc, size_t idx)
{
	std::string s = strf("<table id=\"summary-%zu\"><caption>Per job and direction</caption>\n", idx) +
			"<thead><tr><th scope=\"col\">Job</th><th scope=\"col\">Direction</th><th scope=\"col\">IOPS</th>"
			"<th scope=\"col\">Bandwidth (B/s)</th><th scope=\"col\">MB/s</th><th scope=\"col\">Mean latency (us)</th>"
			"<th scope=\"col\">p50 (us)</th><th scope=\"col\">p99 (us)</th><th scope=\"col\">p99.9 (us)</th>"
			"</tr></thead><tbody>\n";
	const ojson &jobs = doc["jobs"];
	const job_names names(jobs);
	for (size_t j = 0; j < jobs.size(); j++) {
		bool any = false;
		for (const char *d : DIRS)
			if (ran(jobs[j], d)) {
				s += summary_row(jobs, names, j, d);
				any = true;
			}
		if (!any)
			s += "<tr><th scope=\"row\">" + html_escape(names.label(j)) +
			     strf("</th><td class=\"l failed\" colspan=\"8\">%s</td></tr>\n",
				  num_at(jobs[j], "error") != 0
					  ? html_escape("failed: " + error_text(num_at(jobs[j], "error"))).c_str()
					  : "no I/O");
	}
	return s + "</tbody></table>\n";
}

// CrystalDiskMark's table when every job is named as its presets name them
// (SEQ1M_Q8T1_READ): one row per test, Read and Write MB/s side by side.
std::string cdm_table(const ojson &doc, size_t idx)
{
	static const std::regex name("^((SEQ|RND)[0-9A-Z]+_Q[0-9]+T[0-9]+)_(READ|WRITE)$");
	std::vector<std::string> tests;
	std::vector<std::pair<std::string, std::string>> cells[2];
	const ojson &jobs = doc["jobs"];
	for (size_t j = 0; j < jobs.size(); j++) {
		std::smatch m;
		std::string n = job_name(jobs[j]);
		if (!std::regex_match(n, m, name))
			return "";
		int w = m[3] == "WRITE";
		if (std::find(tests.begin(), tests.end(), m[1].str()) == tests.end())
			tests.push_back(m[1]);
		const char *d = w ? "write" : "read";
		auto dd = jobs[j].find(d);	// an edited file may lack it: no figure, not a crash
		std::string v = num_at(jobs[j], "error") != 0 ? "<td class=\"failed\">failed</td>"
				: dd == jobs[j].end() || !dd->is_object()
					? "<td>-</td>"
					: cell(strf("jobs.%zu.%s.bw_bytes", j, d), num_at(*dd, "bw_bytes"), "%.2f", 1e6);
		cells[w].push_back({ m[1], v });
	}
	if (tests.empty())
		return "";
	std::string s = strf("<table id=\"cdm-%zu\" class=\"cdm\"><caption>CrystalDiskMark layout (MB/s)</caption>", idx) +
			"<thead><tr><th scope=\"col\">Test</th><th scope=\"col\">Read</th><th scope=\"col\">Write</th></tr></thead><tbody>\n";
	for (const std::string &t : tests) {
		s += "<tr><th scope=\"row\">" + html_escape(t) + "</th>";
		for (auto &c : cells) {
			auto it = std::find_if(c.begin(), c.end(), [&](auto &p) { return p.first == t; });
			s += it == c.end() ? "<td>-</td>" : it->second;
		}
		s += "</tr>\n";
	}
	return s + "</tbody></table>\n";
}

std::string bar_charts(const ojson &doc, size_t idx)
{
	std::vector<svg_bar> bw, iops;
	const ojson &jobs = doc["jobs"];
	const job_names names(jobs);
	for (size_t j = 0; j < jobs.size(); j++)
		for (const char *d : DIRS)
			if (ran(jobs[j], d)) {
				std::string label = names.label(j) + " " + d, key = strf("jobs.%zu.%s", j, d);
				double b = num_at(jobs[j][d], "bw_bytes"), io = num_at(jobs[j][d], "iops");
				bw.push_back({ label, key + ".bw_bytes", b / 1e6, b });
				iops.push_back({ label, key + ".iops", io, io });
			}
	if (bw.empty())
		return "";
	return svg_bar_chart(strf("bw-%zu", idx), "Bandwidth", "MB/s", bw) +
	       svg_bar_chart(strf("iops-%zu", idx), "IOPS", "IOPS", iops);
}

// x = -log10(1 - p/100): 90 -> 1, 99 -> 2, 99.9 -> 3, so the tail gets room.
double nines(double p)
{
	return -std::log10(std::max(1e-9, 1 - p / 100));
}

std::string latency_chart(const ojson &doc, size_t idx)
{
	std::vector<svg_series> series;
	const ojson &jobs = doc["jobs"];
	const job_names names(jobs);
	for (size_t j = 0; j < jobs.size(); j++)
		for (const char *d : DIRS) {
			const ojson *lat = ran(jobs[j], d) ? lat_of(jobs[j][d]) : nullptr;
			if (!lat || !lat->contains("percentile") || !(*lat)["percentile"].is_object())
				continue;
			svg_series s{ names.label(j) + " " + d, {}, {} };
			for (auto &kv : (*lat)["percentile"].items())
				if (kv.value().is_number()) {
					double us = kv.value().get<double>() / 1e3;
					s.points.push_back({ nines(std::atof(kv.key().c_str())), us });
					s.tips.push_back(s.label + strf(" p%g: ", std::atof(kv.key().c_str())) + lat_tick(us) + " us");
				}
			if (!s.points.empty())
				series.push_back(std::move(s));
		}
	if (series.empty())
		return "";
	std::vector<std::pair<double, std::string>> ticks;
	for (double p : { 50.0, 90.0, 99.0, 99.9, 99.99 })
		ticks.push_back({ nines(p), strf("p%g", p) });
	return svg_line_chart(strf("lat-%zu", idx), "Latency percentiles", "percentile", "latency (us, log scale)",
			      series, true, ticks, { 0, 0 }, lat_tick);
}

std::string time_chart(const ojson &doc, size_t idx)
{
	const ojson &io = ioplan_of(doc);
	if (!io.contains("series") || !io["series"].is_array())
		return "";
	std::vector<svg_series> series;
	std::pair<double, double> shade{ 0, 0 };
	for (size_t k = 0; k < io["series"].size(); k++) {
		std::string at = strf("ioplan.series[%zu]", k);
		const ojson &s = checked(io["series"][k], io["series"][k].is_object(), at, "an object");
		if (flag_at(s, "discarded", at) || !s.contains("t_ns"))
			continue;
		const ojson &t = checked(s["t_ns"], s["t_ns"].is_array(), at + ".t_ns", "an array");
		for (const char *d : DIRS) {
			if (!s.contains(d) || !s[d].contains("bw_bytes_per_s"))
				continue;
			svg_series line{ str_at(s, "jobname") + " " + d + strf(" run %.0f", num_at(s, "run")), {}, {} };
			std::string vat = at + "." + d + ".bw_bytes_per_s";
			const ojson &v = checked(s[d]["bw_bytes_per_s"], s[d]["bw_bytes_per_s"].is_array(), vat, "an array");
			for (size_t i = 0; i < t.size() && i < v.size(); i++)
				line.points.push_back({ number_in(t, i, at + ".t_ns") / 1e9, number_in(v, i, vat) / 1e6 });
			if (line.points.size() > 1)
				series.push_back(std::move(line));
		}
		if (s.contains("steady") && s["steady"].is_object())
			shade = { num_at(s["steady"], "window_start_ns") / 1e9, num_at(s["steady"], "window_end_ns") / 1e9 };
	}
	if (series.empty())
		return "";
	return svg_line_chart(strf("time-%zu", idx), "Bandwidth over time", "seconds", "MB/s", series, false, {},
			      shade);
}

void flatten(const ojson &v, const std::string &path, std::string *rows, int depth)
{
	if (depth > 6)
		return;
	if (v.is_object()) {
		for (auto &kv : v.items())
			flatten(kv.value(), path.empty() ? kv.key() : path + "." + kv.key(), rows, depth + 1);
	} else if (v.is_array()) {
		for (size_t i = 0; i < v.size() && i < 64; i++)
			flatten(v[i], path + strf("[%zu]", i), rows, depth + 1);
	} else {
		*rows += "<tr><th scope=\"row\">" + html_escape(path) + "</th><td class=\"l\">" +
			 html_escape(v.is_string() ? v.get<std::string>() : v.dump()) + "</td></tr>\n";
	}
}

std::string environment(const ojson &doc, size_t idx)
{
	const ojson &io = ioplan_of(doc);
	std::string rows;
	for (const char *k : { "fio version", "time" })
		if (doc.contains(k))
			flatten(doc[k], k, &rows, 0);
	for (const char *k : { "host", "kernel", "clock_source" })
		if (io.contains(k))
			flatten(io[k], k, &rows, 0);
	if (io.contains("environment"))
		flatten(io["environment"], "environment", &rows, 0);
	return strf("<table id=\"env-%zu\" class=\"env\"><caption>The machine</caption><tbody>\n", idx) + rows +
	       "</tbody></table>\n";
}

// A result's verdicts by job, ordinal, direction and metric: looked up once a
// cell, a list searched each time made a page of many jobs quadratic.
struct verdicts_by_key {
	std::unordered_map<std::string, const html_verdict *> at;

	static std::string key(const std::string &job, size_t k, const std::string &d, const std::string &m)
	{
		return job + '\n' + std::to_string(k) + '\n' + d + '\n' + m;
	}

	explicit verdicts_by_key(const html_input &r)
	{
		for (const html_verdict &v : r.verdicts)
			at.emplace(key(v.job, v.ordinal, v.ddir, v.metric), &v);
	}

	// The verdict on metric of the first result's job j, direction d; or null.
	const html_verdict *find(const job_names &first, size_t j, const char *d, const char *metric) const
	{
		auto it = at.find(key(first.name[j], first.ordinal[j], d, metric));
		return it == at.end() ? nullptr : it->second;
	}
};

// The change from a to b with `ioplan compare`'s verdict on it, coloured only
// when the verdict is one (faster, slower: beyond the runs' noise).  By its
// sign alone, +0.9% with no noise estimate was as green as +50% beyond any.
std::string change_cell(double a, double b, const html_verdict *v)
{
	if (a <= 0 || b < 0)
		return "<td>-</td>";
	std::string verdict = v ? v->verdict : "not judged";
	const char *cls = verdict == "faster" ? "better" : verdict == "slower" ? "worse" : "";
	return strf("<td class=\"%s\" data-verdict=\"%s\">%+.1f%%, ", cls, html_escape(verdict).c_str(),
		    (b - a) * 100 / a) +
	       html_escape(verdict) + "</td>";
}

// The job of another result matching job j of the first: the same name and,
// among jobs of that name (numjobs clones), the same place; or null.
const ojson *matching(const job_names &first, size_t j, const ojson &other_jobs, const job_names &other)
{
	size_t k = other.find(first.name[j], first.ordinal[j]);
	return k == SIZE_MAX ? nullptr : &other_jobs[k];
}

// "a" or "a #k" over every result: one with several jobs named a numbers them all.
std::string shared_label(const std::vector<job_names> &names, size_t j)
{
	for (const job_names &r : names)
		if (r.shared(names[0].name[j]))
			return names[0].numbered(j);
	return names[0].name[j];
}

std::string comparison(const std::vector<html_input> &in)
{
	std::string head = "<thead><tr><th scope=\"col\">Job</th><th scope=\"col\">Direction</th><th scope=\"col\">Figure</th>";
	for (size_t i = 0; i < in.size(); i++)
		head += "<th scope=\"col\">" + html_escape(in[i].name) + "</th>" +
			(i ? "<th scope=\"col\">change</th>" : "");
	std::string body;
	const ojson &first = in[0].doc["jobs"];
	std::vector<job_names> names;
	std::vector<verdicts_by_key> verdicts;
	for (const html_input &r : in) {
		names.emplace_back(r.doc["jobs"]);
		verdicts.emplace_back(r);
	}
	for (size_t j = 0; j < first.size(); j++)
		for (const char *d : DIRS) {
			if (!ran(first[j], d))
				continue;
			for (int f = 0; f < 3; f++) {
				static const char *const figures[] = { "IOPS", "MB/s", "p99 (us)" };
				body += "<tr><th scope=\"row\">" + html_escape(shared_label(names, j)) + "</th><td class=\"l\">" +
					d + "</td><td class=\"l\">" + figures[f] + "</td>";
				double a = -1;
				for (size_t i = 0; i < in.size(); i++) {
					const ojson *other = matching(names[0], j, in[i].doc["jobs"], names[i]);
					double v = -1;
					if (other && ran(*other, d))
						v = f == 0 ? num_at((*other)[d], "iops")
						  : f == 1 ? num_at((*other)[d], "bw_bytes") / 1e6
							   : percentile(lat_of((*other)[d]), 99) / 1e3;
					body += v < 0 ? "<td>-</td>" : strf("<td>%s</td>", f == 2 ? lat_tick(v).c_str() : strf("%.2f", v).c_str());
					static const char *const metrics[] = { "iops", "bw_bytes", "p99_ns" };
					if (i)
						body += change_cell(a, v, verdicts[i].find(names[0], j, d, metrics[f]));
					else
						a = v;
				}
				body += "</tr>\n";
			}
		}
	return "<section aria-labelledby=\"cmp\"><h2 id=\"cmp\">Comparison</h2>\n<p>Each change is against the first "
	       "result, with the verdict <code>ioplan compare</code> gives it: faster or slower only beyond the runs' "
	       "noise (95% confidence, from their repeats, their per-interval samples or the latency histogram; "
	       "with repeats, of their mean), and not judged where there is no noise estimate.</p>\n"
	       "<table id=\"comparison\">" + head + "</tr></thead><tbody>\n" + body + "</tbody></table></section>\n";
}

// ---- the world of an mpirun run (ioplan.world, .ranks, .hosts) ----
// The same figures as the normal output's "Ranks:" block (report/ranks.cpp),
// read back from the JSON so `ioplan report` of a merged result draws them too.

// Array key of o: empty when absent, refused when it is something else.
const ojson &array_at(const ojson &o, const char *key, const std::string &path)
{
	static const ojson none = ojson::array();
	auto it = o.find(key);
	return it == o.end() ? none : checked(*it, it->is_array(), path + "." + key, "an array");
}

std::string ms_text(double ns)
{
	return strf("%.3f", ns / 1e6);
}

std::string bytes_text(double n)
{
	return num2str(n > 0 ? (uint64_t)n : 0, 4, 1, true, unit::byte);
}

std::string rate_text(double n, double ns, unit u)
{
	return ns > 0 ? num2str((uint64_t)(n * 1e9 / ns), 4, 1, u == unit::byte, u) : "0";
}

// A rank's or host's jobs together, as the normal output adds them: bytes and
// I/Os summed, the longest runtime, the worst p99 and max, the mean of every I/O.
struct world_sums {
	double bytes = 0, ios = 0, runtime = 0, p99 = 0, max = 0, first = 0, end = 0, n = 0, lat_sum = 0;
};

world_sums sum_jobs(const ojson &jobs, const std::string &path)
{
	world_sums s;
	for (size_t j = 0; j < jobs.size(); j++) {
		const ojson &job = checked(jobs[j], jobs[j].is_object(), strf("%s[%zu]", path.c_str(), j), "an object");
		for (const char *d : { "read", "write", "trim" })
			if (job.contains(d) && job[d].is_object()) {
				s.bytes += num_at(job[d], "io_bytes");
				s.ios += num_at(job[d], "total_ios");
			}
		s.runtime = std::max(s.runtime, num_at(job, "runtime_ns"));
		double first = num_at(job, "first_io_ns");
		if (first > 0 && (s.first == 0 || first < s.first))
			s.first = first;
		s.end = std::max(s.end, num_at(job, "end_ns"));
		if (job.contains("lat_ns") && job["lat_ns"].is_object()) {
			const ojson &lat = job["lat_ns"];
			s.p99 = std::max(s.p99, num_at(lat, "p99"));
			s.max = std::max(s.max, num_at(lat, "max"));
			s.n += num_at(lat, "N");
			s.lat_sum += num_at(lat, "mean") * num_at(lat, "N");
		}
	}
	return s;
}

// "+300% time per byte in group 0" for each group rank straggled in, as the text says.
std::string straggled_text(const ojson &groups, double rank)
{
	std::string out;
	for (size_t g = 0; g < groups.size(); g++)
		for (const ojson &s : array_at(groups[g], "stragglers", strf("ioplan.world.groups[%zu]", g)))
			if (s.is_object() && num_at(s, "rank") == rank) {
				const ojson *pct = s.contains("slower_pct") ? &s["slower_pct"] : nullptr;
				out += (out.empty() ? "" : "; ") +
				       (pct && pct->is_number()
						? strf("+%.0f%% time per byte in group %.0f", pct->get<double>(), num_at(groups[g], "group"))
						: strf("no data moved in group %.0f", num_at(groups[g], "group")));
			}
	return out;
}

std::string rank_row(const ojson &rank, size_t i, const ojson &groups)
{
	std::string path = strf("ioplan.ranks[%zu]", i);
	world_sums s = sum_jobs(array_at(rank, "jobs", path), path + ".jobs");
	std::string host = str_at(rank, "host");
	std::string straggler = straggled_text(groups, num_at(rank, "rank"));
	double err = num_at(rank, "error");
	std::string row = strf("<tr%s><th scope=\"row\">%.0f</th><td class=\"l\">", err != 0 ? " class=\"failed\"" : "",
			       num_at(rank, "rank")) +
			  html_escape(host.empty() ? "no rank file" : host) + "</td>";
	row += strf("<td>%s</td><td>%.0f</td><td>%s</td><td>%s</td><td>%s</td>", bytes_text(s.bytes).c_str(), s.ios,
		    ms_text(s.runtime).c_str(), whole_us_text(s.p99).c_str(), whole_us_text(s.max).c_str());
	row += cell(strf("ioplan.ranks.%zu.start_late_max_ns", i), num_at(rank, "start_late_max_ns"), "+%.3f", 1e6);
	std::string notes = err != 0 ? error_text(err) : "";
	if (!straggler.empty())
		notes += (notes.empty() ? "straggler: " : "; straggler: ") + straggler;
	return row + "<td class=\"l" + (straggler.empty() ? "" : " worse") + "\">" +
	       html_escape(notes.empty() ? "-" : notes) + "</td></tr>\n";
}

std::string host_row(const ojson &host, size_t i)
{
	std::string path = strf("ioplan.hosts[%zu]", i);
	world_sums s = sum_jobs(array_at(host, "jobs", path), path + ".jobs");
	double window = s.end > s.first ? s.end - s.first : 0;
	return "<tr><th scope=\"row\">" + html_escape(str_at(host, "host")) + "</th>" +
	       cell(strf("ioplan.hosts.%zu.nranks", i), num_at(host, "nranks"), "%.0f") +
	       strf("<td>%s</td><td>%s/s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
		    bytes_text(s.bytes).c_str(), rate_text(s.bytes, window, unit::byte).c_str(),
		    rate_text(s.ios, window, unit::none).c_str(), ms_text(window).c_str(),
		    latency_us_text(s.n > 0 ? s.lat_sum / s.n : 0.0, 1).c_str(), whole_us_text(s.p99).c_str(),
		    whole_us_text(s.max).c_str());
}

// "rank 1 (n1)": who was first or last done in a group.
std::string who_text(const ojson &ranks, double rank)
{
	for (const ojson &k : ranks)
		if (k.is_object() && num_at(k, "rank") == rank)
			return strf("rank %.0f (", rank) + str_at(k, "host") + ")";
	return strf("rank %.0f", rank);
}

std::string group_row(const ojson &g, size_t i, const ojson &ranks)
{
	double start = num_at(g, "start_ns"), first = num_at(g, "first_done_ns") - start,
	       last = num_at(g, "last_done_ns") - start;
	size_t stragglers = array_at(g, "stragglers", strf("ioplan.world.groups[%zu]", i)).size();
	return strf("<tr><th scope=\"row\">%.0f</th><td>+%s</td><td class=\"l\">", num_at(g, "group"), ms_text(first).c_str()) +
	       html_escape(who_text(ranks, num_at(g, "first_done_rank"))) +
	       strf("</td><td>%s</td><td>%s/s</td><td>+%s</td><td class=\"l\">",
		    bytes_text(num_at(g, "first_done_io_bytes")).c_str(),
		    rate_text(num_at(g, "first_done_io_bytes"), first, unit::byte).c_str(), ms_text(last).c_str()) +
	       html_escape(who_text(ranks, num_at(g, "last_done_rank"))) +
	       strf("</td><td>%s</td><td>%s/s</td>", bytes_text(num_at(g, "io_bytes")).c_str(),
		    rate_text(num_at(g, "io_bytes"), last, unit::byte).c_str()) +
	       strf("<td%s>%zu</td></tr>\n", stragglers ? " class=\"worse\"" : "", stragglers);
}

std::string head_cells(std::initializer_list<const char *> names)
{
	std::string s = "<thead><tr>";
	for (const char *n : names)
		s += std::string("<th scope=\"col\">") + n + "</th>";
	return s + "</tr></thead><tbody>\n";
}

// The ranks, hosts and groups of a run under mpirun; "" for a run of one process.
std::string world_section(const ojson &doc, size_t idx)
{
	const ojson &io = ioplan_of(doc);
	auto it = io.find("world");
	if (it == io.end() || it->is_null())
		return "";
	const ojson &w = checked(*it, it->is_object(), "ioplan.world", "an object");
	const ojson &ranks = array_at(io, "ranks", "ioplan"), &hosts = array_at(io, "hosts", "ioplan");
	const ojson &groups = array_at(w, "groups", "ioplan.world");
	double pct = num_at(w, "straggler_threshold_pct");
	std::string s = "<h3>Ranks and hosts</h3>\n<p>" +
			strf("%.0f ranks on %.0f host%s; start skew %s ms (over every group start), first-I/O spread "
			     "%s ms, merge %s ms. ",
			     num_at(w, "nranks"), num_at(w, "nhosts"), num_at(w, "nhosts") == 1 ? "" : "s",
			     ms_text(num_at(w, "start_skew_ns")).c_str(), ms_text(num_at(w, "first_io_spread_ns")).c_str(),
			     ms_text(num_at(w, "merge_ns")).c_str()) +
			(pct > 0 ? strf("A straggler moves its bytes over %g%% slower than the median rank (time per byte "
					"in a group).</p>\n", pct)
				 : std::string("Stragglers are not flagged.</p>\n"));
	s += strf("<table id=\"ranks-%zu\"><caption>Each rank (its jobs together)</caption>\n", idx) +
	     head_cells({ "Rank", "Host", "I/O", "I/Os", "Runtime (ms)", "p99 (us)", "max (us)", "Start late (ms)",
			  "Straggler, error" });
	for (size_t i = 0; i < ranks.size(); i++)
		s += rank_row(checked(ranks[i], ranks[i].is_object(), strf("ioplan.ranks[%zu]", i), "an object"), i, groups);
	s += "</tbody></table>\n";
	if (!hosts.empty()) {
		s += strf("<table id=\"hosts-%zu\"><caption>Each host (its ranks together, over its window)</caption>\n",
			  idx) +
		     head_cells({ "Host", "Ranks", "I/O", "Bandwidth", "IOPS", "Window (ms)", "Mean latency (us)",
				  "p99 (us)", "max (us)" });
		for (size_t i = 0; i < hosts.size(); i++)
			s += host_row(checked(hosts[i], hosts[i].is_object(), strf("ioplan.hosts[%zu]", i), "an object"), i);
		s += "</tbody></table>\n";
	}
	if (!groups.empty()) {
		s += strf("<table id=\"groups-%zu\"><caption>Each group over the ranks (from its first I/O)</caption>\n",
			  idx) +
		     head_cells({ "Group", "First done", "By", "I/O by then", "Rate", "Last done", "By", "I/O", "Rate",
				  "Stragglers" });
		for (size_t i = 0; i < groups.size(); i++)
			s += group_row(checked(groups[i], groups[i].is_object(), strf("ioplan.world.groups[%zu]", i),
					       "an object"),
				       i, ranks);
		s += "</tbody></table>\n";
	}
	return s;
}

std::string result_section(const html_input &r, size_t idx)
{
	std::string s = strf("<section aria-labelledby=\"r%zu\"><h2 id=\"r%zu\">", idx, idx) + html_escape(r.name) +
			"</h2>\n";
	s += cdm_table(r.doc, idx) + summary_table(r.doc, idx);
	s += world_section(r.doc, idx);
	s += "<h3>Charts</h3>\n" + bar_charts(r.doc, idx) + latency_chart(r.doc, idx) + time_chart(r.doc, idx);
	s += "<h3>The machine</h3>\n" + environment(r.doc, idx);
	return s + "</section>\n";
}

// Each result's caveats and section, or false with *err naming the result and
// the field of it the page cannot draw; nothing is written before all are drawn.
bool draw_each(const std::vector<html_input> &in, std::string *items, std::vector<std::string> *sections,
	       std::string *err)
{
	for (size_t i = 0; i < in.size(); i++) {
		try {
			*items += caveat_items(in[i], in.size() > 1 ? in[i].name + ": " : "", in[0].name);
			sections->push_back(result_section(in[i], i));
		} catch (const bad_field &e) {
			*err = in[i].name + ": not a result document: " + e.what();
			return false;
		} catch (const ojson::exception &e) {	// a read not checked above: still the file's fault
			*err = in[i].name + ": not a result document: " + e.what();
			return false;
		}
	}
	return true;
}

} // namespace

bool write_html(const std::vector<html_input> &in, std::ostream &out, std::string *err)
{
	if (in.empty()) {
		*err = "no result to show";
		return false;
	}
	for (const html_input &r : in)
		if (!r.doc.is_object() || !r.doc.contains("jobs") || !r.doc["jobs"].is_array()) {
			*err = r.name + ": not a result document (no \"jobs\" array)";
			return false;
		} else if (r.doc["jobs"].empty()) {
			// A page of empty tables and "Caveats: None found." read as a run that went well.
			*err = r.name + ": the result holds no jobs: nothing to report";
			return false;
		}
	std::string items;
	std::vector<std::string> sections;
	if (!draw_each(in, &items, &sections, err))
		return false;
	std::string title = in.size() == 1 ? "ioplan results: " + in[0].name
					   : strf("ioplan results: %zu runs compared", in.size());
	out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    << "<meta name=\"generator\" content=\"ioplan " IOPLAN_VERSION "\">\n<title>" << html_escape(title)
	    << "</title>\n<style>\n" << STYLE << "\n</style>\n</head>\n<body>\n<main>\n<h1>" << html_escape(title)
	    << "</h1>\n";
	out << caveats(items);
	if (in.size() > 1)
		out << comparison(in);
	for (const std::string &s : sections)
		out << s;
	out << "</main>\n</body>\n</html>\n";
	out.flush();
	return true;
}

} // namespace report

// report/plot/plot_logs.cpp - charts of fio's log files (plot.hpp): reading their
// lines, one clock for all of them, and the time panels.  Logs from fio
// runs made long before ioplan, and logs of several jobs or hosts, draw
// together.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <regex>

#include "report/plot/plot.hpp"
#include "report/plot/plot_parts.hpp"
#include "report/units.hpp"

namespace report {

namespace {

using namespace plotting;

// Past this many ms a log's first time is a clock's (unix epoch, another
// clock's epoch), not the time since its job started.
constexpr uint64_t ABSOLUTE_AFTER_MS = 86400000;
constexpr size_t MAX_POINTS = 2000;

struct entry {
	uint64_t t_ms;
	uint64_t value;
	unsigned ddir;
};

struct log_file {
	std::string path;
	std::string kind;	// bw, iops, lat, clat, slat
	std::string label;	// the name without its kind: "job.2"
	std::vector<entry> entries;
};

const std::regex &name_re()
{
	static const std::regex re("^(.*)_(bw|iops|lat|clat|slat)(\\.([0-9]+))?\\.log(\\.fz)?$");
	return re;
}

std::string base_name(const std::string &path)
{
	size_t slash = path.find_last_of('/');
	return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A whole number field of a line, leading and trailing blanks allowed;
// hexadecimal with 0x (log_prio=1 writes the priority so).
bool number(const std::string &field, uint64_t *v)
{
	size_t a = field.find_first_not_of(" \t"), b = field.find_last_not_of(" \t\r");
	if (a == std::string::npos || !isdigit((unsigned char)field[a]))
		return false;
	std::string s = field.substr(a, b - a + 1);
	bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	char *end;
	errno = 0;
	*v = std::strtoull(s.c_str() + (hex ? 2 : 0), &end, hex ? 16 : 10);
	return *end == '\0' && errno == 0 && isxdigit((unsigned char)s[hex ? 2 : 0]);
}

// One line: "time, value, ddir, bs[, offset][, prio]".  False with *err.
bool parse_line(const std::string &line, entry *e, std::string *err)
{
	static const char *const what[] = { "time", "value", "ddir", "bs", "offset or prio", "prio" };
	std::vector<std::string> f;
	for (size_t at = 0;;) {
		size_t comma = line.find(',', at);
		f.push_back(line.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
		if (comma == std::string::npos)
			break;
		at = comma + 1;
	}
	if (f.size() < 4 || f.size() > 6) {
		*err = strf("%zu fields where fio's log lines have 4 to 6 (time, value, ddir, bs[, offset][, prio])",
			    f.size());
		return false;
	}
	uint64_t v[6];
	for (size_t i = 0; i < f.size(); i++)
		if (!number(f[i], &v[i])) {
			*err = strf("field %zu (%s) is not a whole number: '%s'", i + 1, what[i],
				    f[i].substr(f[i].find_first_not_of(' ') == std::string::npos ? 0 : f[i].find_first_not_of(' ')).c_str());
			return false;
		}
	if (v[2] > 2) {
		*err = strf("ddir %llu is not 0 (read), 1 (write) or 2 (trim)", (unsigned long long)v[2]);
		return false;
	}
	*e = entry{ v[0], v[1], (unsigned)v[2] };
	return true;
}

bool read_log(const log_input &in, log_file *out, std::string *where, std::string *err)
{
	std::smatch m;
	std::string name = base_name(in.path);
	if (!std::regex_match(name, m, name_re())) {
		*where = in.path;
		*err = "not a fio log file name (NAME_bw|iops|lat|clat|slat[.N].log[.fz])";
		return false;
	}
	out->path = in.path;
	out->kind = m[2];
	out->label = m[1].str() + (m[4].matched ? "." + m[4].str() : "");
	size_t lineno = 0;
	for (size_t at = 0; at < in.text.size();) {
		size_t nl = in.text.find('\n', at);
		std::string line = in.text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
		at = nl == std::string::npos ? in.text.size() : nl + 1;
		lineno++;
		entry e;
		if (!parse_line(line, &e, err)) {
			*where = strf("%s:%zu", in.path.c_str(), lineno);
			return false;
		}
		out->entries.push_back(e);
	}
	return true;
}

// Logs of several jobs with one name (two hosts' "job_bw.1.log") get their
// directory in front, so each series stays told apart.
void disambiguate(std::vector<log_file> &logs)
{
	std::map<std::string, int> seen;
	for (const log_file &l : logs)
		seen[l.kind + " " + l.label]++;
	for (log_file &l : logs)
		if (seen[l.kind + " " + l.label] > 1 && l.path.find('/') != std::string::npos)
			l.label = l.path.substr(0, l.path.find_last_of('/')) + "/" + l.label;
}

// The time the absolute logs are drawn from: their earliest entry.
uint64_t absolute_base(const std::vector<log_file> &logs)
{
	uint64_t base = UINT64_MAX;
	for (const log_file &l : logs)
		if (!l.entries.empty() && l.entries[0].t_ms > ABSOLUTE_AFTER_MS)
			for (const entry &e : l.entries)
				base = std::min(base, e.t_ms);
	return base;
}

// At most MAX_POINTS points: longer series are averaged into time slots.
std::vector<std::pair<double, double>> thin(const std::vector<std::pair<double, double>> &pts)
{
	if (pts.size() <= MAX_POINTS)
		return pts;
	double t0 = pts.front().first, span = pts.back().first - t0;
	std::vector<double> st(MAX_POINTS), sv(MAX_POINTS), n(MAX_POINTS);
	for (const auto &p : pts) {
		size_t k = span > 0 ? std::min(MAX_POINTS - 1, (size_t)((p.first - t0) / span * MAX_POINTS)) : 0;
		st[k] += p.first;
		sv[k] += p.second;
		n[k]++;
	}
	std::vector<std::pair<double, double>> out;
	for (size_t k = 0; k < MAX_POINTS; k++)
		if (n[k] > 0)
			out.emplace_back(st[k] / n[k], sv[k] / n[k]);
	return out;
}

// One series per file and direction of the kinds given, values times scale.
void add_series(panel &pn, builder &b, const std::vector<log_file> &logs, const std::vector<std::string> &kinds,
		double scale, uint64_t base)
{
	bool lat = kinds.size() > 1;	// the latency panel names the kind too
	for (const log_file &l : logs) {
		if (std::find(kinds.begin(), kinds.end(), l.kind) == kinds.end() || l.entries.empty())
			continue;
		uint64_t zero = l.entries[0].t_ms > ABSOLUTE_AFTER_MS ? base : 0;
		for (unsigned d = 0; d < 3; d++) {
			std::vector<std::pair<double, double>> pts;
			for (const entry &e : l.entries)
				if (e.ddir == d)
					pts.emplace_back((double)(e.t_ms - std::min(zero, e.t_ms)) / 1e3, (double)e.value * scale);
			if (pts.empty())
				continue;
			std::string title = l.label + (lat ? " " + l.kind : "") + " " + plan_ddir_name((plan_ddir)d);
			pn.curves.push_back({ b.add(thin(pts)), title, "with linespoints pt 7 ps 0.4" });
		}
	}
}

} // namespace

bool is_fio_log_name(const std::string &path)
{
	return std::regex_match(base_name(path), name_re());
}

bool logs_script(const std::vector<log_input> &inputs, const plot_options &o, std::string *script,
		 std::string *where, std::string *err)
{
	std::vector<log_file> logs(inputs.size());
	for (size_t i = 0; i < inputs.size(); i++)
		if (!read_log(inputs[i], &logs[i], where, err))
			return false;
	disambiguate(logs);
	uint64_t base = absolute_base(logs);
	std::string xlabel = base == UINT64_MAX ? "Time (s)" : "Time (s; clock logs from their earliest entry)";
	builder b;
	std::vector<panel> panels(3);
	panels[0].setup = time_setup("Bandwidth over time", xlabel, "Bandwidth (MB/s)");
	add_series(panels[0], b, logs, { "bw" }, 1024.0 / 1e6, base);
	panels[1].setup = time_setup("IOPS over time", xlabel, "IOPS");
	add_series(panels[1], b, logs, { "iops" }, 1, base);
	panels[2].setup = time_setup("Latency over time", xlabel, "Latency (us)");
	add_series(panels[2], b, logs, { "lat", "clat", "slat" }, 1e-3, base);
	return assemble(b, panels, o, "nothing to plot: the log files have no entries", script, err);
}

bool plot_logs(const std::vector<log_input> &logs, const plot_options &o, std::string *where, std::string *err,
	       bool *bad_input)
{
	std::string script;
	if (bad_input)
		*bad_input = true;
	if (!logs_script(logs, o, &script, where, err))
		return false;
	if (bad_input)
		*bad_input = false;
	return plotting::render(script, o, err);
}

} // namespace report

// report/plot/plot.cpp - gnuplot scripts from a result JSON, and running gnuplot
// (plot.hpp).  The data goes into the script as named data blocks, so one
// .gp file redraws the chart and can be edited by hand.
#include "report/plot/plot.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "report/plot/plot_parts.hpp"
#include "report/units.hpp"

extern char **environ;

namespace report {

namespace plotting {

std::string builder::add(const std::vector<std::pair<double, double>> &pts)
{
	std::string name = strf("$d%d", next++);
	blocks += name + " << EOD\n";
	for (const auto &p : pts)
		blocks += strf("%.9g %.9g\n", p.first, p.second);
	blocks += "EOD\n";
	return name;
}

std::string quoted(const std::string &s)
{
	std::string out = "'";
	for (char ch : s) {
		if (ch == '\'')
			out += "''";
		else if (ch != '\n' && ch != '\r')
			out += ch;
	}
	return out + "'";
}

std::string time_setup(const std::string &title, const std::string &xlabel, const std::string &ylabel)
{
	return strf("set title %s\nset xlabel %s\nset ylabel %s\nunset y2tics\nunset object\nunset label\n"
		    "unset logscale\nset yrange [0:*]\nset xrange [*:*]\nset xtics autofreq\n",
		    quoted(title).c_str(), quoted(xlabel).c_str(), quoted(ylabel).c_str());
}

} // namespace plotting

namespace {

using namespace plotting;

bool ends_with(const std::string &s, const std::string &tail)
{
	return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

const char *const ddirs[] = { "read", "write", "trim" };

// How many runs each job_id has in an array of run entries.
std::map<int64_t, int> runs_per_job(const ojson &arr)
{
	std::map<int64_t, int> n;
	for (const ojson &e : arr)
		n[e.value("job_id", (int64_t)-1)]++;
	return n;
}

std::string run_title(const ojson &e, const std::string &what, const std::map<int64_t, int> &runs)
{
	std::string t = e.value("jobname", std::string("job")) + " " + what;
	auto it = runs.find(e.value("job_id", (int64_t)-1));
	if (it != runs.end() && it->second > 1)
		t += strf(" run %lld", (long long)e.value("run", (int64_t)0));
	return t;
}

// The steady-state windows (series[].steady) shaded behind the curves, the SNIA
// PTS way: green where the job was steady, grey for the last window judged of
// a job that never was.
std::string steady_marks(const ojson &series, const std::map<int64_t, int> &runs)
{
	std::string s;
	int n = 0;
	for (const ojson &e : series) {
		if (e.value("discarded", false) || !e.contains("steady") || !e["steady"].is_object())
			continue;
		const ojson &st = e["steady"];
		bool ok = st.value("attained", false);
		double a = st.value("window_start_ns", 0.0) / 1e9, z = st.value("window_end_ns", 0.0) / 1e9;
		n++;
		s += strf("set object %d rect from %.9g, graph 0 to %.9g, graph 1 behind fc rgb '%s' "
			  "fs transparent solid 0.25 noborder\n", n, a, z, ok ? "#2ca02c" : "#7f7f7f");
		s += strf("set label %d %s at %.9g, graph 0.96 front font ',8'\n", n,
			  quoted(run_title(e, (ok ? "steady " : "not steady, last window ") +
						  st.value("ss", std::string()), runs)).c_str(), a);
	}
	return s;
}

// Bandwidth (key "bw_bytes_per_s", scaled to MB/s) or IOPS over time.
panel time_panel(const ojson &series, builder &b, const char *key, double div, const char *ylabel)
{
	panel pn;
	std::map<int64_t, int> runs = runs_per_job(series);
	pn.setup = time_setup(strcmp(key, "iops") ? "Bandwidth over time" : "IOPS over time", "Time (s)", ylabel) +
		   steady_marks(series, runs);
	for (const ojson &e : series) {
		if (e.value("discarded", false) || !e.contains("t_ns"))
			continue;
		const ojson &t = e["t_ns"];
		for (const char *d : ddirs) {
			if (!e.contains(d) || !e[d].contains(key))
				continue;
			const ojson &v = e[d][key];
			std::vector<std::pair<double, double>> pts;
			for (size_t i = 0; i < v.size() && i < t.size(); i++)
				pts.emplace_back(t[i].get<double>() / 1e9, v[i].get<double>() / div);
			pn.curves.push_back({ b.add(pts), run_title(e, d, runs), "with linespoints pt 7 ps 0.4" });
		}
	}
	return pn;
}

// Percentile p on a "nines" scale, so the tail gets room: 90 -> 1, 99 -> 2, ...
double nines(double p)
{
	double rest = 1.0 - std::min(p, 99.9999) / 100.0;
	return -std::log10(rest);
}

// Latency percentiles of fio's jobs[]: total latency if it has them, else completion.
panel percentile_panel(const ojson &doc, builder &b)
{
	panel pn;
	std::map<std::string, int> titles;	// fio's jobs[] repeats a name per clone
	pn.setup = "set title 'Latency percentiles'\nset xlabel 'Percentile (%)'\n"
		   "set ylabel 'Latency (us)'\nunset y2tics\nunset logscale\nset logscale y\n"
		   "set yrange [*:*]\nset xrange [0:*]\n"
		   "set xtics ('0' 0, '50' 0.30103, '90' 1, '99' 2, '99.9' 3, '99.99' 4, '99.999' 5, "
		   "'99.9999' 6)\n";
	if (!doc.contains("jobs") || !doc["jobs"].is_array())
		return pn;
	for (const ojson &job : doc["jobs"]) {
		for (const char *d : ddirs) {
			if (!job.contains(d))
				continue;
			const ojson &dd = job[d];
			const ojson *pct = nullptr;
			for (const char *k : { "lat_ns", "clat_ns" })
				if (!pct && dd.contains(k) && dd[k].contains("percentile") &&
				    dd[k].value("N", (int64_t)0) > 0)
					pct = &dd[k]["percentile"];
			if (!pct)
				continue;
			std::vector<std::pair<double, double>> pts;
			for (auto it = pct->begin(); it != pct->end(); ++it)
				pts.emplace_back(nines(std::stod(it.key())), it.value().get<double>() / 1e3);
			std::string title = job.value("jobname", std::string("job")) + " " + d;
			int seen = ++titles[title];
			pn.curves.push_back({ b.add(pts), seen > 1 ? strf("%s (%d)", title.c_str(), seen) : title,
					      "with linespoints pt 7 ps 0.5" });
		}
	}
	return pn;
}

// GNOME Disks' picture: sweep rates as lines, access times as points (right axis).
panel sweep_panel(const ojson &traces, builder &b)
{
	panel pn;
	bool points = false;
	std::map<int64_t, int> runs = runs_per_job(traces);
	for (const ojson &e : traces) {
		if (e.value("discarded", false))
			continue;
		double region = e.value("region_bytes", 0.0);
		std::vector<std::pair<double, double>> pts;
		if (e.value("kind", std::string()) == "sweep" && e.contains("samples")) {
			for (const ojson &s : e["samples"])
				pts.emplace_back(region > 0 ? s["offset"].get<double>() * 100 / region : 0,
						 s["bytes_per_s"].get<double>() / 1e6);
			pn.curves.push_back({ b.add(pts), run_title(e, "transfer rate", runs),
					      "with linespoints pt 7 ps 0.4 axes x1y1" });
		} else if (e.contains("ios") && region > 0) {
			const ojson &off = e["ios"]["offset"], &lat = e["ios"]["lat_ns"];
			for (size_t i = 0; i < off.size() && i < lat.size(); i++)
				pts.emplace_back(off[i].get<double>() * 100 / region, lat[i].get<double>() / 1e6);
			pn.curves.push_back({ b.add(pts), run_title(e, "access time", runs),
					      "with points pt 7 ps 0.6 axes x1y2" });
			points = true;
		}
	}
	pn.setup = "set title 'Transfer rate over position'\nset xlabel 'Position (%)'\n"
		   "set ylabel 'Transfer rate (MB/s)'\nunset logscale\nset yrange [0:*]\n"
		   "set xrange [0:100]\nset xtics autofreq\n";
	if (points)
		pn.setup += "set y2label 'Access time (ms)'\nset y2tics\nset y2range [0:*]\nset ytics nomirror\n";
	return pn;
}

std::string terminal(const plot_options &o, size_t panels, std::string *err)
{
	int h = 320 * (int)panels;
	if (ends_with(o.output, ".svg"))
		return strf("set terminal svg size %d,%d dynamic noenhanced background rgb 'white' "
			    "font 'sans,11'\n", o.width, h);
	if (ends_with(o.output, ".png"))
		return strf("set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n", o.width, h);
	*err = "the chart file must end in .svg or .png: '" + o.output + "'";
	return "";
}

std::string draw(const panel &pn)
{
	std::string s = pn.setup + "plot ";
	for (size_t i = 0; i < pn.curves.size(); i++)
		s += (i ? ", \\\n     " : "") + pn.curves[i].block + " using 1:2 " + pn.curves[i].style +
		     " title " + quoted(pn.curves[i].title);
	return s + "\n";
}

} // namespace

bool plotting::assemble(const builder &b, const std::vector<panel> &panels, const plot_options &o,
			const char *err_nothing, std::string *script, std::string *err)
{
	std::vector<panel> used;
	for (const panel &pn : panels)
		if (!pn.curves.empty())
			used.push_back(pn);
	if (used.empty()) {
		*err = err_nothing;
		return false;
	}
	std::string term = terminal(o, used.size(), err);
	if (term.empty())
		return false;
	std::string s = "# Chart drawn by ioplan plot; rerun with: gnuplot THIS_FILE\n" + term;
	s += "set output " + quoted(o.output) + "\n" + b.blocks;
	s += "set grid\nset key outside right top\n";
	s += strf("set multiplot layout %zu,1\n", used.size());
	for (const panel &pn : used)
		s += draw(pn);
	s += "unset multiplot\nset output\n";
	*script = s;
	return true;
}

bool plot_script(const ojson &doc, const plot_options &o, std::string *script, std::string *err)
{
	builder b;
	std::vector<panel> panels;
	const ojson none = ojson::array();
	const ojson &io = doc.contains("ioplan") ? doc["ioplan"] : none;
	const ojson &series = io.is_object() && io.contains("series") ? io["series"] : none;
	const ojson &traces = io.is_object() && io.contains("traces") ? io["traces"] : none;

	panels.push_back(time_panel(series, b, "bw_bytes_per_s", 1e6, "Bandwidth (MB/s)"));
	panels.push_back(time_panel(series, b, "iops", 1, "IOPS"));
	panels.push_back(percentile_panel(doc, b));
	panels.push_back(sweep_panel(traces, b));
	return assemble(b, panels, o, "nothing to plot: the JSON has no time series, latency percentiles or I/O traces",
			script, err);
}

namespace {

// Runs gnuplot on script_path; its stderr comes back in *out.
int run_gnuplot(const std::string &prog, const std::string &script_path, std::string *out)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	std::vector<char *> argv = { const_cast<char *>(prog.c_str()),
				     const_cast<char *>(script_path.c_str()), nullptr };
	pid_t pid;
	int rc = posix_spawnp(&pid, prog.c_str(), &fa, nullptr, argv.data(), environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		return -rc;
	}
	char buf[4096];
	ssize_t n;
	while ((n = read(fds[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			out->append(buf, (size_t)n);
	close(fds[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// Whether gnuplot's chart ends as an SVG or PNG file ends.  gnuplot exits 0
// after a failed write (a full disk leaves a chart cut at a page), so its
// status alone cannot say the chart is whole.
bool chart_complete(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	if (ends_with(path, ".png"))
		return ends_with(s, std::string("IEND\xae\x42\x60\x82", 8));
	size_t end = s.find_last_not_of(" \n");
	return end != std::string::npos && ends_with(s.substr(0, end + 1), "</svg>");
}

std::string first_line(const std::string &s)
{
	size_t start = s.find_first_not_of(" \n");
	if (start == std::string::npos)
		return "";
	return s.substr(start, s.find('\n', start) - start);
}

// Writes text to path; false with the reason in *err.
bool write_script(const std::string &path, const std::string &text, std::string *err)
{
	std::ofstream f(path, std::ios::trunc);
	if (!(f << text) || (f.close(), !f)) {
		*err = "cannot write '" + path + "': " + strerror(errno);
		return false;
	}
	return true;
}

// Writes text to a new file named from base and 6 random characters
// (mkostemps: O_EXCL, mode 0600).  base is the scratch chart in $TMPDIR, whose
// name anyone can list: "base.gp" opened by name (O_TRUNC, links followed)
// wrote the script through whatever link another user put there first (root's
// `ioplan plot` replaced the file it named), and gnuplot ran what was there.
// The file's name in *path, or false with the reason in *err.
bool write_scratch_script(const std::string &base, const std::string &text, std::string *path, std::string *err)
{
	std::string name = base + "-XXXXXX.gp";
	int fd = mkostemps(name.data(), 3, O_CLOEXEC);
	if (fd < 0) {
		*err = "cannot make a script beside '" + base + "': " + strerror(errno);
		return false;
	}
	const char *p = text.data();
	size_t left = text.size();
	int ret = 0;
	while (left && !ret) {
		ssize_t w = write(fd, p, left);
		if (w > 0) {
			p += w;
			left -= (size_t)w;
		} else if (w == 0 || errno != EINTR) {
			ret = w == 0 ? ENOSPC : errno;
		}
	}
	if (close(fd) != 0 && !ret)
		ret = errno;
	if (ret) {
		unlink(name.c_str());
		*err = "cannot write '" + name + "': " + strerror(ret);
		return false;
	}
	*path = name;
	return true;
}

// The script that draws into o.chart: the one the user keeps names o.output.
std::string drawing_into_chart(const std::string &script, const plot_options &o)
{
	const std::string set = "set output " + quoted(o.output) + "\n";
	std::string run = script;
	size_t at = run.find(set);
	if (at != std::string::npos)
		run.replace(at, set.size(), "set output " + quoted(o.chart) + "\n");
	return run;
}

} // namespace

bool plotting::render(const std::string &script, const plot_options &o, std::string *err)
{
	std::string path = o.output + ".gp";
	bool own_chart = !o.chart.empty() && o.chart != o.output;
	if (o.kept_script)
		*o.kept_script = script;
	else if (!write_script(path, script, err))
		return false;
	std::string out;
	std::string run = path; // own_chart: a new file beside the chart, removed after
	if (own_chart && !write_scratch_script(o.chart, drawing_into_chart(script, o), &run, err))
		return false;
	int rc = run_gnuplot(o.gnuplot, run, &out);
	if (own_chart)
		unlink(run.c_str());
	if (rc < 0) {
		*err = "cannot run " + o.gnuplot + ": " + strerror(-rc) + " (install gnuplot-nox)";
		return false;
	}
	if (rc != 0) {
		*err = strf("%s failed (exit %d): %s", o.gnuplot.c_str(), rc, first_line(out).c_str());
		return false;
	}
	if (!chart_complete(own_chart ? o.chart : o.output)) {
		*err = "writing '" + (own_chart ? o.chart : o.output) + "': " + o.gnuplot +
		       " left it incomplete (is the file system full?)";
		return false;
	}
	return true;
}

bool plot_document(const ojson &doc, const plot_options &o, std::string *err, bool *bad_input)
{
	std::string script;
	// Up to here a failure is the input's (or the chart's name), not the run's.
	if (bad_input)
		*bad_input = true;
	if (doc.is_discarded() || !doc.is_object()) {
		*err = "the input is not a JSON result document";
		return false;
	}
	if (!plot_script(doc, o, &script, err))
		return false;
	if (bad_input)
		*bad_input = false;
	return plotting::render(script, o, err);
}

} // namespace report

// report/quick.cpp - winsat, hdparm, dd and GNOME Disks summaries (quick.hpp).
#include "report/quick.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "report/caveats.hpp"
#include "report/runs.hpp"
#include "report/units.hpp"

namespace report {

namespace {

const char *direction_word(enum plan_rw rw)
{
	bool r = plan_rw_has_ddir(rw, PLAN_DDIR_READ), w = plan_rw_has_ddir(rw, PLAN_DDIR_WRITE);
	return r && w ? "Mixed" : r ? "Read" : w ? "Write" : "Trim";
}

uint64_t block_size(const plan_job &j)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (plan_rw_has_ddir(j.rw, (enum plan_ddir)d))
			return j.bs[d].min_bytes;
	return j.bs[0].min_bytes;
}

std::string first_path(const plan_job &j)
{
	if (j.nr_clones && j.clones[0].nr_files && j.clones[0].files[0].path)
		return j.clones[0].files[0].path;
	return j.name ? j.name : "";
}

// "  mean M unit, range LO - HI unit (N runs)" over per-run rates scaled by div.
std::string mean_range(const std::vector<run_figures> &runs, double div, const char *unit)
{
	score s = score_of(runs, PLAN_AGG_MEAN);
	return strf("  mean %.2f %s, range %.2f - %.2f %s (%zu run%s)\n", s.bytes_per_s / div, unit,
		    s.lo_bytes_per_s / div, s.hi_bytes_per_s / div, unit, s.n, s.n == 1 ? "" : "s");
}

void write_sweep(std::ostream &out, const res_job &run, const plan_job &j)
{
	std::vector<zone_sample> v = sweep_samples(run, j);
	uint64_t region = j.nr_clones && j.clones[0].nr_files ? j.clones[0].files[0].size_bytes : 0;
	region = region ? region : j.size_bytes;
	double sum = 0, lo = 0, hi = 0;

	out << strf("%s: %s rate, %zu samples of %.1f MiB\n", j.name, direction_word(j.rw), v.size(),
		    (double)j.zone_size_bytes / (1 << 20));
	out << "  sample   offset (MB)  position      MB/s\n";
	for (size_t i = 0; i < v.size(); i++) {
		double rate = v[i].bytes_per_s() / 1e6;
		out << strf("  %6zu  %12.1f  %7.1f%%  %8.2f\n", i + 1, (double)v[i].offset / 1e6,
			    region ? (double)v[i].offset * 100.0 / (double)region : 0.0, rate);
		sum += rate;
		lo = i ? std::min(lo, rate) : rate;
		hi = std::max(hi, rate);
	}
	double avg = v.empty() ? 0.0 : sum / (double)v.size();
	out << strf("Average %s Rate: %.1f MB/s (min %.1f, max %.1f)\n", direction_word(j.rw), avg,
		    lo, hi);
}

void write_access(std::ostream &out, const res_job &run, const plan_job &j)
{
	std::vector<uint64_t> lat = traced_latencies(run);
	double mean_ms, lo = 0, hi = 0;
	size_t n = lat.size();

	if (!lat.empty()) {
		double sum = 0;
		for (uint64_t l : lat)
			sum += (double)l;
		mean_ms = sum / (double)n / 1e6;
		lo = (double)*std::min_element(lat.begin(), lat.end()) / 1e6;
		hi = (double)*std::max_element(lat.begin(), lat.end()) / 1e6;
	} else {
		run_figures f = figures_of(run);
		mean_ms = f.lat_mean_ns() / 1e6;
		n = f.lat_n;
	}
	out << strf("%s: %zu random %s of %llu bytes\n", j.name, n,
		    plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE) ? "writes" : "reads",
		    (unsigned long long)block_size(j));
	out << strf("Average Access Time: %.2f msec", mean_ms);
	if (!lat.empty())
		out << strf(" (min %.2f, max %.2f)", lo, hi);
	out << "\n";
}

// A job that failed before it moved a byte: "NAME: failed: why" instead of zeros.
bool failed_line(std::ostream &out, const results &r, const plan_job &j)
{
	int err = job_failure(r, j.job_id);
	if (err)
		out << strf("%s: failed: %s\n", j.name, strerror(err));
	return err != 0;
}

// The quick checks' own idiom for a caveat: one closing line per finding.
void closing_lines(std::ostream &out, const results &r, const plan &p)
{
	for (const finding &f : without_percentile_findings(findings_of(r, p)))
		out << "warning: " << f.text << "\n";
}

} // namespace

std::string dd_human(double v, bool si)
{
	static const char *const si_p[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const iec_p[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	double base = si ? 1000.0 : 1024.0;
	int e = 0;

	while (v >= base && e < 6) {
		v /= base;
		e++;
	}
	// Round as it will be shown; a carry to the base moves up a prefix.
	double shown = v < 10 ? std::round(v * 10) / 10 : std::round(v);
	if (shown >= base && e < 6) {
		v = shown / base;
		shown = std::round(v * 10) / 10;
		e++;
	}
	const char *prefix = si ? si_p[e] : iec_p[e];
	if (shown < 10 && e > 0)
		return strf("%.1f %sB", shown, prefix);
	return strf("%.0f %sB", shown, prefix);
}

void write_winsat(std::ostream &out, const results &r, const plan &p)
{
	std::vector<std::vector<run_figures>> runs = runs_by_job(r, p);

	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		score s = score_of(measured(runs[i]), j.repeat_aggregate);
		std::string label = strf("Disk  %s %.1f %s", plan_rw_is_random(j.rw) ? "Random" : "Sequential",
					 (double)block_size(j) / 1024.0, direction_word(j.rw));
		int err = job_failure(r, i);
		if (err)
			out << strf("%-44s failed: %s\n", label.c_str(), strerror(err));
		else
			out << strf("%-44s %.2f MB/s\n", label.c_str(), s.bytes_per_s / 1e6);
	}
	closing_lines(out, r, p);
	out.flush();
}

void write_hdparm(std::ostream &out, const results &r, const plan &p)
{
	std::vector<std::vector<run_figures>> runs = runs_by_job(r, p);
	const double MiB = 1024.0 * 1024.0;

	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		std::vector<run_figures> m = measured(runs[i]);
		bool writes = !plan_rw_has_ddir(j.rw, PLAN_DDIR_READ);
		out << "\n" << first_path(j) << ":\n";
		if (failed_line(out, r, j))
			continue;
		for (const run_figures &f : m)
			out << strf(" Timing %s disk %s: %llu MB in %5.2f seconds = %6.2f MB/sec\n",
				    j.direct ? "O_DIRECT" : "buffered", writes ? "writes" : "reads",
				    (unsigned long long)(f.bytes >> 20), (double)f.window_ns / 1e9,
				    f.bytes_per_s() / MiB);
		out << mean_range(m, MiB, "MB/sec");
	}
	closing_lines(out, r, p);
	out.flush();
}

void write_dd(std::ostream &out, const results &r, const plan &p)
{
	std::vector<std::vector<run_figures>> runs = runs_by_job(r, p);

	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		std::vector<run_figures> m = measured(runs[i]);
		if (failed_line(out, r, j))
			continue;
		out << j.name << ":\n";
		for (const run_figures &f : m) {
			std::string sizes = f.bytes < 1000 ? "" : " (" + dd_human((double)f.bytes, true) +
									  ", " + dd_human((double)f.bytes, false) + ")";
			out << strf("%llu bytes%s copied, %g s, %s/s\n", (unsigned long long)f.bytes,
				    sizes.c_str(), (double)f.window_ns / 1e9,
				    dd_human(f.bytes_per_s(), true).c_str());
		}
		out << mean_range(m, 1e6, "MB/s");
	}
	closing_lines(out, r, p);
	out.flush();
}

void write_gnome_disks(std::ostream &out, const results &r, const plan &p)
{
	std::vector<std::vector<run_figures>> runs = runs_by_job(r, p);

	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		const res_job *run = last_measured_run(r, i);
		if (i)
			out << "\n";
		if (failed_line(out, r, j))
			continue;
		if (run && j.zone_size_bytes) {
			write_sweep(out, *run, j);
		} else if (run && plan_rw_is_random(j.rw)) {
			write_access(out, *run, j);
		} else {
			score s = score_of(measured(runs[i]), j.repeat_aggregate);
			out << strf("%s: %s rate %.1f MB/s\n", j.name, direction_word(j.rw),
				    s.bytes_per_s / 1e6);
		}
	}
	closing_lines(out, r, p);
	out.flush();
}

bool is_quick_format(const std::string &name)
{
	return name == "winsat" || name == "hdparm" || name == "dd" || name == "gnome-disks";
}

bool write_quick(const std::string &name, std::ostream &out, const results &r, const plan &p)
{
	if (name == "winsat")
		write_winsat(out, r, p);
	else if (name == "hdparm")
		write_hdparm(out, r, p);
	else if (name == "dd")
		write_dd(out, r, p);
	else if (name == "gnome-disks")
		write_gnome_disks(out, r, p);
	else
		return false;
	return true;
}

} // namespace report

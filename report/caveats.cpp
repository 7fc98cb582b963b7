// report/caveats.cpp - the findings every format prints in its own idiom (caveats.hpp).
#include "report/caveats.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "report/runs.hpp"
#include "report/units.hpp"

namespace report {

namespace {

std::string job_name(const plan &p, uint32_t id)
{
	const char *n = plan_job_at(&p, id)->name;
	return n ? n : "";
}

// A finding about job i alone.
finding about_job(const plan &p, uint32_t i, const char *code, std::string text)
{
	finding f;
	f.code = code;
	f.jobs.assign(p.nr_jobs, false);
	f.jobs[i] = true;
	f.text = std::move(text);
	return f;
}

// The paths of job j that another clone uses too (the planner marks them shared):
// a path of one clone alone cannot be another job's.
std::unordered_set<std::string_view> shared_paths_of(const plan_job &j)
{
	std::unordered_set<std::string_view> s;
	for (uint32_t c = 0; c < j.nr_clones; c++)
		for (uint32_t f = 0; f < j.clones[c].nr_files; f++)
			if (j.clones[c].files[f].path && j.clones[c].files[f].shared)
				s.insert(j.clones[c].files[f].path);
	return s;
}

bool uses_any(const plan_job &j, const std::unordered_set<std::string_view> &paths)
{
	for (uint32_t c = 0; c < j.nr_clones; c++)
		for (uint32_t f = 0; f < j.clones[c].nr_files; f++)
			if (j.clones[c].files[f].path && j.clones[c].files[f].shared &&
			    paths.count(j.clones[c].files[f].path))
				return true;
	return false;
}

// The preflight checks each path once, so a warning about the first job's
// file is true of every job that shares it (a CrystalDiskMark preset's four
// tests share one file).  Only shared paths are compared: a warning per job of
// 100 000 files once built a set of every job's paths.
std::vector<bool> jobs_sharing_files(const plan &p, uint32_t id)
{
	std::vector<bool> v(p.nr_jobs, false);
	std::unordered_set<std::string_view> mine = shared_paths_of(*plan_job_at(&p, id));
	v[id] = true;
	for (uint32_t i = 0; i < p.nr_jobs && !mine.empty(); i++)
		v[i] = v[i] || uses_any(*plan_job_at(&p, i), mine);
	return v;
}

// Buffered jobs that read: the ones a page-cache warning is about.
std::vector<bool> buffered_readers(const plan &p)
{
	std::vector<bool> v(p.nr_jobs, false);
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		v[i] = !j.direct && plan_rw_has_ddir(j.rw, PLAN_DDIR_READ);
	}
	return v;
}

const char *bare_code(const char *code)
{
	const char *slash = code ? strchr(code, '/') : nullptr;
	return slash ? slash + 1 : code ? code : "";
}

void engine_findings(const results &r, const plan &p, std::vector<finding> &out)
{
	for (uint32_t i = 0; i < r.nr_msgs; i++) {
		const res_msg &m = r.msgs[i];
		if (m.level != RES_MSG_WARNING || !m.text)
			continue;
		finding f;
		f.code = bare_code(m.code);
		f.text = m.text;
		f.from_engine = true;
		if (m.job_id >= 0 && (uint32_t)m.job_id < p.nr_jobs)
			f.jobs = jobs_sharing_files(p, (uint32_t)m.job_id);
		else if (f.code == "cached-reads")
			f.jobs = buffered_readers(p);
		else
			f.jobs.assign(p.nr_jobs, false);
		out.push_back(std::move(f));
	}
}

bool job_cpu_bound(const results &r, uint32_t id)
{
	for (uint32_t i = 0; i < r.nr_jobs; i++)
		if (r.jobs[i].job_id == id && !r.jobs[i].discarded)
			for (uint32_t c = 0; c < r.jobs[i].nr_clones; c++)
				if (r.jobs[i].clones[c].cpu_bound)
					return true;
	return false;
}

void cpu_findings(const results &r, const plan &p, std::vector<finding> &out)
{
	finding f;
	f.code = "cpu-bound";
	f.jobs.assign(p.nr_jobs, false);
	std::string names;
	for (uint32_t i = 0; i < p.nr_jobs; i++)
		if (job_cpu_bound(r, i)) {
			f.jobs[i] = true;
			names += (names.empty() ? "'" : ", '") + job_name(p, i) + "'";
		}
	if (names.empty())
		return;
	f.text = "CPU-bound: a worker thread of " + names +
		 " was busy the whole run: the tool, not the device, set the pace";
	out.push_back(std::move(f));
}

// The clones of a group share one window from the moment its start gate opened
// (engine/worker/worker.c): a thread the scheduler ran late did less I/O in
// that window, and its rates would say the device was slower than it was.
// The latest start among a job's clones, over its kept runs, and that clone's window.
std::pair<uint64_t, uint64_t> latest_start(const results &r, uint32_t id)
{
	std::pair<uint64_t, uint64_t> worst{ 0, 0 };
	for (uint32_t i = 0; i < r.nr_jobs; i++) {
		const res_job &rj = r.jobs[i];
		for (uint32_t c = 0; rj.job_id == id && !rj.discarded && c < rj.nr_clones; c++) {
			const res_clone &k = rj.clones[c];
			uint64_t w = k.end_ns > k.start_ns ? k.end_ns - k.start_ns : 0;
			if (w && k.late_start_ns > caveat_late_start * (double)w && k.late_start_ns > worst.first)
				worst = { k.late_start_ns, w };
		}
	}
	return worst;
}

void late_start_findings(const results &r, const plan &p, std::vector<finding> &out)
{
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		auto [late, window] = latest_start(r, i);
		if (!late)
			continue;
		out.push_back(about_job(p, i, "late-start",
			strf("job '%s': a worker thread first ran %.1f ms after its group started, %.0f%% of "
			     "its %.1f ms window: its rates count time it could not run (a busy machine, or a "
			     "window too short for its threads to start in)",
			     job_name(p, i).c_str(), (double)late / 1e6, (double)late * 100.0 / (double)window,
			     (double)window / 1e6)));
	}
}

// A run's bytes per second on the basis a format rates it (rate_basis).
double run_rate(const run_figures &f, rate_basis basis)
{
	if (basis == rate_basis::exact)
		return f.bytes_per_s();
	return (double)per_sec(f.bytes, runtime_ms(f.window_ns));
}

// The repeat-spread finding: a job whose measured runs differ by more than
// caveat_spread_limit of their median.  Under rate_basis::fio_whole_ms the
// normal output's repeats line said max=2667MiB/s where this said 3489.2 MB/s
// for the same run of 2.4 ms (3 ms in whole milliseconds, and MB not MiB).
void spread_findings(const plan &p, const std::vector<std::vector<run_figures>> &runs, rate_basis basis,
		     std::vector<finding> &out)
{
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		bool mib = basis == rate_basis::fio_whole_ms && plan_job_at(&p, i)->kb_base != 1000;
		double scale = mib ? 1048576.0 : 1e6;
		std::vector<double> rates;
		for (const run_figures &f : measured(runs[i]))
			if (!f.error)
				rates.push_back(run_rate(f, basis));
		if (rates.size() < 2)
			continue;
		double med = median_of(rates);
		auto mm = std::minmax_element(rates.begin(), rates.end());
		if (med <= 0 || (*mm.second - *mm.first) / med <= caveat_spread_limit)
			continue;
		out.push_back(about_job(p, i, "repeat-spread",
			strf("job '%s': its %zu runs spread from %.1f to %.1f %s (%.1f%% of the median, "
			     "more than %.0f%%): the figure depends on the moment it was taken",
			     job_name(p, i).c_str(), rates.size(), *mm.first / scale, *mm.second / scale,
			     mib ? "MiB/s" : "MB/s",
			     (*mm.second - *mm.first) * 100.0 / med, caveat_spread_limit * 100)));
	}
}

// A job no report shows percentiles of: stats=0 leaves it out of every report,
// clat_percentiles=0 (without lat_ or slat_percentiles) prints none.
static bool shows_percentiles(const plan_job &j)
{
	return !j.no_stats && (j.clat_percentiles || j.lat_percentiles || j.slat_percentiles);
}

void sample_findings(const plan &p, const std::vector<std::vector<run_figures>> &runs,
		     std::vector<finding> &out)
{
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		std::vector<run_figures> m = measured(runs[i]);
		if (m.empty() || !m.back().lat_n || m.back().lat_n >= caveat_tail_samples ||
		    !shows_percentiles(*plan_job_at(&p, i)))
			continue;
		finding f = about_job(p, i, "few-samples",
			strf("job '%s': only %llu latency samples, fewer than the %llu that p99 needs: "
			     "the highest percentiles are its slowest few I/Os, not a measured tail",
			     job_name(p, i).c_str(), (unsigned long long)m.back().lat_n,
			     (unsigned long long)caveat_tail_samples));
		f.about_percentiles = true;
		out.push_back(std::move(f));
	}
}

// Only where every byte the disks moved should be the run's own: direct I/O
// (no readahead, no writeback), no warm-up or verify pass the figures leave out.
// do_verify alone is no pass: it is 1 by default and reads back only under verify=.
bool disks_should_match(const plan &p)
{
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		if (!j.direct || j.ramp_time_ns || j.verify != PLAN_VERIFY_NONE)
			return false;
	}
	return p.nr_jobs > 0;
}

// The environment counted each disk under the targets over the run and said
// whether it moved more than the run's own bytes (res_env_disk.other_io): the
// caveat reads that fact rather than counting again.
void other_io_findings(const results &r, const plan &p, std::vector<finding> &out)
{
	if (!r.env || !disks_should_match(p))
		return;
	for (uint32_t i = 0; i < r.env->nr_disks; i++) {
		const res_env_disk &d = r.env->disks[i];
		if (!d.counted || !d.other_io)
			continue;
		finding f;
		f.code = "other-io";
		f.jobs.assign(p.nr_jobs, false);
		f.text = strf("disk %s moved %.1f MB during the run while the run moved %.1f MB: other processes "
			      "did I/O on the same disk, and the figures include their contention",
			      d.name, (double)d.bytes / 1e6, (double)d.run_bytes / 1e6);
		out.push_back(std::move(f));
	}
}

} // namespace

std::vector<finding> findings_of(const results &r, const plan &p, rate_basis basis)
{
	std::vector<finding> out;
	std::vector<std::vector<run_figures>> runs = runs_by_job(r, p);

	engine_findings(r, p, out);
	cpu_findings(r, p, out);
	late_start_findings(r, p, out);
	spread_findings(p, runs, basis, out);
	sample_findings(p, runs, out);
	other_io_findings(r, p, out);
	return out;
}

std::vector<finding> without_percentile_findings(const std::vector<finding> &f)
{
	std::vector<finding> out;
	for (const finding &x : f)
		if (!x.about_percentiles)
			out.push_back(x);
	return out;
}

bool finding_marks(const finding &f, uint32_t job_id)
{
	return job_id < f.jobs.size() && f.jobs[job_id];
}

double median_of(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t h = v.size() / 2;
	return v.empty() ? 0 : v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

const char *repeat_aggregate_word(enum plan_repeat_aggregate a)
{
	switch (a) {
	case PLAN_AGG_MEDIAN:
		return "the median";
	case PLAN_AGG_MEAN:
		return "the mean";
	case PLAN_AGG_MIN:
		return "the worst";
	default:
		return "the best";
	}
}

int job_failure(const results &r, uint32_t job_id)
{
	uint64_t bytes = 0;
	int err = 0;
	for (uint32_t i = 0; i < r.nr_jobs; i++) {
		if (r.jobs[i].job_id != job_id)
			continue;
		run_figures f = figures_of(r.jobs[i]);
		bytes += f.bytes;
		err = err ? err : f.error;
	}
	if (bytes)
		return 0;
	return err ? err : r.error;
}

} // namespace report

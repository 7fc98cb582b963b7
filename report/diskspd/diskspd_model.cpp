// report/diskspd/diskspd_model.cpp - rows, test time, CPU use and DISKSPD's
// statistics (diskspd_model.hpp), shared by the text and XML writers.
#include "report/diskspd/diskspd_model.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

namespace report::diskspd {

const pct_row latency_rows[13] = {
	{ "25th", 0.25 },	    { "50th", 0.50 },	       { "75th", 0.75 },
	{ "90th", 0.90 },	    { "95th", 0.95 },	       { "99th", 0.99 },
	{ "3-nines", 0.999 },	    { "4-nines", 0.9999 },     { "5-nines", 0.99999 },
	{ "6-nines", 0.999999 },    { "7-nines", 0.9999999 },  { "8-nines", 0.99999999 },
	{ "9-nines", 0.999999999 },
};

lat_sum::lat_sum(bool chart) : l_(), chart_(chart)
{
	l_.min_ns = UINT64_MAX;
}

lat_sum::~lat_sum() { free(l_.hist); }

void lat_sum::merge(const res_lat &src)
{
	if (res_lat_merge(&l_, &src) != 0)
		throw std::bad_alloc();
}

void lat_sum::add(const res_clone &c, section s)
{
	for (enum plan_ddir d : { PLAN_DDIR_READ, PLAN_DDIR_WRITE })
		if (s == section::total || (d == PLAN_DDIR_READ) == (s == section::read))
			merge(chart_ ? chart_lat_of(c.ddir[d]) : lat_of(c.ddir[d]));
}

const res_lat &lat_of(const res_ddir &d)
{
	return d.lat.n || !d.clat.n ? d.lat : d.clat;
}

const res_lat &chart_lat_of(const res_ddir &d)
{
	const res_lat &l = lat_of(d);
	return l.hist || !d.clat.hist ? l : d.clat;
}

void lat_sum::add(const row &w, section s)
{
	for (enum plan_ddir d : { PLAN_DDIR_READ, PLAN_DDIR_WRITE })
		if (s == section::total || (d == PLAN_DDIR_READ) == (s == section::read))
			merge(w.lat[d]);
}

uint64_t bytes_of(const row &w, section s)
{
	uint64_t r = w.bytes[PLAN_DDIR_READ], x = w.bytes[PLAN_DDIR_WRITE];
	return s == section::read ? r : s == section::write ? x : r + x;
}

uint64_t ios_of(const row &w, section s)
{
	uint64_t r = w.ios[PLAN_DDIR_READ], x = w.ios[PLAN_DDIR_WRITE];
	return s == section::read ? r : s == section::write ? x : r + x;
}

double mean_ms(const res_lat &l)
{
	return l.n ? (double)l.sum_ns / (double)l.n / 1e6 : 0.0;
}

double stddev_ms(const res_lat &l)
{
	if (!l.n)
		return 0.0;
	long double n = (long double)l.n;
	long double sumsq = (long double)l.sumsq_hi * 18446744073709551616.0L + (long double)l.sumsq_lo;
	long double mean = (long double)l.sum_ns / n;
	long double var = sumsq / n - mean * mean;
	return var > 0 ? (double)(std::sqrt(var) / 1e6L) : 0.0;
}

double percentile_ms(const res_lat &l, double fraction)
{
	// Not res_lat_percentile: that follows fio's rounding of p * n, which
	// decides exact ties (50% of 10 samples) differently from DISKSPD.
	if (!l.n || !l.hist)
		return 0.0;
	const double target = fraction * (double)l.n;
	// The rank's sample is known exactly at the ends: the first (a target of
	// at most 1) is the minimum, the last (a target past n - 1) the maximum.
	// DISKSPD keeps every value, so its 9-nines of fewer than 10^9 I/Os is
	// its max; a bucket's value would print below it.
	if (target <= 1.0)
		return (double)l.min_ns / 1e6;
	if (target > (double)(l.n - 1))
		return (double)l.max_ns / 1e6;
	uint64_t cum = 0;
	for (uint32_t i = 0; i < RES_HIST_NR; i++) {
		cum += l.hist[i];
		if (cum == 0 || (double)cum < target)
			continue;
		uint64_t v = res_hist_value(i);
		v = v < l.min_ns ? l.min_ns : v > l.max_ns ? l.max_ns : v;
		return (double)v / 1e6;
	}
	return (double)l.max_ns / 1e6;
}

uint32_t kept_buckets(const row &w)
{
	static const res_series none{};
	const res_series &se = w.series ? *w.series : none;
	uint64_t width = se.interval_ns;
	if (!se.nr || !w.job || !w.job->runtime_ns || !width)
		return se.nr;
	// DISKSPD keeps ceil(duration / bucket) buckets: I/Os completing after -d are dropped.
	uint64_t keep = (w.job->runtime_ns + width - 1) / width;
	return keep < se.nr ? (uint32_t)keep : se.nr;
}

std::vector<double> iops_samples(const row &w, section s)
{
	std::vector<double> out;
	if (!w.series)
		return out;
	const res_series &se = *w.series;
	for (uint32_t i = 0; i < kept_buckets(w); i++) {
		const res_sample &sm = se.samples[i];
		uint64_t n = s == section::read	   ? sm.ios[PLAN_DDIR_READ]
			     : s == section::write ? sm.ios[PLAN_DDIR_WRITE]
						   : sm.ios[PLAN_DDIR_READ] + sm.ios[PLAN_DDIR_WRITE];
		uint64_t t = sm.t_end_ns > sm.t_start_ns ? sm.t_end_ns - sm.t_start_ns : 0;
		out.push_back(t ? (double)n * 1e9 / (double)t : 0.0);
	}
	return out;
}

void add_samples(std::vector<double> *acc, const std::vector<double> &s)
{
	if (acc->size() < s.size())
		acc->resize(s.size(), 0.0);
	for (size_t i = 0; i < s.size(); i++)
		(*acc)[i] += s[i];
}

double pop_stddev(const std::vector<double> &v)
{
	if (v.empty())
		return 0.0;
	double mean = 0, ssd = 0;
	for (double x : v)
		mean += x / (double)v.size();
	for (double x : v)
		ssd += (x - mean) * (x - mean);
	return std::sqrt(ssd / (double)v.size());
}

throughput_limit throughput_of(const plan_job &j)
{
	throughput_limit t;
	for (enum plan_ddir d : { PLAN_DDIR_READ, PLAN_DDIR_WRITE })
		if (plan_rw_has_ddir(j.rw, d)) {
			t.iops += j.rate_iops[d];
			t.bytes_per_s += j.rate_bytes_per_s[d];
		}
	return t;
}

uint64_t max_file_bytes(const plan_job &j, const plan_file &f, const options &o)
{
	if (o.max_bytes)
		return o.max_bytes;
	return f.region_bytes ? j.offset_bytes + f.region_bytes : 0;
}

std::string display_size(uint64_t bytes, int width)
{
	static const struct {
		unsigned shift;
		const char *name;
	} units[] = { { 40, "TiB" }, { 30, "GiB" }, { 20, "MiB" }, { 10, "KiB" } };
	char buf[48];
	for (const auto &u : units) {
		uint64_t one = 1ull << u.shift;
		if (bytes < one)
			continue;
		if (bytes % one == 0)
			snprintf(buf, sizeof(buf), "%*llu%s", width, (unsigned long long)(bytes >> u.shift), u.name);
		else
			snprintf(buf, sizeof(buf), "%*.2f%s", width, (double)bytes / (double)one, u.name);
		return buf;
	}
	return std::to_string(bytes);
}

std::string start_time_utc(uint64_t wall_ns)
{
	time_t t = (time_t)(wall_ns / 1000000000u);
	struct tm tm;
	gmtime_r(&t, &tm);
	char buf[64];
	strftime(buf, sizeof(buf), "%Y/%m/%d %H:%M:%S UTC", &tm);
	return buf;
}

namespace {

std::string joined(const std::vector<std::string> &files)
{
	std::string s;
	for (size_t f = 0; f < files.size(); f++)
		s += (f ? "," : "") + files[f];
	return s;
}

// The row's target size: the line's -c size (the plan's), else the one the
// thread found as it opened it (DISKSPD shows the size it found).
uint64_t target_bytes(const plan_job &pj, uint32_t clone_index, uint64_t found)
{
	if (clone_index < pj.nr_clones && pj.clones[clone_index].nr_files && pj.clones[clone_index].files[0].size_bytes)
		return pj.clones[clone_index].files[0].size_bytes;
	return found;
}

// A clone of this process's results (or the plan's clone merged over the ranks).
row clone_row(const res_clone &cl, const plan_job &pj)
{
	row w;
	w.job = &pj;
	w.clone = &cl;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		w.bytes[d] = cl.ddir[d].bytes;
		w.ios[d] = cl.ddir[d].ios;
		w.lat[d] = lat_of(cl.ddir[d]);
		w.lat[d].hist = nullptr;
	}
	w.series = cl.iops_series.nr ? &cl.iops_series : &cl.bw_series;
	w.zones = cl.zones;
	w.nr_zones = cl.nr_zones;
	w.error = cl.error;
	w.first_error = cl.nr_errors ? &cl.errors[0] : nullptr;
	if (cl.clone_index < pj.nr_clones)
		for (uint32_t f = 0; f < pj.clones[cl.clone_index].nr_files; f++) {
			const char *path = pj.clones[cl.clone_index].files[f].path;
			w.files.push_back(path ? path : "");
		}
	w.path = joined(w.files);
	w.file_bytes = w.files.empty() ? 0 : target_bytes(pj, cl.clone_index, cl.file_bytes);
	return w;
}

// One rank's thread, as that rank measured it.
row rank_row(const res_rank_clone &k, const plan_job &pj)
{
	row w;
	w.job = &pj;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		w.bytes[d] = k.bytes[d];
		w.ios[d] = k.ios[d];
		w.lat[d] = k.lat[d];
	}
	w.series = &k.series;
	w.zones = k.zones;
	w.nr_zones = k.nr_zones;
	w.error = k.error;
	w.first_error = k.nr_errors ? &k.first_error : nullptr;
	for (uint32_t f = 0; f < k.nr_paths; f++)
		w.files.push_back(k.paths[f] ? k.paths[f] : "");
	w.path = joined(w.files);
	w.file_bytes = target_bytes(pj, k.clone_index, k.file_bytes);
	return w;
}

// Whether the ranks' merge kept each rank's threads (res_rank_job.clones).
bool has_rank_threads(const results &r)
{
	for (uint32_t i = 0; r.world && i < r.world->nranks; i++)
		for (uint32_t j = 0; r.world->ranks[i].jobs && j < r.world->ranks[i].nr_jobs; j++)
			if (r.world->ranks[i].jobs[j].clones)
				return true;
	return false;
}

// Under mpirun: every rank's threads, rank by rank, each rank's in the order
// of its jobs and clones, numbered on from the rank before.  A rank's thread
// on other files than the merged clone's (rank 0's) makes a per-target chart
// untrue: the merged clone's histogram holds both.
void add_rank_rows(run_view &v, const results &r, const plan &p)
{
	for (uint32_t i = 0; i < r.world->nranks; i++) {
		const res_rank &k = r.world->ranks[i];
		for (uint32_t j = 0; k.jobs && j < k.nr_jobs && j < r.nr_jobs; j++) {
			const plan_job *pj = plan_job_at(&p, r.jobs[j].job_id);
			if (r.jobs[j].discarded || !pj)
				continue;
			for (uint32_t c = 0; c < k.jobs[j].nr_clones; c++) {
				const res_rank_clone &rc = k.jobs[j].clones[c];
				row w = rank_row(rc, *pj);
				w.thread = (uint32_t)v.rows.size();
				const plan_clone *pc = rc.clone_index < pj->nr_clones ? &pj->clones[rc.clone_index] : nullptr;
				bool same = pc && w.files.size() == pc->nr_files;
				for (uint32_t f = 0; same && f < pc->nr_files; f++)
					same = pc->files[f].path && w.files[f] == pc->files[f].path;
				v.target_charts = v.target_charts && same;
				v.rows.push_back(std::move(w));
			}
		}
	}
}

void add_rows(run_view &v, const results &r, const plan &p)
{
	uint64_t start = UINT64_MAX, end = 0;
	for (uint32_t j = 0; j < r.nr_jobs; j++) {
		const res_job &rj = r.jobs[j];
		const plan_job *pj = plan_job_at(&p, rj.job_id);
		if (rj.discarded || !pj)
			continue;
		for (uint32_t c = 0; c < rj.nr_clones; c++) {
			const res_clone &cl = rj.clones[c];
			row w = clone_row(cl, *pj);
			w.thread = (uint32_t)v.merged.size();
			v.merged.push_back(std::move(w));
			if (cl.end_ns > cl.start_ns) {
				start = cl.start_ns < start ? cl.start_ns : start;
				end = cl.end_ns > end ? cl.end_ns : end;
			}
		}
	}
	v.seconds = end > start ? (double)(end - start) / 1e9 : 0.0;
	if (has_rank_threads(r))
		add_rank_rows(v, r, p);
	else
		v.rows = v.merged;
}

void add_cpus(run_view &v, const results &r)
{
	for (uint32_t i = 0; i < r.nr_cpus; i++) {
		const res_cpu &c = r.cpus[i];
		double all = (double)(c.user_ns + c.system_ns + c.idle_ns);
		cpu_row x;
		x.id = c.id;
		if (all > 0) {
			x.user = 100.0 * (double)c.user_ns / all;
			x.kernel = 100.0 * (double)c.system_ns / all;
			x.idle = 100.0 * (double)c.idle_ns / all;
			x.usage = x.user + x.kernel;
		}
		v.cpus.push_back(x);
		double n = (double)r.nr_cpus;
		v.avg.usage += x.usage / n;
		v.avg.user += x.user / n;
		v.avg.kernel += x.kernel / n;
		v.avg.idle += x.idle / n;
	}
}

} // namespace

namespace {

// "thread 0 stopped at an error ...: write z.dat at offset 0: File too large (errno 27)"
std::string thread_failure(const row &w)
{
	const res_error *e = w.first_error;
	int err = e && e->err ? e->err : w.error;
	std::string s = "thread " + std::to_string(w.thread) +
			" stopped at an error, so its figures cover only the time before it: ";
	if (e) {
		s += e->what;
		if (e->file_index < w.files.size())
			s += " " + w.files[e->file_index];
		if (e->len)
			s += " at offset " + std::to_string(e->offset);
		s += ": ";
	}
	s += err ? std::string(strerror(err)) + " (errno " + std::to_string(err) + ")" : "short transfer";
	return s;
}

} // namespace

std::vector<std::string> failures(const run_view &v, const results &r)
{
	std::vector<std::string> out;
	if (r.interrupted)
		out.push_back("interrupted: the figures cover only what ran before the stop");
	for (const row &w : v.rows)
		if (w.error || (w.first_error && w.first_error->err))
			out.push_back(thread_failure(w));
	return out;
}

run_view make_view(const results &r, const plan &p)
{
	run_view v;
	add_rows(v, r, p);
	add_cpus(v, r);
	return v;
}

} // namespace report::diskspd

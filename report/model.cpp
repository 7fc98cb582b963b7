// report/model.cpp - builds the report model: repeat aggregation, fio's
// group_reporting merge, and per-group run statistics (see model.hpp).
#include "report/model.hpp"

#include <algorithm>
#include <numeric>
#include <cmath>
#include <cstring>
#include <new>

#include "report/ranks.hpp"
#include "report/units.hpp"

namespace report {

// ---- stat_clone ----

stat_clone::stat_clone()
{
	res_clone_init(&c_);
}

stat_clone::~stat_clone()
{
	res_clone_release(&c_);
}

stat_clone::stat_clone(stat_clone &&o) noexcept
{
	c_ = o.c_;
	res_clone_init(&o.c_);
}

stat_clone &stat_clone::operator=(stat_clone &&o) noexcept
{
	if (this != &o) {
		res_clone_release(&c_);
		c_ = o.c_;
		res_clone_init(&o.c_);
	}
	return *this;
}

void stat_clone::add(const res_clone &src)
{
	if (res_clone_merge(&c_, &src))
		throw std::bad_alloc();
}

namespace {

// ---- repeat aggregation ----

// Throughput of one run of a job: all bytes over the longest direction window.
double run_throughput(const res_job &j)
{
	uint64_t bytes = 0, ns = 0;

	for (uint32_t c = 0; c < j.nr_clones; c++)
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			bytes += j.clones[c].ddir[d].bytes;
			ns = std::max(ns, j.clones[c].ddir[d].runtime_ns);
		}
	return ns ? (double)bytes * 1e9 / (double)ns : 0.0;
}

// Mean completion latency of one run (total latency when clat was not kept).
double run_latency(const res_job &j)
{
	double sum = 0, n = 0;

	for (uint32_t c = 0; c < j.nr_clones; c++)
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			const res_ddir &dd = j.clones[c].ddir[d];
			const res_lat &l = dd.clat.n ? dd.clat : dd.lat;
			sum += (double)l.sum_ns;
			n += (double)l.n;
		}
	return n ? sum / n : 0.0;
}

const res_clone *clone_of(const res_job &j, uint32_t clone_index)
{
	for (uint32_t c = 0; c < j.nr_clones; c++)
		if (j.clones[c].clone_index == clone_index)
			return &j.clones[c];
	return clone_index < j.nr_clones ? &j.clones[clone_index] : nullptr;
}

void replace_lat(res_lat *dst, const res_lat *src)
{
	free(dst->hist);
	std::memset(dst, 0, sizeof(*dst));
	dst->min_ns = UINT64_MAX;
	if (res_lat_merge(dst, src))
		throw std::bad_alloc();
}

// The per-priority latencies too (cmdprio), entry by entry.
void replace_prios(res_ddir &dst, const res_ddir &src)
{
	for (uint32_t i = 0; i < dst.nr_prios; i++)
		free(dst.prios[i].lat.hist);
	dst.nr_prios = src.nr_prios;
	for (uint32_t i = 0; i < src.nr_prios; i++) {
		dst.prios[i].ioprio = src.prios[i].ioprio;
		dst.prios[i].lat.hist = nullptr;
		replace_lat(&dst.prios[i].lat, &src.prios[i].lat);
	}
}

// Takes every latency figure of `from` into c: the "lowest latency" half of
// CrystalDiskMark's max rule comes from a different run than the throughput.
void take_latency(res_clone &c, const res_clone &from)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		replace_lat(&c.ddir[d].slat, &from.ddir[d].slat);
		replace_lat(&c.ddir[d].clat, &from.ddir[d].clat);
		replace_lat(&c.ddir[d].lat, &from.ddir[d].lat);
		replace_prios(c.ddir[d], from.ddir[d]);
		replace_lat(&c.ddir[d].sched_lat, &from.ddir[d].sched_lat);
	}
	replace_lat(&c.sync_lat, &from.sync_lat);
	std::memcpy(c.latbkt, from.latbkt, sizeof(c.latbkt));
}

void scale_sample(res_sample_stat &s, double n)
{
	s.min /= n;
	s.max /= n;
	s.mean /= n;
	s.m2 /= n;
	s.n = (uint64_t)((double)s.n / n + 0.5);
}

uint64_t div_round(uint64_t v, uint64_t n)
{
	return (v + n / 2) / n;
}

static uint64_t window_ns(const res_clone &c)
{
	return c.end_ns > c.start_ns ? c.end_ns - c.start_ns : 0;
}

// fio's job_runtime: the window and the verify read-back after it.
static uint64_t run_ns_of(const res_clone &c)
{
	return window_ns(c) + c.after_ns;
}

// What the clone's CPU share divides by: its runtime, or for a clone merged
// over ranks every rank's (their CPU times are added: over the one common
// window, 2 ranks at 15% and 48% showed usr=63%, 64 busy ranks thousands).
static uint64_t cpu_run_ns_of(const res_clone &c)
{
	return c.ranks_run_ns ? c.ranks_run_ns : run_ns_of(c);
}

// The mean of n runs: a merge of all of them (latency over every I/O), with
// amounts, windows and CPU divided back to one run's worth.
void mean_of_runs(stat_clone &out, const std::vector<const res_clone *> &cl, uint64_t *run_ns, uint64_t *cpu_run_ns)
{
	uint64_t n = cl.size(), rt[PLAN_DDIR_NR] = {}, win = 0, cpu_win = 0;

	for (const res_clone *c : cl) {
		out.add(*c);
		for (int d = 0; d < PLAN_DDIR_NR; d++)
			rt[d] += c->ddir[d].runtime_ns;
		win += run_ns_of(*c);
		cpu_win += cpu_run_ns_of(*c);
	}
	res_clone &m = out.get();
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		res_ddir &dd = m.ddir[d];
		dd.bytes = div_round(dd.bytes, n);
		dd.ios = div_round(dd.ios, n);
		dd.short_ios = div_round(dd.short_ios, n);
		dd.drop_ios = div_round(dd.drop_ios, n);
		dd.runtime_ns = div_round(rt[d], n);
		dd.target_bytes_per_s = div_round(dd.target_bytes_per_s, n);
		dd.target_iops = div_round(dd.target_iops, n);
		scale_sample(dd.bw_kib_s, (double)n);
		scale_sample(dd.iops, (double)n);
	}
	m.sync_ios = div_round(m.sync_ios, n);
	m.usr_ns = div_round(m.usr_ns, n);
	m.sys_ns = div_round(m.sys_ns, n);
	m.ctx = div_round(m.ctx, n);
	m.majf = div_round(m.majf, n);
	m.minf = div_round(m.minf, n);
	*run_ns = div_round(win, n);
	*cpu_run_ns = div_round(cpu_win, n);
}

size_t pick_run(const std::vector<const res_job *> &runs, bool highest, bool by_latency)
{
	size_t best = 0;

	for (size_t i = 1; i < runs.size(); i++) {
		double a = by_latency ? run_latency(*runs[i]) : run_throughput(*runs[i]);
		double b = by_latency ? run_latency(*runs[best]) : run_throughput(*runs[best]);
		if (highest ? a > b : a < b)
			best = i;
	}
	return best;
}

size_t median_run(const std::vector<const res_job *> &runs)
{
	std::vector<size_t> idx(runs.size());
	for (size_t i = 0; i < idx.size(); i++)
		idx[i] = i;
	std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
		return run_throughput(*runs[a]) < run_throughput(*runs[b]);
	});
	return idx[(idx.size() - 1) / 2];
}


// One clone's statistics for a plan job, reduced over its measured runs.
// *origin gets the run's own clone whose errors the entry reports.
stat_clone clone_stats(const plan_job &job, const std::vector<const res_job *> &measured,
		       uint32_t clone_index, uint64_t *run_ns, uint64_t *cpu_run_ns, const res_clone **origin)
{
	stat_clone out;
	*run_ns = 0;
	*cpu_run_ns = 0;
	*origin = nullptr;
	if (measured.empty())
		return out;
	if (measured.size() > 1 && job.repeat_aggregate == PLAN_AGG_MEAN) {
		std::vector<const res_clone *> cl;
		for (const res_job *j : measured)
			if (const res_clone *c = clone_of(*j, clone_index))
				cl.push_back(c);
		if (!cl.empty())
			mean_of_runs(out, cl, run_ns, cpu_run_ns);
		*origin = cl.empty() ? nullptr : cl.front();
		return out;
	}
	size_t base = 0, lat = 0;
	if (measured.size() > 1) {
		bool max = job.repeat_aggregate == PLAN_AGG_MAX;
		if (job.repeat_aggregate == PLAN_AGG_MEDIAN) {
			base = lat = median_run(measured);
		} else {
			base = pick_run(measured, max, false);
			lat = pick_run(measured, !max, true);
		}
	}
	const res_clone *b = clone_of(*measured[base], clone_index);
	if (!b)
		return out;
	out.add(*b);
	*run_ns = run_ns_of(*b);
	*cpu_run_ns = cpu_run_ns_of(*b);
	*origin = b;
	const res_clone *l = clone_of(*measured[lat], clone_index);
	if (lat != base && l)
		take_latency(out.get(), *l);
	return out;
}

// ---- unified_rw_reporting ----

void clear_lat(res_lat &l)
{
	free(l.hist);
	std::memset(&l, 0, sizeof(l));
	l.min_ns = UINT64_MAX;
}

// fio's unified merge: every direction summed into direction 0 (histograms
// bucket by bucket, so percentiles come from the merged histogram), the others
// left empty.
stat_clone fold_directions(const res_clone &src)
{
	stat_clone out;
	out.add(src);
	res_clone &c = out.get();
	for (int d = 1; d < PLAN_DDIR_NR; d++) {
		if (res_ddir_merge(&c.ddir[0], &c.ddir[d]))
			throw std::bad_alloc();
		res_ddir &dd = c.ddir[d];
		for (res_lat *l : { &dd.slat, &dd.clat, &dd.lat, &dd.sched_lat })
			clear_lat(*l);
		for (uint32_t i = 0; i < dd.nr_prios; i++)
			free(dd.prios[i].lat.hist);
		res_ddir empty = {};
		empty.slat = dd.slat;
		empty.clat = dd.clat;
		empty.lat = dd.lat;
		empty.sched_lat = dd.sched_lat;
		dd = empty;
	}
	return out;
}

std::shared_ptr<const entry> mixed_copy(const entry &e)
{
	auto m = std::make_shared<entry>();
	m->name = e.name;
	m->description = e.description;
	m->groupid = e.groupid;
	m->members = e.members;
	m->threads = e.threads;
	m->first = e.first;
	m->last = e.last;
	m->lat_depth = e.lat_depth;
	m->job_ids = e.job_ids;
	m->run_ns = e.run_ns;
	m->error = e.error;
	m->unified = PLAN_UNIFIED_MIXED;
	m->st = fold_directions(e.st.get());
	return m;
}

void apply_unified(model &m)
{
	for (entry &e : m.entries) {
		e.unified = e.last ? e.last->unified_rw_reporting : PLAN_UNIFIED_NONE;
		if (e.unified == PLAN_UNIFIED_MIXED)
			e.st = fold_directions(e.st.get());
		else if (e.unified == PLAN_UNIFIED_BOTH)
			e.mixed = mixed_copy(e);
	}
}

// ---- entries ----

std::string file_of(const plan_job &job, const res_clone &c, uint32_t file_index)
{
	if (c.clone_index < job.nr_clones && file_index < job.clones[c.clone_index].nr_files)
		return job.clones[c.clone_index].files[file_index].path;
	return std::string();
}

std::string describe_error(const plan_job &job, const res_clone *c, int err)
{
	if (!c || !c->nr_errors)
		return strerror(err);
	const res_error &e = c->errors[0];
	std::string path = file_of(job, *c, e.file_index);
	if (!e.len)	/* not an I/O (an open, exec's start, an unlink): no offset */
		return strf("%s%s%s: %s", e.what, path.empty() ? "" : " ", path.c_str(),
			    e.err ? strerror(e.err) : "short transfer");
	return strf("%s%s%s at offset %llu: %s", e.what, path.empty() ? "" : " ", path.c_str(),
		    (unsigned long long)e.offset, e.err ? strerror(e.err) : "short transfer");
}

void add_errors(entry &e, const plan_job &job, const res_clone *c)
{
	if (!c)
		return;
	if (c->nr_errors && c->errors[0].err)
		e.first_error = c->errors[0].err;
	else if (c->error)
		e.first_error = c->error;
	for (uint32_t i = 0; i < c->nr_errors && i < RES_ERRORS_MAX; i++) {
		if (e.errors.size() >= RES_ERRORS_MAX)
			break;
		e.errors.push_back(c->errors[i]);
		e.error_files.push_back(file_of(job, *c, c->errors[i].file_index));
	}
}

bool has_prios(const res_clone &c)
{
	for (const res_ddir &dd : c.ddir)
		if (dd.nr_prios)
			return true;
	return false;
}

// fio's single-priority rule: a direction without per-priority samples counts
// them all at the clone's own priority, once the entry keeps priorities.
void prio_single(res_clone &c, bool lat_percentiles)
{
	for (res_ddir &dd : c.ddir)
		if (res_ddir_prio_single(&dd, c.ioprio, lat_percentiles))
			throw std::bad_alloc();
}

// fio's init_per_prio_stats, decided as members arrive: the entry keeps
// priorities from the first member that used cmdprio or whose priority differs.
void merge_prios(entry &e, const plan_job &job, res_clone &member)
{
	res_clone &acc = e.st.get();
	if (!e.prio_stats && (has_prios(member) || member.ioprio != acc.ioprio)) {
		e.prio_stats = true;
		prio_single(acc, e.last && e.last->lat_percentiles);
	}
	if (e.prio_stats)
		prio_single(member, job.lat_percentiles);
}

/*
 * fio reports a job under a name of at most 127 bytes and a description of 255
 * (stat.h's FIO_JOBNAME_SIZE, FIO_JOBDESC_SIZE), though its files and its
 * banner use the whole name.  Cut at a character's start, so JSON stays UTF-8.
 */
static std::string fio_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	if (n > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return std::string(s, n);
}

void add_member(entry &e, const plan_job &job, uint32_t clone, stat_clone &&cs, uint64_t run_ns,
		uint64_t cpu_run_ns, const res_clone *origin)
{
	int err = cs.get().error;
	/* fio's __show_run_stats: a continue_on_error job that ended without an error of
	 * its own reports its first one.  fio's text for it is the last td_verror's (its
	 * sync engines' "func=xfer, error=..."; none from an async engine or verify, so
	 * "err=22 ()"); ioplan names that first error, as for any job's. */
	bool allowed = !err && job.continue_on_error && origin && origin->nr_errors && origin->errors[0].err;
	uint64_t total_err = cs.get().total_err;
	uint32_t lat_depth = cs.get().lat_depth;

	if (!e.members) {
		/* fio: name= names the first clone; the others take the section's name. */
		e.name = fio_cut(clone && job.section && *job.section ? job.section : job.name ? job.name : "", 127);
		e.description = fio_cut(job.description ? job.description : "", 255);
		e.groupid = job.groupid;
		e.first = &job;
		e.st = std::move(cs);
		if (has_prios(e.st.get())) {
			e.prio_stats = true;
			prio_single(e.st.get(), job.lat_percentiles);
		}
	} else {
		merge_prios(e, job, cs.get());
		e.st.add(cs.get());
	}
	e.last = &job;
	e.lat_depth = lat_depth; /* 0: the last member never reached its I/O loop (fio: no latency_depth) */
	if (e.job_ids.empty() || e.job_ids.back() != job.job_id)
		e.job_ids.push_back(job.job_id);
	e.run_ns += run_ns;
	e.cpu_run_ns += cpu_run_ns;
	if (allowed)
		err = origin->errors[0].err;
	if (!e.error && err) {
		e.error = err;
		e.verror = describe_error(job, origin, err);
	}
	e.total_err += total_err;
	add_errors(e, job, origin);
	e.members++;
}

void build_runs(model &m, const results &r, const plan &p)
{
	m.runs.resize(p.nr_jobs);
	for (uint32_t i = 0; i < p.nr_jobs; i++)
		m.runs[i].job = plan_job_at(&p, i);
	for (uint32_t i = 0; i < r.nr_jobs; i++)
		if (r.jobs[i].job_id < m.runs.size())
			m.runs[r.jobs[i].job_id].runs.push_back(&r.jobs[i]);
	for (job_runs &jr : m.runs)
		std::stable_sort(jr.runs.begin(), jr.runs.end(),
				 [](const res_job *a, const res_job *b) { return a->run < b->run; });
}

// kb_base and unit_base as fio 3.33 holds them once resolved (unit_base: N2S_BYTEPERSEC 4,
// N2S_BITPERSEC 5), the values its notes print.
static unsigned fio_kb_base(const plan_job &j)
{
	return j.kb_base ? j.kb_base : 1024;
}

static unsigned fio_unit_base(const plan_job &j)
{
	return bits_of(&j) ? 5 : 4;
}

// fio's __show_run_stats: a clone merged into an entry whose first job has another
// kb_base (or, that said already or alike, another unit_base) is said, each once a
// report; the entry keeps the first's.
static void note_base_differs(model &m, const entry &e, const plan_job &job, bool *kb_said, bool *unit_said)
{
	if (!e.first)
		return;
	if (fio_kb_base(job) != fio_kb_base(*e.first) && !*kb_said) {
		m.fio_base_notes.push_back(strf("fio: kb_base differs for jobs in group, using %u as the base\n",
						fio_kb_base(*e.first)));
		*kb_said = true;
	} else if (fio_unit_base(job) != fio_unit_base(*e.first) && !*unit_said) {
		m.fio_base_notes.push_back(strf("fio: unit_base differs for jobs in group, using %u as the base\n",
						fio_unit_base(*e.first)));
		*unit_said = true;
	}
}

// fio's rule: a clone opens a new entry unless it has group_reporting and
// belongs to the same group as the clone before it.
void build_entries(model &m, const results &r, const plan &p)
{
	int64_t last_gid = -1;
	bool kb_said = false, unit_said = false;

	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &job = *plan_job_at(&p, i);
		if (job.no_stats)
			continue;	// stats=0: in no report, in no group total (fio)
		std::vector<const res_job *> measured;
		for (const res_job *rj : m.runs[i].runs)
			if (!rj->discarded)
				measured.push_back(rj);
		// fio lists threads in their numbers' order, which is not the clones' (plan_clone)
		std::vector<uint32_t> order(std::max(job.nr_clones, 1u));
		std::iota(order.begin(), order.end(), 0u);
		if (job.nr_clones > 1)
			std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
				return job.clones[a].thread_number < job.clones[b].thread_number;
			});
		for (uint32_t c : order) {
			bool same = job.group_reporting && last_gid == (int64_t)job.groupid;
			if (m.entries.empty() || !same)
				m.entries.emplace_back();
			else
				note_base_differs(m, m.entries.back(), job, &kb_said, &unit_said);
			last_gid = job.groupid;
			uint64_t run_ns = 0, cpu_run_ns = 0;
			const res_clone *origin = nullptr;
			stat_clone cs = clone_stats(job, measured, c, &run_ns, &cpu_run_ns, &origin);
			add_member(m.entries.back(), job, c, std::move(cs), run_ns, cpu_run_ns, origin);
			m.entries.back().threads +=
				measured.empty() ? 1 : ranks_that_ran(r, (uint32_t)(measured.back() - r.jobs));
			if (!measured.empty() && measured.back()->ss && c < measured.back()->nr_clones &&
			    measured.back()->ss[c].on)
				m.entries.back().ss = &measured.back()->ss[c];
		}
	}
}

void build_groups(model &m, const plan &p)
{
	uint32_t nr = p.nr_groups;
	for (const entry &e : m.entries)
		nr = std::max(nr, e.groupid + 1);
	m.groups.resize(nr);
	for (uint32_t g = 0; g < nr; g++) {
		m.groups[g].groupid = g;
		for (int d = 0; d < PLAN_DDIR_NR; d++)
			m.groups[g].min_bw[d] = m.groups[g].min_run[d] = UINT64_MAX;
	}
	for (const entry &e : m.entries) {
		group_stat &g = m.groups[e.groupid];
		g.kb_base = e.first && e.first->kb_base ? e.first->kb_base : 1024;
		g.bits = bits_of(e.first);
		g.sig_figs = e.first ? sig_figs_of(e.first) : 4;
		g.unified |= (unsigned)e.unified;
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			uint64_t rt = ddir_runtime_ms(e, d);
			if (!rt)
				continue;
			g.min_run[d] = std::min(g.min_run[d], rt);
			g.max_run[d] = std::max(g.max_run[d], rt);
			uint64_t bw = ddir_bw_bytes(e, d);
			g.min_bw[d] = std::min(g.min_bw[d], bw);
			g.max_bw[d] = std::max(g.max_bw[d], bw);
			g.iobytes[d] += e.st.get().ddir[d].bytes;
		}
	}
	for (group_stat &g : m.groups)
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			if (g.max_run[d])
				g.agg[d] = per_sec(g.iobytes[d], g.max_run[d]);
			if (g.min_run[d] == UINT64_MAX)
				g.min_run[d] = 0;
			if (g.min_bw[d] == UINT64_MAX)
				g.min_bw[d] = 0;
		}
}

// Sample statistics come from floating-point sums; a non-finite or negative
// value (never from real samples, but possible from a broken producer) would
// print as "nan"/"inf" in terse and normal output, and cannot be a JSON number.
// Such a statistic is reported as no samples at all.
void drop_broken_samples(model &m)
{
	for (entry &e : m.entries)
		for (int d = 0; d < PLAN_DDIR_NR; d++)
			for (res_sample_stat *s : { &e.st.get().ddir[d].bw_kib_s, &e.st.get().ddir[d].iops })
				if (!std::isfinite(s->min) || !std::isfinite(s->max) ||
				    !std::isfinite(s->mean) || !std::isfinite(s->m2) || s->min < 0 ||
				    s->m2 < 0)
					*s = res_sample_stat{};
}

} // namespace

const group_stat &model::group(uint32_t id) const
{
	static const group_stat none;
	return id < groups.size() ? groups[id] : none;
}

namespace {

// A run-wide error (the layout could not create the shared file) stopped jobs
// before their first I/O: each says it failed, as fio's own jobs would on
// their open, instead of a clean row of zeros.  When the run's error is a
// job's own (the engine takes the first job error as the run's), the jobs
// exitall stopped before their first I/O did not fail: fio reports error 0.
void blame_run_error(model &m, const results &r)
{
	if (!r.error || r.interrupted)
		return;
	for (const entry &e : m.entries)
		if (e.error == r.error)
			return;
	for (entry &e : m.entries) {
		const res_clone &c = e.st.get();
		if (e.error || c.ddir[0].bytes || c.ddir[1].bytes || c.ddir[2].bytes || total_rw_ios(e))
			continue;
		e.error = r.error;
		e.verror = strerror(r.error);
	}
}

} // namespace

model build_model(const results &r, const plan &p)
{
	model m;

	m.elapsed_ns = r.end_mono_ns > r.start_mono_ns ? r.end_mono_ns - r.start_mono_ns : 0;
	m.now_wall_ns = r.start_wall_ns + m.elapsed_ns;
	m.eta_ns = r.eta_ns;
	m.jobs_elapsed_ns = m.elapsed_ns - std::min(m.elapsed_ns, r.jobs_start_ns);
	m.nr_threads = p.nr_threads;
	build_runs(m, r, p);
	build_entries(m, r, p);
	drop_broken_samples(m);
	apply_unified(m);
	build_groups(m, p);
	blame_run_error(m, r);
	return m;
}

// ---- derived numbers ----

bool ddir_ran(const entry &e, int d)
{
	return ddir_runtime_ms(e, d) != 0;
}

uint64_t ddir_runtime_ms(const entry &e, int d)
{
	return runtime_ms(e.st.get().ddir[d].runtime_ns);
}

uint64_t ddir_bw_bytes(const entry &e, int d)
{
	return per_sec(e.st.get().ddir[d].bytes, ddir_runtime_ms(e, d));
}

uint64_t ddir_iops(const entry &e, int d)
{
	return per_sec(e.st.get().ddir[d].ios, ddir_runtime_ms(e, d));
}

double ddir_iops_f(const entry &e, int d)
{
	uint64_t rt = ddir_runtime_ms(e, d);
	return rt ? 1000.0 * (double)e.st.get().ddir[d].ios / (double)rt : 0.0;
}

uint64_t total_rw_ios(const entry &e)
{
	uint64_t n = 0;
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		n += e.st.get().ddir[d].ios;
	return n;
}

uint64_t depth_total(const entry &e)
{
	const res_clone &c = e.st.get();
	uint64_t n = 0;
	for (int i = 0; i < RES_DEPTH_NR; i++)
		n += c.depth[i];
	// fio counts fsync=N's syncs in the depths but not in their base (its 105%).
	return n > c.sync_ios ? n - c.sync_ios : total_rw_ios(e);
}

// fio's share: the CPU's whole ms over the run's whole ms (its update_rusage_stat
// and total_run_time both count in ms), so a run shorter than a ms shows 0.00% as
// fio's.  In ns, the thread's CPU time (which the kernel brings up to date at its
// ticks and switches, not at each reading) read far above 100% of a sub-ms window:
// usr=161.73% for a 64 KiB vsync write whose window was 0.06 ms.
static double cpu_pct(uint64_t cpu_ns, uint64_t run_ns)
{
	uint64_t run_ms = run_ns / 1000000u;

	return run_ms ? (double)(cpu_ns / 1000000u) * 100.0 / (double)run_ms : 0.0;
}

double usr_cpu_pct(const entry &e)
{
	return cpu_pct(e.st.get().usr_ns, e.cpu_run_ns);
}

double sys_cpu_pct(const entry &e)
{
	return cpu_pct(e.st.get().sys_ns, e.cpu_run_ns);
}

double bw_share_pct(const group_stat &g, int d, double mean_kib)
{
	if (g.agg[d] <= 1024)
		return 100.0;
	double p = (double)(int64_t)mean_kib * 100.0 / ((double)g.agg[d] / 1024.0);
	return p > 100.0 ? 100.0 : p;
}

std::vector<double> dist_pct(const uint64_t *counts, int n, uint64_t total, double floor)
{
	std::vector<double> out((size_t)n, 0.0);
	for (int i = 0; i < n && total; i++) {
		out[(size_t)i] = (double)counts[i] / (double)total * 100.0;
		if (out[(size_t)i] < floor && counts[i])
			out[(size_t)i] = floor;
	}
	return out;
}

std::vector<double> percentile_list(const entry &e, bool with_slat)
{
	const plan_job *j = e.last;
	if (!j || !(j->clat_percentiles || j->lat_percentiles || (with_slat && j->slat_percentiles)))
		return {};
	uint32_t n = std::min<uint32_t>(j->nr_percentiles, PLAN_PERCENTILES_MAX);
	std::vector<double> v(j->percentiles, j->percentiles + n);
	std::sort(v.begin(), v.end());
	return v;
}

const res_lat *percentile_source(const entry &e, int d)
{
	if (!e.last)
		return nullptr;
	if (e.last->lat_percentiles)
		return &e.st.get().ddir[d].lat;
	if (e.last->clat_percentiles)
		return &e.st.get().ddir[d].clat;
	return nullptr;
}

} // namespace report

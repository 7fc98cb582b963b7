// tests/report/fixture.cpp - builders for hand-made plans and results (fixture.hpp).
#include "tests/report/fixture.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/parser/plan_text.hpp"

namespace t {

namespace {

plan_kv *make_kvs(const std::vector<std::pair<std::string, std::string>> &kv)
{
	plan_kv *out = (plan_kv *)plan_calloc(kv.size(), sizeof(plan_kv));
	for (size_t i = 0; i < kv.size(); i++) {
		out[i].key = plan_strdup(kv[i].first.c_str());
		out[i].value = plan_strdup(kv[i].second.c_str());
	}
	return out;
}

void free_kvs(plan_kv *kv, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		std::free(kv[i].key);
		std::free(kv[i].value);
	}
	std::free(kv);
}

// The job section a spec stands for.  Its name and options are the report's
// input (names no job file could hold, the echo of what one said), so they are
// set after the parser, as given.
std::string job_text(const job_spec &s, uint32_t i, bool new_group)
{
	// Files are named after the section: the job's own name where a header can hold it.
	bool plain = !s.name.empty() && std::all_of(s.name.begin(), s.name.end(), [](char c) {
		return std::isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
	});
	std::string t = "[" + (plain ? s.name : "job" + std::to_string(i)) + "]\nrw=" + plan_rw_name(s.rw) +
			"\nioengine=null\nsize=1m\ndirectory=/tmp\nnumjobs=" + std::to_string(s.numjobs) + "\n";
	if (s.group_reporting)
		t += "group_reporting\n";
	if (new_group)
		t += "new_group\n";
	return t;
}

} // namespace

plan_holder::plan_holder(const std::vector<job_spec> &jobs,
			 const std::vector<std::pair<std::string, std::string>> &globals)
{
	std::string text;
	for (uint32_t i = 0; i < jobs.size(); i++) {
		uint32_t prev = i ? jobs[i - 1].groupid : 0;
		if (jobs[i].groupid != prev && jobs[i].groupid != prev + 1)
			throw std::logic_error("job '" + jobs[i].name + "': groups are numbered in job order");
		text += job_text(jobs[i], i, jobs[i].groupid != prev);
	}
	p_ = jobs.empty() ? plan_alloc() : t::plan_of_ini(text).release();
	for (uint32_t i = 0; i < jobs.size(); i++) {
		plan_job &j = job(i);
		std::free(j.name);
		std::free(j.section);
		j.name = plan_strdup(jobs[i].name.c_str());
		j.section = plan_strdup(jobs[i].name.c_str());
		free_kvs(j.opts, j.nr_opts);
		j.opts = make_kvs(jobs[i].opts);
		j.nr_opts = (uint32_t)jobs[i].opts.size();
		if (jobs[i].tweak)
			jobs[i].tweak(j);
	}
	free_kvs(p_->global_opts, p_->nr_global_opts);
	p_->global_opts = make_kvs(globals);
	p_->nr_global_opts = (uint32_t)globals.size();
	if (!p_->allow_device_write)
		p_->allow_device_write = plan_strdup("");
}

results_holder::results_holder(const plan &p, uint32_t runs) : runs_(runs)
{
	r_ = (results *)std::calloc(1, sizeof(results));
	r_->abi_version = RESULTS_ABI_VERSION;
	r_->plan = &p;
	r_->start_wall_ns = 1795347145000000000ull;	// Sun Nov 22 2026, fixed
	r_->start_mono_ns = 1000000000ull;
	r_->end_mono_ns = 2000000000ull;
	std::strcpy(r_->hostname, "testhost");
	std::strcpy(r_->kernel, "Linux 6.1.0-test");
	std::strcpy(r_->clock_source, "fake");
	r_->clock_cost_ns = 20.0;
	r_->nr_jobs = p.nr_jobs * runs;
	r_->jobs = (res_job *)std::calloc(r_->nr_jobs ? r_->nr_jobs : 1, sizeof(res_job));
	for (uint32_t run = 0; run < runs; run++)
		for (uint32_t i = 0; i < p.nr_jobs; i++) {
			const plan_job *pj = plan_job_at(&p, i);
			res_job &j = r_->jobs[run * p.nr_jobs + i];
			j.job_id = i;
			j.groupid = pj->groupid;
			j.run = run;
			j.start_ns = 0;
			j.end_ns = 1000000000ull;
			j.nr_clones = pj->nr_clones;
			j.clones = (res_clone *)std::calloc(pj->nr_clones, sizeof(res_clone));
			for (uint32_t c = 0; c < pj->nr_clones; c++) {
				res_clone_init(&j.clones[c]);
				j.clones[c].clone_index = c;
				j.clones[c].thread_number = pj->clones[c].thread_number;
				j.clones[c].start_ns = 0;
				j.clones[c].end_ns = 1000000000ull;
				/* As a clone that reached its I/O loop: fio's latency_depth. */
				j.clones[c].lat_depth = pj->iodepth;
			}
		}
}

res_job &results_holder::job_run(uint32_t job, uint32_t run)
{
	uint32_t per_run = r_->nr_jobs / runs_;
	return r_->jobs[run * per_run + job];
}

res_clone &results_holder::clone(uint32_t job, uint32_t c, uint32_t run)
{
	return job_run(job, run).clones[c];
}

void results_holder::add_disk(const res_disk &d)
{
	r_->disks = (res_disk *)std::realloc(r_->disks, (r_->nr_disks + 1) * sizeof(res_disk));
	r_->disks[r_->nr_disks++] = d;
}

void results_holder::add_msg(enum res_msg_level level, const char *code, const char *text,
			     int32_t job)
{
	r_->msgs = (res_msg *)std::realloc(r_->msgs, (r_->nr_msgs + 1) * sizeof(res_msg));
	res_msg &m = r_->msgs[r_->nr_msgs++];
	m.level = level;
	m.code = strdup(code);
	m.text = strdup(text);
	m.job_id = job;
}

void record(res_lat *l, uint64_t ns)
{
	if (!l->hist)
		l->hist = (uint64_t *)std::calloc(RES_HIST_NR, sizeof(uint64_t));
	l->hist[res_hist_index(ns)]++;
	if (!l->n || ns < l->min_ns)
		l->min_ns = ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
	l->n++;
	l->sum_ns += ns;
	unsigned __int128 s = ((unsigned __int128)l->sumsq_hi << 64) | l->sumsq_lo;
	s += (unsigned __int128)ns * ns;
	l->sumsq_lo = (uint64_t)s;
	l->sumsq_hi = (uint64_t)(s >> 64);
}

int latbkt_index(uint64_t ns)
{
	static const uint64_t edges[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 };
	static const uint64_t ms_edges[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 };
	if (ns < 1000) {
		for (int i = 0; i < 10; i++)
			if (ns < edges[i])
				return i;
	}
	uint64_t us = ns / 1000;
	if (us < 1000) {
		for (int i = 0; i < 10; i++)
			if (us < edges[i])
				return RES_LATBKT_NS + i;
	}
	uint64_t ms = ns / 1000000;
	for (int i = 0; i < 11; i++)
		if (ms < ms_edges[i])
			return RES_LATBKT_NS + RES_LATBKT_US + i;
	return RES_LATBKT_NR - 1;
}

void add_ios(res_clone &c, int d, uint64_t n, uint64_t bs, uint64_t runtime_ns,
	     const std::function<uint64_t(uint64_t)> &lat_ns)
{
	res_ddir &dd = c.ddir[d];
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = lat_ns(i);
		record(&dd.clat, v);
		record(&dd.lat, v + 100);
		c.latbkt[latbkt_index(v)]++;
		c.depth[0]++;
	}
	dd.ios += n;
	dd.bytes += n * bs;
	dd.runtime_ns = runtime_ns;
}


std::string run(const std::string &cmd, int *status)
{
	std::string out;
	FILE *f = popen(cmd.c_str(), "r");
	if (!f)
		throw std::runtime_error("popen failed: " + cmd);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		out.append(buf, n);
	int st = pclose(f);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

std::string root()
{
	std::string here = __FILE__;	// .../tests/report/fixture.cpp, or relative to the root
	size_t pos = here.rfind("tests/report/fixture.cpp");
	std::string r = pos == std::string::npos ? "." : here.substr(0, pos);
	return r.empty() ? "." : r;
}

} // namespace t

// tests/report/fixture.cpp - builders for hand-made plans and results (fixture.hpp).
#include "tests/report/fixture.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include "parser/options.hpp"

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

void default_job(plan_job &j, const job_spec &s, uint32_t job_id, uint32_t *thread)
{
	// fio's defaults from the parser's table; then what this fixture's job says.
	j = parser::default_spec().pj;
	j.name = plan_strdup(s.name.c_str());
	j.section = plan_strdup(s.name.c_str());
	j.description = plan_strdup("");
	j.job_id = job_id;
	j.groupid = s.groupid;
	j.wait_for_job_id = -1;
	j.group_reporting = s.group_reporting;
	j.rw = s.rw;
	j.ioengine = PLAN_IOENGINE_NULL;
	j.size_bytes = 1 << 20;
	j.opts = make_kvs(s.opts);
	j.nr_opts = (uint32_t)s.opts.size();
	j.nr_clones = s.numjobs;
	j.clones = (plan_clone *)plan_calloc(s.numjobs, sizeof(plan_clone));
	for (uint32_t c = 0; c < s.numjobs; c++) {
		plan_clone &cl = j.clones[c];
		cl.clone_index = c;
		cl.thread_number = ++*thread;
		cl.nr_files = 1;
		cl.files = (plan_file *)plan_calloc(1, sizeof(plan_file));
		std::string path = "/tmp/" + s.name + "." + std::to_string(c) + ".0";
		cl.files[0].path = plan_strdup(path.c_str());
		cl.files[0].size_bytes = j.size_bytes;
	}
	if (s.tweak)
		s.tweak(j);
}

} // namespace

plan_holder::plan_holder(const std::vector<job_spec> &jobs,
			 const std::vector<std::pair<std::string, std::string>> &globals)
{
	p_ = plan_alloc();
	std::map<uint32_t, uint32_t> per_group;
	uint32_t nr_groups = 0;
	for (const job_spec &s : jobs) {
		per_group[s.groupid]++;
		nr_groups = std::max(nr_groups, s.groupid + 1);
	}
	p_->nr_groups = nr_groups;
	p_->groups = (plan_group *)plan_calloc(nr_groups, sizeof(plan_group));
	for (uint32_t g = 0; g < nr_groups; g++) {
		p_->groups[g].id = g;
		p_->groups[g].jobs = (plan_job *)plan_calloc(per_group[g], sizeof(plan_job));
	}
	uint32_t thread = 0;
	for (uint32_t i = 0; i < jobs.size(); i++) {
		plan_group &g = p_->groups[jobs[i].groupid];
		default_job(g.jobs[g.nr_jobs++], jobs[i], i, &thread);
	}
	p_->nr_jobs = (uint32_t)jobs.size();
	p_->nr_threads = thread;
	p_->global_opts = make_kvs(globals);
	p_->nr_global_opts = (uint32_t)globals.size();
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

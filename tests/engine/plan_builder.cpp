// tests/engine/plan_builder.cpp - plans with fio's defaults for the engine tests (plan_builder.hpp).
#include "tests/engine/plan_builder.hpp"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <ftw.h>
#include <unistd.h>

#include "parser/options.hpp"

namespace pb {

namespace {

int remove_one(const char *path, const struct stat *, int, struct FTW *)
{
	return ::remove(path);
}

void add_files(plan_clone &c, const job_spec &s, const std::string &dir)
{
	c.nr_files = s.filename.empty() ? s.nrfiles : 1;
	c.files = (plan_file *)plan_calloc(c.nr_files, sizeof(plan_file));
	for (uint32_t f = 0; f < c.nr_files; f++) {
		plan_file &pf = c.files[f];
		std::string path = s.filename.empty()
					   ? dir + "/" + s.name + "." + std::to_string(c.clone_index) +
						     "." + std::to_string(f)
					   : (s.filename[0] == '/' ? s.filename : dir + "/" + s.filename);
		pf.path = plan_strdup(path.c_str());
		pf.size_bytes = s.size / c.nr_files;
		pf.shared = !s.filename.empty() && s.numjobs > 1;
	}
}

void add_clones(plan_job &j, const job_spec &s, const std::string &dir, uint32_t *thread)
{
	j.nr_clones = s.numjobs;
	j.clones = (plan_clone *)plan_calloc(s.numjobs, sizeof(plan_clone));
	for (uint32_t c = 0; c < s.numjobs; c++) {
		plan_clone &pc = j.clones[c];
		pc.clone_index = c;
		pc.thread_number = ++*thread;
		pc.seed = j.randseed + pc.thread_number - 1;
		pc.offset_bytes = j.offset_bytes + (uint64_t)c * j.offset_increment_bytes;
		add_files(pc, s, dir);
		for (uint32_t f = 0; f < pc.nr_files; f++) {
			pc.files[f].offset_bytes = j.offset_bytes;
			if (j.size_bytes != s.size)	// a tweak changed size
				pc.files[f].size_bytes = j.size_bytes / pc.nr_files;
		}
	}
}

} // namespace

tmpdir::tmpdir()
{
	char tmpl[] = "/tmp/ioplan-test-XXXXXX";
	if (!mkdtemp(tmpl))
		throw std::runtime_error("mkdtemp failed");
	path_ = tmpl;
}

tmpdir::~tmpdir()
{
	nftw(path_.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void default_job(plan_job &j)
{
	// The parser's defaults are fio's; only what the planner fills per job
	// (strings, cross-job links) is set here.
	j = parser::default_spec().pj;
	j.description = plan_strdup("");
	j.wait_for_job_id = -1;
}

plan_ptr build(const std::string &dir, const std::vector<job_spec> &specs)
{
	plan_ptr p(plan_alloc());
	std::vector<uint32_t> gid;
	uint32_t g = 0;
	for (size_t i = 0; i < specs.size(); i++) {
		if (i && (specs[i].stonewall || specs[i].new_group))
			g++;
		gid.push_back(g);
	}
	p->nr_groups = specs.empty() ? 0 : g + 1;
	p->groups = (plan_group *)plan_calloc(p->nr_groups, sizeof(plan_group));
	for (uint32_t k = 0; k < p->nr_groups; k++) {
		p->groups[k].id = k;
		p->groups[k].jobs = (plan_job *)plan_calloc(specs.size(), sizeof(plan_job));
	}
	uint32_t thread = 0;
	for (size_t i = 0; i < specs.size(); i++) {
		const job_spec &s = specs[i];
		plan_group &grp = p->groups[gid[i]];
		plan_job &j = grp.jobs[grp.nr_jobs++];
		default_job(j);
		j.name = plan_strdup(s.name.c_str());
		j.section = plan_strdup(s.name.c_str());
		j.job_id = (uint32_t)i;
		j.groupid = gid[i];
		j.stonewall = s.stonewall;
		j.new_group = s.new_group;
		j.rw = s.rw;
		j.ioengine = s.engine;
		j.size_bytes = s.size;
		j.nrfiles = s.filename.empty() ? s.nrfiles : 1;
		j.openfiles = j.nrfiles;
		j.opts = (plan_kv *)plan_calloc(1, sizeof(plan_kv));
		if (s.tweak)
			s.tweak(j);
		plan_job_resolve_queue(&j);	// as the parser does after every option
		add_clones(j, s, dir, &thread);
	}
	p->nr_jobs = (uint32_t)specs.size();
	p->nr_threads = thread;
	p->global_opts = (plan_kv *)plan_calloc(1, sizeof(plan_kv));
	p->allow_device_write = plan_strdup("");
	return p;
}

results_ptr run(const plan &p, int *ret, const eng_opts *o)
{
	results *r = nullptr;
	int rc = eng_run(&p, o, &r);
	if (ret)
		*ret = rc;
	return results_ptr(r);
}

uint64_t job_bytes(const results &r, uint32_t job, int ddir)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < r.nr_jobs; i++)
		if (r.jobs[i].job_id == job)
			for (uint32_t c = 0; c < r.jobs[i].nr_clones; c++)
				n += r.jobs[i].clones[c].ddir[ddir].bytes;
	return n;
}

uint64_t job_ios(const results &r, uint32_t job, int ddir)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < r.nr_jobs; i++)
		if (r.jobs[i].job_id == job)
			for (uint32_t c = 0; c < r.jobs[i].nr_clones; c++)
				n += r.jobs[i].clones[c].ddir[ddir].ios;
	return n;
}

const res_job *find_job(const results &r, uint32_t job, uint32_t run)
{
	for (uint32_t i = 0; i < r.nr_jobs; i++)
		if (r.jobs[i].job_id == job && r.jobs[i].run == run)
			return &r.jobs[i];
	return nullptr;
}

const res_clone &first_clone(const results &r, uint32_t job, uint32_t run)
{
	const res_job *j = find_job(r, job, run);
	if (!j)
		throw std::runtime_error("no results for job " + std::to_string(job) + " run " + std::to_string(run));
	return j->clones[0];
}

void *engine_opts(enum plan_ioengine e, const std::vector<std::pair<std::string, long long>> &values)
{
	const plan_engopts *t = plan_engopts_of(e);
	char *blob = static_cast<char *>(plan_calloc(1, t->size ? t->size : 1));
	auto set = [&](const plan_engopt &o, long long v) {
		if (o.type == PLAN_ENGOPT_BOOL || o.type == PLAN_ENGOPT_FLAG)
			*reinterpret_cast<bool *>(blob + o.off) = v != 0;
		else if (o.type != PLAN_ENGOPT_STRING)
			*reinterpret_cast<long long *>(blob + o.off) = v;
	};
	for (uint32_t i = 0; i < t->nr; i++)
		if (t->opts[i].def && t->opts[i].type != PLAN_ENGOPT_CHOICE)
			set(t->opts[i], std::stoll(t->opts[i].def));
	for (const auto &[name, v] : values) {
		const plan_engopt *o = plan_engopt_find(e, name.c_str());
		if (!o)
			throw std::invalid_argument(name + " is not an option of this engine");
		set(*o, v);
	}
	return blob;
}

} // namespace pb

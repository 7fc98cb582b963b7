// tests/engine/plan_builder.cpp - plans for the engine tests, made by the parser (plan_builder.hpp).
#include "tests/engine/plan_builder.hpp"

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include <ftw.h>
#include <unistd.h>

#include "parser/options.hpp"
#include "tests/parser/plan_text.hpp"

namespace pb {

namespace {

int remove_one(const char *path, const struct stat *, int, struct FTW *)
{
	return ::remove(path);
}

// The job section a spec stands for: what a test varies is given as fio's own
// options, so the parser makes the groups, clones, seeds and file names.
std::string job_text(const job_spec &s, const std::string &dir)
{
	std::ostringstream o;
	o << "[" << s.name << "]\nrw=" << plan_rw_name(s.rw) << "\nioengine=" << plan_ioengine_name(s.engine)
	  << "\nsize=" << s.size << "\nnumjobs=" << s.numjobs << "\n";
	if (s.filename.empty())
		o << "directory=" << dir << "\nnrfiles=" << s.nrfiles << "\n";
	else if (s.filename[0] == '/')
		o << "filename=" << s.filename << "\n";
	else
		o << "directory=" << dir << "\nfilename=" << s.filename << "\n";
	if (s.stonewall)
		o << "stonewall\n";
	if (s.new_group)
		o << "new_group\n";
	for (const auto &[key, value] : s.opts)
		o << key << (value.empty() ? "" : "=" + value) << "\n";
	return o.str();
}

// What the parser derives clones and files from may not be changed after it:
// a tweak that tried would leave the plan in a state no job file makes.
void check_tweak(const plan_job &before, const plan_job &after, const std::string &name)
{
	const bool same = before.size_bytes == after.size_bytes && before.offset_bytes == after.offset_bytes &&
			  before.offset_increment_bytes == after.offset_increment_bytes &&
			  before.randseed == after.randseed && before.randrepeat == after.randrepeat &&
			  before.verify == after.verify && before.rw == after.rw && before.nrfiles == after.nrfiles &&
			  before.ioengine == after.ioengine && before.iodepth == after.iodepth &&
			  before.engine_opts == after.engine_opts;
	if (!same)
		throw std::logic_error("job '" + name + "': a tweak changed what the parser derives clones from; "
				       "give it with opt()");
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

plan_ptr build(const std::string &dir, const std::vector<job_spec> &specs)
{
	std::string text;
	for (const job_spec &s : specs)
		text += job_text(s, dir);
	plan_ptr p(t::plan_of_ini(text).release());
	// Side files a job leaves by default (verify state) go with its files, not into the tree.
	if (!p->aux_path)
		p->aux_path = plan_strdup(dir.c_str());
	for (uint32_t i = 0; i < specs.size(); i++) {
		if (!specs[i].tweak)
			continue;
		plan_job &j = const_cast<plan_job &>(*plan_job_at(p.get(), i));
		plan_job before = j;
		specs[i].tweak(j);
		check_tweak(before, j, specs[i].name);
		plan_job_resolve_queue(&j);	// as the parser does after every option
	}
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

// tests/report/scenarios.cpp - the fixed runs of scenarios.hpp.
//
// Numbers are chosen, not measured: latencies follow simple formulas so every
// statistic (percentiles, buckets, sample stats) has a known, stable value.
#include "tests/report/scenarios.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace t {

namespace {

using opts_t = std::vector<std::pair<std::string, std::string>>;

scenario_run make(const std::vector<job_spec> &jobs, const opts_t &globals = {}, uint32_t runs = 1)
{
	scenario_run s;
	s.plan = std::make_unique<plan_holder>(jobs, globals);
	s.res = std::make_unique<results_holder>(s.plan->get(), runs);
	return s;
}

void samples(res_sample_stat *s, std::initializer_list<double> v)
{
	for (double x : v)
		res_sample_stat_add(s, x);
}

void cpu(res_clone &c, uint64_t usr_ns, uint64_t sys_ns, uint64_t ctx)
{
	c.usr_ns = usr_ns;
	c.sys_ns = sys_ns;
	c.ctx = ctx;
	c.minf = 9;
	c.submit[1] = c.complete[1] = c.ddir[0].ios + c.ddir[1].ios + c.ddir[2].ios;
}

res_disk disk(const char *name, uint64_t rios, uint64_t wios)
{
	res_disk d = {};
	std::snprintf(d.name, sizeof(d.name), "%s", name);
	d.read_ios = rios;
	d.write_ios = wios;
	d.read_merges = rios / 10;
	d.read_ticks_ms = rios / 7;
	d.write_ticks_ms = wios / 5;
	d.in_queue_ms = d.read_ticks_ms + d.write_ticks_ms;
	d.io_ticks_ms = 412;
	d.elapsed_ns = 1000000000ull;
	return d;
}

void add_error(res_clone &c, int err, int d, uint64_t off, uint64_t len, uint64_t done,
	       const char *what)
{
	res_error &e = c.errors[c.nr_errors++];
	e.err = err;
	e.ddir = (uint8_t)d;
	e.file_index = 0;
	e.offset = off;
	e.len = len;
	e.done = done;
	std::snprintf(e.what, sizeof(e.what), "%s", what);
}

scenario_run randread()
{
	scenario_run s = make({ { "randread-4k", PLAN_RW_RANDREAD, 0, 1, false,
				  { { "rw", "randread" }, { "bs", "4k" } }, nullptr } },
			      { { "ioengine", "psync" }, { "size", "8m" } });
	res_clone &c = s.res->clone(0, 0);
	add_ios(c, PLAN_DDIR_READ, 2000, 4096, 1000000000, [](uint64_t i) { return 20000 + (i * 37) % 90000; });
	samples(&c.ddir[0].bw_kib_s, { 7900, 8000, 8100 });
	samples(&c.ddir[0].iops, { 1975, 2000, 2025 });
	cpu(c, 12000000, 83000000, 2004);
	s.res->add_disk(disk("vda", 1990, 3));
	return s;
}

std::vector<job_spec> four_jobs(bool gr)
{
	return {
		{ "a", PLAN_RW_READ, 0, 3, gr, { { "rw", "read" } }, nullptr },
		{ "b", PLAN_RW_WRITE, 0, 1, gr, { { "rw", "write" } }, nullptr },
		{ "c", PLAN_RW_READ, 1, 1, gr, { { "new_group", "" } }, nullptr },
		{ "d", PLAN_RW_READ, 2, 2, gr, { { "stonewall", "" } }, nullptr },
	};
}

scenario_run groups(bool gr)
{
	scenario_run s = make(four_jobs(gr), { { "ioengine", "null" }, { "size", "1m" } });
	uint64_t lat = 10;
	const plan &p = s.plan->get();
	for (uint32_t j = 0; j < p.nr_jobs; j++) {
		const plan_job *pj = plan_job_at(&p, j);
		int d = pj->rw == PLAN_RW_WRITE ? PLAN_DDIR_WRITE : PLAN_DDIR_READ;
		for (uint32_t c = 0; c < pj->nr_clones; c++, lat += 10) {
			res_clone &cl = s.res->clone(j, c);
			add_ios(cl, d, 256, 4096, 800000 + lat * 1000, [lat](uint64_t i) { return lat + i; });
			cpu(cl, 100000, 300000, 2);
			cl.end_ns = 1000000;
			samples(&cl.ddir[d].bw_kib_s, { 1000.0 + (double)lat, 1200.0 + (double)lat });
		}
	}
	return s;
}

scenario_run mixed_fsync_errors()
{
	scenario_run s = make({ { "mixed", PLAN_RW_RANDRW, 0, 1, false,
				  { { "rw", "randrw" }, { "rwmixread", "70" }, { "fsync", "16" },
				    { "continue_on_error", "all" } },
				  [](plan_job &j) {
					  j.rwmixread_pct = 70;
					  j.fsync_every = 16;
					  j.continue_on_error = PLAN_COE_ALL;
					  std::free(j.description);
					  j.description = plan_strdup("mixed with fsync");
					  const double list[] = { 50, 90, 99, 99.9 };
					  j.nr_percentiles = 4;
					  std::memcpy(j.percentiles, list, sizeof(list));
				  } } });
	res_clone &c = s.res->clone(0, 0);
	add_ios(c, PLAN_DDIR_READ, 700, 4096, 500000000, [](uint64_t i) { return 3000 + i * 11; });
	add_ios(c, PLAN_DDIR_WRITE, 300, 4096, 500000000, [](uint64_t i) { return 9000 + i * 23; });
	for (uint64_t i = 0; i < 18; i++)
		record(&c.sync_lat, 400000 + i * 1000);
	c.sync_ios = 18;
	c.depth[0] += 18;	/* each sync's depth, as fio counts it (its IO depths pass 100%) */
	c.total_err = 3;
	c.error = 0;
	add_error(c, EIO, PLAN_DDIR_WRITE, 1 << 20, 4096, 0, "write");
	add_error(c, 0, PLAN_DDIR_READ, 2 << 20, 4096, 512, "read");
	cpu(c, 5000000, 20000000, 1100);
	return s;
}

scenario_run interrupted()
{
	scenario_run s = make({ { "ran", PLAN_RW_WRITE, 0, 1, false, { { "rw", "write" } }, nullptr },
			       { "never", PLAN_RW_READ, 1, 1, false, { { "stonewall", "" } }, nullptr } });
	results &r = s.res->get();
	r.interrupted = true;
	r.end_mono_ns = r.start_mono_ns + 350000000;
	res_clone &c = s.res->clone(0, 0);
	add_ios(c, PLAN_DDIR_WRITE, 100, 65536, 350000000, [](uint64_t i) { return 150000 + i * 100; });
	c.end_ns = 350000000;
	cpu(c, 1000000, 4000000, 101);
	r.nr_jobs = 1;	// stopped before "never" started
	s.res->add_msg(RES_MSG_WARNING, "interrupted", "stopped by SIGINT after 0.35 s", -1);
	s.before_free = [](results &rr) { rr.nr_jobs = 2; };
	return s;
}

scenario_run failed()
{
	scenario_run s = make({ { "filler", PLAN_RW_WRITE, 0, 2, false, { { "rw", "write" } }, nullptr } });
	results &r = s.res->get();
	r.error = ENOSPC;
	for (uint32_t k = 0; k < 2; k++) {
		res_clone &c = s.res->clone(0, k);
		add_ios(c, PLAN_DDIR_WRITE, 40 + k, 131072, 90000000, [](uint64_t i) { return 700000 + i; });
		c.error = ENOSPC;
		add_error(c, ENOSPC, PLAN_DDIR_WRITE, (40 + k) * 131072ull, 131072, 65536, "write");
		cpu(c, 100000, 900000, 45);
	}
	s.res->add_msg(RES_MSG_ERROR, "enospc", "/tmp/filler.0.0: no space left on device", 0);
	s.res->add_msg(RES_MSG_NOTE, "direct-unsupported", "O_DIRECT is not honoured on tmpfs", -1);
	s.res->add_disk(disk("sdb", 0, 81));
	return s;
}

scenario_run nothing()
{
	return make({ { "idle", PLAN_RW_READ, 0, 1, false, {}, nullptr } });
}

scenario_run hostile()
{
	scenario_run s = make({ { "we\"ird\\ name;semi\tcolon\x01\xff", PLAN_RW_READ, 0, 1, false,
				  { { "rw", "read" }, { "bs", "4k" }, { "rw", "randread" }, { "bs", "8k" } },
				  [](plan_job &j) {
					  std::free(j.description);
					  j.description = plan_strdup("two\nlines; \"quoted\" \xc3\xa9");
				  } } },
			      { { "bs", "4k" }, { "size", "1m" }, { "bs", "16k" }, { "name\"q", "\\" } });
	res_clone &c = s.res->clone(0, 0);
	add_ios(c, PLAN_DDIR_READ, 10, 8192, 1000000, [](uint64_t i) { return 1000 * (i + 1); });
	s.res->add_msg(RES_MSG_WARNING, "odd\"code", "text with \"quotes\", \\ and \x7f", 0);
	return s;
}

scenario_run non_finite()
{
	scenario_run s = make({ { "nonfinite", PLAN_RW_READ, 0, 1, false, {}, nullptr } });
	results &r = s.res->get();
	r.clock_cost_ns = std::nan("");
	res_clone &c = s.res->clone(0, 0);
	add_ios(c, PLAN_DDIR_READ, 5, 4096, 1000, [](uint64_t i) { return 100 + i; });
	res_sample_stat &bw = c.ddir[0].bw_kib_s;
	bw.n = 2;
	bw.min = 1;
	bw.max = INFINITY;
	bw.mean = INFINITY;
	bw.m2 = std::nan("");
	res_sample_stat &io = c.ddir[0].iops;
	io.n = 1;
	io.min = io.max = io.mean = -INFINITY;
	return s;
}

scenario_run repeated()
{
	scenario_run s = make({ { "rep", PLAN_RW_READ, 0, 1, false, {}, [](plan_job &j) {
					 j.repeat = 3;
					 j.repeat_discard = 1;
					 j.repeat_aggregate = PLAN_AGG_MEDIAN;
				 } } },
			      {}, 4);
	s.res->job_run(0, 0).discarded = true;
	const uint64_t ios[] = { 5000, 100, 300, 200 }, lat[] = { 1, 900, 500, 700 };
	for (uint32_t run = 0; run < 4; run++) {
		uint64_t l = lat[run];
		add_ios(s.res->clone(0, 0, run), PLAN_DDIR_READ, ios[run], 4096, 1000000000,
			[l](uint64_t i) { return l + i % 7; });
	}
	return s;
}

scenario_run rate_limited()
{
	scenario_run s = make({ { "writer", PLAN_RW_RANDWRITE, 0, 1, false, { { "rate_iops", "500" } },
				  [](plan_job &j) { j.rate_iops[PLAN_DDIR_WRITE] = 500; } },
				{ "reader", PLAN_RW_RANDREAD, 1, 2, false, { { "rate", "4m" }, { "stonewall", "" } },
				  [](plan_job &j) { j.rate_bytes_per_s[PLAN_DDIR_READ] = 4 << 20; } } },
			      { { "time_based", "" }, { "runtime", "1500ms" } });
	res_clone &w = s.res->clone(0, 0);
	add_ios(w, PLAN_DDIR_WRITE, 750, 4096, 1501000000, [](uint64_t i) { return 4000 + (i * 131) % 30000; });
	w.ddir[1].target_iops = 500;
	for (uint64_t i = 0; i < 750; i++)
		record(&w.ddir[1].sched_lat, 5000 + (i * 131) % 30000);
	samples(&w.ddir[1].bw_kib_s, { 2000, 2006 });
	samples(&w.ddir[1].iops, { 500, 501 });
	for (uint32_t k = 0; k < 2; k++) {
		res_clone &r = s.res->clone(1, k);
		add_ios(r, PLAN_DDIR_READ, 1500, 4096, 1501000000, [k](uint64_t i) { return 26000 + (i * 97 + k) % 400000; });
		r.ddir[0].target_bytes_per_s = 4 << 20;
		samples(&r.ddir[0].bw_kib_s, { 4000, 4008 });
		samples(&r.ddir[0].iops, { 1000, 1002 });
		cpu(r, 37000000, 0, 3009);
	}
	return s;
}

scenario_run libaio_kb1000()
{
	scenario_run s = make({ { "aio", PLAN_RW_RANDREAD, 0, 1, false,
				  { { "iodepth", "8" }, { "lat_percentiles", "1" }, { "kb_base", "1000" } },
				  [](plan_job &j) {
					  j.ioengine = PLAN_IOENGINE_LIBAIO;
					  j.iodepth = 8;
					  j.kb_base = 1000;
					  j.lat_percentiles = true;
				  } } });
	res_clone &c = s.res->clone(0, 0);
	add_ios(c, PLAN_DDIR_READ, 512, 4096, 30000000, [](uint64_t i) { return 50000 + (i * 7919) % 2000000; });
	for (uint64_t i = 0; i < 512; i++)
		record(&c.ddir[0].slat, 800 + i % 300);
	c.depth[0] = 0;
	c.depth[3] = 500;
	c.depth[2] = 12;
	c.submit[1] = 100;
	c.submit[2] = 52;
	c.complete[1] = 160;
	samples(&c.ddir[0].bw_kib_s, { 68000, 69000, 70500 });
	cpu(c, 3000000, 9000000, 600);
	c.submit[1] = 100;
	c.complete[1] = 160;
	return s;
}

} // namespace

scenario_run::~scenario_run()
{
	if (res && before_free)
		before_free(res->get());
}

const std::vector<scenario> &scenarios()
{
	static const std::vector<scenario> list = {
		{ "randread", randread },
		{ "group-reporting", [] { return groups(true); } },
		{ "clones-and-groups", [] { return groups(false); } },
		{ "mixed-fsync-errors", mixed_fsync_errors },
		{ "interrupted", interrupted },
		{ "failed-enospc", failed },
		{ "nothing-done", nothing },
		{ "hostile-names", hostile },
		{ "non-finite", non_finite },
		{ "repeat-median", repeated },
		{ "rate-limited", rate_limited },
		{ "libaio-kb1000", libaio_kb1000 },
	};
	return list;
}

std::string render(scenario_run &s, unsigned formats)
{
	std::ostringstream out;
	report::options o;
	o.formats = formats;
	o.pid = 4242;
	report::write(s.res->get(), s.plan->get(), o, out);
	return out.str();
}

} // namespace t

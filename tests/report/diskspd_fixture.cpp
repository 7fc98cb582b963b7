// tests/report/diskspd_fixture.cpp - the DISKSPD-shaped run of diskspd_fixture.hpp.
#include "tests/report/diskspd_fixture.hpp"

#include <cstdlib>
#include <cstring>

namespace t {

namespace {

void diskspd_job(plan_job &j)
{
	j.rwmixread_pct = 60;
	j.iodepth = 4;
	j.direct = true;
	j.sync_mode = PLAN_SYNC_DSYNC;
	j.runtime_ns = 2000000000ull;
	j.time_based = true;
	j.randseed = 5;
	j.ioengine = PLAN_IOENGINE_IO_URING;
	j.percentage_random_pct[PLAN_DDIR_READ] = 100;
	j.percentage_random_pct[PLAN_DDIR_WRITE] = 100;
	j.norandommap = true;
	j.fadvise_hint = PLAN_FADVISE_NONE;	// a line without -fr or -fs states no hint
	j.iops_avg_time_ns = 1000000000ull;
	for (uint32_t c = 0; c < j.nr_clones; c++) {
		plan_file &f = j.clones[c].files[0];
		free(f.path);
		f.path = plan_strdup("testfile.dat");
		f.size_bytes = 1ull << 30;
		f.shared = true;
		j.clones[c].seed = 5 + c;
	}
}

// Latencies (ns) the histogram holds exactly: bucket midpoints near whole ms.
const uint64_t reads0[] = { 1003520, 2007040, 2998272, 4014080, 5013504, 5996544 };
const uint64_t writes0[] = { 10027008, 20054016, 30015488, 40108032 };
const uint64_t reads1[] = { 6979584, 8028160 };

void add(res_clone &c, int d, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		record(&c.ddir[d].lat, v[i]);
	c.ddir[d].ios += n;
	c.ddir[d].bytes += n * 4096;
	c.ddir[d].runtime_ns = 2000000000ull;
}

// Two 1 s IOPS samples with the given read and write counts.
void samples(res_clone &c, uint64_t r0, uint64_t w0, uint64_t r1, uint64_t w1)
{
	res_series &s = c.iops_series;
	s.interval_ns = 1000000000ull;
	s.nr = s.cap = 2;
	s.samples = (res_sample *)calloc(2, sizeof(res_sample));
	s.samples[0].t_end_ns = s.samples[1].t_start_ns = 1000000000ull;
	s.samples[1].t_end_ns = 2000000000ull;
	s.samples[0].ios[PLAN_DDIR_READ] = r0;
	s.samples[0].ios[PLAN_DDIR_WRITE] = w0;
	s.samples[1].ios[PLAN_DDIR_READ] = r1;
	s.samples[1].ios[PLAN_DDIR_WRITE] = w1;
}

} // namespace

diskspd_run::diskspd_run(bool with_ios)
{
	p_.reset(new plan_holder({ { "target1", PLAN_RW_RANDRW, 0, 2, true, {}, diskspd_job } }));
	r_.reset(new results_holder(p_->get()));
	::results &r = r_->get();
	r.nr_cpus = 2;
	r.cpus = (res_cpu *)calloc(2, sizeof(res_cpu));
	r.cpus[0] = { 0, 100000000, 50000000, 850000000 };
	r.cpus[1] = { 1, 0, 0, 1000000000 };
	for (uint32_t c = 0; c < 2; c++) {
		clone(c).start_ns = 0;
		clone(c).end_ns = 2000000000ull;
	}
	if (!with_ios)
		return;
	add(clone(0), PLAN_DDIR_READ, reads0, 6);
	add(clone(0), PLAN_DDIR_WRITE, writes0, 4);
	add(clone(1), PLAN_DDIR_READ, reads1, 2);
	samples(clone(0), 4, 3, 2, 1);
	samples(clone(1), 1, 0, 1, 0);
}

report::diskspd::options diskspd_run::opts() const
{
	report::diskspd::options o;
	o.command_line = "diskspd -b4K -c1G -r -o4 -t2 -Sh -n -D -L -W0 -d2 -w40 -z5 testfile.dat";
	o.measure_latency = true;
	o.iops_stddev = true;
	o.iops_interval_ms = 1000;
	o.disable_affinity = true;
	return o;
}

} // namespace t

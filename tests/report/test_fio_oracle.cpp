// tests/report/test_fio_oracle.cpp - ioplan's terse, JSON and normal writers
// against fio 3.33 on fio's own numbers (fio_oracle.hpp): every terse field,
// every JSON key path and type, every normal line.
#include <doctest/doctest.h>

#include <cmath>
#include <future>
#include <set>
#include <sstream>

#include "tests/report/fio_oracle.hpp"
#include "tests/report/strict_json.hpp"

namespace {

struct oracle_case {
	const char *name;
	std::string job;
	std::vector<enum plan_rw> rw;	// per entry of fio's jobs[]
	std::vector<uint32_t> members = {};	// per entry: clones merged by group_reporting
};

// Seed 001's fio_setting.txt (CrystalDiskMark's eight tests, one group each
// by a global stonewall) with size=1g cut to 2m.  fio spends ~0.3 s per group,
// so the eight sections run as three job files, [first, last).
std::string fio_setting(size_t first, size_t last)
{
	static const char *const sections[] = {
		"[SEQ1M_Q8T1_READ]\nrw=read\nbs=1m\niodepth=8\nnumjobs=1\n",
		"[SEQ1M_Q8T1_WRITE]\nrw=write\nbs=1m\niodepth=8\nnumjobs=1\n",
		"[SEQ1M_Q1T1_READ]\nrw=read\nbs=1m\niodepth=1\nnumjobs=1\n",
		"[SEQ1M_Q1T1_WRITE]\nrw=write\nbs=1m\niodepth=1\nnumjobs=1\n",
		"[RND4K_Q32T1_READ]\nrw=randread\nbs=4k\niodepth=32\nnumjobs=1\n",
		"[RND4K_Q32T1_WRITE]\nrw=randwrite\nbs=4k\niodepth=32\nnumjobs=1\n",
		"[RND4K_Q1T1_READ]\nrw=randread\nbs=4k\niodepth=1\nnumjobs=1\n",
		"[RND4K_Q1T1_WRITE]\nrw=randwrite\nbs=4k\niodepth=1\nnumjobs=1\n",
	};
	std::string job = "[global]\nioengine=libaio\nsize=2m\ndirect=1\nruntime=60\nstonewall\n";
	for (size_t i = first; i < last; i++)
		job += std::string("\n") + sections[i];
	return job;
}

// Seed 002's Azure job files (fiowrite.ini, fioread.ini, fioreadwrite.ini)
// with size=30g cut to 256k and the directory= lines left out (the run's own
// temporary directory stands in for /mnt/nocache and /mnt/readcache).
std::string azure(const char *depth, const char *sections)
{
	return std::string("[global]\nsize=256k\ndirect=1\niodepth=") + depth +
	       "\nioengine=libaio\nbs=4k\nnumjobs=4\n\n" + sections;
}

std::vector<enum plan_rw> times(size_t n, enum plan_rw rw, std::vector<enum plan_rw> v = {})
{
	v.insert(v.end(), n, rw);
	return v;
}

std::vector<oracle_case> cases()
{
	return {
		{ "null engine, three groups, block sizes, mixed",
		  "[global]\nioengine=null\nsize=1m\n"
		  "[seqread]\nrw=read\nbs=64k\n"
		  "[randwrite]\nrw=randwrite\nbs=8k\nnew_group\n"
		  "[mixed]\nrw=randrw\nrwmixread=70\nstonewall\n",
		  { PLAN_RW_READ, PLAN_RW_RANDWRITE, PLAN_RW_RANDRW } },
		{ "psync, rate-limited, bw and iops samples, numjobs",
		  "[global]\nioengine=psync\nfilename=rate.dat\nsize=1m\nbs=4k\ntime_based\n"
		  "runtime=400ms\nbwavgtime=100\niopsavgtime=100\n"
		  "[writer]\nrw=randwrite\nrate_iops=500\n"
		  "[reader]\nstonewall\nrw=randread\nnumjobs=2\nrate_iops=1000\n",
		  { PLAN_RW_RANDWRITE, PLAN_RW_RANDREAD, PLAN_RW_RANDREAD } },
		{ "psync, fsync, description, continue_on_error, own percentile list",
		  "[global]\nioengine=psync\nfilename=sync.dat\nsize=2m\nbs=4k\n"
		  "[mixed]\nrw=randrw\nrwmixread=70\nfsync=16\ndescription=mixed with fsync\n"
		  "continue_on_error=all\npercentile_list=50:90:99:99.9\n",
		  { PLAN_RW_RANDRW } },
		{ "libaio, queue depth 8, slat, lat percentiles, kb_base=1000",
		  "[global]\nioengine=libaio\nfilename=aio.dat\nsize=2m\nbs=4k\niodepth=8\n"
		  "[aio]\nrw=randread\nlat_percentiles=1\nkb_base=1000\n",
		  { PLAN_RW_RANDREAD } },
		{ "null engine, mixed randrw, rwmixread=30",
		  "[global]\nioengine=null\nsize=2m\n[mix]\nrw=randrw\nrwmixread=30\nbs=4k\n",
		  { PLAN_RW_RANDRW } },
		{ "null engine, group_reporting, numjobs=2 and numjobs=3 in two groups",
		  "[global]\nioengine=null\nsize=1m\ngroup_reporting\n"
		  "[pair]\nrw=randread\nnumjobs=2\n[solo]\nstonewall\nrw=write\nnumjobs=3\n",
		  { PLAN_RW_RANDREAD, PLAN_RW_WRITE }, { 2, 3 } },
		{ "null engine, two groups by stonewall, different block sizes",
		  "[global]\nioengine=null\nsize=512k\n[first]\nrw=read\n"
		  "[second]\nstonewall\nrw=write\nbs=16k\n",
		  { PLAN_RW_READ, PLAN_RW_WRITE } },
		{ "null engine, rate_iops=1000",
		  "[global]\nioengine=null\nsize=400k\nbs=4k\n[limited]\nrw=randread\nrate_iops=1000\n",
		  { PLAN_RW_RANDREAD } },
		{ "null engine, bssplit",
		  "[global]\nioengine=null\nsize=4m\n[split]\nrw=randread\nbssplit=4k/50:64k/30:128k/20\n",
		  { PLAN_RW_RANDREAD } },
		{ "seed 001 fio_setting.txt, sections 1-3",
		  fio_setting(0, 3), { PLAN_RW_READ, PLAN_RW_WRITE, PLAN_RW_READ } },
		{ "seed 001 fio_setting.txt, sections 4-6",
		  fio_setting(3, 6), { PLAN_RW_WRITE, PLAN_RW_RANDREAD, PLAN_RW_RANDWRITE } },
		{ "seed 001 fio_setting.txt, sections 7-8",
		  fio_setting(6, 8), { PLAN_RW_RANDREAD, PLAN_RW_RANDWRITE } },
		{ "seed 002 fiowrite.ini", azure("256", "[writer1]\nrw=randwrite\n"),
		  times(4, PLAN_RW_RANDWRITE) },
		{ "seed 002 fioread.ini", azure("256", "[reader1]\nrw=randread\n"),
		  times(4, PLAN_RW_RANDREAD) },
		{ "seed 002 fioreadwrite.ini",
		  azure("128", "[reader1]\nrw=randread\n\n[writer1]\nrw=randwrite\nrate_iops=3200\n"),
		  times(4, PLAN_RW_RANDWRITE, times(4, PLAN_RW_RANDREAD)) },
	};
}

bool is_number(const std::string &s, double *v)
{
	std::string x = s;
	if (!x.empty() && x.back() == '%')
		x.pop_back();
	if (x.empty())
		return false;
	char *end = nullptr;
	*v = std::strtod(x.c_str(), &end);
	return end && *end == '\0';
}

// ioplan never reports a percentile outside [min, max]; fio may (bucket midpoints).
uint64_t clamped(const nlohmann::json &lat, const std::string &key)
{
	uint64_t v = lat.at("percentile").at(key).get<uint64_t>();
	uint64_t lo = lat.at("min").get<uint64_t>(), hi = lat.at("max").get<uint64_t>();
	return v < lo ? lo : v > hi ? hi : v;
}

void check_percentile_field(const nlohmann::json &ddir, bool lat_pct, const std::string &fio_f,
			    const std::string &our_f)
{
	size_t eq = fio_f.find("%=");
	REQUIRE(eq != std::string::npos);
	std::string key = fio_f.substr(0, eq);
	const nlohmann::json &lat = ddir.at(lat_pct ? "lat_ns" : "clat_ns");
	if (key == "0" || !lat.contains("percentile")) {
		CHECK(our_f == fio_f);
		return;
	}
	// fio's own consistency: terse = JSON ns / 1000.
	CHECK(fio_f == key + "%=" + std::to_string(lat.at("percentile").at(key).get<uint64_t>() / 1000));
	CHECK(our_f == key + "%=" + std::to_string(clamped(lat, key) / 1000));
}

void check_terse(const t::fio_run &f, t::rebuilt &b)
{
	std::vector<std::string> ours = t::ioplan_terse(b);
	REQUIRE(ours.size() == f.terse.size());
	const nlohmann::json &jobs = f.json.at("jobs");
	for (size_t i = 0; i < ours.size(); i++) {
		std::vector<std::string> fa = t::split(f.terse[i], ';'), fb = t::split(ours[i], ';');
		INFO("terse line " << i << "\nfio:    " << f.terse[i] << "\nioplan: " << ours[i]);
		REQUIRE(fa.size() == fb.size());
		bool lat_pct = jobs[i].at("read").at("lat_ns").contains("percentile") ||
			       jobs[i].at("write").at("lat_ns").contains("percentile");
		for (size_t k = 0; k < fa.size(); k++) {
			INFO("field " << k + 1 << ": fio " << fa[k] << ", ioplan " << fb[k]);
			if (k == 1) {
				CHECK(fb[k].rfind("ioplan-", 0) == 0);
				continue;
			}
			if ((k >= 17 && k <= 36) || (k >= 58 && k <= 77)) {
				check_percentile_field(jobs[i].at(k < 40 ? "read" : "write"), lat_pct,
						       fa[k], fb[k]);
				continue;
			}
			double x, y;
			if (fa[k].find('.') != std::string::npos && is_number(fa[k], &x) &&
			    is_number(fb[k], &y)) {
				double tol = (k == 87 || k == 88) ? 1e-3 : 2e-6 + 1e-5 * std::fabs(x);
				CHECK(std::fabs(x - y) <= tol);
				CHECK((fa[k].back() == '%') == (fb[k].back() == '%'));
			} else {
				CHECK(fb[k] == fa[k]);
			}
		}
	}
}

void check_json(const t::fio_run &f, t::rebuilt &b)
{
	nlohmann::json ours = t::ioplan_json(b, true);
	for (auto &kv : f.json.items())
		CHECK_MESSAGE(ours.contains(kv.key()), "top-level key " << kv.key());
	const nlohmann::json &fj = f.json.at("jobs"), &oj = ours.at("jobs");
	REQUIRE(oj.size() == fj.size());
	for (size_t i = 0; i < fj.size(); i++) {
		std::vector<std::pair<std::string, std::string>> fp, op;
		t::key_paths(fj[i], "", &fp);
		t::key_paths(oj[i], "", &op);
		std::set<std::pair<std::string, std::string>> have(op.begin(), op.end());
		for (auto &p : fp)
			CHECK_MESSAGE(have.count(p), "jobs[" << i << "]" << p.first << " (" << p.second
							     << ") missing or of another type");
		for (const char *d : { "read", "write", "trim" })
			for (const char *k : { "io_bytes", "io_kbytes", "bw_bytes", "bw", "runtime",
					       "total_ios", "short_ios", "drop_ios", "bw_min", "bw_max" })
				CHECK(oj[i][d][k] == fj[i][d][k]);
		CHECK(oj[i]["jobname"] == fj[i]["jobname"]);
		CHECK(oj[i]["groupid"] == fj[i]["groupid"]);
	}
	// Plain json has no histogram bins anywhere.
	std::string plain = t::ioplan_json(b, false).dump();
	CHECK(plain.find("\"bins\"") == std::string::npos);
	CHECK(ours.dump().find("\"bins\"") != std::string::npos);
}

// ioplan's documents from fio's real numbers validate against the schema too.
void check_schema(t::rebuilt &b)
{
	std::string out;
	CHECK_MESSAGE(t::schema_valid({ t::ioplan_json_text(b, false), t::ioplan_json_text(b, true) },
				      &out),
		      out);
}

// ioplan closes normal output with its caveats ("ioplan: warning: ..."), which
// fio does not print: compare what comes before them, blank lines at the end aside.
void drop_caveat_tail(std::vector<std::string> *rest)
{
	while (!rest->empty() && (rest->back().empty() || rest->back().rfind("ioplan: warning: ", 0) == 0))
		rest->pop_back();
}

void check_normal(const t::fio_run &f, t::rebuilt &b, t::rebuilt &wide)
{
	std::vector<std::string> fio_blocks, fio_rest, our_blocks, our_rest, wide_blocks, wide_rest;
	t::split_percentile_blocks(f.normal, &fio_blocks, &fio_rest);
	t::split_percentile_blocks(t::ioplan_normal(b), &our_blocks, &our_rest);
	t::split_percentile_blocks(t::ioplan_normal(wide), &wide_blocks, &wide_rest);
	for (auto *rest : { &fio_rest, &our_rest, &wide_rest })
		drop_caveat_tail(rest);
	REQUIRE(wide_blocks.size() == fio_blocks.size());
	for (size_t i = 0; i < fio_blocks.size(); i++)
		CHECK(wide_blocks[i] == fio_blocks[i]);
	CHECK(our_blocks.size() == fio_blocks.size());
	REQUIRE(our_rest.size() == fio_rest.size());
	for (size_t i = 0; i < fio_rest.size(); i++) {
		const std::string &a = fio_rest[i], &o = our_rest[i];
		INFO("normal line " << i << "\nfio:    " << a << "\nioplan: " << o);
		std::string why;
		if (a.find("(groupid=") != std::string::npos)
			CHECK(o.substr(0, o.find("pid=")) == a.substr(0, a.find("pid=")));
		else if (a.find("avg=") != std::string::npos || a.rfind("  cpu ", 0) == 0)
			CHECK_MESSAGE(t::lines_match_approx(o, a, &why), why);
		else
			CHECK(o == a);
	}
}

} // namespace

TEST_CASE("fio oracle: terse, json+ and normal output match fio 3.33 on fio's numbers")
{
	// fio spends most of its time idle (start-up, reaping), so the runs go
	// side by side: the wall time is about that of the slowest one.
	const std::vector<oracle_case> all = cases();
	std::vector<std::future<t::fio_run>> runs;
	for (const oracle_case &c : all)
		runs.push_back(std::async(std::launch::async, t::run_fio, c.job));
	for (size_t i = 0; i < runs.size(); i++) {
		const oracle_case &c = all[i];
		INFO("case: " << std::string(c.name));
		t::fio_run f = runs[i].get();
		REQUIRE(f.terse.size() == c.rw.size());
		t::rebuilt b = t::rebuild(f.json, c.rw, false, c.members);
		t::rebuilt wide = t::rebuild(f.json, c.rw, true, c.members);
		check_terse(f, b);
		check_json(f, b);
		check_normal(f, b, wide);
		check_schema(b);
	}
}

TEST_CASE("fio oracle: the harness itself notices a wrong number")
{
	t::fio_run f = t::run_fio(cases()[0].job);
	t::rebuilt b = t::rebuild(f.json, cases()[0].rw, false);
	std::vector<std::string> good = t::ioplan_terse(b);
	b.res->clone(0, 0).ddir[PLAN_DDIR_READ].bytes += 4096;
	std::vector<std::string> bad = t::ioplan_terse(b);
	CHECK(t::split(good[0], ';')[5] == t::split(f.terse[0], ';')[5]);
	CHECK(t::split(bad[0], ';')[5] != t::split(f.terse[0], ';')[5]);
	std::string why;
	CHECK_FALSE(t::lines_match_approx("avg=10.00, stdev=1.00", "avg=10.50, stdev=1.00", &why));
	CHECK(t::lines_match_approx("avg=10.00, stdev=1.00", "avg=10.01, stdev=1.00", &why));
}

// Seconds-long latencies, as fio reports them from a loaded machine: the sum of
// squares passes 2^64 and its low word 2^63; the rebuilt stdev is fio's.
TEST_CASE("fio oracle: a stdev of seconds survives the rebuild")
{
	for (double sd : { 231371009.164, 254013563.220 }) {
		nlohmann::json o = { { "N", 512 }, { "min", 93 }, { "max", 2204510000ull },
				     { "mean", 66707349.305 }, { "stddev", sd } };
		res_lat l{};
		t::rebuild_lat(&l, o, false);
		CHECK(l.sumsq_hi >= 1);
		CHECK(res_lat_stddev(&l) == doctest::Approx(sd).epsilon(1e-9));
	}
}

// tests/engine/test_iogen.cpp - access patterns (engine/gen/iogen.c) through the engine with
// the null engine's recorded I/Os: mixes, block sizes, alignment, offsets, distributions.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

namespace {

std::vector<res_io_rec> trace_of(const results &r, uint32_t job = 0, uint32_t clone = 0)
{
	const res_job *j = pb::find_job(r, job);
	REQUIRE(j);
	const res_clone &c = j->clones[clone];
	return std::vector<res_io_rec>(c.trace, c.trace + c.trace_nr);
}

pb::results_ptr run_ok(const plan &p)
{
	int ret = -1;
	auto r = pb::run(p, &ret);
	REQUIRE(ret == 0);
	return r;
}

} // namespace

TEST_CASE("iogen: randrw draws each I/O's direction by rwmixread and shares one random map")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("m", PLAN_RW_RANDRW, PLAN_IOENGINE_NULL, 16 << 20)
					       .with([](plan_job &j) {
						       j.rwmixread_pct = 70;
						       j.io_trace_max = 5000;
					       }) });
	auto r = run_ok(*p);
	uint64_t rd = pb::job_ios(*r, 0, PLAN_DDIR_READ), wr = pb::job_ios(*r, 0, PLAN_DDIR_WRITE);
	CHECK(rd + wr == 4096);
	CHECK(pb::job_bytes(*r, 0, PLAN_DDIR_READ) + pb::job_bytes(*r, 0, PLAN_DDIR_WRITE) == 16u << 20);
	CHECK((double)rd / 4096.0 == doctest::Approx(0.70).epsilon(0.05));
	auto t = trace_of(*r);
	std::set<uint64_t> offs;
	for (auto &x : t)
		offs.insert(x.offset);
	CHECK(offs.size() == 4096);
	// Not alternating in a fixed pattern: runs of the same direction occur.
	int runs3 = 0;
	for (size_t i = 2; i < t.size(); i++)
		runs3 += t[i].ddir == t[i - 1].ddir && t[i].ddir == t[i - 2].ddir && t[i].ddir == 1;
	CHECK(runs3 > 10);
}

TEST_CASE("iogen: random_generator=lfsr covers every block once per pass even with norandommap")
{
	for (bool lfsr : { false, true }) {
		pb::tmpdir d;
		auto p = pb::build(d.path(), { job_spec("l", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 1 << 20)
						       .with([&](plan_job &j) {
							       j.norandommap = true;
							       j.random_lfsr = lfsr;
							       j.io_trace_max = 1000;
						       }) });
		auto r = run_ok(*p);
		std::set<uint64_t> offs;
		bool sequential = true;
		auto t = trace_of(*r);
		for (size_t i = 0; i < t.size(); i++) {
			offs.insert(t[i].offset);
			sequential = sequential && t[i].offset == i * 4096;
		}
		CHECK(t.size() == 256);
		CHECK(!sequential);
		// Plain norandommap repeats blocks (256 uniform draws of 256 leave about 94 untouched).
		if (lfsr)
			CHECK(offs.size() == 256);
		else
			CHECK(offs.size() < 200);
	}
}

TEST_CASE("iogen: rw mixes sequentially, each direction walking its own position")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("s", PLAN_RW_RW, PLAN_IOENGINE_NULL, 1 << 20).with([](plan_job &j) {
		j.io_trace_max = 1000;
	}) });
	auto r = run_ok(*p);
	auto t = trace_of(*r);
	REQUIRE(t.size() == 256);
	uint64_t next[2] = { 0, 0 };
	for (auto &x : t) {
		CHECK(x.offset == next[x.ddir] % (1 << 20));
		next[x.ddir] += 4096;
	}
	CHECK(next[0] > 0);
	CHECK(next[1] > 0);
}

TEST_CASE("iogen: bssplit picks sizes by share; bsrange stays in range on multiples of the minimum")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(),
			   { job_spec("split", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 32 << 20).with([](plan_job &j) {
				     j.io_trace_max = 20000;
				     j.norandommap = true;	// the map would shorten I/Os (see below)
				     plan_bs &b = j.bs[PLAN_DDIR_READ];
				     auto *split = (plan_bssplit *)plan_calloc(2, sizeof(plan_bssplit));	// the plan frees it
				     split[0] = { 4096, 75 };
				     split[1] = { 65536, 25 };
				     b.nr_split = 2;
				     b.split = split;
				     b.min_bytes = 4096;
				     b.max_bytes = 65536;
			     }),
			     job_spec("range", PLAN_RW_READ, PLAN_IOENGINE_NULL, 8 << 20).with([](plan_job &j) {
				     j.io_trace_max = 20000;
				     j.bs[PLAN_DDIR_READ].min_bytes = 4096;
				     j.bs[PLAN_DDIR_READ].max_bytes = 16384;
			     }) });
	auto r = run_ok(*p);
	// fio stops at the first I/O that reaches size=, so the last one may pass it
	// (fio 3.33 with randseed=1..5: 32 MiB + 32768, 24576, 57344, 0, 4096 bytes).
	uint64_t bytes = pb::job_bytes(*r, 0, PLAN_DDIR_READ);
	auto split_trace = trace_of(*r, 0);
	REQUIRE(!split_trace.empty());
	CHECK(bytes >= 32u << 20);
	CHECK(bytes - split_trace.back().bytes < 32u << 20);
	std::map<uint32_t, int> sizes;
	for (auto &x : split_trace)
		sizes[x.bytes]++;
	int n4 = sizes[4096], n64 = sizes[65536];
	CHECK(n4 + n64 >= (int)trace_of(*r, 0).size() - 1);	// the last may be clamped
	CHECK((double)n4 / (n4 + n64) == doctest::Approx(0.75).epsilon(0.06));
	CHECK(pb::job_bytes(*r, 1, PLAN_DDIR_READ) == 8u << 20);
	std::set<uint32_t> seen;
	uint64_t pos = 0;
	for (auto &x : trace_of(*r, 1)) {
		CHECK(x.bytes % 4096 == 0);
		CHECK(x.bytes >= 4096);
		CHECK(x.bytes <= 16384);
		CHECK(x.offset == pos);
		pos += x.bytes;
		seen.insert(x.bytes);
	}
	CHECK(seen.size() == 4);
}

TEST_CASE("iogen: each clone sorts its own copy of a bssplit; the plan its clones share stays as written")
{
	// fio walks a bssplit smallest share first.  The sort once went into the plan,
	// which all clones read at once: a clone could copy another's half-sorted table
	// and draw other sizes (fio's jesd219 example, numjobs=4, now and then).
	pb::tmpdir d;
	auto spec = [](const char *split) {
		return job_spec("s", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 4 << 20, 4)
			.opt("bssplit", split)
			.opt("norandommap")
			.with([](plan_job &j) { j.io_trace_max = 4000; });
	};
	auto as_written = pb::build(d.path(), { spec("4k/67:512/4:64k/3:8k/10:1k/16") });
	auto presorted = pb::build(d.path(), { spec("64k/3:512/4:8k/10:1k/16:4k/67") });
	auto a = run_ok(*as_written), b = run_ok(*presorted);
	const plan_bs &bs = plan_job_at(as_written.get(), 0)->bs[PLAN_DDIR_READ];
	std::vector<uint64_t> order;
	for (uint32_t i = 0; i < bs.nr_split; i++)
		order.push_back(bs.split[i].bs_bytes);
	CHECK(order == std::vector<uint64_t>{ 4096, 512, 65536, 8192, 1024 });
	for (uint32_t c = 0; c < 4; c++) {
		auto ta = trace_of(*a, 0, c), tb = trace_of(*b, 0, c);
		std::set<uint32_t> sizes;
		REQUIRE(ta.size() == tb.size());
		for (size_t i = 0; i < ta.size(); i++) {
			CHECK(ta[i].offset == tb[i].offset);
			CHECK(ta[i].bytes == tb[i].bytes);
			sizes.insert(ta[i].bytes);
		}
		CHECK(sizes.size() == 5);
	}
}

TEST_CASE("iogen: with the random map, bsrange I/Os stop where a block is done: each 512 B once (t0023)")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("m", PLAN_RW_RANDTRIMWRITE, PLAN_IOENGINE_NULL, 1 << 20)
					       .with([](plan_job &j) {
						       j.io_trace_max = 20000;
						       for (plan_bs &b : j.bs) {
							       b.min_bytes = 512;
							       b.max_bytes = 4096;
						       }
					       }) });
	auto r = run_ok(*p);
	std::vector<int> hits(2048, 0);
	std::set<uint32_t> lens;
	for (auto &x : trace_of(*r)) {
		if (x.ddir != PLAN_DDIR_WRITE)
			continue;
		lens.insert(x.bytes);
		for (uint64_t s = x.offset / 512; s < (x.offset + x.bytes) / 512; s++)
			hits[s]++;
	}
	CHECK(std::count(hits.begin(), hits.end(), 1) == 2048);	// every sector, none twice
	CHECK(lens.size() > 4);					// lengths still vary
}

TEST_CASE("iogen: blockalign places random I/Os on its boundaries, not the block size's")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("ba", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 4 << 20)
					       .with([](plan_job &j) {
						       j.io_trace_max = 2000;
						       j.norandommap = true;
						       j.number_ios = 500;
						       j.bs[PLAN_DDIR_READ].min_bytes = 8192;
						       j.bs[PLAN_DDIR_READ].max_bytes = 8192;
						       j.bs[PLAN_DDIR_READ].align_bytes = 4096;
					       }) });
	auto r = run_ok(*p);
	int odd = 0;
	for (auto &x : trace_of(*r)) {
		CHECK(x.offset % 4096 == 0);
		CHECK(x.offset + x.bytes <= 4u << 20);
		odd += x.offset % 8192 != 0;
	}
	CHECK(odd > 100);
}

TEST_CASE("iogen: offset and offset_increment give each clone its own region of a shared file")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("o", PLAN_RW_RANDWRITE, PLAN_IOENGINE_PSYNC, 1 << 20, 3)
					       .file("shared")
					       .opt("offset", "1m")
					       .opt("offset_increment", "1m")
					       .with([](plan_job &j) { j.io_trace_max = 1000; }) });
	auto r = run_ok(*p);
	for (uint32_t c = 0; c < 3; c++) {
		std::set<uint64_t> offs;
		for (auto &x : trace_of(*r, 0, c)) {
			CHECK(x.offset >= (c + 1) * (1ull << 20));
			CHECK(x.offset < (c + 2) * (1ull << 20));
			offs.insert(x.offset);
		}
		CHECK(offs.size() == 256);
	}
}

TEST_CASE("iogen: zipf, pareto and normal concentrate I/O; uniform does not")
{
	pb::tmpdir d;
	struct dist_case {
		enum plan_random_dist kind;
		double param;
	};
	auto hottest_share = [&](enum plan_random_dist kind, double param) {
		auto p = pb::build(d.path(), { job_spec("z", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 4 << 20)
						       .with([&](plan_job &j) {
							       j.io_trace_max = 20000;
							       j.number_ios = 20000;
							       j.io_size_bytes = 20000ull * 4096;
							       j.random_distribution = kind;
							       j.random_dist_param = param;
							       j.norandommap = kind == PLAN_RAND_UNIFORM;
						       }) });
		auto r = run_ok(*p);
		std::map<uint64_t, int> hits;
		for (auto &x : trace_of(*r))
			hits[x.offset]++;
		std::vector<int> v;
		for (auto &kv : hits)
			v.push_back(kv.second);
		std::sort(v.rbegin(), v.rend());
		int top = 0, all = 0;
		for (size_t i = 0; i < v.size(); i++) {
			all += v[i];
			if (i < 102)	// the hottest 10% of the 1024 blocks
				top += v[i];
		}
		CHECK(all == 20000);
		return (double)top / all;
	};
	double uni = hottest_share(PLAN_RAND_UNIFORM, 0);
	CHECK(uni < 0.2);
	CHECK(hottest_share(PLAN_RAND_ZIPF, 1.2) > 0.6);
	CHECK(hottest_share(PLAN_RAND_PARETO, 0.9) > 0.6);
	CHECK(hottest_share(PLAN_RAND_NORMAL, 5.0) > 0.3);
}

TEST_CASE("iogen: file_service sequential finishes a file before the next; random mixes them")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(),
			   { job_spec("fs", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 1 << 20, 1, 4).with([](plan_job &j) {
				     j.io_trace_max = 1000;
				     j.file_service = PLAN_FILE_SERVICE_SEQUENTIAL;
			     }),
			     job_spec("fr", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 1 << 20, 1, 4).with([](plan_job &j) {
				     j.io_trace_max = 1000;
				     j.file_service = PLAN_FILE_SERVICE_RANDOM;
			     }) });
	auto r = run_ok(*p);
	auto t = trace_of(*r, 0);
	REQUIRE(t.size() == 256);
	for (size_t i = 0; i < t.size(); i++)
		CHECK(t[i].file_index == i / 64);
	auto u = trace_of(*r, 1);
	std::map<uint32_t, std::set<uint64_t>> per;
	int switches = 0;
	for (size_t i = 0; i < u.size(); i++) {
		per[u[i].file_index].insert(u[i].offset);
		switches += i && u[i].file_index != u[i - 1].file_index;
	}
	CHECK(per.size() == 4);
	for (auto &kv : per)
		CHECK(kv.second.size() == 64);
	CHECK(switches > 100);
}

TEST_CASE("iogen: a skewed file service starts a done file over, and size= ends the job")
{
	pb::tmpdir d;
	auto skewed = [&](plan_file_service fs, double param, double center) {
		auto p = pb::build(d.path(), { job_spec("z", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1 << 20, 1, 4)
						       .with([&](plan_job &j) {
							       j.io_trace_max = 1000;
							       j.file_service = fs;
							       j.file_service_param = param;
							       j.file_service_center = center;
						       }) });
		std::map<uint32_t, int> per;
		auto t = trace_of(*run_ok(*p));
		CHECK(t.size() == 256);	// 1 MiB of 4 KiB reads over four files of 64 blocks
		for (auto &io : t)
			per[io.file_index]++;
		return per;
	};
	// zipf:1.2: one file takes most of the I/O and is read more than once (64 blocks).
	auto z = skewed(PLAN_FILE_SERVICE_ZIPF, 1.2, -1);
	int hot = 0;
	for (auto &kv : z)
		hot = std::max(hot, kv.second);
	CHECK(hot > 128);
	// normal:10 centred at 0.6 (file 2.4 of 4): file 2 is the one served most.
	auto n = skewed(PLAN_FILE_SERVICE_NORMAL, 10, 0.6);
	REQUIRE(n.count(2));
	for (auto &kv : n)
		CHECK((kv.first == 2 || kv.second < n.at(2)));
	CHECK(n.at(2) > 64);
}

TEST_CASE("iogen: openfiles=2 of 6 serves at most 2 files at a time, each to the end of its pass, every block once")
{
	pb::tmpdir d;
	for (auto fs : { PLAN_FILE_SERVICE_ROUNDROBIN, PLAN_FILE_SERVICE_RANDOM }) {
		for (auto eng : { PLAN_IOENGINE_PSYNC, PLAN_IOENGINE_LIBAIO }) {
			CAPTURE(fs);
			CAPTURE(eng);
			auto p = pb::build(d.path(), { job_spec("o", PLAN_RW_RANDREAD, eng, 6 * 64 << 10, 1, 6)
							       .opt("iodepth", "4").with([&](plan_job &j) {
								       j.io_trace_max = 1000;
								       j.openfiles = 2;
								       j.file_service = fs;
							       }) });
			auto t = trace_of(*run_ok(*p));
			REQUIRE(t.size() == 96);
			std::map<uint32_t, std::pair<size_t, size_t>> span;	// first and last I/O of each file
			std::map<uint32_t, std::set<uint64_t>> blocks;
			for (size_t i = 0; i < t.size(); i++) {
				auto it = span.emplace(t[i].file_index, std::make_pair(i, i)).first;
				it->second.second = i;
				blocks[t[i].file_index].insert(t[i].offset);
			}
			CHECK(span.size() == 6);
			for (auto &kv : blocks)
				CHECK(kv.second.size() == 16);
			for (size_t i = 0; i < t.size(); i++) {
				int live = 0;
				for (auto &kv : span)
					live += kv.second.first <= i && i <= kv.second.second;
				CHECK(live <= 2);
			}
		}
	}
}

TEST_CASE("iogen: randtrim punches every block once through psync and libaio")
{
	pb::tmpdir d;
	for (auto eng : { PLAN_IOENGINE_PSYNC, PLAN_IOENGINE_LIBAIO }) {
		auto p = pb::build(d.path(), { job_spec("t", PLAN_RW_RANDTRIM, eng).opt("iodepth", "4").with([](plan_job &j) {
			j.io_trace_max = 1000;
		}) });
		auto r = run_ok(*p);
		CHECK(pb::job_ios(*r, 0, PLAN_DDIR_TRIM) == 256);
		std::set<uint64_t> offs;
		for (auto &x : trace_of(*r))
			offs.insert(x.offset);
		CHECK(offs.size() == 256);
	}
}

TEST_CASE("iogen: rw=read:-8k walks back from the region's end as fio, and the next loop goes on from where it ended")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("b", PLAN_RW_READ, PLAN_IOENGINE_NULL, 32 << 10).with([](plan_job &j) {
		j.rw_seq_back_bytes = 8 << 10;
		j.loops = 2;
		j.io_trace_max = 100;
	}) });
	auto r = run_ok(*p);
	auto t = trace_of(*r);
	std::vector<uint64_t> offs;
	for (auto &x : t)
		offs.push_back(x.offset >> 10);
	// fio 3.33's offsets for size=32k bs=4k rw=read:-8k, twice (loops=2).
	CHECK(offs == std::vector<uint64_t>{ 0, 24, 20, 16, 12, 8, 4, 0, 24, 20, 16, 12, 8, 4, 0, 24 });
}

TEST_CASE("iogen: rw=randread:4 draws every fourth I/O; rw_sequencer=identical repeats it instead of continuing")
{
	for (bool identical : { false, true }) {
		pb::tmpdir d;
		auto p = pb::build(d.path(), { job_spec("s", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 4 << 20).with([&](plan_job &j) {
			j.rw_seq_nr = 4;
			j.rw_seq_identical = identical;
			j.io_trace_max = 1024;
		}) });
		auto r = run_ok(*p);
		auto t = trace_of(*r);
		REQUIRE(t.size() == 1024);
		size_t runs = 0;
		std::set<uint64_t> starts;
		for (size_t i = 0; i + 4 <= t.size(); i += 4) {
			bool ok = true;
			for (size_t k = 1; k < 4; k++)
				ok = ok && t[i + k].offset == t[i].offset + (identical ? 0 : k * 4096);
			runs += ok;
			starts.insert(t[i].offset);
		}
		// A sequential run reaching the end draws early; none may with identical.
		CHECK(runs >= (identical ? 256u : 250u));
		CHECK(starts.size() > 200);
	}
}

namespace {

// The offsets (in KiB) of a zonemode=strided null job of 4 KiB blocks over size bytes.
std::vector<uint64_t> strided_kib(plan_rw rw, uint64_t size, uint64_t zsize, uint64_t zrange, uint64_t io_size,
				  bool lfsr = false)
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("z", rw, PLAN_IOENGINE_NULL, size).with([&](plan_job &j) {
		j.zone_size_bytes = zsize;
		j.zone_range_bytes = zrange;
		j.io_size_bytes = io_size;
		j.random_lfsr = lfsr;
		j.io_trace_max = 10000;
	}) });
	auto r = run_ok(*p);
	std::vector<uint64_t> offs;
	for (auto &x : trace_of(*r))
		offs.push_back(x.offset >> 10);
	return offs;
}

} // namespace

TEST_CASE("iogen: strided zones as fio: zonesize bytes per zone, zonerange apart, wrapping in and after the zones")
{
	// fio 3.33 --zonemode=strided --bs=4k --size=64k, offsets in 4 KiB blocks:
	// zonesize < zonerange jumps, zonesize > zonerange goes round its zone again.
	auto blocks = [](std::vector<uint64_t> v) {
		for (auto &x : v)
			x /= 4;
		return v;
	};
	CHECK(blocks(strided_kib(PLAN_RW_READ, 64 << 10, 8 << 10, 16 << 10, 0)) ==
	      std::vector<uint64_t>{ 0, 1, 4, 5, 8, 9, 12, 13, 0, 1, 4, 5, 8, 9, 12, 13 });
	CHECK(blocks(strided_kib(PLAN_RW_READ, 64 << 10, 16 << 10, 8 << 10, 0)) ==
	      std::vector<uint64_t>{ 0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7 });
	// zonerange=12k does not divide 64k: the last zone runs into the region's end, where fio stops.
	CHECK(blocks(strided_kib(PLAN_RW_WRITE, 64 << 10, 8 << 10, 12 << 10, 0)) ==
	      std::vector<uint64_t>{ 0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15 });
}

TEST_CASE("iogen: strided random I/O stays in its zone, and the random map covers it once per zonerange")
{
	for (bool lfsr : { false, true }) {
		// zonesize=32k over zonerange=16k: each zone is done twice over, four zones, then again.
		auto offs = strided_kib(PLAN_RW_RANDREAD, 64 << 10, 32 << 10, 16 << 10, 256 << 10, lfsr);
		REQUIRE(offs.size() == 64);
		std::vector<uint64_t> order;
		for (size_t i = 0; i < offs.size(); i += 4) {
			uint64_t zone = (i / 8 % 4) * 16;
			std::set<uint64_t> seen;
			std::vector<uint64_t> rel;
			for (size_t k = i; k < i + 4; k++) {
				CHECK(offs[k] >= zone);
				CHECK(offs[k] < zone + 16);
				seen.insert(offs[k]);
				rel.push_back(offs[k] - zone);
			}
			CHECK(seen.size() == 4);
			// fio restarts its lfsr per zone: every zone goes in the same order.
			if (lfsr && i)
				CHECK(rel == order);
			order = rel;
		}
	}
}

extern "C" int64_t t_gen_paths(const plan_job *j, const plan_clone *c, uint64_t region_len, bool time_based,
			       uint32_t n, bool *fast);

TEST_CASE("iogen: a plain job's short way, random or sequential, draws the I/Os the general way draws")
{
	struct gen_case {
		const char *what;
		enum plan_rw rw;
		uint64_t size;
		std::vector<std::pair<std::string, std::string>> opts;
		int64_t ios;	// a size-bound job's I/Os; -1: time-based, drawn 4 passes and more; -2: time-based, ends early
		bool fast;
	};
	// Passes that end and start again (size-bound loops, time-based runs over many
	// passes), a region that is no whole number of blocks, both directions of a
	// mix, and the jobs the short way must leave to the general one.
	const std::vector<gen_case> cases = {
		{ "randread", PLAN_RW_RANDREAD, 1 << 20, {}, 256, true },
		{ "randread loops=3", PLAN_RW_RANDREAD, 1 << 20, { { "loops", "3" } }, 768, true },
		{ "randwrite", PLAN_RW_RANDWRITE, 256 << 10, {}, -1, true },
		{ "randrw 70/30", PLAN_RW_RANDRW, 1 << 20, { { "rwmixread", "70" } }, -1, true },
		{ "randrw bs=4k,16k", PLAN_RW_RANDRW, 4 << 20, { { "bs", "4k,16k" } }, -1, false },
		{ "randread bs=12k", PLAN_RW_RANDREAD, 1 << 20, { { "bs", "12k" } }, -1, true },
		// Bounds the short way counts down to without testing: number_ios, and
		// an io_size that ends inside a block (the last I/O goes whole), in a mix.
		{ "number_ios=100", PLAN_RW_RANDREAD, 1 << 20, { { "number_ios", "100" } }, 100, true },
		{ "randrw io_size=500k bs=12k", PLAN_RW_RANDRW, 1 << 20, { { "io_size", "500k" }, { "bs", "12k" } }, 42, true },
		// bs_is_seq_rand: fio's map counts 4 KiB blocks under 8 KiB random I/Os (the general way).
		{ "bs_is_seq_rand", PLAN_RW_RANDRW, 1 << 20, { { "bs_is_seq_rand", "1" }, { "bs", "4k,8k" } }, -1, false },
		{ "bsrange", PLAN_RW_RANDREAD, 1 << 20, { { "bsrange", "4k-16k" } }, -1, false },
		// Without a map each offset is fio's draw, which never ends a pass: the bounds do.
		{ "norandommap", PLAN_RW_RANDREAD, 1 << 20, { { "norandommap", "1" } }, -1, true },
		{ "norandommap size-bound", PLAN_RW_RANDREAD, 1 << 20, { { "norandommap", "1" } }, 256, true },
		{ "norandommap loops=3", PLAN_RW_RANDREAD, 1 << 20, { { "norandommap", "1" }, { "loops", "3" } }, 768, true },
		{ "norandommap randrw bs=4k,16k", PLAN_RW_RANDRW, 4 << 20, { { "norandommap", "1" }, { "bs", "4k,16k" } },
		  -1, true },
		{ "norandommap io_size=500k bs=12k", PLAN_RW_RANDREAD, 1 << 20,
		  { { "norandommap", "1" }, { "io_size", "500k" }, { "bs", "12k" } }, 42, true },
		{ "norandommap blockalign=2k", PLAN_RW_RANDREAD, (1 << 20) + 2048,
		  { { "norandommap", "1" }, { "blockalign", "2k" } }, -1, true },
		// A read's random length is the second one, which a block drawn for the first may
		// not leave room for: then the job ends, as fio's does without a map.
		{ "norandommap bs_is_seq_rand", PLAN_RW_RANDREAD, 1 << 20,
		  { { "norandommap", "1" }, { "bs_is_seq_rand", "1" }, { "bs", "4k,8k" } }, -2, false },
		{ "percentage_random", PLAN_RW_RANDREAD, 1 << 20, { { "percentage_random", "50" } }, -1, false },
		{ "zipf", PLAN_RW_RANDREAD, 1 << 20, { { "random_distribution", "zipf:1.2" } }, -1, false },
		{ "randread:4", PLAN_RW_RANDREAD, 1 << 20, { { "rw", "randread:4" } }, -1, false },
		{ "lfsr", PLAN_RW_RANDREAD, 1 << 20, { { "random_generator", "lfsr" } }, -1, false },
		{ "strided zones", PLAN_RW_RANDREAD, 1 << 20, { { "zonemode", "strided" }, { "zonesize", "256k" } }, -1, false },
		// Sequential: the next whole block while one fits before the end.
		{ "read", PLAN_RW_READ, 1 << 20, {}, -1, true },
		{ "read loops=3", PLAN_RW_READ, 1 << 20, { { "loops", "3" } }, 768, true },
		{ "write bs=12k", PLAN_RW_WRITE, 1 << 20, { { "bs", "12k" } }, -1, true },
		{ "read bs=12k size-bound", PLAN_RW_READ, 1 << 20, { { "bs", "12k" } }, 85, true },
		{ "rw 70/30", PLAN_RW_RW, 1 << 20, { { "rwmixread", "70" } }, -1, true },
		{ "rw bs=4k,16k", PLAN_RW_RW, 4 << 20, { { "bs", "4k,16k" } }, -1, true },
		{ "rw bs_is_seq_rand", PLAN_RW_RW, 1 << 20, { { "bs_is_seq_rand", "1" }, { "bs", "4k,8k" } }, -1, true },
		{ "read number_ios=100", PLAN_RW_READ, 1 << 20, { { "number_ios", "100" } }, 100, true },
		{ "read io_size=500k bs=12k", PLAN_RW_READ, 1 << 20, { { "io_size", "500k" }, { "bs", "12k" } }, 42, true },
		{ "read:8k", PLAN_RW_READ, 1 << 20, { { "rw", "read:8k" } }, -1, false },
		{ "read:-8k", PLAN_RW_READ, 1 << 20, { { "rw", "read:-8k" } }, -1, false },
		{ "sequential_stride", PLAN_RW_READ, 1 << 20, { { "sequential_stride", "64k" } }, -1, false },
		{ "bsrange read", PLAN_RW_READ, 1 << 20, { { "bsrange", "4k-16k" } }, -1, false },
		{ "read file_service 4", PLAN_RW_READ, 1 << 20, { { "file_service_type", "roundrobin:4" } }, -1, false },
	};
	for (const gen_case &c : cases) {
		std::string what = c.what;
		CAPTURE(what);
		pb::tmpdir d;
		job_spec s("g", c.rw, PLAN_IOENGINE_NULL, c.size);
		for (const auto &o : c.opts)
			s.opt(o.first, o.second);
		auto p = pb::build(d.path(), { s });
		const plan_job &j = p->groups[0].jobs[0];
		bool fast = !c.fast;
		uint32_t n = (uint32_t)(4 * c.size / 4096) + 16;
		int64_t drew = t_gen_paths(&j, &j.clones[0], c.size, c.ios < 0, n, &fast);
		CHECK(fast == c.fast);
		if (c.ios == -2)
			CHECK((drew > 0 && drew < (int64_t)n));
		else
			CHECK(drew == (c.ios < 0 ? (int64_t)n : c.ios));
	}
}

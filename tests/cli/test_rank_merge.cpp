// tests/cli/test_rank_merge.cpp - rank files (cli/mpi/rank_file.hpp) keep every
// figure through a write and a read, and merging ranks (cli/mpi/rank_merge.hpp)
// adds counters and histograms exactly and measures bandwidth over the
// common window.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>
#include <isa-l/crc.h>

#include "cli/mpi/rank_file.hpp"
#include "cli/mpi/rank_merge.hpp"

namespace {

// One job of one clone that wrote `ios` 4 KiB blocks of latency lat_ns each
// over [start, start + span) on its own clock.
results *one_rank(uint64_t ios, uint64_t lat_ns, uint64_t start, uint64_t span, uint64_t wall)
{
    auto *r = static_cast<results *>(calloc(1, sizeof(results)));
    r->abi_version = RESULTS_ABI_VERSION;
    r->start_wall_ns = wall;
    r->nr_jobs = 1;
    r->jobs = static_cast<res_job *>(calloc(1, sizeof(res_job)));
    r->jobs[0].nr_clones = 1;
    r->jobs[0].clones = static_cast<res_clone *>(calloc(1, sizeof(res_clone)));
    res_clone &c = r->jobs[0].clones[0];
    res_clone_init(&c);
    c.start_ns = c.thread_start_ns = start;
    c.end_ns = c.thread_end_ns = start + span;
    res_ddir &d = c.ddir[PLAN_DDIR_WRITE];
    d.bytes = ios * 4096;
    d.ios = ios;
    d.runtime_ns = span;
    d.clat.hist = static_cast<uint64_t *>(calloc(RES_HIST_NR, sizeof(uint64_t)));
    d.clat.n = ios;
    d.clat.min_ns = d.clat.max_ns = lat_ns;
    d.clat.sum_ns = ios * lat_ns;
    d.clat.sumsq_lo = ios * lat_ns * lat_ns;
    d.clat.hist[res_hist_index(lat_ns)] = ios;
    d.bw_kib_s.n = 3;
    d.bw_kib_s.mean = 1234.5678901234567;
    d.bw_kib_s.m2 = 0.1;
    snprintf(r->hostname, sizeof(r->hostname), "h");
    res_msg_add(r, RES_MSG_WARNING, "w", -1, "same warning");
    return r;
}

} // namespace

TEST_CASE("rank_file: a result written and read back is written the same, doubles and histograms exact")
{
    results *r = one_rank(100, 5000, 1000, 1000000, 77);
    cli::rank_info who;
    who.rank = 3;
    who.nranks = 4;
    who.host = "n03";
    who.clock_offset_ns = -42;
    who.start_late_ns = {10, 20};
    cli::plan_source src;
    src.argv = {"--rank-output=d", "job.fio"};
    src.job_names = {"job.fio"};
    src.job_texts = {"[w]\nrw=write\n"};
    std::string text = cli::rank_file_text(*r, who, src);
    cli::rank_info who2;
    cli::plan_source src2;
    results *back = cli::rank_file_parse(text, &who2, &src2);
    CHECK(cli::rank_file_text(*back, who2, src2) == text);
    CHECK(who2.clock_offset_ns == -42);
    CHECK(back->jobs[0].clones[0].ddir[PLAN_DDIR_WRITE].bw_kib_s.mean == 1234.5678901234567);
    CHECK(back->jobs[0].clones[0].ddir[PLAN_DDIR_WRITE].clat.hist[res_hist_index(5000)] == 100);
    results_free(back);
    results_free(r);
}

TEST_CASE("rank_file: per-priority latency, the thread's priority, latency_target's depth and steady state survive")
{
    results *r = one_rank(10, 3000, 0, 1000000, 5);
    res_clone &c = r->jobs[0].clones[0];
    c.ioprio = (2u << 13) | 4u;
    c.lat_depth = 8;
    res_ddir &d = c.ddir[PLAN_DDIR_WRITE];
    d.nr_prios = 2;
    d.prios[1].ioprio = 1u << 13;
    d.prios[1].lat.n = 4;
    d.prios[1].lat.hist = static_cast<uint64_t *>(calloc(RES_HIST_NR, sizeof(uint64_t)));
    d.prios[1].lat.hist[res_hist_index(9000)] = 4;
    r->jobs[0].ss = static_cast<res_ss *>(calloc(1, sizeof(res_ss)));
    res_ss &ss = r->jobs[0].ss[0];
    ss.on = true;
    ss.dur_s = 3;
    ss.criterion = 0.25;
    ss.iops = static_cast<uint64_t *>(calloc(3, sizeof(uint64_t)));
    ss.bw = static_cast<uint64_t *>(calloc(3, sizeof(uint64_t)));
    ss.iops[2] = 1000;
    ss.bw[0] = 4096000;
    cli::rank_info who;
    cli::plan_source src;
    results *back = cli::rank_file_parse(cli::rank_file_text(*r, who, src), &who, &src);
    const res_clone &b = back->jobs[0].clones[0];
    CHECK(b.ioprio == c.ioprio);
    CHECK(b.lat_depth == 8);
    REQUIRE(b.ddir[PLAN_DDIR_WRITE].nr_prios == 2);
    CHECK(b.ddir[PLAN_DDIR_WRITE].prios[1].ioprio == (1u << 13));
    REQUIRE(b.ddir[PLAN_DDIR_WRITE].prios[1].lat.hist);
    CHECK(b.ddir[PLAN_DDIR_WRITE].prios[1].lat.hist[res_hist_index(9000)] == 4);
    REQUIRE(back->jobs[0].ss);
    CHECK(back->jobs[0].ss[0].on);
    CHECK(back->jobs[0].ss[0].criterion == 0.25);
    REQUIRE(back->jobs[0].ss[0].iops);
    CHECK(back->jobs[0].ss[0].iops[2] == 1000);
    CHECK(back->jobs[0].ss[0].bw[0] == 4096000);
    results_free(r);
    results_free(back);
}

TEST_CASE("rank_file: --save's label and a DISKSPD job's effective distributions survive; none is written without")
{
    results *r = one_rank(10, 3000, 0, 1000000, 5);
    cli::rank_info who;
    cli::plan_source src;
    std::string plain = cli::rank_file_text(*r, who, src);
    CHECK(plain.find("saved_as") == std::string::npos);
    CHECK(plain.find("zones") == std::string::npos);
    res_clone &c = r->jobs[0].clones[0];
    c.nr_zones = 2;
    c.zones = static_cast<res_zones *>(calloc(2, sizeof(res_zones)));
    c.zones[1].nr = 2;
    c.zones[1].io_span = 100;
    c.zones[1].zone[0] = {0, 10, 0, 8192};
    c.zones[1].zone[1] = {10, 90, 8192, 1040384};
    c.zones[0] = c.zones[1];
    src.save = true;
    src.save_label = "nightly";
    src.preset = "oltp";
    std::string text = cli::rank_file_text(*r, who, src);
    cli::plan_source src2;
    results *back = cli::rank_file_parse(text, &who, &src2);
    CHECK((src2.save && src2.save_label == "nightly" && src2.preset == "oltp"));
    const res_clone &b = back->jobs[0].clones[0];
    REQUIRE(b.nr_zones == 2);
    CHECK(!memcmp(b.zones, c.zones, 2 * sizeof(res_zones)));
    CHECK(cli::rank_file_text(*back, who, src2) == text);
    results_free(back);
    // An older format 3 file, without them, is read as a run without --save or -rd.
    cli::plan_source old;
    back = cli::rank_file_parse(plain, &who, &old);
    CHECK((!old.save && !back->jobs[0].clones[0].zones));
    results_free(back);
    results_free(r);
}

TEST_CASE("rank_file: what is not a rank file is refused with the reason")
{
    cli::rank_info who;
    cli::plan_source src;
    CHECK_THROWS_WITH_AS(cli::rank_file_parse("{\"jobs\": []}", &who, &src),
                         doctest::Contains("not an ioplan rank file"), std::runtime_error);
    CHECK_THROWS_AS(cli::rank_file_parse("not json", &who, &src), std::runtime_error);
}

TEST_CASE("rank_merge: counters and buckets add, the window is the union on rank 0's clock")
{
    // rank 1's engine started 1 ms of wall time after rank 0's and its clock
    // reads 0.5 ms behind rank 0's: its window starts 1.5 ms later on rank 0's clock.
    results *a = one_rank(100, 5000, 1000, 10000000, 1000000000);
    results *b = one_rank(300, 9000, 1000, 10000000, 1001000000);
    a->jobs[0].clones[0].ddir[PLAN_DDIR_READ].ios = 1;  // a failed read on each rank: counted, no bytes
    b->jobs[0].clones[0].ddir[PLAN_DDIR_READ].ios = 1;
    cli::rank_info w0, w1;
    w0.host = w1.host = "h";
    w1.rank = 1;
    w1.clock_offset_ns = 500000;
    w0.start_late_ns = {100};
    w1.start_late_ns = {700};
    cli::rank_merger m(a, w0, 2);
    CHECK(m.add(*b, w1).empty());
    m.finish(5, 25);
    const res_ddir &d = a->jobs[0].clones[0].ddir[PLAN_DDIR_WRITE];
    CHECK(d.bytes == 400 * 4096);
    CHECK(d.ios == 400);
    CHECK(d.clat.hist[res_hist_index(5000)] == 100);
    CHECK(d.clat.hist[res_hist_index(9000)] == 300);
    CHECK(d.clat.n == 400);
    CHECK(res_lat_percentile(&d.clat, 50.0) == 9000); // of the union: 300 of 400 samples are 9 us
    CHECK(d.runtime_ns == 10000000 + 1500000);
    CHECK(a->jobs[0].clones[0].ddir[PLAN_DDIR_READ].runtime_ns == 0);  // the reads that failed moved nothing
    CHECK(a->jobs[0].clones[0].ddir[PLAN_DDIR_READ].ios == 2);
    CHECK(a->world->nranks == 2);
    CHECK(a->world->start_skew_ns == 600);
    CHECK(a->world->ranks[1].jobs[0].ios[PLAN_DDIR_WRITE] == 300);
    CHECK(a->world->ranks[1].jobs[0].lat_p99_ns == 9000);
    CHECK(a->nr_msgs == 1); // rank 1's warning is rank 0's: said once
    CHECK(m.add(*b, w1).find("twice") != std::string::npos);
    results_free(b);
    results_free(a);
}

TEST_CASE("rank_merge: a host's latency is of its ranks' buckets merged; a rank 3x slower per byte is the straggler")
{
    // Ranks 0 and 1 on host a, rank 2 alone on b; rank 2 moves 100 I/Os in the
    // 30 ms rank 1 moves 300 in: three times rank 0's and rank 1's time per byte.
    results *r0 = one_rank(100, 5000, 1000, 10000000, 1);
    results *r1 = one_rank(300, 9000, 1000, 30000000, 1);
    results *r2 = one_rank(100, 1000, 1000, 30000000, 1);
    cli::rank_info w0, w1, w2;
    w0.host = w1.host = "a";
    w2.host = "b";
    w1.rank = 1;
    w2.rank = 2;
    cli::rank_merger m(r0, w0, 3);
    CHECK(m.add(*r1, w1).empty());
    CHECK(m.add(*r2, w2).empty());
    m.finish(0, 25);
    const res_world &w = *r0->world;
    REQUIRE(w.nhosts == 2);
    CHECK(std::string(w.hosts[0].host) == "a");
    CHECK(w.hosts[0].nranks == 2);
    CHECK(w.hosts[0].jobs[0].ios[PLAN_DDIR_WRITE] == 400);
    CHECK(w.hosts[0].jobs[0].lat_p50_ns == 9000); // of the union: not rank 0's 5 us nor a mean
    CHECK(w.hosts[0].jobs[0].lat_min_ns == 5000);
    CHECK(w.hosts[0].jobs[0].runtime_ns == 30000000);
    CHECK(w.hosts[1].jobs[0].lat_p99_ns == 1000);
    REQUIRE(w.nr_groups == 1);
    const res_world_group &g = w.groups[0];
    CHECK(g.first_done_rank == 0);
    CHECK(g.first_done_ns - g.start_ns == 10000000);
    CHECK(g.last_done_ns - g.start_ns == 30000000);
    CHECK(g.bytes == 500 * 4096);
    CHECK(g.slower_pct[1] == doctest::Approx(0));
    CHECK(g.slower_pct[2] == doctest::Approx(200));
    CHECK(g.nr_stragglers == 1);
    results_free(r1);
    results_free(r2);
    results_free(r0);
}

TEST_CASE("rank_merge: a rank that ran another plan is refused, a rank never heard from keeps ENODATA")
{
    results *a = one_rank(1, 1000, 0, 1000, 1);
    results *b = one_rank(1, 1000, 0, 1000, 1);
    b->jobs[0].nr_clones = 0; // another shape (its clone is still freed below)
    cli::rank_info w0, w1;
    w1.rank = 1;
    cli::rank_merger m(a, w0, 3);
    CHECK(m.add(*b, w1).find("differs") != std::string::npos);
    m.finish(0, 25);
    CHECK(a->world->ranks[2].error == ENODATA);
    b->jobs[0].nr_clones = 1;
    results_free(b);
    results_free(a);
}

namespace {

// A series of n samples of `width` from start, sample i holding i+1 I/Os.
void give_series(results *r, uint64_t start, uint64_t width, uint32_t n)
{
    res_series &s = r->jobs[0].clones[0].bw_series;
    s.samples = static_cast<res_sample *>(calloc(n, sizeof(res_sample)));
    s.nr = s.cap = n;
    s.interval_ns = width;
    for (uint32_t i = 0; i < n; i++) {
        s.samples[i].t_start_ns = start + i * width;
        s.samples[i].t_end_ns = start + (i + 1) * width;
        s.samples[i].ios[PLAN_DDIR_WRITE] = i + 1;
    }
    r->jobs[0].clones[0].iops_series = s;
}

uint64_t series_ios(const res_series &s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s.nr; i++)
        n += s.samples[i].ios[PLAN_DDIR_WRITE];
    return n;
}

// Ranks 1 and 2 merged into rank 0 in the given order: the merged series.
std::vector<uint64_t> merged_series(bool reversed, uint64_t *total, uint64_t *spread)
{
    // rank 1 at rank 0's width, started 0.3 of a width later; rank 2 kept a
    // series twice as wide (it ran longer and halved its resolution).
    results *r[3] = {one_rank(1, 1000, 1000, 1000, 1000000000), one_rank(1, 1000, 1000, 1000, 1000300000),
                     one_rank(1, 1000, 1000, 1000, 1000000000)};
    give_series(r[0], 1000, 1000000, 5);
    give_series(r[1], 1000, 1000000, 7);
    give_series(r[2], 1000, 2000000, 4);
    r[1]->jobs[0].clones[0].start_ns = 1000 + 250;
    cli::rank_info w[3];
    for (uint32_t i = 0; i < 3; i++)
        w[i].rank = i;
    cli::rank_merger m(r[0], w[0], 3);
    CHECK(m.add(*r[reversed ? 2 : 1], w[reversed ? 2 : 1]).empty());
    CHECK(m.add(*r[reversed ? 1 : 2], w[reversed ? 1 : 2]).empty());
    m.finish(0, 25);
    const res_series &s = r[0]->jobs[0].clones[0].bw_series;
    std::vector<uint64_t> out{s.interval_ns};
    for (uint32_t i = 0; i < s.nr; i++) {
        out.push_back(s.samples[i].t_start_ns);
        out.push_back(s.samples[i].ios[PLAN_DDIR_WRITE]);
    }
    *total = series_ios(s);
    *spread = r[0]->world->first_io_spread_ns;
    for (results *x : r)
        results_free(x);
    return out;
}

} // namespace

TEST_CASE("rank_merge: the per-interval series is on the common clock, the same in any order, nothing dropped")
{
    uint64_t t1 = 0, t2 = 0, s1 = 0, s2 = 0;
    std::vector<uint64_t> a = merged_series(false, &t1, &s1), b = merged_series(true, &t2, &s2);
    CHECK(a == b);
    CHECK(t1 == (1 + 2 + 3 + 4 + 5) + (1 + 2 + 3 + 4 + 5 + 6 + 7) + (1 + 2 + 3 + 4));
    CHECK(t2 == t1);
    CHECK(a[0] == 2000000); // the widest rank's width
    // rank 1's first I/O: 250 ns into its clock, 0.3 ms later on rank 0's.
    CHECK(s1 == 300250 - 0);
}

TEST_CASE("rank_file: a 10-minute series and a full histogram are written packed and read back exact")
{
    // 300 samples of 2 s whose figures move up and down, one at the ends of
    // the 64-bit range (a change modulo 2^64), and a histogram with every
    // bucket set: what the packed lists must keep bit for bit.
    results *r = one_rank(0, 1000, 1000, 1000, 1);
    give_series(r, 11517081, 2000000000, 300);
    res_series &s = r->jobs[0].clones[0].bw_series;
    for (uint32_t i = 0; i < s.nr; i++) {
        s.samples[i].bytes[PLAN_DDIR_WRITE] = 163840 + (i % 7) * 4096;
        s.samples[i].lat_sum_ns[PLAN_DDIR_WRITE] = 21974 + (i * 7919) % 30011;
        s.samples[i].lat_max_ns[PLAN_DDIR_WRITE] = i == 150 ? UINT64_MAX : 1182 + (i * 104729) % 20011;
    }
    res_lat &clat = r->jobs[0].clones[0].ddir[PLAN_DDIR_WRITE].clat;
    clat.n = 0;
    for (uint32_t b = 0; b < RES_HIST_NR; b++)
        clat.n += clat.hist[b] = b % 5 == 0 ? 1 : b * 1000003ull;
    // counts and sums that agree, as a run's do (the reader checks them)
    clat.max_ns = 2000;
    clat.sum_ns = clat.n * 1500;
    r->jobs[0].clones[0].ddir[PLAN_DDIR_WRITE].ios = clat.n;
    cli::rank_info who;
    cli::plan_source src;
    std::string text = cli::rank_file_text(*r, who, src);
    // One JSON object per sample was ~140 bytes; the 300 samples now take under 20 each.
    CHECK(text.size() < 300 * 20 + RES_HIST_NR * 8 + 6000);
    results *back = cli::rank_file_parse(text, &who, &src);
    const res_series &t = back->jobs[0].clones[0].bw_series;
    REQUIRE(t.nr == 300);
    CHECK(memcmp(t.samples, s.samples, 300 * sizeof(res_sample)) == 0);
    CHECK(back->jobs[0].clones[0].iops_series.samples == t.samples); // still one series
    const res_lat &bl = back->jobs[0].clones[0].ddir[PLAN_DDIR_WRITE].clat;
    REQUIRE(bl.hist);
    CHECK(memcmp(bl.hist, clat.hist, RES_HIST_NR * sizeof(uint64_t)) == 0);
    results_free(back);
    results_free(r);
}

TEST_CASE("rank_file: a packed list that is not one, or a rank file of another version, is refused by name")
{
    results *r = one_rank(100, 5000, 1000, 1000000, 77);
    give_series(r, 0, 1000, 3);
    cli::rank_info who;
    cli::plan_source src;
    std::string text = cli::rank_file_text(*r, who, src);
    results_free(r);
    // The checksum is of the text after it: a change is made to match, as a buggy writer would.
    auto resum = [](std::string t) {
        size_t k = t.find(',') + 1; // past the checksum member
        std::string body = "{" + t.substr(k, t.size() - k - 1);
        uint32_t crc = crc32_iscsi(reinterpret_cast<unsigned char *>(body.data()), static_cast<int>(body.size()), ~0u);
        char head[32];
        snprintf(head, sizeof(head), "{\"checksum\":\"crc32c:%08x\",", crc);
        return head + t.substr(k);
    };
    results *same = cli::rank_file_parse(resum(text), &who, &src); // the helper itself is right
    CHECK(same != nullptr);
    results_free(same);
    std::string v2 = text;
    v2.replace(v2.find("\"ioplan_rank_file\":4"), 20, "\"ioplan_rank_file\":2");
    CHECK_THROWS_WITH_AS(cli::rank_file_parse(resum(v2), &who, &src),
                         doctest::Contains("rank file version 2, this ioplan reads 4"), std::runtime_error);
    size_t at = text.find("\"hist\":\"") + 8;
    std::string bad = text;
    bad[at] = '!';
    CHECK_THROWS_WITH_AS(cli::rank_file_parse(resum(bad), &who, &src), doctest::Contains("clat.hist: not base64"),
                         std::runtime_error);
    bad = text;
    bad.insert(text.find("\"samples\":\"") + 11, "AAAA"); // three more zero words: not whole samples
    CHECK_THROWS_WITH_AS(cli::rank_file_parse(resum(bad), &who, &src), doctest::Contains("bw_series.samples: 45 words"),
                         std::runtime_error);
    // an edit the checksum no longer matches
    bad = text;
    bad.replace(bad.find("\"bytes\":409600"), 14, "\"bytes\":409601");
    CHECK_THROWS_WITH_AS(cli::rank_file_parse(bad, &who, &src), doctest::Contains("does not match"), std::runtime_error);
}

// tests/engine/test_logs.cpp - fio's log files: the line format, the chunked
// writer (every entry reaches the file, in order, over many chunks; memory is
// reused), the per-clone sampling (per-I/O and averaged entries) and failures
// that name the file.
#include <algorithm>
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "engine/logs/logs.h"
#include "tests/engine/plan_builder.hpp"

namespace {

const plan_cpus no_cpus{}; // the writer keeps the CPUs it has

std::vector<std::string> lines_of(const std::string &path)
{
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

void collect(void *arg, const char *path, int err, enum log_fail, const char *)
{
    static_cast<std::vector<std::pair<std::string, int>> *>(arg)->emplace_back(path, err);
}

// A job with the given log prefixes; the strings belong to the caller.
plan_job log_job(char *bw, char *iops, char *lat, bool per_job = true)
{
    plan_job j{};
    j.bw_log_prefix = bw;
    j.iops_log_prefix = iops;
    j.lat_log_prefix = lat;
    j.per_job_logs = per_job;
    return j;
}

} // namespace

TEST_CASE("logs: an entry is formatted as fio's line, with optional offset and hex priority")
{
    char buf[128];
    log_entry e{};
    e.t_ms = 1500;
    e.value = 18446744073709551615ull;
    e.offset = 8192;
    e.io = log_entry_io(4096, 1, 0);
    CHECK(std::string(buf, log_format(buf, &e, false, false)) == "1500, 18446744073709551615, 1, 4096, 0\n");
    CHECK(std::string(buf, log_format(buf, &e, true, true)) == "1500, 18446744073709551615, 1, 4096, 8192, 0x0000\n");
    // Size, direction and priority share a word: each reads back whole at its extreme.
    e.io = log_entry_io(4294967295u, 2, 0xa00f);
    CHECK(std::string(buf, log_format(buf, &e, false, true)) == "1500, 18446744073709551615, 2, 4294967295, 0xa00f\n");
    e.io = log_entry_io(512, 0, 1 << PLAN_IOPRIO_CLASS_SHIFT);
    CHECK(std::string(buf, log_format(buf, &e, false, false)) == "1500, 18446744073709551615, 0, 512, 1\n");
    e = log_entry{};
    CHECK(std::string(buf, log_format(buf, &e, false, false)) == "0, 0, 0, 0, 0\n");
    // Each side of every power of ten: the digit count comes from the bit length.
    for (unsigned long long p = 1;; p *= 10) {
        for (unsigned long long v : { p - 1, p, p + 1, 2 * p - 1, p / 2 * 10 - 1 }) {
            char want[64];
            e.value = v;
            std::snprintf(want, sizeof(want), "0, %llu, 0, 0, 0\n", v);
            CHECK(std::string(buf, log_format(buf, &e, false, false)) == want);
        }
        if (p > 18446744073709551615ull / 10)
            break;
    }
}

TEST_CASE("logs: a compressed log's sample is fio's struct io_sample, flags in the ddir word")
{
    unsigned char b[LOG_SAMPLE_OFFSET_BYTES];
    log_entry e{};
    e.t_ms = 7;
    e.value = 300;
    e.offset = 8192;
    e.io = log_entry_io(4096, 2, 0x6001);
    REQUIRE(log_sample(b, &e, false, false) == 32);
    uint64_t t, v, bs, off;
    uint32_t dd;
    uint16_t prio;
    std::memcpy(&t, b, 8);
    std::memcpy(&v, b + 8, 8);
    std::memcpy(&dd, b + 16, 4);
    std::memcpy(&prio, b + 20, 2);
    std::memcpy(&bs, b + 24, 8);
    CHECK((t == 7 && v == 300 && dd == 2 && prio == 0x6001 && bs == 4096));
    REQUIRE(log_sample(b, &e, true, true) == 40);
    std::memcpy(&dd, b + 16, 4);
    std::memcpy(&off, b + 32, 8);
    CHECK(dd == (2u | LOG_SAMPLE_OFFSET_BIT | LOG_SAMPLE_PRIO_BIT));
    CHECK(off == 8192);
}

TEST_CASE("logs: the writer writes every entry of many chunks in order, reusing chunk memory")
{
    pb::tmpdir d;
    log_writer *lw = nullptr;
    REQUIRE(log_writer_start(&lw, &no_cpus) == 0);
    log_file *f = log_writer_file(lw, d.file("x_bw.1.log").c_str(), false, false, false);
    REQUIRE(f);
    CHECK(log_writer_file(lw, d.file("x_bw.1.log").c_str(), false, false, false) == f);
    const uint64_t n = 10 * LOG_CHUNK_ENTRIES + 7;
    log_chunk *c = log_writer_swap(lw, nullptr);
    for (uint64_t i = 0; i < n; i++) {
        if (c->nr == LOG_CHUNK_ENTRIES)
            c = log_writer_swap(lw, c);
        REQUIRE(c);
        c->file = f;
        c->e[c->nr] = log_entry{};
        c->e[c->nr].t_ms = i;
        c->e[c->nr++].value = i * 2;
    }
    log_chunk *empty = log_writer_swap(lw, c);	// the last, partial chunk; an empty one back
    CHECK(empty != nullptr);
    free(empty);
    std::vector<std::pair<std::string, int>> failed;
    CHECK(log_writer_stop(lw, collect, &failed) == 0);
    CHECK(failed.empty());
    auto lines = lines_of(d.file("x_bw.1.log"));
    REQUIRE(lines.size() == n);
    CHECK(lines[0] == "0, 0, 0, 0, 0");
    CHECK(lines[n - 1] == std::to_string(n - 1) + ", " + std::to_string(2 * (n - 1)) + ", 0, 0, 0");
}

TEST_CASE("logs: a file that cannot be opened is reported with its path, the others are written")
{
    pb::tmpdir d;
    log_writer *lw = nullptr;
    REQUIRE(log_writer_start(&lw, &no_cpus) == 0);
    std::string bad = d.file("missing/x_bw.1.log");
    log_file *fb = log_writer_file(lw, bad.c_str(), false, false, false);
    log_file *fg = log_writer_file(lw, d.file("ok.log").c_str(), false, false, false);
    for (log_file *f : {fb, fg}) {
        log_chunk *c = log_writer_swap(lw, nullptr);
        c->file = f;
        c->e[c->nr++] = log_entry{};
        free(log_writer_swap(lw, c));
    }
    std::vector<std::pair<std::string, int>> failed;
    CHECK(log_writer_stop(lw, collect, &failed) == -ENOENT);
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].first == bad);
    CHECK(failed[0].second == ENOENT);
    CHECK(lines_of(d.file("ok.log")).size() == 1);
}

TEST_CASE("logs: a shared file takes each job's columns; a path that fails is said once")
{
    pb::tmpdir d;
    log_writer *lw = nullptr;
    REQUIRE(log_writer_start(&lw, &no_cpus) == 0);
    std::string shared = d.file("x_bw.log"), bad = d.file("missing/y_bw.log");
    log_file *plain = log_writer_file(lw, shared.c_str(), true, false, false);
    log_file *offset = log_writer_file(lw, shared.c_str(), true, true, false);
    log_file *prio = log_writer_file(lw, shared.c_str(), true, false, true);
    CHECK((plain != offset && plain != prio && offset != prio));
    CHECK(log_writer_file(lw, shared.c_str(), true, true, false) == offset);
    log_file *bad1 = log_writer_file(lw, bad.c_str(), true, false, false);
    log_file *bad2 = log_writer_file(lw, bad.c_str(), true, true, false);
    for (log_file *f : {plain, offset, prio, bad1, bad2}) {
        log_chunk *c = log_writer_swap(lw, nullptr);
        c->file = f;
        c->e[c->nr] = log_entry{};
        c->e[c->nr].offset = 8192;
        c->e[c->nr++].io = log_entry_io(4096, 0, 0);
        free(log_writer_swap(lw, c));
    }
    std::vector<std::pair<std::string, int>> failed;
    CHECK(log_writer_stop(lw, collect, &failed) == -ENOENT);
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].first == bad);
    auto lines = lines_of(shared);
    std::sort(lines.begin(), lines.end());
    CHECK(lines == std::vector<std::string>{"0, 0, 0, 4096, 0", "0, 0, 0, 4096, 0x0000", "0, 0, 0, 4096, 8192, 0"});
}

TEST_CASE("logs: a clone's files are named as fio's, per thread or shared, per latency measured")
{
    pb::tmpdir d;
    std::string pre = d.file("p");
    log_writer *lw = nullptr;
    REQUIRE(log_writer_start(&lw, &no_cpus) == 0);
    plan_clone c{};
    c.thread_number = 3;
    plan_job j = log_job(&pre[0], nullptr, &pre[0]);
    j.disable_slat = true;
    int err = 0;
    clone_log *l = clone_log_open(lw, &j, &c, &err);
    REQUIRE(l);
    plan_job shared = log_job(nullptr, &pre[0], nullptr, false);
    clone_log *s = clone_log_open(lw, &shared, &c, &err);
    REQUIRE(s);
    plan_job none = log_job(nullptr, nullptr, nullptr);
    CHECK(clone_log_open(lw, &none, &c, &err) == nullptr);
    CHECK(err == 0);
    std::vector<std::pair<std::string, int>> failed;
    clone_log_close(l);
    clone_log_close(s);
    CHECK(log_writer_stop(lw, collect, &failed) == 0);
    for (const char *name : {"p_bw.3.log", "p_lat.3.log", "p_clat.3.log", "p_iops.log"})
        CHECK(std::ifstream(d.file(name)).good());
    CHECK_FALSE(std::ifstream(d.file("p_slat.3.log")).good());
}

TEST_CASE("logs: per-I/O entries and averaged entries carry fio's values")
{
    pb::tmpdir d;
    std::string pre = d.file("a"), pre2 = d.file("b");
    log_writer *lw = nullptr;
    REQUIRE(log_writer_start(&lw, &no_cpus) == 0);
    plan_clone c{};
    c.thread_number = 1;
    plan_job per_io = log_job(&pre[0], &pre[0], &pre[0]);
    plan_job avg = log_job(&pre2[0], nullptr, &pre2[0]);
    avg.log_avg_ns = 500000000ull;
    int err = 0;
    clone_log *l = clone_log_open(lw, &per_io, &c, &err), *a = clone_log_open(lw, &avg, &c, &err);
    REQUIRE(l);
    REQUIRE(a);
    const uint64_t t0 = 1000000000ull, ms = 1000000ull;
    clone_log_begin(l, t0, 0, 0);
    clone_log_begin(a, t0, 0, 0);
    // An I/O submitted at 1 ms (its slat line is dated then) and completed at 2 ms.
    clone_log_slat(l, t0 + 1 * ms, 0, 4096, 8192, 1000, 0);
    clone_log_io(l, t0 + 2 * ms, 0, 4096, 8192, 2000, 1000);
    // Averaged: 4 reads of 4 KiB with latencies 100..400 in the first 500 ms, then one more;
    // slats of 30 and 50 submitted in the first window, 70 in the second.
    clone_log_slat(a, t0 + 50 * ms, 0, 4096, 0, 30, 0);
    clone_log_slat(a, t0 + 150 * ms, 0, 4096, 0, 50, 0);
    for (int i = 1; i <= 4; i++)
        clone_log_io(a, t0 + (uint64_t)i * 100 * ms, 0, 4096, 0, (uint64_t)i * 100, (uint64_t)i * 100);
    clone_log_io(a, t0 + 510 * ms, 0, 4096, 0, 1000, 1000);
    clone_log_slat(a, t0 + 520 * ms, 0, 4096, 0, 70, 0);
    clone_log_end(l, t0 + 3 * ms);
    clone_log_end(a, t0 + 600 * ms);
    clone_log_close(l);
    clone_log_close(a);
    std::vector<std::pair<std::string, int>> failed;
    CHECK(log_writer_stop(lw, collect, &failed) == 0);
    CHECK(lines_of(d.file("a_bw.1.log")) == std::vector<std::string>{"2, 4096000, 0, 4096, 0"});
    CHECK(lines_of(d.file("a_iops.1.log")) == std::vector<std::string>{"2, 1, 0, 4096, 0"});
    // bw over the first 510 ms: 16 KiB -> 31 KiB/s.  A latency window is closed by its
    // direction's first sample past it, that sample included, as fio's add_log_sample:
    // mean latency of 100..400 and 1000 is 400, dated 510; nothing is left for the end.
    CHECK(lines_of(d.file("b_bw.1.log")) == std::vector<std::string>{"510, 31, 0, 0, 0"});
    CHECK(lines_of(d.file("b_lat.1.log")) == std::vector<std::string>{"510, 400, 0, 0, 0"});
    CHECK(lines_of(d.file("a_slat.1.log")) == std::vector<std::string>{"1, 1000, 0, 4096, 0"});
    CHECK(lines_of(d.file("a_clat.1.log")) == std::vector<std::string>{"2, 1000, 0, 4096, 0"});
    // The slats' own window: 30, 50 and the 70 submitted at 520 ms that closes it.
    CHECK(lines_of(d.file("b_slat.1.log")) == std::vector<std::string>{"520, 50, 0, 0, 0"});
}

TEST_CASE("logs: the I/O that ends a runtime= window closes no bw or iops interval")
{
    // fio's interval samples stop with the job: runtime=2s with log_avg_msec=1000 gives the
    // line at 1000 only (ioplan wrote one at 2000 too); the latency logs end at the window's end.
    pb::tmpdir d;
    std::string pre = d.file("e");
    log_writer *lw = nullptr;
    REQUIRE(log_writer_start(&lw, &no_cpus) == 0);
    plan_clone c{};
    c.thread_number = 1;
    plan_job j = log_job(&pre[0], &pre[0], &pre[0]);
    j.log_avg_ns = 1000000000ull;
    int err = 0;
    clone_log *l = clone_log_open(lw, &j, &c, &err);
    REQUIRE(l);
    const uint64_t t0 = 1000000000ull, ms = 1000000ull;
    clone_log_begin(l, t0, 0, t0 + 2000 * ms);
    for (uint64_t t = 250; t <= 2000; t += 250)
        clone_log_io(l, t0 + t * ms, 0, 4096, 0, 100, 100);
    clone_log_io(l, t0 + 2001 * ms, 0, 4096, 0, 300, 300);	// in flight at the end
    clone_log_end(l, t0 + 2001 * ms);
    clone_log_close(l);
    std::vector<std::pair<std::string, int>> failed;
    CHECK(log_writer_stop(lw, collect, &failed) == 0);
    // The I/O that closes an interval goes into the next one: 3 in the first second.
    CHECK(lines_of(d.file("e_iops.1.log")) == std::vector<std::string>{"1000, 3, 0, 0, 0"});
    CHECK(lines_of(d.file("e_bw.1.log")) == std::vector<std::string>{"1000, 12, 0, 0, 0"});
    // The latency windows go on to the end (fio logs every completion's latency): the
    // I/O at 2000 ms closes the second second, the one in flight is the end's line.
    CHECK(lines_of(d.file("e_clat.1.log")) ==
          std::vector<std::string>{"1000, 100, 0, 0, 0", "2000, 100, 0, 0, 0", "2001, 300, 0, 0, 0"});
}

TEST_CASE("logs: per-I/O records make every log's line, in order, over many chunks and clones")
{
    pb::tmpdir d;
    std::string pre = d.file("r"), nobw = d.file("n");
    log_writer *lw = nullptr;
    REQUIRE(log_writer_start(&lw, &no_cpus) == 0);
    plan_clone c1{}, c2{};
    c1.thread_number = 1;
    c2.thread_number = 2;
    // per_job_logs=0: both clones append to one file of each kind.
    plan_job j = log_job(&pre[0], &pre[0], &pre[0], false);
    j.disable_slat = true;
    j.log_offset = true;
    plan_job nb = log_job(&nobw[0], nullptr, &nobw[0]);
    nb.disable_bw = true;	// the bw file is made, without per-I/O lines
    nb.disable_slat = true;
    int err = 0;
    clone_log *a = clone_log_open(lw, &j, &c1, &err), *b = clone_log_open(lw, &j, &c2, &err);
    clone_log *n = clone_log_open(lw, &nb, &c1, &err);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(n);
    CHECK(clone_log_has(a, LOG_BW));
    CHECK(clone_log_has(n, LOG_BW));
    CHECK_FALSE(clone_log_has(n, LOG_IOPS));
    const uint64_t t0 = 1000000000ull, us = 1000ull;
    const uint32_t nr = 2 * (uint32_t)LOG_CHUNK_RECS + 3;
    for (clone_log *l : {a, b, n})
        clone_log_begin(l, t0, 0, 0);
    for (uint32_t i = 0; i < nr; i++) {
        for (clone_log *l : {a, b, n}) {
            // b's priority is real-time (class 1): its prio column reads 1.
            l->ioprio = l == b ? (uint16_t)(1u << PLAN_IOPRIO_CLASS_SHIFT | 4u) : 0;
            uint64_t clat = l == b ? 2000 + i : 1000 + i;
            clone_log_io(l, t0 + (uint64_t)i * 10 * us, (uint8_t)(i & 1), 4096u << (i % 3), (uint64_t)i * 8192,
                         clat + 7, clat);
        }
    }
    for (clone_log *l : {a, b, n}) {
        clone_log_end(l, t0 + (uint64_t)nr * 10 * us);
        clone_log_close(l);
    }
    std::vector<std::pair<std::string, int>> failed;
    CHECK(log_writer_stop(lw, collect, &failed) == 0);

    // The line clone `who` made for its I/O i in the log of kind k.
    auto line = [&](int who, uint32_t i, log_kind k) {
        uint64_t clat = (who ? 2000 : 1000) + i, bs = 4096u << (i % 3);
        uint64_t v = k == LOG_LAT ? clat + 7 : k == LOG_CLAT ? clat : k == LOG_BW ? bs * 1000000ull / clat : 1;
        return std::to_string(i / 100) + ", " + std::to_string(v) + ", " + std::to_string(i & 1) + ", " +
               std::to_string(bs) + ", " + std::to_string((uint64_t)i * 8192) + ", " + (who ? "1" : "0");
    };
    const std::pair<const char *, log_kind> kinds[] = {
        {"r_lat.log", LOG_LAT}, {"r_clat.log", LOG_CLAT}, {"r_bw.log", LOG_BW}, {"r_iops.log", LOG_IOPS}};
    for (const auto &[name, k] : kinds) {
        std::vector<std::string> got = lines_of(d.file(name));
        // Each clone's lines stay in its order; the two clones' chunks interleave whole.
        std::vector<std::string> mine[2];
        for (const std::string &l : got)
            mine[l.back() == '1'].push_back(l);
        REQUIRE(got.size() == 2 * (size_t)nr);
        for (int who = 0; who < 2; who++) {
            REQUIRE(mine[who].size() == nr);
            for (uint32_t i : {0u, (uint32_t)LOG_CHUNK_RECS - 1, (uint32_t)LOG_CHUNK_RECS, nr - 1})
                CHECK(mine[who][i] == line(who, i, k));
        }
    }
    CHECK(std::ifstream(d.file("n_bw.1.log")).good());
    CHECK(lines_of(d.file("n_bw.1.log")).empty());
    CHECK(lines_of(d.file("n_lat.1.log")).size() == nr);
    const uint32_t last = nr - 1;
    CHECK(lines_of(d.file("n_clat.1.log")).back() == std::to_string(last / 100) + ", " + std::to_string(1000 + last) +
                                                         ", " + std::to_string(last & 1) + ", " +
                                                         std::to_string(4096u << (last % 3)) + ", 0");
}

// tests/engine/test_iolog.cpp - the trace reader (parser/iolog/iolog.h): what fio's
// iolog v2/v3 lines and blktrace records replay as, what the replay_* options do
// to them, and the position named for every kind of bad trace; then the merge of
// several blktrace files (merge_blktrace_file).
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <string>
#include <vector>

#include "parser/iolog/iolog.h"

namespace {

struct parsed {
    int ret;
    iolog_trace t;
    iolog_error e;
    parsed(const std::vector<uint8_t> &buf, iolog_opts o = {}) { ret = iolog_parse(buf.data(), buf.size(), &o, &t, &e); }
    ~parsed() { iolog_trace_free(&t); }
};

std::vector<uint8_t> text(const std::string &s)
{
    return std::vector<uint8_t>(s.begin(), s.end());
}

// One blktrace record in this machine's byte order: a queue event unless action says otherwise.
void bt_record(std::vector<uint8_t> &out, uint64_t time, uint64_t sector, uint32_t bytes, uint32_t action,
               uint16_t pdu = 0, uint32_t magic = 0x65617407u)
{
    uint8_t r[48] = {};
    uint32_t dev = (7u << 20) | 3u;
    std::memcpy(r, &magic, 4);
    std::memcpy(r + 8, &time, 8);
    std::memcpy(r + 16, &sector, 8);
    std::memcpy(r + 24, &bytes, 4);
    std::memcpy(r + 28, &action, 4);
    std::memcpy(r + 36, &dev, 4);
    std::memcpy(r + 46, &pdu, 2);
    out.insert(out.end(), r, r + 48);
    out.insert(out.end(), pdu, 0xab);
}

const uint32_t QUEUE_READ = 1u | (1u << 20) | (1u << 16);
const uint32_t QUEUE_WRITE = 1u | (1u << 20) | (2u << 16);
const uint32_t ISSUE_READ = 7u | (1u << 22) | (1u << 16);

} // namespace

TEST_CASE("iolog v3: each I/O keeps its file, direction, offset, size and time since the first I/O")
{
    parsed p(text("fio version 3 iolog\n5 a add\n6 b add\n7 a open\n"
                  "1000 a read 4096 512\n1500 b write 0 8192\n2250 a trim 8192 4096\n3000 a sync 0 0\n9000 a close\n"));
    REQUIRE(p.ret == 0);
    CHECK(p.t.version == 3);
    REQUIRE(p.t.nr_files == 2);
    CHECK(std::string(p.t.files[1]) == "b");
    REQUIRE(p.t.nr_ios == 4);
    CHECK(p.t.ios[0].ddir == PLAN_DDIR_READ);
    CHECK(p.t.ios[0].offset == 4096);
    CHECK(p.t.ios[0].len == 512);
    CHECK(p.t.ios[0].time_ns == 0);
    CHECK(p.t.ios[1].file == 1);
    CHECK(p.t.ios[1].ddir == PLAN_DDIR_WRITE);
    CHECK(p.t.ios[1].time_ns == 500000);
    CHECK(p.t.ios[2].ddir == PLAN_DDIR_TRIM);
    CHECK(p.t.ios[2].source == 7);    // the trim is line 7
    CHECK(p.t.ios[3].ddir == PLAN_REPLAY_SYNC);
    CHECK(p.t.extent[0] == 12288);
    CHECK(p.t.first_src[0] == 7);
    CHECK(p.t.bytes[PLAN_DDIR_WRITE] == 8192);
}

TEST_CASE("iolog v2: no times, but wait lines delay what follows")
{
    parsed p(text("fio version 2 iolog\nf add\nf open\nf read 0 4096\nf wait 2500 0\nf write 4096 4096\n"));
    REQUIRE(p.ret == 0);
    CHECK(p.t.version == 2);
    REQUIRE(p.t.nr_ios == 2);
    CHECK(p.t.ios[0].time_ns == 0);
    CHECK(p.t.ios[1].time_ns == 2500000);
}

TEST_CASE("a trace saved on Windows (CRLF lines, a UTF-8 byte-order mark) reads as the same trace")
{
    for (const char *log : {"fio version 3 iolog\r\n1 f add\r\n2 f open\r\n3 f read 0 4096\r\n9 f write 8192 512\r\n",
                            "\xef\xbb\xbf" "fio version 3 iolog\n1 f add\n2 f open\n3 f read 0 4096\n9 f write 8192 512",
                            "\xef\xbb\xbf" "fio version 3 iolog\r\n1 f add\r\n3 f read 0 4096\r\n9 f write 8192 512\r\n"}) {
        CAPTURE(log);
        parsed p(text(log));
        REQUIRE(p.ret == 0);
        CHECK(p.t.version == 3);
        REQUIRE(p.t.nr_ios == 2);
        CHECK(std::string(p.t.files[0]) == "f");
        CHECK(p.t.ios[1].offset == 8192);
        CHECK(p.t.ios[1].len == 512);
        CHECK(p.t.ios[1].time_ns == 6000);
    }
}

TEST_CASE("times up to 584 years after the first I/O are kept exactly; later ones are refused (see bad traces)")
{
    parsed p(text("fio version 3 iolog\n0 f add\n0 f read 0 512\n18446744073709551 f read 512 512\n"));
    REQUIRE(p.ret == 0);
    REQUIRE(p.t.nr_ios == 2);
    CHECK(p.t.ios[1].time_ns == 18446744073709551000ull);
}

TEST_CASE("iolog v3: a run's log fio appended after the last (its own header, times from 0) follows it")
{
    parsed p(text("fio version 3 iolog\n10 f add\n20 f open\n30 f read 0 4096\n5030 f read 4096 4096\n"
                  "5040 f close\nfio version 3 iolog\n7 f add\n9 f open\n12 f read 0 4096\n"
                  "2012 f read 4096 4096\n2011 f read 8192 4096\n"));
    REQUIRE(p.ret == 0);
    REQUIRE(p.t.nr_ios == 5);
    CHECK(p.t.ios[1].time_ns == 5000000);
    CHECK(p.t.ios[2].time_ns == 5015000);  // the close at 5040 µs, then 12 - 7 µs into the appended run, less 30
    CHECK(p.t.ios[3].time_ns == 7015000);
    CHECK(p.t.ios[4].time_ns == 7015000);  // a step back within a run (clones interleaving) is kept at the last

    parsed q(text("fio version 3 iolog\n1 f add\n2 f read 0 512\nfio version 2 iolog\nf read 0 512\n"));
    CHECK(q.ret == -EINVAL);
    CHECK(q.e.where == 4);
    CHECK(std::string(q.e.msg).find("'fio version 2 iolog' in a version 3 iolog") != std::string::npos);
}

TEST_CASE("replay_scale, replay_align, replay_skip and replay_redirect shape the trace as it is read")
{
    std::vector<uint8_t> log = text("fio version 2 iolog\nf add\ng add\nf read 10000 512\ng write 40960 512\n");
    iolog_opts o{};
    o.scale = 2;
    o.align = 4096;
    o.skip = 1u << PLAN_DDIR_WRITE;
    o.redirect = "/dev/target";
    parsed p(log, o);
    REQUIRE(p.ret == 0);
    REQUIRE(p.t.nr_files == 1);
    CHECK(std::string(p.t.files[0]) == "/dev/target");
    REQUIRE(p.t.nr_ios == 1);
    CHECK(p.t.ios[0].offset == 4096);    // 10000 / 2 = 5000, down to 4096
}

TEST_CASE("blktrace: queue events become I/Os in either byte order; other events and notifies do not")
{
    std::vector<uint8_t> bt;
    bt_record(bt, 1000, 8, 4096, QUEUE_READ, 16);
    bt_record(bt, 1500, 8, 4096, 7u | (1u << 22));          // an issue event
    bt_record(bt, 2000, 0, 0, 1u | (1u << 26));              // a notify
    bt_record(bt, 3001000, 16, 8192, QUEUE_WRITE);
    parsed p(bt);
    REQUIRE(p.ret == 0);
    CHECK(p.t.version == 0);
    REQUIRE(p.t.nr_ios == 2);
    CHECK(std::string(p.t.files[0]) == "/dev/block/7:3");
    CHECK(p.t.ios[0].offset == 4096);
    CHECK(p.t.ios[1].ddir == PLAN_DDIR_WRITE);
    CHECK(p.t.ios[1].time_ns == 3000000);
    CHECK(p.t.ios[1].source == 4);

    std::vector<uint8_t> swapped(bt);
    for (size_t at = 0; at < swapped.size();) {
        uint16_t pdu;
        std::memcpy(&pdu, &bt[at + 46], 2);
        for (size_t f : {0, 4, 24, 28, 32, 36, 40})
            std::reverse(swapped.begin() + at + f, swapped.begin() + at + f + 4);
        for (size_t f : {8, 16})
            std::reverse(swapped.begin() + at + f, swapped.begin() + at + f + 8);
        for (size_t f : {44, 46})
            std::reverse(swapped.begin() + at + f, swapped.begin() + at + f + 2);
        at += 48 + pdu;
    }
    parsed q(swapped);
    REQUIRE(q.ret == 0);
    REQUIRE(q.t.nr_ios == 2);
    CHECK(q.t.ios[1].offset == 8192);
}

TEST_CASE("bad traces are refused with the line or record at fault")
{
    struct bad {
        std::string log;
        uint64_t where;
        const char *says;
    };
    for (const bad &b : std::vector<bad>{
             {"fio version 1 iolog\n", 1, "not a fio iolog"},
             {"fio version 3 iolog\n1 f add\n2 f frob 0 4096\n", 3, "unknown action 'frob'"},
             {"fio version 3 iolog\n1 f add\n2 f read 0\n", 3, "got 4 fields"},
             {"fio version 3 iolog\n1 f add\nx f read 0 4096\n", 3, "time in microseconds"},
             {"fio version 2 iolog\nf add\nf read -5 4096\n", 3, "unsigned integers"},
             {"fio version 2 iolog\nf add\ng read 0 4096\n", 3, "before an 'add' line"},
             {"fio version 2 iolog\nf remove\n", 2, "unknown file action"},
             {"fio version 2 iolog\nf add\n", 0, "no I/O"},
             {"fio version 2 iolog\nf add\nf read 0 4096\nf write 4096 0\n", 4, "a write of 0 bytes at offset 4096"},
             {"fio version 3 iolog\n1 f add\n2 f trim 0 0\n", 3, "a trim of 0 bytes"},
             {"fio version 3 iolog\n1 f add\n2 f read 0 512\n18446744073709552 f read 0 512\n", 4, "past 584 years"},
             {"fio version 2 iolog\nf add\nf read 0 512\nf wait 18446744073709 0\nf wait 18446744073709551 0\n"
              "f read 0 512\n", 5, "a wait of 18446744073709551 µs takes the trace past 584 years"},
         }) {
        CAPTURE(b.log);
        parsed p(text(b.log));
        CHECK(p.ret == -EINVAL);
        CHECK(p.e.where == b.where);
        CHECK(!p.e.record);
        CHECK(std::string(p.e.msg).find(b.says) != std::string::npos);
    }
}

TEST_CASE("bad blktrace files: truncated record, truncated payload, wrong magic mid-file")
{
    std::vector<uint8_t> bt;
    bt_record(bt, 1, 8, 4096, QUEUE_READ);
    bt_record(bt, 2, 16, 4096, QUEUE_READ);

    std::vector<uint8_t> cut(bt.begin(), bt.end() - 10);
    parsed p(cut);
    CHECK(p.ret == -EINVAL);
    CHECK(p.e.record);
    CHECK(p.e.where == 2);
    CHECK(std::string(p.e.msg).find("truncated") != std::string::npos);

    std::vector<uint8_t> pdu;
    bt_record(pdu, 1, 8, 4096, QUEUE_READ, 64);
    pdu.resize(pdu.size() - 1);
    parsed q(pdu);
    CHECK(q.ret == -EINVAL);
    CHECK(q.e.where == 1);
    CHECK(std::string(q.e.msg).find("payload") != std::string::npos);

    std::vector<uint8_t> magic(bt);
    bt_record(magic, 3, 24, 4096, QUEUE_READ, 0, 0x12345607u);
    parsed r(magic);
    CHECK(r.ret == -EINVAL);
    CHECK(r.e.where == 3);
    CHECK(std::string(r.e.msg).find("wrong magic") != std::string::npos);
}

// ---- merge_blktrace_file (parser/iolog/iolog_merge.c): records kept, their order across files,
// the scalars and iterations applied to their times, the source and record named for bad input.

namespace {

struct merged {
    int ret;
    uint32_t bad = 99;
    iolog_error e{};
    std::vector<std::pair<uint64_t, uint64_t>> recs;  // (time, sector)
    std::vector<uint8_t> raw;

    explicit merged(std::vector<iolog_merge_src> src)
    {
        uint8_t *out = nullptr;
        size_t len = 0;
        ret = iolog_merge(src.data(), (uint32_t)src.size(), &out, &len, &bad, &e);
        raw.assign(out, out + len);
        for (size_t p = 0; p + 48 <= len; p += 48) {
            uint64_t t, s;
            std::memcpy(&t, out + p + 8, 8);
            std::memcpy(&s, out + p + 16, 8);
            recs.emplace_back(t, s);
        }
        std::free(out);
    }
};

iolog_merge_src src(const std::vector<uint8_t> &b, int32_t pct = 100, int32_t iters = 1)
{
    return {b.data(), b.size(), pct, iters};
}

} // namespace

TEST_CASE("merge: queue events of both files in time order, other events and payloads dropped")
{
    std::vector<uint8_t> a, b;
    bt_record(a, 0, 1, 4096, 1u | (1u << 26), 9);  // a notify with a payload: not an I/O
    bt_record(a, 100, 10, 4096, QUEUE_READ);
    bt_record(a, 110, 10, 4096, ISSUE_READ);
    bt_record(a, 300, 11, 4096, QUEUE_WRITE, 4);
    bt_record(b, 200, 20, 4096, QUEUE_WRITE);
    bt_record(b, 300, 21, 4096, QUEUE_READ);
    merged m({src(a), src(b)});
    REQUIRE(m.ret == 0);
    // The tie at 300 goes to the first file, as fio's find_earliest_io.
    CHECK(m.recs == std::vector<std::pair<uint64_t, uint64_t>>{{100, 10}, {200, 20}, {300, 11}, {300, 21}});
    uint16_t pdu;
    std::memcpy(&pdu, m.raw.data() + 2 * 48 + 46, 2);
    CHECK(pdu == 0);
}

TEST_CASE("merge: scalars scale each file's times, iterations follow each other")
{
    std::vector<uint8_t> a, b;
    bt_record(a, 100, 10, 4096, QUEUE_READ);
    bt_record(a, 400, 11, 4096, QUEUE_READ);
    bt_record(b, 500, 20, 4096, QUEUE_WRITE);
    // a at 50%, twice: 50, 200, then (100 + 400) / 2 = 250, (400 + 400) / 2 = 400.
    merged m({src(a, 50, 2), src(b)});
    REQUIRE(m.ret == 0);
    CHECK(m.recs ==
          std::vector<std::pair<uint64_t, uint64_t>>{{50, 10}, {200, 11}, {250, 10}, {400, 11}, {500, 20}});
}

TEST_CASE("merge: the other byte order is read and written in this machine's")
{
    std::vector<uint8_t> a;
    bt_record(a, 0x0102, 7, 4096, QUEUE_READ);
    for (size_t f : {0, 8, 16, 24, 28, 36, 40})  // swap the fields the test set
        std::reverse(a.begin() + (long)f, a.begin() + (long)f + (f == 8 || f == 16 ? 8 : 4));
    std::reverse(a.begin() + 44, a.begin() + 46);
    std::reverse(a.begin() + 46, a.begin() + 48);
    merged m({src(a)});
    REQUIRE(m.ret == 0);
    CHECK(m.recs == std::vector<std::pair<uint64_t, uint64_t>>{{0x0102, 7}});
}

TEST_CASE("merge: bad input names the file and the record")
{
    std::vector<uint8_t> good, cut, text = {'f', 'i', 'o', '\n'}, none;
    bt_record(good, 0, 1, 4096, QUEUE_READ);
    bt_record(cut, 0, 1, 4096, QUEUE_READ);
    bt_record(cut, 5, 2, 4096, QUEUE_READ);
    cut.resize(cut.size() - 10);
    bt_record(none, 0, 1, 4096, ISSUE_READ);

    merged t({src(good), src(cut)});
    CHECK(t.ret == -EINVAL);
    CHECK(t.bad == 1);
    CHECK(t.e.where == 2);
    CHECK(std::strstr(t.e.msg, "truncated") != nullptr);

    merged n({src(text)});
    CHECK(n.ret == -EINVAL);
    CHECK(n.bad == 0);
    CHECK(std::strstr(n.e.msg, "not a blktrace file") != nullptr);

    merged z({src(good), src(none)});
    CHECK(z.ret == -EINVAL);
    CHECK(z.bad == 1);
    CHECK(std::strstr(z.e.msg, "no read, write or discard") != nullptr);
    CHECK(z.raw.empty());
}

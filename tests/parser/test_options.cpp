// tests/parser/test_options.cpp - walks the option table: every entry documented,
// its default parsed by its own applier and in range, names unique, lookups work.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "parser/convert.hpp"
#include "parser/ini.hpp"
#include "parser/options.hpp"
#include "parser/parser.hpp"
#include "tests/parser/applied.hpp"

using namespace parser;

TEST_CASE("every option is documented and its default parses")
{
    std::set<std::string> names;
    for (const option &o : options()) {
        CAPTURE(o.name);
        CHECK(std::string(o.help).size() > 10);
        CHECK(std::string(o.category).size() > 0);
        CHECK(names.insert(o.name).second);
        for (const char *a : o.aliases)
            CHECK(names.insert(a).second);
        CHECK(find_option(o.name) == &o);
        CHECK(unsupported_reason(o.name).empty());
        if (o.type == opt_type::choice)
            CHECK(!o.choices.empty());
        if (o.def) {
            job_spec j = default_spec();
            CHECK_NOTHROW(o.apply(j, o, o.def));
        }
        // A numeric default lies in the declared range (the applier checks it).
        if (o.def && o.min <= o.max && o.type == opt_type::integer)
            CHECK_NOTHROW(int_in(o, o.def));
    }
    CHECK(options().size() >= 120);
}

TEST_CASE("the defaults are fio's")
{
    job_spec j = default_spec();
    CHECK(j.pj.iodepth == 1);
    CHECK(j.pj.bs[PLAN_DDIR_READ].min_bytes == 4096);
    CHECK(j.pj.bs[PLAN_DDIR_TRIM].max_bytes == 4096);
    CHECK(j.pj.rwmixread_pct == 50);
    CHECK(j.pj.randrepeat);
    CHECK(j.pj.randseed == 0x89);
    CHECK(j.pj.loops == 1);
    CHECK(j.pj.nrfiles == 1);
    CHECK(j.pj.ioengine == PLAN_IOENGINE_PSYNC);
    CHECK(j.pj.kb_base == 1024);
    CHECK(j.pj.nr_percentiles == 17);
    CHECK(j.pj.percentiles[16] == doctest::Approx(99.99));
    CHECK(j.pj.bw_avg_time_ns == 500000000ull);
    CHECK(j.pj.rate_cycle_ns == 1000000000ull);
    CHECK(j.pj.clat_percentiles);
    CHECK(j.pj.scramble_buffers);
    CHECK(j.pj.invalidate);
    CHECK(j.pj.repeat == 1);
    CHECK(j.filename_format == "$jobname.$jobnum.$filenum");
}

TEST_CASE("aliases and case-insensitive lookup")
{
    CHECK(find_option("readwrite") == find_option("rw"));
    CHECK(find_option("BLOCKSIZE") == find_option("bs"));
    CHECK(find_option("timeout") == find_option("runtime"));
    CHECK(find_option("wait_for_previous") == find_option("stonewall"));
    CHECK(find_option("no_such_option") == nullptr);
    CHECK(!unsupported_reason("rbdname").empty());
    CHECK(unsupported_reason("no_such_option").empty());
}

TEST_CASE("ioscheduler is a name for the engine, no longer refused; an empty one is an error")
{
    CHECK(unsupported_reason("ioscheduler").empty());
    CHECK(with("ioscheduler", " mq-deadline ").ioscheduler == "mq-deadline");
    const option &o = *find_option("ioscheduler");
    job_spec j = default_spec();
    CHECK_THROWS_AS(o.apply(j, o, " "), value_error);
    diag_list notes;
    plan_ptr p = plan_documents({read_ini_text("[a]\nsize=1m\nioscheduler=bfq\n[b]\nsize=1m\n", "t.fio")},
                                request{}, &notes);
    REQUIRE(p);
    CHECK(std::string(plan_job_at(p.get(), 0)->ioscheduler) == "bfq");
    CHECK(plan_job_at(p.get(), 1)->ioscheduler == nullptr); // NULL: the devices are left as they are
}

TEST_CASE("rwmixwrite sets the read share; buffered is not-direct")
{
    job_spec j = default_spec();
    const option &mixw = *find_option("rwmixwrite");
    mixw.apply(j, mixw, "30");
    CHECK(j.pj.rwmixread_pct == 70);
    const option &buffered = *find_option("buffered");
    buffered.apply(j, buffered, "0");
    CHECK(j.pj.direct);
}

// Applies one choice to a fresh default job; choices that need a parameter get one.
static job_spec with_choice(const option &o, const opt_choice &c)
{
    static const std::pair<const char *, const char *> params[] = {
        {"zipf", ":1.2"}, {"pareto", ":0.5"}, {"zoned", ":60/10:40/90"}, {"zoned_abs", ":60/1m:40/9m"}};
    std::string v = c.name;
    for (const auto &p : params)
        if (v == p.first && std::string(o.name) == "random_distribution")
            v += p.second;
    if (std::string(o.name) == "steadystate")	// every criterion takes a limit
        v += ":1%";
    job_spec j = default_spec();
    o.apply(j, o, v);
    return j;
}

static bool same_plan(const job_spec &a, const job_spec &b)
{
    return a.kb_base == b.kb_base && !memcmp(&a.pj, &b.pj, sizeof a.pj) && a.engine_values == b.engine_values;
}

// Engine options' defaults live once in the table, not in each job_spec (a
// spec is copied for every section): a default reads as the same value given.
TEST_CASE("an engine option's default reads as if given, without being in the spec")
{
    job_spec d = default_spec(), given = default_spec();
    CHECK(d.engine_values.empty());
    const option *o = find_option("cpuchunks");
    REQUIRE(o);
    REQUIRE(o->def);
    o->apply(given, *o, o->def);
    const engine_value *dv = engine_value_of(d, "cpuchunks"), *gv = engine_value_of(given, "cpuchunks");
    REQUIRE(dv);
    REQUIRE(gv);
    CHECK(dv->i == gv->i);
    CHECK(dv->i > 0);
    o->apply(given, *o, "7");
    CHECK(engine_value_of(given, "cpuchunks")->i != dv->i);
    CHECK(engine_value_of(d, "hostname") == nullptr); // no default: absent until given
}

// The value in the table is what lands in the plan: choices with different
// values give different plans, and synonyms (same value, no parameter) the same.
TEST_CASE("every choice of every option applies and sets its value")
{
    size_t applied = 0;
    for (const option &o : options()) {
        for (const opt_choice &a : o.choices) {
            std::string option_name = o.name, choice = a.name;
            CAPTURE(option_name);
            CAPTURE(choice);
            job_spec ja;
            REQUIRE_NOTHROW(ja = with_choice(o, a));
            applied++;
            for (const opt_choice &b : o.choices) {
                std::string other = b.name;
                CAPTURE(other);
                job_spec jb = with_choice(o, b);
                if (a.value != b.value)
                    CHECK(!same_plan(ja, jb));
                else if (std::string(o.name) != "random_distribution" || a.value != PLAN_RAND_ZONED)
                    CHECK(same_plan(ja, jb));
            }
        }
    }
    CHECK(applied >= 70);
}

TEST_CASE("rw's postfix: a backward or forward step for sequential jobs, an I/O count for random ones")
{
    CHECK(applied({{"rw", "read:-8k"}}).pj.rw_seq_back_bytes == 8192);
    CHECK(applied({{"rw", "read:-8k"}}).pj.rw_seq_skip_bytes == 0);
    CHECK(applied({{"rw", "write:4k"}}).pj.rw_seq_skip_bytes == 4096);
    job_spec r = applied({{"rw", "randread:8"}, {"rw_sequencer", "identical"}});
    CHECK(r.pj.rw_seq_nr == 8);
    CHECK(r.pj.rw_seq_identical);
    CHECK(applied({{"rw", "randread"}}).pj.rw_seq_nr == 1);
    CHECK_FALSE(applied({{"rw", "randread"}}).pj.rw_seq_only);
    // fio's atoi into an unsigned count: the number before any other text, a negative
    // one wrapped, and 0 when there is none, with which no I/O draws.
    CHECK(applied({{"rw", "randread:4k"}}).pj.rw_seq_nr == 4);
    CHECK(applied({{"rw", "randwrite:-8k"}}).pj.rw_seq_nr == 4294967288u);
    CHECK_FALSE(applied({{"rw", "randwrite:-8k"}}).pj.rw_seq_only);
    CHECK(applied({{"rw", "randread:99999999999"}}).pj.rw_seq_nr == 1215752191u);   // glibc atoi: its low 32 bits
    for (const char *v : {"randread:0", "randread:x", "randread:", "randrw: "}) {
        CAPTURE(v);
        CHECK(applied({{"rw", v}}).pj.rw_seq_only);
    }
    CHECK_FALSE(applied({{"rw", "randread:0"}, {"rw", "randread"}}).pj.rw_seq_only);   // the last one holds
    diag_list notes;
    job_spec j = default_spec();
    entry e;
    e.key = "rw";
    e.value = "randread:4k";
    e.has_value = true;
    apply_entry(j, e, &notes);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].message == "rw=randread:4k: 'k' after the number is ignored, as fio ignores it");
}

// Through apply_entry, as the parser reads a job file's line.
static job_spec entry_applied(const char *key, const char *value, diag_list *notes = nullptr)
{
    job_spec j = default_spec();
    entry e;
    e.key = key;
    e.value = value;
    e.has_value = true;
    apply_entry(j, e, notes);
    return j;
}

TEST_CASE("fio keeps the last part of a list for the options whose callback sees each part")
{
    CHECK(entry_applied("size", "1m,2m").pj.size_bytes == 2u << 20);
    CHECK(entry_applied("size", "1m:2m").pj.size_bytes == 2u << 20);
    CHECK(entry_applied("size", "1m-2m").pj.size_bytes == 2u << 20);
    CHECK(entry_applied("size", "2m,").pj.size_bytes == 2u << 20);
    CHECK(entry_applied("io_size", "1m,3m").pj.io_size_bytes == 3u << 20);
    CHECK(entry_applied("offset", "0,512k").pj.offset_bytes == 512u << 10);
    CHECK(entry_applied("rwmixread", "10,90").pj.rwmixread_pct == 90);
    CHECK(entry_applied("iodepth", "4,8").pj.iodepth == 4);   // no callback: the first part
    diag_list notes;
    entry_applied("size", "1m,2m", &notes);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].message == "size=1m,2m: only '2m', the last of the list, is used, as fio uses it");
}

TEST_CASE("a per-direction option splits at ',', else ':', else '-', as fio's parser does")
{
    // fio 3.33 with rw=randrw size=1m: bs=4k-16k reads 13 x 4 KiB and writes 12 x 16 KiB.
    for (const char *v : { "4k,16k", "4k:16k", "4k-16k" }) {
        job_spec j = entry_applied("bs", v);
        CHECK(j.pj.bs[PLAN_DDIR_READ].max_bytes == 4096);
        CHECK(j.pj.bs[PLAN_DDIR_WRITE].max_bytes == 16384);
        CHECK(j.pj.bs[PLAN_DDIR_TRIM].max_bytes == 16384);
        CHECK(j.pj.bs[PLAN_DDIR_WRITE].min_bytes == 16384);
    }
    // A comma first: the '-' ends the read value (fio reads 4k for reads, 8k for writes).
    job_spec j = entry_applied("bs", "4k-16k,8k");
    CHECK((j.pj.bs[PLAN_DDIR_READ].max_bytes == 4096 && j.pj.bs[PLAN_DDIR_WRITE].max_bytes == 8192));
    CHECK(entry_applied("rate", "1m-2m").pj.rate_bytes_per_s[PLAN_DDIR_WRITE] == 2u << 20);
    // Ranges keep their dash.
    j = entry_applied("bsrange", "4k-16k");
    CHECK((j.pj.bs[PLAN_DDIR_READ].min_bytes == 4096 && j.pj.bs[PLAN_DDIR_READ].max_bytes == 16384));

    diag_list notes;
    entry_applied("bs", "4k-16k", &notes);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].message == "bs=4k-16k: fio reads '-' here as a comma between directions: 4k for reads, 16k for "
                              "writes, 16k for trims, not a range (a range is bsrange=4k-16k)");
    notes.clear();
    entry_applied("bs", "4k:16k", &notes);
    CHECK(notes.empty());
}

TEST_CASE("ignore_error: per-kind lists of errno names or numbers turn continue_on_error on for that kind")
{
    // fio names EPERM..ERANGE only (errnos 1..34): EILSEQ is written as 84.
    job_spec j = applied({{"ignore_error", "EIO:ENOSPC,28:-22,84"}});
    CHECK(j.pj.nr_ignore_errors[0] == 2);
    CHECK(j.pj.ignore_errors[0][0] == EIO);
    CHECK(j.pj.ignore_errors[0][1] == ENOSPC);
    CHECK(j.pj.nr_ignore_errors[1] == 2);
    CHECK(j.pj.ignore_errors[1][0] == 28);
    CHECK(j.pj.ignore_errors[1][1] == 22);
    CHECK(j.pj.ignore_errors[2][0] == EILSEQ);
    CHECK(j.pj.continue_on_error == PLAN_COE_ALL);
    job_spec w = applied({{"ignore_error", ",EIO"}});
    CHECK(w.pj.continue_on_error == PLAN_COE_WRITE);
    const option &ie = *find_option("ignore_error");
    CHECK_THROWS_AS(ie.apply(w, ie, "EWHAT"), value_error);
    CHECK_THROWS_AS(ie.apply(w, ie, "0"), value_error);
    CHECK_THROWS_AS(ie.apply(w, ie, "EIO,EIO,EIO,EIO"), value_error);
    CHECK(applied({{"exit_what", "all"}}).pj.exit_what == PLAN_EXIT_ALL);
    CHECK(applied({{"cpumask", "0x3"}}).pj.cpus_allowed.word[0] == 3);
}

TEST_CASE("sync_file_range: comma-joined flags added to those set before, and every N writes")
{
    job_spec j = applied({{"sync_file_range", "wait_before,write,wait_after:8"}});
    CHECK(j.pj.sync_file_range_flags == (PLAN_SFR_WAIT_BEFORE | PLAN_SFR_WRITE | PLAN_SFR_WAIT_AFTER));
    CHECK(j.pj.sync_file_range_every == 8);
    CHECK(with("sync_file_range", "write").pj.sync_file_range_every == 1);
    CHECK(with("sync_file_range", "write: 3").pj.sync_file_range_every == 3);   // fio strips the blank
    CHECK(with("sync_file_range", "write,,wait_after").pj.sync_file_range_flags ==
          (PLAN_SFR_WRITE | PLAN_SFR_WAIT_AFTER));
    CHECK(with("sync_file_range", "write:0").pj.sync_file_range_every == 0);   // never, as fio and fsync=0
    // fio ORs each line's flags into the option ([global]'s, then the job's); the count is the last line's.
    j = applied({{"sync_file_range", "wait_before:2"}, {"sync_file_range", "write"}});
    CHECK(j.pj.sync_file_range_flags == (PLAN_SFR_WAIT_BEFORE | PLAN_SFR_WRITE));
    CHECK(j.pj.sync_file_range_every == 1);
    CHECK(default_spec().pj.sync_file_range_flags == 0);
    const option &o = *find_option("sync_file_range");
    for (const char *bad : {"bogus", "write,bogus", "WRITE", "write :4", ":4", ",", "write:", "write:x",
                            "write:4k", "write:-1", "write:1.5", "write:2:3", "write:1000000001"}) {
        CAPTURE(bad);
        job_spec b = default_spec();
        CHECK_THROWS_AS(o.apply(b, o, bad), value_error);
    }
}

TEST_CASE("numa_cpu_nodes and numa_mem_policy: node lists and fio's modes")
{
    CHECK(applied({{"numa_cpu_nodes", "0-1,3"}}).pj.numa_cpu_nodes_mask == 0xb);
    job_spec b = applied({{"numa_mem_policy", "interleave:0-1"}});
    CHECK(b.pj.numa_mem_policy == PLAN_NUMA_MEM_INTERLEAVE);
    CHECK(b.pj.numa_mem_nodes_mask == 3);
    CHECK(applied({{"numa_mem_policy", "prefer:2"}}).pj.numa_mem_nodes_mask == 4);
    CHECK(applied({{"numa_mem_policy", "local"}}).pj.numa_mem_policy == PLAN_NUMA_MEM_LOCAL);
    CHECK(default_spec().pj.numa_mem_policy == PLAN_NUMA_MEM_UNSET);
    const option &o = *find_option("numa_mem_policy");
    job_spec j = default_spec();
    for (const char *bad : {"bind", "prefer:0-1", "local:0", "often", "bind:x"})
        CHECK_THROWS_AS(o.apply(j, o, bad), value_error);
}

TEST_CASE("integer options take fio's unit letters, as fio reads them through its size parser")
{
    auto apply = with;
    CHECK(apply("iodepth", "1k").pj.iodepth == 1024);
    CHECK(apply("verify_backlog", "1m").pj.verify_backlog == 1048576);
    CHECK(apply("randseed", "2k").pj.randseed == 2048);
    CHECK(apply("iodepth", "16").pj.iodepth == 16);
    CHECK_THROWS_AS(apply("rwmixread", "2k"), value_error);  // 2048 is out of range, as fio
    CHECK_THROWS_AS(apply("iodepth", "1x"), value_error);
    CHECK_THROWS_AS(apply("iodepth", "k"), value_error);
}

TEST_CASE("loops=0 is one pass, as fio's init (a job file may say 0 for the default)")
{
    CHECK(with("loops", "0").pj.loops == 1);
    CHECK(with("loops", "3").pj.loops == 3);
    CHECK_THROWS_AS(with("loops", "-1"), value_error);
}

TEST_CASE("verify_async, verify_async_cpus and the trim_* options: fio's forms and defaults")
{
    job_spec j = applied({{"verify_async", "6"}, {"verify_async_cpus", "0-3,7"}, {"trim_percentage", "30"},
                          {"trim_backlog", "1k"}, {"trim_backlog_batch", "4"}, {"trim_verify_zero", "0"},
                          {"verify_backlog", "1m"}});
    CHECK(j.pj.verify_async == 6);
    CHECK(j.pj.verify_async_cpus.word[0] == 0x8f);
    CHECK(j.pj.trim_percentage == 30);
    CHECK(j.pj.trim_backlog == 1024);	// fio's suffixes, as its STR_VAL options
    CHECK(j.pj.trim_backlog_batch == 4);
    CHECK(!j.pj.trim_verify_zero);
    CHECK(j.pj.verify_backlog == 1048576);	// t/jobs/t0009's verify_backlog=1m
    job_spec d = default_spec();
    CHECK((d.pj.verify_async == 0 && d.pj.verify_async_cpus.word[0] == 0 && d.pj.trim_percentage == 0));
    CHECK((d.pj.trim_backlog == 0 && d.pj.trim_backlog_batch == 0 && d.pj.trim_verify_zero));
    for (auto bad : std::vector<std::pair<const char *, const char *>>{
             {"trim_percentage", "101"}, {"trim_percentage", "x"}, {"verify_async", "65"},
             {"verify_async_cpus", "1024"}, {"trim_backlog", "-1"}, {"trim_verify_zero", "maybe"}}) {
        CAPTURE(bad.first);
        const option &o = *find_option(bad.first);
        CHECK_THROWS_AS(o.apply(j, o, bad.second), value_error);
    }
}

TEST_CASE("steadystate: criterion and limit as fio reads them; ss_dur in whole seconds")
{
    job_spec j = applied({{"ss", "iops:2%"}, {"ss_dur", "30s"}, {"ss_ramp", "10"}});
    CHECK(j.pj.ss_flags == (PLAN_SS_IOPS | PLAN_SS_PCT));
    CHECK(j.pj.ss_limit == 2.0);
    CHECK(j.pj.ss_dur_s == 30);
    CHECK(j.pj.ss_ramp_ns == 10000000000ull);
    j = applied({{"steadystate", "bw_slope:.1%"}});
    CHECK(j.pj.ss_flags == (PLAN_SS_BW | PLAN_SS_SLOPE | PLAN_SS_PCT));
    CHECK(j.pj.ss_limit == doctest::Approx(0.1));
    j = applied({{"ss", "bw:1m"}, {"ss_dur", "1500ms"}});
    CHECK(j.pj.ss_flags == PLAN_SS_BW);
    CHECK(j.pj.ss_limit == 1048576.0);	// a size, under kb_base
    CHECK(j.pj.ss_dur_s == 1);		// fio keeps whole seconds
    j = applied({{"ss", "iops:12.5"}});
    CHECK(j.pj.ss_flags == PLAN_SS_IOPS);
    CHECK(j.pj.ss_limit == 12.5);
    // fio's default: iops_slope:0.01%, off until ss_dur is set.
    j = default_spec();
    CHECK(j.pj.ss_flags == (PLAN_SS_IOPS | PLAN_SS_SLOPE | PLAN_SS_PCT));
    CHECK(j.pj.ss_limit == doctest::Approx(0.01));
    CHECK(j.pj.ss_dur_s == 0);
}

TEST_CASE("refused fio options are rows of the one table: each name once, with why, never accepted")
{
    std::set<std::string> names;
    size_t refused = 0;
    for (const option &o : option_table()) {
        CAPTURE(o.name);
        CHECK(names.insert(o.name).second);
        for (const char *a : o.aliases)
            CHECK(names.insert(a).second);
        if (!o.refused)
            continue;
        refused++;
        CHECK(find_option(o.name) == nullptr);
        CHECK(unsupported_reason(o.name) == o.refused);
    }
    CHECK(refused >= 100);
    CHECK(options().size() + refused == option_table().size());
    CHECK(unsupported_reason("busy_poll") == "is an option of an ioengine ioplan does not support");
}

// Each enum's name (plan.c, printed by --showplan and the reports) is one the
// parser accepts for that value, so what ioplan prints reads back as the same plan.
TEST_CASE("the plan's enum names are spellings the parser accepts for the same value")
{
    const std::pair<const char *, const char *(*)(long long)> opts[] = {
        {"rw", [](long long v) { return plan_rw_name((plan_rw)v); }},
        {"ioengine", [](long long v) { return plan_ioengine_name((plan_ioengine)v); }},
        {"random_distribution", [](long long v) { return plan_random_dist_name((plan_random_dist)v); }},
        {"rate_process", [](long long v) { return plan_rate_process_name((plan_rate_process)v); }},
        {"sync", [](long long v) { return plan_sync_mode_name((plan_sync_mode)v); }},
        {"file_service_type", [](long long v) { return plan_file_service_name((plan_file_service)v); }},
        {"fallocate", [](long long v) { return plan_fallocate_name((plan_fallocate)v); }},
        {"buffer_fill", [](long long v) { return plan_buffer_fill_name((plan_buffer_fill)v); }},
        {"verify", [](long long v) { return plan_verify_name((plan_verify)v); }},
        {"repeat_aggregate", [](long long v) { return plan_repeat_aggregate_name((plan_repeat_aggregate)v); }},
    };
    // Not a structured binding: clang (make test-sanitize) will not let CAPTURE's lambda name one.
    for (const auto &entry : opts) {
        const auto &opt_name = entry.first;
        const auto &name_of = entry.second;
        const option *o = find_option(opt_name);
        REQUIRE(o != nullptr);
        for (const opt_choice &c : o->choices) {
            CAPTURE(opt_name);
            CAPTURE(c.name);
            const char *printed = name_of(c.value);
            // --showplan keeps "none" for no verification (stored plans' hashes
            // and the reports stay as they were); verify= takes fio's 0 alone.
            if (!strcmp(opt_name, "verify") && c.value == PLAN_VERIFY_NONE) {
                CHECK(std::string(printed) == "none");
                continue;
            }
            bool accepted = false;
            for (const opt_choice &back : o->choices)
                accepted |= back.value == c.value && !strcmp(back.name, printed);
            CHECK(accepted);
        }
    }
    CHECK(std::string(plan_verify_name(PLAN_VERIFY_PATTERN_HDR)) == "pattern"); // fio's messages' name
    CHECK(std::string(plan_ddir_name((plan_ddir)PLAN_DDIR_NR)) == "?");
}

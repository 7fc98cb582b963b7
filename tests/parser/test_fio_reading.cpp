// tests/parser/test_fio_reading.cpp - values read the way fio 3.33 reads them:
// the leading number of a value with text after it (and the note that says
// so), booleans and set-flags, 100%%, bssplit's corners, $keywords with bc's
// arithmetic and fio's "(...)" calculator, deprecated options, fio's names in
// the echo, atomic= and file_service_type=TYPE:N, and which of a job's files
// are devices, as fio's stat of each tells.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "parser/diag.hpp"
#include "parser/ini.hpp"
#include "parser/options.hpp"
#include "parser/parser.hpp"
#include "tests/parser/plan_text.hpp"
#include "parser/values.hpp"
#include "tests/parser/applied.hpp"

using namespace parser;

namespace {

// One option entry applied as the planner applies it, with its notes.
job_spec entry_applied(const char *key, const char *value, diag_list *notes)
{
    job_spec j = default_spec();
    entry e;
    e.key = key;
    e.value = value;
    e.has_value = true;
    e.key_loc = e.value_loc = loc{"t.fio", 2, 1, "", nullptr};
    apply_entry(j, e, notes);
    return j;
}

plan_ptr plan_of(const std::string &text)
{
    return t::plan_of_ini(text);
}

std::string echoed(const plan_kv *kv, uint32_t n)
{
    std::string out;
    for (uint32_t i = 0; i < n; i++)
        out += std::string(kv[i].key) + "=" + kv[i].value + ";";
    return out;
}

} // namespace

TEST_CASE("an integer is its leading number, the text after it noted")
{
    ignored_text dropped;
    CHECK(parse_int_lenient("70.0") == 70);
    CHECK(parse_int_lenient("128*1") == 128);
    CHECK(parse_int_lenient("1k") == 1024);
    CHECK(parse_int_lenient("0x10") == 16);
    CHECK(dropped.texts == std::vector<std::string>{".0", "*1"});
    CHECK_THROWS_AS(parse_int_lenient("abc"), value_error);
    CHECK_THROWS_AS(parse_int_lenient("4q"), value_error); // an unknown unit letter stays an error
}

TEST_CASE("sizes and times drop what follows the number or its unit")
{
    ignored_text dropped;
    CHECK(parse_size("4k*2", 1024) == 4096);
    CHECK(parse_time_ns("10*2", time_unit::s) == 10000000000ull);
    CHECK(parse_time_ns("500ms)", time_unit::s) == 500000000ull); // fio's ms is a prefix: it stops there too
    CHECK(dropped.texts == std::vector<std::string>{"*2", "*2", ")"});
}

TEST_CASE("a time unit with more after it: its parts added up, fio's microseconds noted")
{
    ignored_text dropped;
    CHECK(parse_time_ns("1m30s", time_unit::s) == 90000000000ull);
    CHECK(parse_time_ns("1h2m3s", time_unit::s) == 3723000000000ull);
    CHECK(parse_time_ns("5s)", time_unit::s) == 5000000000ull); // not a part: ignored
    CHECK(dropped.texts.empty());
    REQUIRE(dropped.readings.size() == 3);
    CHECK(dropped.readings[0].find("reads '1m30s' as 1 microsecond (") != std::string::npos);
    CHECK(dropped.readings[0].find("ioplan reads 90s: write '90s'") != std::string::npos);
    CHECK(dropped.readings[2].find("reads '5s)' as 5 microseconds") != std::string::npos);
    CHECK(dropped.readings[2].find("ioplan reads '5s' and ignores ')'") != std::string::npos);
}

TEST_CASE("booleans take 0 and 1, set-flags any number")
{
    CHECK(parse_bool_number("10") == 10);
    CHECK(parse_bool_number("1.5") == 1);
    CHECK(parse_bool_number("0x0") == 0);
    CHECK(parse_bool_number("yes") == 1);
    CHECK_THROWS_AS(parse_bool_number("maybe"), value_error);
    CHECK(with("time_based", "10").pj.time_based);
    CHECK_FALSE(with("time_based", "0.5").pj.time_based);
    CHECK(with("exitall_on_error", "5").pj.exitall_on_error);
    CHECK(with("direct", "true").pj.direct); // ioplan also reads the words (fio refuses them)
    CHECK_THROWS_AS(with("direct", "2"), value_error); // fio: "max value out of range"
}

TEST_CASE("a percentage ends at its first %: configparser's 100%%")
{
    uint32_t ppm = 0;
    ignored_text dropped;
    CHECK(parse_percent_ppm("100%%", &ppm));
    CHECK(ppm == 1000000);
    CHECK(dropped.texts == std::vector<std::string>{"%"});
}

TEST_CASE("bssplit: fio's shares, a size of 0, an empty entry ends the list")
{
    auto v = parse_bssplit_dir("4096/50:0/", 1024);
    REQUIRE(v.size() == 2);
    CHECK(v[1].bs == 0);
    CHECK(v[1].pct == 50);
    v = parse_bssplit_dir("4096/2147483648:0/", 1024); // atoi's overflow: 100, the rest 0
    CHECK(v[0].pct == 100);
    CHECK(v[1].pct == 0);
    v = parse_bssplit_dir("4k:8k:16k", 1024); // 33 each, the 1% left over unassigned as in fio
    CHECK(v[2].pct == 33);
    v = parse_bssplit_dir("4k/0:8k/", 1024); // 0% is "not given"
    CHECK(v[0].pct == 50);
    CHECK(parse_bssplit_dir("4k/50::8k/50", 1024).size() == 1);
    CHECK_THROWS_AS(parse_bssplit_dir("4k/90:8k/90:16k:32k", 1024), value_error);
    job_spec j = with("bssplit", "4096/50:0/,8192/,4096/");
    CHECK(j.pj.bs[0].min_bytes == 4096); // fio's fixup: bs= for a minimum of 0
    CHECK(j.pj.bs[0].max_bytes == 4096);
    CHECK(j.pj.bs[1].min_bytes == 8192);
}

TEST_CASE("keywords go through bc's arithmetic; '(' starts fio's calculator")
{
    CHECK(expand_keywords("$pagesize*(1+1)") == "8192");
    CHECK(expand_keywords("$pagesize*1%1000") == "96");
    CHECK(expand_keywords("$pagesize%1000") == "4096%1000"); // fio calls bc only for + - * /
    CHECK(expand_keywords("cpus$ncpus") != "cpus$ncpus");
    CHECK(evaluate_parenthesized("(8*4)") == "32");
    CHECK(evaluate_parenthesized("(7%3)+1") == "2");
    CHECK(evaluate_parenthesized("4k") == "4k");
    CHECK_THROWS_AS(evaluate_parenthesized("(8*4"), value_error);
    diag_list notes;
    CHECK(entry_applied("iodepth", "(2*3+1)", &notes).pj.iodepth == 7);
    CHECK(entry_applied("description", "(a note)", &notes).description == "(a note)");
}

TEST_CASE("apply_entry notes the text fio ignores and fio's deprecated options")
{
    diag_list notes;
    CHECK(entry_applied("iodepth", "128*1", &notes).pj.iodepth == 128);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].sev == severity::note);
    CHECK(notes[0].message == "iodepth=128*1: '*1' after the number is ignored, as fio ignores it");
    notes.clear();
    entry_applied("verifysort", "1", &notes);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].message == "option verifysort is deprecated and ignored, as in fio 3.33");
    CHECK_THROWS_AS(entry_applied("rwmixcycle", "5", &notes), error);
}

TEST_CASE("the echo records options by fio's names, not the alias typed")
{
    plan_ptr p = plan_of("[global]\nreadwrite=read\n[j]\nioengine=null\nblocksize=8k\ntimeout=10\nio_limit=64k\n"
                         "nr_files=1\nblockalign=8k\niodepth_batch_submit=1\nsize=1m\nallrandrepeat=0\n");
    CHECK(echoed(p->global_opts, p->nr_global_opts) == "rw=read;");
    const plan_job &j = *plan_job_at(p.get(), 0);
    CHECK(echoed(j.opts, j.nr_opts) ==
          "ioengine=null;bs=8k;runtime=10;io_size=64k;nrfiles=1;ba=8k;iodepth_batch=1;size=1m;allrandrepeat=0;");
    CHECK(j.randrepeat); // allrandrepeat is its own option in fio: =0 leaves randrepeat=1 repeatable
}

TEST_CASE("atomic=1 is O_DIRECT whatever direct= says; disk_util=0 is kept")
{
    plan_ptr p = plan_of("[j]\nioengine=null\nsize=1m\natomic=1\ndirect=0\ndisk_util=0\n");
    CHECK(plan_job_at(p.get(), 0)->direct);
    CHECK(plan_job_at(p.get(), 0)->no_disk_util);
}

TEST_CASE("file_service_type=TYPE:N keeps a file for N I/Os")
{
    CHECK(with("file_service_type", "random:16").pj.file_service == PLAN_FILE_SERVICE_RANDOM);
    CHECK(with("file_service_type", "random:16").pj.file_service_extra == 15);
    CHECK(with("file_service_type", "roundrobin").pj.file_service_extra == 0);
    CHECK(with("file_service_type", "sequential:3").pj.file_service_extra == 2);
}

TEST_CASE("random_distribution=zipf or pareto without a parameter takes fio's default, as the job file says")
{
    auto z = with("random_distribution", "zipf");
    CHECK(z.pj.random_distribution == PLAN_RAND_ZIPF);
    CHECK(z.pj.random_dist_param == 1.1);
    CHECK(with("random_distribution", "pareto").pj.random_dist_param == 0.2);
    CHECK(with("random_distribution", "zipf:1.2").pj.random_dist_param == 1.2);
    // The same as writing fio's default out.
    CHECK(with("random_distribution", "normal").pj.random_dist_param ==
          with("random_distribution", "normal:0").pj.random_dist_param);
}

TEST_CASE("random_distribution=random:N is random, as fio 3.33 ignores the parameter")
{
    auto r = with("random_distribution", "random:50");
    CHECK(r.pj.random_distribution == PLAN_RAND_UNIFORM);
    CHECK(r.pj.random_dist_param == 0);
    CHECK(r.pj.nr_rand_zones == 0);
}

TEST_CASE("file_service_type=zipf|pareto|normal takes its law's parameter and centre, as fio's")
{
    auto z = with("file_service_type", "zipf:1.2");
    CHECK(z.pj.file_service == PLAN_FILE_SERVICE_ZIPF);
    CHECK(z.pj.file_service_param == 1.2);
    CHECK(z.pj.file_service_center == -1);
    CHECK(z.pj.file_service_extra == 0);	// the postfix is theta, not a count
    // fio's defaults without a parameter: zipf 1.1, pareto 0.2, a deviation of 0.
    CHECK(with("file_service_type", "zipf").pj.file_service_param == 1.1);
    CHECK(with("file_service_type", "pareto").pj.file_service_param == 0.2);
    CHECK(with("file_service_type", "normal").pj.file_service_param == 0.0);
    auto g = with("file_service_type", "gauss:10:0.25");
    CHECK(g.pj.file_service == PLAN_FILE_SERVICE_NORMAL);
    CHECK(g.pj.file_service_param == 10);
    CHECK(g.pj.file_service_center == 0.25);
    for (const char *bad : { "zipf:1", "zipf:-0.5", "pareto:0", "pareto:1", "normal:100", "zipf:1.2:1.5",
                             "pareto:0.3:0.2:1", "uniform" })
        CHECK_THROWS_AS(with("file_service_type", bad), value_error);
}

TEST_CASE("clones and their files are named after the section, as fio's")
{
    plan_ptr p = plan_of("[sec]\nname=myname\nnumjobs=2\nioengine=psync\nsize=64k\ndirectory=/nonexistent\n");
    const plan_job &j = *plan_job_at(p.get(), 0);
    CHECK(std::string(j.name) == "myname");
    CHECK(std::string(j.clones[0].files[0].path) == "/nonexistent/sec.0.0");
    CHECK(std::string(j.clones[1].files[0].path) == "/nonexistent/sec.1.0");
}

// A file is a device when its name leads to one (a stat follows a link, as fio's):
// the same whether the directory is read once (many files) or each name looked at.
TEST_CASE("a job's files are devices where their names lead to one, however many the job has")
{
    char tmpl[] = "/tmp/ioplan-devnames-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    const std::string dir = tmpl;
    REQUIRE(symlink("/dev/null", (dir + "/d.0.5").c_str()) == 0);
    REQUIRE(mkfifo((dir + "/d.0.7").c_str(), 0600) == 0);
    REQUIRE(symlink("d.0.7", (dir + "/d.0.8").c_str()) == 0);
    fclose(fopen((dir + "/d.0.3").c_str(), "w"));
    auto devices = [&](int nrfiles) {
        plan_ptr p = plan_of("[d]\nioengine=psync\nfilesize=4k\nnrfiles=" + std::to_string(nrfiles) +
                             "\ndirectory=" + dir + "\n");
        const plan_clone &c = plan_job_at(p.get(), 0)->clones[0];
        std::vector<uint32_t> out;
        for (uint32_t f = 0; f < c.nr_files; f++)
            if (c.files[f].is_device)
                out.push_back(f);
        return out;
    };
    CHECK(devices(10) == std::vector<uint32_t>{ 5 });
    CHECK(devices(100) == std::vector<uint32_t>{ 5 });
    // A directory far larger than the job's files is not read: each name is looked at.
    for (int i = 0; i < 1500; i++)
        fclose(fopen((dir + "/other." + std::to_string(i)).c_str(), "w"));
    CHECK(devices(100) == std::vector<uint32_t>{ 5 });
    REQUIRE(std::system(("rm -rf -- '" + dir + "'").c_str()) == 0);
}

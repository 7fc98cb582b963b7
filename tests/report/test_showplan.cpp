// tests/report/test_showplan.cpp - --showplan's text is written a job and a file
// at a time, yet it must stay the text nlohmann's dump(2) gives for the whole
// tree: stored runs are matched by plan_hash, the SHA-256 of these bytes.  The
// hashes below were taken from the tree-building writer and must never change
// unless the same job text comes to mean another workload: numjobs=4's did once,
// when its threads took fio's numbers (subjobs 0, 3, 2, 1 run as threads 1-4).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "parser/ini.hpp"
#include "parser/parser.hpp"
#include "tests/parser/plan_text.hpp"
#include "report/fio/json_env.hpp"
#include "report/showplan.hpp"
#include "parser/options.hpp"
#include "results/record.hpp"

using namespace parser;

namespace {

plan_ptr plan_of(const std::string &text)
{
    return t::plan_of_ini(text);
}

struct stored {
    const char *what;
    const char *text;
    const char *hash;
};

const stored plans[] = {
    {"one job", "[one]\nfilename=/dev/shm/hs_one\nsize=1m\nrw=randrw\nbs=4k,8k\n",
     "e7ab4222a87308947ee817d4c948b640c92e48e5dc4ad69978311baf5198123f"},
    {"numjobs, 1,000 files, quotes in a value",
     "[global]\ndirectory=/dev/shm/hsdir\nsize=4m\ndescription=quote \" back\\slash\n[multi]\nnumjobs=4\n"
     "rw=write\nbssplit=4k/50:64k/50\npercentile_list=50:99.9:99.99\nbuffer_pattern=0xdeadbeef\n"
     "[second]\nstonewall\nnrfiles=1000\nfilesize=4k\n",
     "65f23e46e1f6788e99bcb551b10efaad85b399458d66b0f6836532086d12b7e7"},
    {"unicode, quotes and invalid UTF-8 in names and paths",
     "[w\xc3\xa9ird \"name\"]\nfilename=/dev/shm/h\xc3\xa9 \\\"q\\\"\nsize=1m\n[bad]\n"
     "filename=/dev/shm/bad\xff\xfename\nsize=1m\nrandom_distribution=zipf:1.2\n",
     "fd4b027211ee841847a200e45ed349b192f022da07f72ee438f784bbb6dd9562"},
};

} // namespace

TEST_CASE("plan_hash of stored plans does not change")
{
    for (const stored &s : plans) {
        CAPTURE(s.what);
        plan_ptr p = plan_of(s.text);
        REQUIRE(p);
        CHECK(report::plan_hash(*p) == std::string(s.hash));
    }
}

TEST_CASE("the streamed showplan text is the whole tree's dump(2)")
{
    for (const stored &s : plans) {
        CAPTURE(s.what);
        plan_ptr p = plan_of(s.text);
        REQUIRE(p);
        std::ostringstream text;
        report::write_showplan(*p, text);
        auto tree = nlohmann::ordered_json::parse(text.str());
        CHECK(text.str() == tree.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
    }
}

TEST_CASE("showplan shows the pattern and file-service values the options resolved to, only when set")
{
    auto job_of = [](const std::string &body) {
        plan_ptr p = plan_of("[j]\nfilename=/dev/shm/sp_keys\nsize=1m\n" + body);
        REQUIRE(p);
        std::ostringstream text;
        report::write_showplan(*p, text);
        return nlohmann::json::parse(text.str())["groups"][0]["jobs"][0];
    };
    auto plain = job_of("rw=randread\n");
    for (const char *k : {"rw_seq_back_bytes", "rw_seq_nr", "rw_seq_only", "rw_seq_identical", "random_lfsr",
                          "file_service_extra", "file_service_param", "file_service_center",
                          "random_dist_centered", "random_tausworthe64"})
        CHECK_MESSAGE(!plain.contains(k), k);

    CHECK(job_of("rw=read:-8k\n")["rw_seq_back_bytes"] == 8192);
    auto seq = job_of("rw=randread:4\nrw_sequencer=identical\nrandom_generator=lfsr\n");
    CHECK(seq["rw_seq_nr"] == 4);
    CHECK(seq["rw_seq_identical"] == true);
    CHECK(seq["random_lfsr"] == true);
    CHECK(!seq.contains("random_tausworthe64"));
    CHECK(job_of("rw=randread\nrandom_generator=tausworthe64\n")["random_tausworthe64"] == true);
    CHECK(!seq.contains("rw_seq_only"));
    CHECK(job_of("rw=randread:0\n")["rw_seq_only"] == true);
    CHECK(job_of("nrfiles=2\nfile_service_type=roundrobin:4\n")["file_service_extra"] == 3);
    auto zipf = job_of("nrfiles=4\nfile_service_type=zipf:0.8:0.3\n");
    CHECK(zipf["file_service_param"].get<double>() == doctest::Approx(0.8));
    CHECK(zipf["file_service_center"].get<double>() == doctest::Approx(0.3));
    auto pareto = job_of("nrfiles=4\nfile_service_type=pareto\n");
    CHECK(pareto["file_service_param"].get<double>() == doctest::Approx(0.2));
    CHECK(!pareto.contains("file_service_center"));
    // A centre of 0 given is not the default (fio's law then starts at rank 0, not a drawn one).
    auto centred = job_of("rw=randread\nrandom_distribution=zipf:1.2:0\n");
    CHECK(centred["random_dist_centered"] == true);
    CHECK(centred["random_dist_center"].get<double>() == 0.0);
    CHECK(!job_of("rw=randread\nrandom_distribution=zipf:1.2\n").contains("random_dist_centered"));
    // normal's parameter is fio's deviation as given, not a derived spread.
    CHECK(job_of("rw=randread\nrandom_distribution=normal:30\n")["random_dist_param"].get<double>() == 30.0);
}

namespace {

std::string workload_of(const std::string &text)
{
    plan_ptr p = plan_of(text);
    REQUIRE(p);
    return report::workload_hash(*p);
}

// The workload of an fio run whose job has option key=value (none: key empty).
std::string fio_workload(const std::string &key, const std::string &value)
{
    nlohmann::json job = {{"jobname", "j"}, {"job options", {{"rw", "randread"}, {"size", "1m"}}}};
    if (!key.empty())
        job["job options"][key] = value;
    nlohmann::json doc = {{"fio version", "fio-3.33"}, {"jobs", nlohmann::json::array({job})}};
    return resdb::record_of(doc, "seed").workload_hash;
}

} // namespace

TEST_CASE("workload_hash: the plan less the names of the host's targets")
{
    const std::string job = "[j]\nioengine=null\nrw=randread\nsize=1m\nnumjobs=2\n";
    std::string here = workload_of(job + "filename=/dev/shm/wl_a\n");
    CHECK(here.size() == 64);
    // Another file name, a directory, a name format, the permission to write there: one workload.
    CHECK(workload_of(job + "filename=/dev/shm/wl_b\n") == here);
    CHECK(workload_of(job + "directory=/dev/shm\nfilename=wl_a\n") == here);
    CHECK(workload_of(job + "filename=/dev/shm/wl_a\nallow_existing_file_write=1\n") == here);
    // Options in another order are the same workload.
    CHECK(workload_of("[j]\nsize=1m\nnumjobs=2\nrw=randread\nioengine=null\nfilename=/dev/shm/wl_c\n") == here);
    // What the workload is made of is not.
    for (const char *other : {"bs=64k\n", "iodepth=4\n", "rate_iops=100\n", "runtime=5\n", "direct=1\n"})
        CHECK_MESSAGE(workload_of(job + "filename=/dev/shm/wl_a\n" + other) != here, other);
    CHECK(workload_of("[j]\nioengine=null\nrw=randread\nsize=2m\nnumjobs=2\nfilename=/dev/shm/wl_a\n") != here);
    // A log's name is not, that the job writes one is.
    std::string logged = workload_of(job + "filename=/dev/shm/wl_a\nwrite_bw_log=/tmp/x\n");
    CHECK(logged != here);
    CHECK(workload_of(job + "filename=/dev/shm/wl_a\nwrite_bw_log=/var/y\n") == logged);
    // Each plan hash is unchanged, and names the file.
    plan_ptr a = plan_of(job + "filename=/dev/shm/wl_a\n"), b = plan_of(job + "filename=/dev/shm/wl_b\n");
    CHECK(report::plan_hash(*a) != report::plan_hash(*b));
}

TEST_CASE("workload_hash: randrepeat=0's seeds, drawn for each run, are no part of it")
{
    // Each plan of randrepeat=0 draws its clones' seeds from the OS: two plans of the same
    // job were two plan hashes, and two workloads.
    const std::string job = "[j]\nioengine=null\nrw=randread\nsize=1m\nnumjobs=2\nrandrepeat=0\n";
    plan_ptr a = plan_of(job), b = plan_of(job);
    REQUIRE(a->groups[0].jobs[0].clones[0].seed != b->groups[0].jobs[0].clones[0].seed);
    CHECK(report::workload_hash(*a) == report::workload_hash(*b));
    // A seed a job asks for is still its own workload.
    CHECK(workload_of("[j]\nioengine=null\nrw=randread\nsize=1m\nrandseed=7\n") !=
          workload_of("[j]\nioengine=null\nrw=randread\nsize=1m\nrandseed=8\n"));
}

TEST_CASE("workload_hash: an fio run's options are judged by the same list as ioplan's")
{
    // Over every option ioplan knows: an imported fio run's workload leaves out (or keeps
    // without its value) exactly the options ioplan's own workload does.
    std::string none = fio_workload("", "");
    for (const parser::option &o : parser::option_table()) {
        CAPTURE(o.name);
        bool host = report::host_specific_option(o.name), output = report::output_name_option(o.name);
        CHECK((fio_workload(o.name, "/x/1") == fio_workload(o.name, "/y/2")) == (host || output));
        CHECK((fio_workload(o.name, "/x/1") == none) == host);
    }
}

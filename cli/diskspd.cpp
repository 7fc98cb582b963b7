// cli/diskspd.cpp - DISKSPD command lines through the normal pipeline.
#include "cli/diskspd.hpp"

#include <cstdio>
#include <sstream>

#include "cli/args.hpp"
#include "cli/mpi/mpi.hpp"
#include "cli/output.hpp"
#include "cli/run.hpp"
#include "parser/diskspd/diskspd.hpp"
#include "parser/ini.hpp"
#include "parser/parser.hpp"
#include "report/diskspd/diskspd.hpp"
#include "report/showplan.hpp"

namespace cli {

namespace {

struct own_flags {
    bool showplan = false;
    bool job = false;
    std::string output;
    std::string allow_device_write;  // DISKSPD has no such flag: its tool writes devices freely
    bool allow_existing_file_write = false;  // nor this: it writes (and -c remakes) any file
    eta_mode eta = eta_mode::automatic;
};

// ioplan's long options are taken out; everything else is DISKSPD's.
std::vector<std::string> split_own(const std::vector<std::string> &in, own_flags *f)
{
    std::vector<std::string> out;
    for (const std::string &a : in) {
        std::string err;
        if (a == "--showplan")
            f->showplan = true;
        else if (a == "--job")
            f->job = true;
        else if (a.compare(0, 9, "--output=") == 0)
            f->output = a.substr(9);
        else if (a.compare(0, 21, "--allow_device_write=") == 0 || a.compare(0, 21, "--allow-device-write=") == 0)
            f->allow_device_write = a.substr(21);
        else if (a == "--allow_existing_file_write" || a == "--allow-existing-file-write")
            f->allow_existing_file_write = true;
        else if (a.compare(0, 6, "--eta=") == 0 && parse_eta_mode(a.substr(6), &f->eta, &err))
            continue;
        else
            out.push_back(a);
    }
    return out;
}

report::diskspd::options report_options(const parser::diskspd::facts &info)
{
    report::diskspd::options o;
    o.command_line = info.command_line;
    o.measure_latency = info.measure_latency;
    o.iops_stddev = info.iops_stddev;
    o.iops_interval_ms = info.iops_interval_ms;
    o.disable_affinity = info.disable_affinity;
    o.verbose = info.verbose;
    o.max_bytes = info.max_bytes;
    o.total_threads = info.total_threads;
    o.affinity = info.affinity;
    o.distribution_abs = info.distribution_abs;
    for (const auto &r : info.distribution)
        o.distribution.push_back({r.io_pct, r.span});
    return o;
}

} // namespace

int diskspd_main(const std::string &program, const std::vector<std::string> &argv_rest)
{
    own_flags own;
    auto t = parser::diskspd::translate(program, split_own(argv_rest, &own));
    for (const std::string &w : t.warnings)
        std::fprintf(stderr, "diskspd: warning: %s\n", w.c_str());
    for (const std::string &e : t.errors)
        std::fprintf(stderr, "diskspd: error: %s\n", e.c_str());
    if (!t.errors.empty())
        return 2;
    if (own.job)
        return write_stdout(t.ini, "the job to stdout") ? 0 : 1;
    parser::request req;
    if (!own.allow_device_write.empty()) {
        parser::loc at{"<command line>", 1, 1, "", nullptr};
        req.cli_globals.push_back(parser::entry{"allow_device_write", own.allow_device_write, true, at, at, {}, {}});
    }
    if (own.allow_existing_file_write) {
        parser::loc at{"<command line>", 1, 1, "", nullptr};
        req.cli_globals.push_back(parser::entry{"allow_existing_file_write", "1", true, at, at, {}, {}});
    }
    parser::ini_options unlimited;
    unlimited.max_line = 0; // the translation's filename= lists every target: no line limit
    parser::plan_ptr p =
        parser::plan_documents({parser::read_ini_text(t.ini, "<diskspd>", ".", unlimited)}, req, nullptr);
    report::diskspd::options ro = report_options(t.info);
    std::ostringstream text;
    if (own.showplan) {
        report::write_showplan(*p, text);
        return write_stdout(text.str(), "the plan to stdout") ? 0 : 1;
    }
    bool xml = t.info.format == parser::diskspd::result_format::xml;
    if (t.info.profile_only) {
        if (xml)
            report::diskspd::write_xml_profile(*p, ro, text);
        else
            report::diskspd::write_profile(*p, ro, text);
        return write_stdout(text.str(), "the profile to stdout") ? 0 : 1;
    }
    if (launched_by_mpi()) {
        // Each rank would run the line alone and print its own report, every one on the
        // same targets (2 ranks: two DISKSPD reports on stdout, neither the world's).
        std::fprintf(stderr, "diskspd: error: under mpirun a DISKSPD line is not run as one world (each rank would "
                             "run it alone and print its own report); run its job on the ranks instead: "
                             "ioplan diskspd ARGS --job > job.fio, then mpirun -np N ioplan "
                             "--output-format=diskspd job.fio\n");
        return 2;
    }
    args a;
    a.output_path = own.output;
    a.eta = own.eta;
    // A file to create is -c's, not size='s, on a DISKSPD command line; a user's
    // file is written with ioplan's --allow_existing_file_write, not the job option.
    a.finding_hint = [](const char *code) -> std::string {
        std::string c(code);
        if (c == "no-size")
            return " (DISKSPD's -c<size>, e.g. -c1G)";
        if (c == "existing-file")
            return " (on a DISKSPD line: ioplan diskspd --allow_existing_file_write ..., ioplan's flag)";
        return "";
    };
    a.writer = [ro, xml](const results &r, const plan &pl, std::ostream &out) {
        if (xml)
            report::diskspd::write_xml(r, pl, ro, out);
        else
            report::diskspd::write_text(r, pl, ro, out);
    };
    return run_plan(*p, a, {});
}

} // namespace cli

// cli/merge_cmd.cpp - `ioplan merge RANKFILE...` (merge_cmd.hpp).
//
// The files are read and folded in one at a time (rank_merge.hpp), so the
// memory held is two results whatever their number.  The plan the reports
// need is rebuilt from the first file's recorded command line and job text
// (with its rank's IOPLAN_* variables), so the reports name the same jobs,
// options and groups as the live run's.  Every file must be of that run,
// plan and world, and every rank of the world must have one: a merge of part
// of the world would report part of its I/O as the whole.
#include "cli/merge_cmd.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cli/output.hpp"
#include "cli/mpi/rank_json.hpp"
#include "cli/mpi/rank_merge.hpp"
#include "parser/parser.hpp"
#include "report/report.hpp"
#include "results/record.hpp"

namespace cli {

namespace {

struct results_deleter {
    void operator()(results *r) const { results_free(r); }
};
using results_ptr = std::unique_ptr<results, results_deleter>;

// An error with its place in a file, "path:line:col: error: ...", printed as it is.
struct positioned_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

results_ptr read_rank_file(const std::string &path, rank_info *who, plan_source *src)
{
    std::string text = rank_file_read(path);
    try {
        return results_ptr(rank_file_parse(text, who, src));
    } catch (const rank_json::syntax_error &e) {
        // A rank file cut short or edited by hand: where, as every reader of
        // a user's file says it ("at byte 1000" was all a merge said).
        throw positioned_error(path + ":" + resdb::text_position(text, e.byte + 1) + ": error: " + e.why);
    } catch (const std::runtime_error &e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

// The plan of the run, from what the first rank recorded.
parser::plan_ptr rebuild_plan(const plan_source &src, const rank_info &who)
{
    setenv("IOPLAN_RANK", std::to_string(who.rank).c_str(), 1);
    setenv("IOPLAN_NRANKS", std::to_string(who.nranks).c_str(), 1);
    setenv("IOPLAN_HOST", who.host.c_str(), 1);
    std::vector<std::string> words{"ioplan"};
    words.insert(words.end(), src.argv.begin(), src.argv.end());
    std::vector<char *> argv;
    for (std::string &w : words)
        argv.push_back(w.data());
    args recorded = parse_args(static_cast<int>(argv.size()), argv.data());
    std::vector<parser::document> docs;
    for (size_t i = 0; i < src.job_texts.size(); i++)
        docs.push_back(parser::read_ini_text(src.job_texts[i], i < src.job_names.size() ? src.job_names[i] : "job"));
    parser::diag_list notes;
    return parser::plan_documents(docs, recorded.req, &notes);
}

// rebuild_plan of the rank file at path: a job text or command line it records
// that does not read (edited, checksum and all) is that file's fault, and named.
parser::plan_ptr plan_of_rank_file(const std::string &path, const plan_source &src, const rank_info &who)
{
    try {
        return rebuild_plan(src, who);
    } catch (const std::runtime_error &e) {
        throw std::runtime_error(path + ": the run it records does not read again: " + e.what());
    }
}

// A rank file an earlier ioplan wrote names no thread's files (no clone_paths):
// for DISKSPD's rows they come from that rank's own plan, rebuilt from the job
// text with its IOPLAN_RANK and IOPLAN_HOST, as the rank named them when it ran.
// (Rank 0's come from the merge's plan, which is its own.)
void name_old_rank_threads(const std::string &path, results *r, rank_info *who, const plan_source &src)
{
    if (!who->clone_paths.empty() || who->rank == 0)
        return;
    parser::plan_ptr own = plan_of_rank_file(path, src, *who);
    r->plan = own.get();
    who->clone_paths = clone_paths_of(*r);
    r->plan = nullptr;
}

// The files with rank 0's first, wherever it was given: the merge is on rank
// 0's clock and from its plan, as the live run's, so any order of the same
// files reports the same.  Only an order that does not start with it costs
// a read of the files before it.
std::vector<std::string> rank_zero_first(std::vector<std::string> files)
{
    for (size_t i = 0; i < files.size(); i++) {
        rank_info who;
        plan_source src;
        read_rank_file(files[i], &who, &src);
        if (who.rank == 0) {
            std::rotate(files.begin(), files.begin() + static_cast<long>(i), files.begin() + static_cast<long>(i) + 1);
            break;
        }
    }
    return files;
}

// Rank files that hold fewer jobs than the plan has: every rank stopped
// before the end (mpirun killed, the disk full) and each kept the groups it
// finished.  Their report is of part of the run, and says so.
void unfinished(results *acc, const plan &p)
{
    if (acc->nr_jobs >= p.nr_jobs)
        return;
    acc->interrupted = true;
    res_msg_add(acc, RES_MSG_WARNING, "merge/unfinished", -1,
                "the merged rank files hold the first %u of the plan's %u jobs: the run did not finish, and the "
                "later jobs are reported without I/O", acc->nr_jobs, p.nr_jobs);
}

} // namespace

int merge_action(const args &a)
{
    std::vector<std::string> files = a.req.job_files;
    if (files.empty()) {
        std::fprintf(stderr, "ioplan: error: usage: ioplan merge [--partial] [--output-format=LIST] [--output=FILE] RANKFILE...\n");
        return 2;
    }
    std::string given = job_option_given(a, "merge");
    if (!given.empty()) {
        std::fprintf(stderr, "ioplan merge: error: %s\n", given.c_str());
        return 2;
    }
    report::options o;
    std::string err;
    if (!report::parse_formats(a.output_format, &o.formats, &err)) {
        std::fprintf(stderr, "ioplan: error: --output-format: %s\n", err.c_str());
        return 2;
    }
    o.who = a.who;
    o.terse_version = a.terse_version;
    rank_info first;
    plan_source src;
    results_ptr acc;
    parser::plan_ptr p;
    auto t0 = std::chrono::steady_clock::now();
    try {
        files = rank_zero_first(files);
        acc = read_rank_file(files[0], &first, &src);
        p = plan_of_rank_file(files[0], src, first);
        acc->plan = p.get();
        const bool diskspd = (o.formats & (report::FORMAT_DISKSPD | report::FORMAT_DISKSPD_XML)) != 0;
        rank_merger m(acc.get(), first, first.nranks, a.merge_partial, diskspd);
        for (size_t i = 1; i < files.size(); i++) {
            rank_info who;
            plan_source theirs;
            results_ptr r = read_rank_file(files[i], &who, &theirs);
            std::string why = rank_file_mismatch(first, src, who, theirs);
            if (why.empty() && diskspd)
                name_old_rank_threads(files[i], r.get(), &who, theirs);
            if (why.empty())
                why = m.add(*r, who);
            if (!why.empty())
                throw std::runtime_error(files[i] + ": rank " + std::to_string(who.rank) + ": " + why);
        }
        std::string missing = m.missing();
        if (!missing.empty() && a.merge_partial)
            res_msg_add(acc.get(), RES_MSG_WARNING, "merge/partial", -1,
                        "--partial: no rank file for rank%s %s of the %u ranks: the figures are the other ranks' only",
                        missing.find(',') == std::string::npos ? "" : "s", missing.c_str(), first.nranks);
        else if (!missing.empty())
            throw std::runtime_error("no rank file for rank" + std::string(missing.find(',') == std::string::npos ? " " : "s ") +
                                     missing + " of the " + std::to_string(first.nranks) + " ranks of run " +
                                     first.run_id + ": a merge of part of a world would report part of its I/O as all of it");

        // The world's own id and job text, as rank 0's report and save carry them.
        acc->run_uuid = strdup(world_uuid(first.run_id, missing).c_str());
        if (!acc->job_text)
            acc->job_text = strdup(job_text_of(src).c_str());
        unfinished(acc.get(), *p);
        m.finish(static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count()), a.straggler_pct);
    } catch (const positioned_error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::runtime_error &e) {
        std::fprintf(stderr, "ioplan: error: merge: %s\n", e.what());
        return 2;
    }
    // As a run --save could not store is kept: `ioplan results import` of the
    // merge's JSON stores it under the label and preset the run was given.
    if (src.save)
        o.saved_as = report::saved_name{src.save_label, src.preset};
    std::ostringstream text;
    report::write(*acc, *p, o, text);
    std::vector<input_file> inputs;
    for (const std::string &f : a.req.job_files)
        inputs.push_back({f, "the rank file " + f + " being merged"});
    int rc = emit(text.str(), "the merged results", a.output_path, inputs);
    return rc ? rc : acc->interrupted ? 1 : 0;	// as the run itself would have ended
}

} // namespace cli

// parser/planner.hpp - internal: from layered job specs to plan memory.
//
// planner.cpp does fio's layering of options (command line, [global]s, job
// sections); planner_build.cpp turns the resulting job list into the plan:
// groups, clones, seeds and files, once job_checks.cpp has checked each job.
// Only parser/ includes this.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/plan.h"
#include "parser/diag.hpp"
#include "parser/spec.hpp"
#include "parser/file_spellings.hpp"

namespace parser {

struct option;

struct job_def {
    job_spec spec;
    std::string section;     // header text (or --name for command-line jobs)
    loc header;
    uint32_t file_index = 0;
    // Checked and then dropped (plan_builder's check_only): what only a run
    // reads, such as whether a file is a device, is not looked up.
    bool dropped = false;
};


// The job's display name, and where it set an option (its header when inherited).
std::string job_name(const job_def &d);
const loc &option_loc(const job_def &d, const char *key);

// An engine option's value as given or defaulted (0 or "" when neither), by name.
long long engine_int(const job_spec &s, const char *name);
std::string engine_text(const job_spec &s, const char *name);

// File paths of one clone, as fio lays them out (planner_build.cpp).
std::vector<std::string> clone_paths(const job_def &d, const std::string &name, uint32_t clone,
                                     std::vector<std::string> *fio_names = nullptr);

// The settings that follow from several options, and the relations between
// them, once the whole job is read (job_finalize.cpp).
void finalize_spec(job_def &d);
// What a run would only find out after starting the job, refused as it is
// planned, with the option's position (job_checks.cpp); throws parser::error.
void check_job(const job_def &d);
// A filesize= range's regions once the clones' files are drawn (fill_job).
void check_drawn_regions(const job_def &d, const plan_job &j);

// net, netsplice, nbd (remote_engines.cpp): fio's refusals, checked before the
// run with the option's position.  check_remote_options: their options under
// another engine; check_remote_job: the job's own, then the peer it names
// (hostname=, else the filename) written into its engine values.
void check_remote_options(const job_def &d);

// "NAME is an option of ioengine=A or B, not of ioengine=E": o (an engine's option) under e.
std::string foreign_engine_option(const option &o, plan_ioengine e);
void check_remote_job(job_def &d);

// Plan memory built one job at a time, as the layering makes them: each job's
// spec is dropped once copied, so a big job file never holds every spec and
// every plan job at once.  add() checks the job (alone, and against the jobs
// before it: groups, wait_for, the plan's totals) and throws parser::error.
class plan_builder {
public:
    // check_only: jobs are checked and dropped (see request::check_only);
    // keep_names: their names are kept for a later wait_for= to find.
    explicit plan_builder(bool check_only = false, bool keep_names = true);
    ~plan_builder();
    plan_builder(const plan_builder &) = delete;
    plan_builder &operator=(const plan_builder &) = delete;
    void add(job_def &d);
    uint32_t jobs() const { return p_->nr_jobs; }
    // The plan, with echo (the union of global options); the builder is spent.
    plan *finish(const std::vector<entry> &global_echo, const std::vector<uint32_t> &global_echo_at);

private:
    struct most_files {
        uint64_t files = 0;
        uint32_t numjobs = 0;
        std::string name;
        loc header;
    };
    plan *p_;
    uint64_t random_base_;
    uint32_t threads_ = 0, capacity_ = 0, group_capacity_ = 0;
    bool check_only_, keep_names_;
    bool exitall_ = false;  // a job set exitall: fio's is global, every job gets it (finish)
    // The open group: its first job's steady-state options and name (its jobs
    // are judged as one), and how many jobs it took, dropped ones included.
    // first_ is a shallow copy read for its ss fields only: its job may be gone.
    plan_job first_{};
    std::string first_name_;
    uint32_t group_jobs_ = 0;
    // Dropped jobs' names: the first job of each name, and how many have it (wait_for=).
    std::unordered_map<std::string, std::pair<int32_t, uint32_t>> dropped_names_;
    // Paths the first clone of a job with numjobs>1 added (fio's filename_list): later clones skip them.
    std::unordered_set<std::string> claimed_;
    // The size each file has once fio's setups of the jobs planned so far ran (fill_files).
    std::unordered_map<std::string, uint64_t> set_up_;
    // The first spelling of each file, which the plan keeps for all its names (file_spellings.hpp).
    file_spellings spellings_;
    uint64_t files_ = 0, trace_ = 0, trace_runs_ = 1;
    most_files most_;
    void count_files(const job_def &d);
    void count_trace(const job_def &d);
    plan_group &group_for(const job_def &d);
    int32_t wait_for(const job_def &d) const;
    void fit_last_group();
    void exitall_everywhere();
    void keep_or_drop(plan_job &j, const job_def &d);
    template <class T> static void grow(T **array, size_t n);
};
} // namespace parser

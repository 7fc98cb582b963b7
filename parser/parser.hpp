// parser/parser.hpp - the parser's public surface: job text in, plan out.
//
// cli/ collects the command line into a request; the parser reads every job
// file (INI, TOML or YAML, each read into the same document), applies
// options with fio's layering (command-line defaults for the first file,
// cumulative [global]s, a fresh start for each later file) and builds the
// plan.  Errors are thrown as parser::error; notes (e.g. a command-line value
// shadowed by the file) are returned for the cli to print.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "parser/diag.hpp"
#include "parser/doc.hpp"
#include "parser/ini.hpp"

namespace parser {

struct plan_deleter {
    void operator()(plan *p) const { plan_free(p); }
};
using plan_ptr = std::unique_ptr<plan, plan_deleter>;

// A line fio prints on its output as it reads the jobs (its log_info while
// parsing), without fio's "fio: " in front.
struct fio_line {
    loc where;            // the option it is about
    std::string text;     // "opendir added 3 files"
    // fio prints each job's banner line as it has read the job: this line
    // comes before the banner of the plan's job of this index (nr_jobs: after
    // the last one's).
    uint32_t before_job = 0;
};

struct request {
    std::vector<std::string> job_files;
    std::vector<entry> cli_globals;       // job options before any --name (and after --name=global)
    std::vector<section> cli_jobs;        // --name=X jobs, each with its options
    std::vector<std::string> only_sections; // --section=NAME filters
    ini_options ini;
    std::string format;                   // --format: ini, toml, yaml; "" = by extension
    // --preset: the job file is a template and command-line options override
    // its values (fio's rule, defaults the file overrides, is for job files).
    bool cli_overrides = false;
    // --parse-only: each job is checked and dropped, as fio's --parse-only puts
    // each job back; the plan keeps only the jobs a later check reads (an iolog
    // to replay), so a file of 100 000 sections does not hold 100 000 jobs.
    bool check_only = false;
    // Where to keep what fio prints on its output as it reads the jobs, or
    // null: "opendir added N files" for each [global] or job section read (and
    // not left out by --section) whose opendir= is applied, and fio's "multiple
    // writers may overwrite blocks" for a verifying job whose clones write the
    // same files, in reading order.
    // The cli prints them where fio does (cli/main.cpp).
    std::vector<fio_line> *fio_said = nullptr;
};

enum class syntax { ini, toml, yaml };

// By --format when given, else by extension (.toml; .yaml/.yml; anything else INI).
syntax syntax_of(const std::string &path, const std::string &forced);

// Reads a job file in its syntax.  Throws parser::error.
document read_job_file(const std::string &path, const ini_options &ini, const std::string &forced = "");

// Builds the plan from documents already read (file order = group order).
plan_ptr plan_documents(const std::vector<document> &docs, const request &req, diag_list *notes);
// The same, reporting the errors already in errors (the reader's) with the options' own.
plan_ptr plan_documents(const std::vector<document> &docs, const request &req, diag_list *notes, error_sink &errors);

// Reads every job file of req and builds the plan; with docs, the documents
// read are kept there too (a rank file records them: cli/mpi/rank_file.hpp).
plan_ptr build_plan(const request &req, diag_list *notes, std::vector<document> *docs = nullptr);

// Applies one entry to a job (option lookup, "did you mean", value checks);
// throws parser::error positioned at the key or the value.  What fio would
// read differently from the text (ignored text after a number, a deprecated
// option) becomes a note in notes when given.
void apply_entry(struct job_spec &j, const entry &e, diag_list *notes = nullptr);

// size=-N, which fio 3.33 reads as N (apply_entry does; the planner notes it).
bool negative_size(const struct option &o, const entry &e);

} // namespace parser

// parser/planner.cpp - fio's option layering: command-line defaults, cumulative
// [global]s, job sections, several job files; then plan building.
#include "parser/parser.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>

#include "parser/options.hpp"
#include "parser/planner.hpp"
#include "parser/structured.hpp"
#include "parser/values.hpp"

namespace parser {

namespace {

// Where fio's option priorities order a job file's section: kb_base first, so
// `size=1m` means the same wherever kb_base is written; filename= last, so it
// goes under the section's directory= wherever that is written.  fio applies
// the command line in the order given: `in_order` (filename= then directory= is
// a file outside the directory there, and kb_base reads only the sizes after it).
int section_rank(const entry &e, bool in_order)
{
    static const option *const kb_base = find_option("kb_base"), *const filename = find_option("filename");
    const option *o = find_option(e.key);
    if (in_order || !o)
        return 1;
    return o == kb_base ? 0 : o == filename ? 2 : 1;
}

// The engine whose option table holds e's options: the first engine with the
// same table (net and netsplice share theirs, as in fio, and so do filestat and
// dirstat), else e itself (each engine without a table of ours still has its
// own in fio: pvsync2's hipri is not io_uring's).
int options_owner(plan_ioengine e)
{
    const plan_engopts *t = plan_engopts_of(e);
    for (int k = 0; t->nr && k < (int)e; k++)
        if (plan_engopts_of((plan_ioengine)k) == t)
            return k;
    return (int)e;
}

// Every engine option's value back to its default: what the engine options a
// section inherited hold when they belong to another engine's table.
void reset_engine_options(job_spec &j)
{
    static const job_spec defaults = default_spec();
    j.engine_values.clear();
    j.engine_opts_set.clear();
    j.pj.uring_hipri = defaults.pj.uring_hipri;
    j.pj.hipri_percentage = defaults.pj.hipri_percentage;
    j.hipri_percentage_set = defaults.hipri_percentage_set;
    j.pj.rwf_uncached = defaults.pj.rwf_uncached;
    j.pj.rwf_nowait = defaults.pj.rwf_nowait;
    j.pj.cmdprio_bssplit = defaults.pj.cmdprio_bssplit;
    for (int d = 0; d < 2; d++) {
        j.pj.cmdprio[d] = defaults.pj.cmdprio[d];
        j.cmdprio_split[d].clear();
    }
}

// fio reads a section's engine options after its other options, against the
// engine the section ends with (fio_options_parse), into that engine's struct:
// a job's starts as a copy of [global]'s only when both engines have the same
// table (ioengine_load), and a [global] that sets an engine option under another
// engine starts its struct afresh.  So [global] ioengine=io_uring nowait=1 with
// [j] ioengine=pvsync2 runs j without nowait, where carrying it failed every read
// with EAGAIN.
void settle_engine_options(job_spec &j)
{
    int owner = options_owner(j.pj.ioengine);
    if (j.engine_opts_owner >= 0 && j.engine_opts_owner != owner)
        reset_engine_options(j);
    j.engine_opts_owner = owner;
}

bool is_engine_option(const entry &e)
{
    const option *o = find_option(e.key);
    return o && o->engines;
}

// Every entry is applied even after one fails: sink keeps each error, so the
// whole list is reported at once and a file is fixed in one pass, not one
// error per run.  The engine's own options come last (rank 3), once the
// section's engine is known (settle_engine_options); a job settles it whether
// or not it sets one, a [global] only when it does, as fio loads the engine
// then.  Outside a job, an engine option of another engine than the section's
// is refused, as fio's "Bad option" drops the section.
void apply_section(job_spec &j, const std::vector<entry> &entries, error_sink &sink, diag_list *notes,
                   bool in_order = false, bool job = false)
{
    std::vector<uint8_t> ranks;
    bool engine_entries = false;
    ranks.reserve(entries.size());
    for (const entry &e : entries) {
        bool eng = is_engine_option(e);
        engine_entries |= eng;
        ranks.push_back(eng ? 3 : (uint8_t)section_rank(e, in_order));
    }
    for (uint8_t rank = 0; rank < 4; rank++) {
        if (rank == 3 && (job || engine_entries))
            settle_engine_options(j);
        for (size_t i = 0; i < entries.size(); i++) {
            if (ranks[i] != rank)
                continue;
            try {
                const option *o = rank == 3 ? find_option(entries[i].key) : nullptr;
                if (o && !job && option_foreign_to(*o, plan_ioengine_name(j.pj.ioengine)))
                    fail(entries[i].key_loc, foreign_engine_option(*o, j.pj.ioengine) +
                                                 ", this section's engine (fio refuses it too)");
                apply_entry(j, entries[i], notes);
            } catch (const error &err) {
                sink.add(err);
            }
        }
    }
}

// What fio says as it reads a section whose opendir= j took (set_opendir
// counted each, in the order applied, as the section's opendir entries come),
// ahead of the banner of job `next`.
void say_opendir(const job_spec &j, size_t before, const std::vector<entry> &entries, uint32_t next,
                 std::vector<fio_line> *said)
{
    static const option *const opendir = find_option("opendir");
    size_t k = before;
    for (const entry &e : entries)
        if (said && k < j.opendir_counts.size() && find_option(e.key) == opendir)
            said->push_back(fio_line{e.key_loc, "opendir added " + std::to_string(j.opendir_counts[k++]) + " files",
                                     next});
}

class layering {
public:
    layering(const request &req, diag_list *notes, error_sink &errors, plan_builder &plan)
        : req_(req), notes_(notes), errors_(errors), plan_(plan) {}

    uint32_t jobs = 0;
    std::vector<entry> global_echo;
    std::vector<uint32_t> global_echo_at;

    void run(const std::vector<document> &docs);
    // run() in steps, for sections handed over as they are read: begin() (the
    // command line's jobs; the first file's base), then per file
    // start_document() and each of its sections, then end().
    job_spec begin();
    void start_document(uint32_t index, job_spec base);
    void read_section(const section &s);
    void end();
    bool wanted_all() const { return req_.only_sections.empty(); }
    // The first job the planner refused, thrown once the option errors are.
    void rethrow_planning_error() const
    {
        if (planning_error_)
            std::rethrow_exception(planning_error_);
    }

private:
    const request &req_;
    diag_list *notes_;
    error_sink &errors_;
    plan_builder &plan_;
    std::exception_ptr planning_error_;
    diag_list time_based_notes_; // said after the reading's notes, as when jobs were planned at the end
    std::map<std::string, const entry *> cli_set_; // canonical name -> command-line entry
    std::vector<named_file> cli_files_;             // the command line's filename=s, as it placed them

    void take(job_def &d);

    job_spec cli_defaults();
    job_spec cli_defaults_before(const section &job, const job_spec &all) const;
    uint32_t doc_index_ = 0;
    job_spec doc_globals_; // the file's base with its [global]s so far
    bool first_job_ = true;
    void note_shadowed(const std::vector<entry> &entries);
    void note_negative_size(const std::vector<entry> &entries);
    void untimed_time_based(job_def &d);
    void say_shared_writers(const job_def &d, uint32_t index);
    void scale_to_cli_size(const plan_job &own, plan_job &j) const;
    bool wanted(const std::string &section) const;
};

job_spec layering::cli_defaults()
{
    job_spec j = default_spec();
    // A preset's command line sets options of the preset's engine: checked with its jobs.
    apply_section(j, req_.cli_globals, errors_, notes_, true, req_.cli_overrides);
    say_opendir(j, 0, req_.cli_globals, jobs, req_.fio_said);
    cli_files_ = j.filenames;
    note_negative_size(req_.cli_globals);
    for (const entry &e : req_.cli_globals) {
        cli_set_[find_option(e.key)->name] = &e;
        global_echo.push_back(e);
    }
    return j;
}

void layering::note_shadowed(const std::vector<entry> &entries)
{
    for (const entry &e : entries) {
        const option *o = find_option(e.key);
        auto it = o ? cli_set_.find(o->name) : cli_set_.end();
        if (it == cli_set_.end())
            continue;
        const entry &c = *it->second;
        std::string cli = "--" + c.key + (c.has_value ? "=" + c.value : "");
        notes_->push_back(diag{severity::note, e.key_loc,
                               cli + " is overridden by " + e.key + (e.has_value ? "=" + e.value : "") +
                                   " in the job file (command-line options are defaults for the first job file)"});
    }
}

void layering::note_negative_size(const std::vector<entry> &entries)
{
    for (const entry &e : entries) {
        const option *o = find_option(e.key);
        if (notes_ && o && negative_size(*o, e))
            notes_->push_back(diag{severity::note, e.value_loc,
                                   e.key + "=" + e.value + " is read as " + e.value.substr(1) +
                                       " (fio reads a negative size as its absolute value)"});
    }
}

// A preset is a template: --size=S is its test file's size.  A preset job that
// sets filesize=F and works on parts of it (size=, offset=, offset_increment=:
// olap's four threads each reading their own quarter) gets filesize=S and
// those parts scaled by S/F, so every job shrinks with the file instead of
// reaching past it.  Parts stay multiples of 4 KiB (direct I/O).
void layering::scale_to_cli_size(const plan_job &own, plan_job &j) const
{
    uint64_t file = own.filesize_max_bytes, s = j.size_bytes;
    if (!file || !s || j.size_ppm || !cli_set_.count("size") || cli_set_.count("filesize"))
        return;
    auto scaled = [&](uint64_t v) { return (uint64_t)((unsigned __int128)v * s / file) & ~(uint64_t)4095; };
    j.filesize_min_bytes = j.filesize_max_bytes = s;
    j.size_bytes = own.size_bytes ? scaled(own.size_bytes) : s;
    if (own.offset_bytes && !cli_set_.count("offset"))
        j.offset_bytes = scaled(own.offset_bytes);
    if (own.offset_increment_bytes && !cli_set_.count("offset_increment"))
        j.offset_increment_bytes = scaled(own.offset_increment_bytes);
}

bool layering::wanted(const std::string &section) const
{
    const auto &only = req_.only_sections;
    return only.empty() || std::find(only.begin(), only.end(), section) != only.end();
}

void layering::start_document(uint32_t index, job_spec base)
{
    doc_index_ = index;
    doc_globals_ = std::move(base);
    first_job_ = true;
    // fio starts each file after the first from its defaults, and its JSON's
    // "global options" are the last file's [global] alone.
    if (index > 0) {
        global_echo.clear();
        global_echo_at.clear();
    }
}

void layering::read_section(const section &s)
{
    uint32_t index = doc_index_;
    job_spec &g = doc_globals_;
    note_negative_size(s.entries);
    if (index == 0 && notes_ && !req_.cli_overrides)
        note_shadowed(s.entries);
    if (s.is_global) {
        size_t said = g.opendir_counts.size();
        apply_section(g, s.entries, errors_, notes_);
        say_opendir(g, said, s.entries, jobs, req_.fio_said);
        size_t from = global_echo.size();
        global_echo.insert(global_echo.end(), s.entries.begin(), s.entries.end());
        fio_echo_places(global_echo, from, global_echo_at);
        return;
    }
    job_def d{g, s.name, s.header_loc, index};
    d.spec.name.clear(); // as fio 3.33: a [global] name= names no job, the section does
    d.spec.echo = s.entries;
    fio_echo_places(d.spec.echo, 0, d.spec.echo_at);
    size_t said = d.spec.opendir_counts.size();
    apply_section(d.spec, s.entries, errors_, notes_, false, true);
    // fio does not read a section --section leaves out.
    if (wanted(s.name))
        say_opendir(d.spec, said, s.entries, jobs, req_.fio_said);
    if (req_.cli_overrides && index == 0) {
        plan_job own = d.spec.pj;
        apply_section(d.spec, req_.cli_globals, errors_, nullptr, true, true); // noted once, in cli_defaults
        // A preset's file is a template: --filename= replaces its names rather than adding to
        // them, each where the command line put it (under the --directory= given before it).
        if (std::any_of(req_.cli_globals.begin(), req_.cli_globals.end(),
                        [](const entry &e) { return find_option(e.key) == find_option("filename"); }))
            d.spec.filenames = cli_files_;
        scale_to_cli_size(own, d.spec.pj);
        d.spec.echo.insert(d.spec.echo.end(), req_.cli_globals.begin(), req_.cli_globals.end());
    }
    // Each job file after the first starts with a stonewall, as in fio.
    if (index > 0 && first_job_)
        d.spec.pj.stonewall = true;
    first_job_ = false;
    if (wanted(s.name))
        take(d);
}

// fio copies its defaults into a command-line job when it reads the job's
// --name, so an option after --name=global (or after a job --section= leaves
// out) is a default only of the jobs named after it, and of the job files.
// Command-line entries know their place: the column is the argument's index.
job_spec layering::cli_defaults_before(const section &job, const job_spec &all) const
{
    std::vector<entry> before;
    for (const entry &e : req_.cli_globals)
        if (e.key_loc.col < job.header_loc.col)
            before.push_back(e);
    if (before.size() == req_.cli_globals.size())
        return all;
    job_spec j = default_spec();
    error_sink reported; // cli_defaults reported each error once already
    apply_section(j, before, reported, nullptr, true);
    return j;
}

job_spec layering::begin()
{
    job_spec base = cli_defaults();
    for (const section &s : req_.cli_jobs) {
        job_def d{cli_defaults_before(s, base), s.name, s.header_loc, 0};
        // fio echoes --name=X as the job's first option; docker-diskmark greps for it.
        entry name{"name", s.name, true, s.header_loc, s.header_loc, {}, {}};
        d.spec.echo = s.entries;
        d.spec.echo.insert(d.spec.echo.begin(), name);
        size_t said = d.spec.opendir_counts.size();
        apply_section(d.spec, s.entries, errors_, notes_, true, true);
        say_opendir(d.spec, said, s.entries, jobs, req_.fio_said);
        note_negative_size(s.entries);
        take(d);
    }
    return base;
}

void layering::end()
{
    if (notes_)
        notes_->insert(notes_->end(), time_based_notes_.begin(), time_based_notes_.end());
}

void layering::run(const std::vector<document> &docs)
{
    job_spec base = begin();
    for (size_t i = 0; i < docs.size(); i++) {
        start_document((uint32_t)i, i == 0 ? base : default_spec());
        for (const section &s : docs[i].sections)
            read_section(s);
    }
    end();
}

// Each job goes into plan memory as soon as it is read and its spec is dropped
// (a job file of 100 000 sections held every spec and every plan job at once).
// Jobs are planned only while the files have no option error: those are
// reported first, all together, as before any job was planned.
void layering::take(job_def &d)
{
    jobs++;
    untimed_time_based(d);
    say_shared_writers(d, jobs - 1);
    if (!errors_.empty() || planning_error_)
        return;
    try {
        plan_.add(d);
    } catch (const error &) {
        planning_error_ = std::current_exception();
    }
}

// fio 3.33 ignores time_based without a runtime ("time_based requires a
// runtime/timeout setting"): the job ends with its amount instead of never.
void layering::untimed_time_based(job_def &d)
{
    plan_job &j = d.spec.pj;
    if (!j.time_based || j.runtime_ns)
        return;
    j.time_based = false;
    loc at = d.header;  // the option's name, where the job set it itself
    for (const entry &e : d.spec.echo)
        if (e.key == "time_based")
            at = e.key_loc;
    if (notes_)
        time_based_notes_.push_back(diag{severity::warning, at,
                               "job '" + job_name(d) + "': time_based needs runtime=; without it the job ends when "
                               "its I/O amount is done, as in fio"});
}

// fio's fixup_options says so before the banner of a verifying job whose clones write
// the same files: one named by filename=, or a filename_format without $jobname, $jobnum
// and $filenum (each clone's read-back then finds what the others wrote last).
void layering::say_shared_writers(const job_def &d, uint32_t index)
{
    const job_spec &s = d.spec;
    const std::string &f = s.filename_format;
    bool own_files = f.find("$jobname") != std::string::npos && f.find("$jobnum") != std::string::npos &&
                     f.find("$filenum") != std::string::npos;
    if (!req_.fio_said || s.pj.verify == PLAN_VERIFY_NONE || !plan_rw_has_ddir(s.pj.rw, PLAN_DDIR_WRITE) ||
        !s.pj.do_verify || s.numjobs < 2 || (s.filenames.empty() && own_files))
        return;
    loc at = d.header;
    for (const entry &e : s.echo)
        if (e.key == "numjobs")
            at = e.key_loc;
    req_.fio_said->push_back(fio_line{at, "multiple writers may overwrite blocks that belong to other jobs. "
                                          "This can cause verification failures.", index});
}

bool has_wait_for(const std::vector<entry> &entries)
{
    for (const entry &e : entries) {
        const option *o = find_option(e.key);
        if (o && std::string(o->name) == "wait_for")
            return true;
    }
    return false;
}

// Whether any job may wait for another by name: only then does a checking
// builder keep the names of the jobs it drops.
bool sets_wait_for(const std::vector<document> &docs, const request &req)
{
    if (has_wait_for(req.cli_globals))
        return true;
    for (const section &s : req.cli_jobs)
        if (has_wait_for(s.entries))
            return true;
    for (const document &d : docs)
        for (const section &s : d.sections)
            if (has_wait_for(s.entries))
                return true;
    return false;
}

} // namespace

syntax syntax_of(const std::string &path, const std::string &forced)
{
    std::string f = forced;
    if (f.empty()) {
        size_t dot = path.rfind('.');
        std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
        f = ext == "toml" ? "toml" : (ext == "yaml" || ext == "yml") ? "yaml" : "ini";
    }
    if (f == "ini" || f == "fio")
        return syntax::ini;
    if (f == "toml")
        return syntax::toml;
    if (f == "yaml" || f == "yml")
        return syntax::yaml;
    fail(loc{"<command line>", 0, 0, "", nullptr}, "--format=" + f + ": not a job file syntax (ini, toml, yaml)");
}

document read_job_file(const std::string &path, const ini_options &ini, const std::string &forced)
{
    switch (syntax_of(path, forced)) {
    case syntax::toml:
        return read_toml_file(path, ini);
    case syntax::yaml:
        return read_yaml_file(path, ini);
    default:
        return read_ini_file(path, ini);
    }
}

plan_ptr plan_documents(const std::vector<document> &docs, const request &req, diag_list *notes)
{
    error_sink errors;
    return plan_documents(docs, req, notes, errors);
}

namespace {

void check_only_sections(const request &req)
{
    for (const auto &s : req.only_sections)
        if (s.compare(0, 6, "global") == 0)
            fail(loc{"<command line>", 0, 0, "", nullptr}, "--section=" + s + ": a [global] section cannot be run on its own");
}

// The errors in the order a user fixes them: option errors (with the reader's),
// then the first job the planner refused, then a file without jobs.
plan_ptr finish_plan(layering &l, plan_builder &builder, error_sink &errors, const std::string &first_path)
{
    errors.throw_if_any();
    l.rethrow_planning_error();
    if (!l.jobs)
        fail(loc{first_path, 0, 0, "", nullptr},
             l.wanted_all() ? "no jobs defined (a job file needs at least one [job] section)"
                            : "no job section matches --section");
    return plan_ptr(builder.finish(l.global_echo, l.global_echo_at));
}

// --parse-only of INI files: each section is planned (checked and dropped) as
// it is read, so neither the document nor the plan holds a section.  What is
// reported is build_plan's, in its order: every file's reading errors (in
// errors) are seen before the option errors (kept apart until the end).
plan_ptr check_ini_files(const request &req, diag_list *notes, error_sink &errors, ini_options ini)
{
    plan_builder builder(true, true); // keeps names: a later wait_for= is not known yet
    error_sink options;
    layering l(req, notes, options, builder);
    job_spec base = l.begin();
    ini.on_section = [&l](const section &s) { l.read_section(s); };
    for (size_t i = 0; i < req.job_files.size(); i++) {
        l.start_document((uint32_t)i, i == 0 ? base : default_spec());
        read_ini_file(req.job_files[i], ini);
    }
    check_only_sections(req);
    l.end();
    try {
        options.throw_if_any();
    } catch (const error &e) {
        errors.add(e);
    }
    const std::string &first = req.job_files.front();
    return finish_plan(l, builder, errors, first == "-" ? STDIN_NAME : first);
}

bool all_ini(const request &req)
{
    for (const auto &path : req.job_files)
        if (syntax_of(path, req.format) != syntax::ini)
            return false;
    return !req.job_files.empty();
}

} // namespace

plan_ptr plan_documents(const std::vector<document> &docs, const request &req, diag_list *notes, error_sink &errors)
{
    check_only_sections(req);
    plan_builder builder(req.check_only, !req.check_only || sets_wait_for(docs, req));
    layering l(req, notes, errors, builder);
    l.run(docs);
    return finish_plan(l, builder, errors, docs.empty() ? "<command line>" : docs.front().path);
}

plan_ptr build_plan(const request &req, diag_list *notes, std::vector<document> *kept)
{
    std::vector<document> docs;
    if (std::count(req.job_files.begin(), req.job_files.end(), "-") > 1)
        fail(loc{"<command line>", 0, 0, "", nullptr}, "'-' (the job file on standard input) can be given only once");
    // Every error of every job file (reading and options) is reported at once.
    error_sink errors;
    ini_options ini = req.ini;
    ini.errors = &errors;
    if (!ini.warnings)
        ini.warnings = notes;
    if (req.check_only && all_ini(req))
        return check_ini_files(req, notes, errors, ini);
    for (const auto &path : req.job_files)
        docs.push_back(read_job_file(path, ini, req.format));
    plan_ptr p = plan_documents(docs, req, notes, errors);
    if (kept)
        *kept = std::move(docs);
    return p;
}

} // namespace parser

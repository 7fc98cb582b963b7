// cli/args.cpp - command-line parsing (see args.hpp).
#include "cli/args.hpp"

#include <cctype>
#include <cstring>
#include <set>

#include "cli/flags.hpp"
#include "parser/options.hpp"
#include "parser/values.hpp"

namespace cli {

namespace {

const char *const CMDLINE = "<command line>";

parser::loc arg_loc(int index, const std::string &text)
{
    // Column = argument number, so "<command line>:1:3" points at argv[3]; the caret at its start.
    return parser::loc{CMDLINE, 1, index, text, nullptr, 1};
}

// A value fio's boolean parser reads (a number: sscanf's %u; ioplan adds
// true/false and the like); an option or a job file name is not one.
bool reads_as_bool(const std::string &arg)
{
    if (arg.empty() || arg[0] == '-')
        return false;
    try {
        parser::parse_bool_number(arg);
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

class parse_state {
public:
    parse_state(int argc, char **argv) : argc_(argc), argv_(argv) {}
    args run();

private:
    int argc_;
    char **argv_;
    int i_ = 1;
    args a_;
    parser::section *current_job_ = nullptr;

    void own(const flag &f, const std::string &arg, std::string value, bool has_value);
    std::string unabbreviated(const std::string &name, const std::string &arg) const;
    void job_option(const std::string &name, std::string value, bool has_value, int at);
};

void parse_state::job_option(const std::string &name, std::string value, bool has_value, int at)
{
    const parser::option *o = parser::find_option(name);
    bool bare_ok = o && (o->type == parser::opt_type::flag || o->type == parser::opt_type::boolean);
    // fio's getopt gives every option but a set-flag a required value, so
    // `--direct 0` is direct=0; ioplan also lets a boolean stand bare
    // (`--direct job.fio`), so it takes the next argument only when that reads
    // as a boolean value.
    bool next_is_bool = o && o->type == parser::opt_type::boolean && i_ + 1 < argc_ && reads_as_bool(argv_[i_ + 1]);
    // `--bs 4k`: a job option that needs a value takes the next argument.
    if (o && !has_value && (!bare_ok || next_is_bool) && i_ + 1 < argc_) {
        value = argv_[++i_];
        has_value = true;
    }
    std::string text = "--" + name + (has_value ? "=" + value : "");
    parser::entry e{name, value, has_value, arg_loc(at, text), arg_loc(at, text), {}, ""};
    e.key_loc.text_col = 3;	// after the "--"
    e.value_loc.text_col = has_value ? (int)name.size() + 4 : (int)text.size() + 1;
    // '--bs= 16k': fio 3.33 reads the blank as in a job file's bs= 16k (16 bytes).
    e.blank_after_eq = has_value && !value.empty() && (value[0] == ' ' || value[0] == '\t');
    // '--rw=write ': fio strips a job file line's end, never an argument's.
    e.blank_at_end = has_value && !value.empty() && std::isspace((unsigned char)value.back());
    if (current_job_)
        current_job_->entries.push_back(e);
    else
        a_.req.cli_globals.push_back(e);
    // Unknown names fail here rather than when the plan is built, with the same words.
    parser::job_spec scratch = parser::default_spec();
    parser::apply_entry(scratch, e);
}

// getopt_long_only's abbreviations, as fio reads its command line: a name that
// is no flag or job option is the one flag or option it begins (--vers,
// --output-fo=json, --ioeng=null); several are an error, none is left to the
// usual unknown-option error.
std::string parse_state::unabbreviated(const std::string &name, const std::string &arg) const
{
    if (name.empty() || find_flag(name) || parser::find_option(name) || parser::deprecated_option(name) ||
        !parser::unsupported_reason(name).empty())
        return name;
    std::set<std::string> hits;
    for (const flag &f : flags())
        if (std::strncmp(f.name, name.c_str(), name.size()) == 0)
            hits.insert(std::string("--") + f.name);
    for (const std::string &n : parser::option_names())
        if (n.compare(0, name.size(), name) == 0)
            hits.insert(std::string("--") + parser::find_option(n)->name); // an alias is its option
    if (hits.size() == 1)
        return hits.begin()->substr(2);
    if (hits.empty())
        return name;
    std::string all;
    for (const std::string &h : hits)
        all += (all.empty() ? "" : " ") + h;
    parser::fail(arg_loc(i_, arg), "option '-" + std::string(arg[1] == '-' ? "-" : "") + name +
                                       "' is ambiguous; possibilities: " + all);
}

// One of ioplan's own flags; a required value may be the next argument.
void parse_state::own(const flag &f, const std::string &arg, std::string value, bool has_value)
{
    if (f.arg == flag_arg::none && has_value)
        parser::fail(arg_loc(i_, arg), "--" + std::string(f.name) + " takes no value");
    int at = i_;
    if (f.arg == flag_arg::required && !has_value) {
        if (i_ + 1 >= argc_)
            parser::fail(arg_loc(i_, arg), "--" + std::string(f.name) + " needs a value");
        value = argv_[++i_];
        has_value = true;
    }
    flag_ctx c{a_, current_job_, at, "--" + std::string(f.name) + (has_value ? "=" + value : ""), has_value};
    f.apply(c, value);
}

args parse_state::run()
{
    if (argc_ > 1 && std::string(argv_[1]) == "convert") {
        a_.what = action::convert;
        i_ = 2;
    }
    if (argc_ > 1 && std::string(argv_[1]) == "plot") {
        a_.what = action::plot;
        i_ = 2;
    }
    if (argc_ > 1 && std::string(argv_[1]) == "report") {
        a_.what = action::report;
        i_ = 2;
    }
    if (argc_ > 1 && std::string(argv_[1]) == "merge") {
        a_.what = action::merge;
        i_ = 2;
    }
    a_.argv.assign(argv_ + 1, argv_ + argc_);
    for (; i_ < argc_; i_++) {
        std::string arg = argv_[i_];
        if (arg == "--") { // getopt's end of options, as fio reads it: job files follow
            a_.req.job_files.insert(a_.req.job_files.end(), argv_ + i_ + 1, argv_ + argc_);
            break;
        }
        if (arg.size() < 2 || arg[0] != '-') {
            a_.req.job_files.push_back(arg);
            continue;
        }
        std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
        size_t eq = body.find('=');
        std::string name = unabbreviated(body.substr(0, eq), arg);
        std::string value = eq == std::string::npos ? "" : body.substr(eq + 1);
        bool has_value = eq != std::string::npos;
        if (const flag *f = find_flag(name)) {
            own(*f, arg, value, has_value);
            continue;
        }
        job_option(name, value, has_value, i_);
    }
    return a_;
}

} // namespace

args parse_args(int argc, char **argv)
{
    return parse_state(argc, argv).run();
}

std::string job_option_given(const args &a, const char *cmd)
{
    std::string tail = std::string(": a job option, and ioplan ") + cmd + " runs no job";
    if (!a.req.cli_globals.empty())
        return "--" + a.req.cli_globals[0].key + tail;
    if (!a.req.cli_jobs.empty())
        return "--name=" + a.req.cli_jobs[0].name + tail;
    return "";
}

void print_starts(FILE *out)
{
    fputs("The three most common starts:\n"
          "  ioplan --presets                               the shipped tests, with the time and\n"
          "                                                 disk space each takes\n"
          "  ioplan --preset=default --directory=DIR        a 5-second CrystalDiskMark-style table\n"
          "  ioplan --directory=DIR job.fio                 your fio job file, unchanged\n"
          "\n",
          out);
}

void print_usage(FILE *out)
{
    fputs("usage: ioplan [options] [--job-option=value ...] jobfile...\n"
          "       ioplan --preset=NAME [--job-option=value ...]\n"
          "       ioplan convert JOBFILE --to=ini|toml|yaml\n"
          "       ioplan plot RESULT.json -o CHART.svg|png\n"
          "       ioplan plot LOG|DIR... -o CHART.svg|png   (fio's bw/iops/lat log files)\n"
          "       ioplan report RESULT.json... [-o PAGE.html]   (one self-contained page; several results compared)\n"
          "       mpirun -np N ioplan [options] jobfile...   (one merged run over N ranks, see ioplan(1))\n"
          "       ioplan merge [--partial] [--output-format=LIST] RANKFILE...   (--rank-output's files, merged)\n"
          "       ioplan diskspd [DISKSPD options] target...   (also as a symlink named diskspd)\n"
          "       fio [options] jobfile...   (a symlink named fio: presents itself as fio-3.33, see ioplan(1))\n"
          "\n"
          "Runs fio-compatible job files (INI) against real storage and reports the results.\n"
          "\n",
          out);
    print_starts(out);
    print_flag_help(out);
    fputs("\n"
          "Job options given before any job file or --name are defaults for the first job\n"
          "file: the file overrides them (as in fio), and ioplan notes each one it overrides.\n"
          "\n"
          "exit status: 0 success, 1 the run failed, 2 bad input (job file or command line)\n"
          "See ioplan(1) and ioplan-job(5).\n",
          out);
}

} // namespace cli

// cli/args.cpp - command-line parsing (see args.hpp).
#include "cli/args.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "parser/options.hpp"

namespace cli {

namespace {

const char *const CMDLINE = "<command line>";

struct own_option {
    const char *name;
    bool needs_value;
};

const own_option own_options[] = {
    {"help", false}, {"version", false}, {"showplan", false}, {"parse-only", false}, {"output-format", true},
    {"output", true}, {"section", true}, {"cmdhelp", false}, {"name", true}, {"dump-man-options", false},
    {"dump-job-schema", false}, {"dump-options", true}, {"preset", true}, {"presets", false}, {"format", true}, {"to", true}, {"eta", true}, {"fake-clock", true},
};

const own_option *find_own(const std::string &name)
{
    for (const auto &o : own_options)
        if (name == o.name)
            return &o;
    return nullptr;
}

parser::loc arg_loc(int index, const std::string &text)
{
    // Column = argument number, so "<command line>:1:3" points at argv[3].
    return parser::loc{CMDLINE, 1, index, text, nullptr};
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

    void own(const own_option &o, const std::string &value, bool has_value);
    void job_option(const std::string &name, std::string value, bool has_value, int at);
};

void parse_state::own(const own_option &o, const std::string &value, bool has_value)
{
    std::string n = o.name;
    if (n == "help") a_.what = action::help;
    else if (n == "version") a_.what = action::version;
    else if (n == "showplan") a_.what = action::showplan;
    else if (n == "parse-only") a_.what = action::parse_only;
    else if (n == "output-format") { a_.output_format = value; a_.output_format_set = true; }
    else if (n == "output") a_.output_path = value;
    else if (n == "section") a_.req.only_sections.push_back(value);
    else if (n == "cmdhelp") { a_.what = action::cmdhelp; a_.cmdhelp = has_value ? value : "all"; }
    else if (n == "dump-man-options") a_.what = action::dump_man_options;
    else if (n == "dump-job-schema") a_.what = action::dump_job_schema;
    else if (n == "dump-options") {
        if (value != "json")
            parser::fail(arg_loc(i_, "--dump-options=" + value), "--dump-options takes json (--dump-options=json)");
        a_.what = action::dump_options;
    }
    else if (n == "preset") a_.preset = value;
    else if (n == "presets") a_.what = action::presets;
    else if (n == "format") a_.req.format = value;
    else if (n == "to") a_.convert_to = value;
    else if (n == "fake-clock") {
        // strtoull alone took "-5" as 2^64 - 5 and "5x" as 5.
        bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        a_.fake_clock_step_ns = digits ? (uint64_t)std::strtoull(value.c_str(), nullptr, 10) : 0;
        if (!a_.fake_clock_step_ns || errno == ERANGE)
            parser::fail(arg_loc(i_, "--fake-clock=" + value), "--fake-clock needs a whole number of ns above 0");
    }
    else if (n == "eta") {
        std::string err;
        if (!parse_eta_mode(value, &a_.eta, &err))
            parser::fail(arg_loc(i_, "--eta=" + value), err);
    }
    else if (n == "name") {
        if (value == "global") {
            current_job_ = nullptr; // options now go to the command-line defaults
            return;
        }
        a_.req.cli_jobs.push_back(parser::section{value, false, arg_loc(i_, "--name=" + value), {}, {}});
        current_job_ = &a_.req.cli_jobs.back();
    }
}

void parse_state::job_option(const std::string &name, std::string value, bool has_value, int at)
{
    const parser::option *o = parser::find_option(name);
    bool bare_ok = o && (o->type == parser::opt_type::flag || o->type == parser::opt_type::boolean);
    // `--bs 4k`: a job option that needs a value takes the next argument.
    if (o && !has_value && !bare_ok && i_ + 1 < argc_) {
        value = argv_[++i_];
        has_value = true;
    }
    std::string text = "--" + name + (has_value ? "=" + value : "");
    parser::entry e{name, value, has_value, arg_loc(at, text), arg_loc(at, text), {}, ""};
    e.key_loc.col = e.value_loc.col = at;
    if (current_job_)
        current_job_->entries.push_back(e);
    else
        a_.req.cli_globals.push_back(e);
    // Unknown names fail here rather than when the plan is built, with the same words.
    parser::job_spec scratch = parser::default_spec();
    parser::apply_entry(scratch, e);
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
    for (; i_ < argc_; i_++) {
        std::string arg = argv_[i_];
        if (arg.size() < 2 || arg[0] != '-') {
            a_.req.job_files.push_back(arg);
            continue;
        }
        std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
        size_t eq = body.find('=');
        std::string name = body.substr(0, eq), value = eq == std::string::npos ? "" : body.substr(eq + 1);
        bool has_value = eq != std::string::npos;
        if (name == "h")
            name = "help";
        if (name == "o" && a_.what == action::plot)
            name = "output"; // `ioplan plot RESULT.json -o FILE.svg`
        if (const own_option *o = find_own(name)) {
            if (o->needs_value && !has_value) {
                if (i_ + 1 >= argc_)
                    parser::fail(arg_loc(i_, arg), "--" + name + " needs a value");
                value = argv_[++i_];
                has_value = true;
            }
            own(*o, value, has_value);
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

void print_usage(FILE *out)
{
    fputs("usage: ioplan [options] [--job-option=value ...] jobfile...\n"
          "       ioplan --preset=NAME [--job-option=value ...]\n"
          "       ioplan convert JOBFILE --to=ini|toml|yaml\n"
          "       ioplan plot RESULT.json -o CHART.svg|png\n"
          "       ioplan diskspd [DISKSPD options] target...   (also as a symlink named diskspd)\n"
          "\n"
          "Runs fio-compatible job files (INI) against real storage and reports the results.\n"
          "\n"
          "options:\n"
          "  --showplan            print the resolved plan as JSON and exit (runs nothing)\n"
          "  --parse-only          check the job files and exit\n"
          "  --output-format=FMT   normal, terse (minimal), json, json+, cdm, winsat, hdparm, dd,\n"
          "                        gnome-disks, diskspd, diskspd-xml; comma-separated for several\n"
          "  --output=FILE         write the results to FILE instead of stdout\n"
          "  --section=NAME        run only job section NAME (repeatable)\n"
          "  --preset=NAME         run a shipped job file; job options given override its values\n"
          "  --presets             list the presets with a line about each\n"
          "  --eta=WHEN            progress line on stderr: auto (when a terminal), always, never\n"
          "  --fake-clock=NS       for golden tests: every timestamp advances NS, host/kernel fixed\n"
          "  --name=NAME           start a command-line job; the job options after it belong to it\n"
          "  --format=SYNTAX       job file syntax: ini, toml, yaml (default: by extension;\n"
          "                        .toml and .yaml/.yml, anything else is INI)\n"
          "  --cmdhelp[=OPTION]    list the job options, or explain one\n"
          "  --dump-job-schema     print the JSON Schema of TOML/YAML job files\n"
          "  --dump-options=json   print the job option table as JSON (for scripts)\n"
          "  --version             print the version\n"
          "  --help                this text\n"
          "\n"
          "Job options given before any job file or --name are defaults for the first job\n"
          "file: the file overrides them (as in fio), and ioplan notes each one it overrides.\n"
          "\n"
          "exit status: 0 success, 1 the run failed, 2 bad input (job file or command line)\n"
          "See ioplan(1) and ioplan-job(5).\n",
          out);
}

} // namespace cli

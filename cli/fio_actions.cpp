// cli/fio_actions.cpp - fio's informational flags (fio_actions.hpp).
#include "cli/fio_actions.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstring>
#include <ctime>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <vector>

#include "cli/cmdhelp.hpp"
#include "engine/engine.h"
#include "parser/options.hpp"
#include "parser/values.hpp"

namespace cli {

namespace {

uint64_t now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// A value as a shell reads it back: quoted when it holds anything but plain characters.
std::string shell_word(const std::string &s)
{
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                          "_-+=.,:/%@^") == std::string::npos)
        return s;
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// As fio's dump_opt_list: an option under its own name (readwrite= is --rw=), its
// value with $pagesize and its kin replaced, which fio's command line would refuse.
std::string entry_words(const std::vector<parser::entry> &entries)
{
    std::string s;
    for (const parser::entry &e : entries) {
        const parser::option *o = parser::find_option(e.key);
        std::string key = o ? o->name : e.key;
        s += " " + shell_word("--" + key + (e.has_value ? "=" + parser::shown_value(e.value) : ""));
    }
    return s;
}

// Engine options are the rows that name their engines (.engines), or the engine
// category's rows whose help names the engine ("io_uring: ...", or several:
// "net, netsplice: ...").
bool engine_option(const parser::option &o, const std::string &engine)
{
    if (o.engines)
        return !parser::option_foreign_to(o, engine.c_str());
    std::string h = o.help;
    size_t colon = h.find(": ");
    if (std::string(o.category) != "engine" || colon == std::string::npos)
        return false;
    return (", " + h.substr(0, colon) + ",").find(", " + engine + ",") != std::string::npos;
}

// Whether text names an engine before a ": " ("...; pvsync2: RWF_HIPRI"); other
// colons ("0: never", "as fio: ...") are the help's own.
static bool names_an_engine(const char *text)
{
    const parser::option *ioengine = parser::find_option("ioengine");
    for (const char *c = std::strstr(text, ": "); c; c = std::strstr(c + 2, ": ")) {
        const char *w = c;
        while (w > text && (std::isalnum((unsigned char)w[-1]) || w[-1] == '_'))
            w--;
        for (const auto &choice : ioengine->choices)
            if (std::string(w, c) == choice.name)
                return true;
    }
    return false;
}

// The help without its leading "engine, engine: " (a help that speaks of several
// engines in turn, "io_uring: ...; pvsync2: ...", is kept whole).
const char *engine_option_help(const parser::option &o)
{
    const char *colon = std::strstr(o.help, ": ");
    if (!colon || names_an_engine(colon + 2))
        return o.help;
    return colon + 2;
}

// fio's list, one engine a line; as ioplan each with its options after a tab
// (fio's own readers match the name at the start of the line), or why it is
// unavailable; run as fio, fio's lines exactly: the engines it can run, by name.
void print_engine_list(const parser::option &ioengine, bool as_fio, FILE *out)
{
    std::fprintf(out, "Available IO engines:\n");
    for (const auto &c : ioengine.choices) {
        std::string opts;
        for (const parser::option &o : parser::options())
            if (engine_option(o, c.name))
                opts += (opts.empty() ? "" : " ") + std::string(o.name);
        const char *why = eng_ioengine_unavailable((enum plan_ioengine)c.value);
        if (as_fio) {
            if (!why)
                std::fprintf(out, "\t%s\n", c.name);
        } else if (why)
            std::fprintf(out, "\t%s\t(unavailable: %s)\n", c.name, why);
        else if (!opts.empty())
            std::fprintf(out, "\t%s\t(options: %s)\n", c.name, opts.c_str());
        else
            std::fprintf(out, "\t%s\n", c.name);
    }
}

} // namespace

// One line a job file, as fio prints them: each file runs from fresh defaults
// (a later file's [global] is that file's only); the command line's defaults
// open the first.  Jobs given with --name are not printed, as in fio.
int print_showcmd(const args &a, FILE *out)
{
    const auto &only = a.req.only_sections;
    for (size_t i = 0; i < a.req.job_files.size(); i++) {
        std::string s = a.who == report::personality::fio ? "fio" : "ioplan";
        if (i == 0)
            s += entry_words(a.req.cli_globals);
        parser::document doc = parser::read_job_file(a.req.job_files[i], a.req.ini, a.req.format);
        bool in_job = false, any = false;
        for (const parser::section &sec : doc.sections) {
            if (!sec.is_global && !only.empty() && std::find(only.begin(), only.end(), sec.name) == only.end())
                continue; // --section= leaves it out
            any = true;
            // A [global] after a job returns to the defaults, as --name=global does.
            if (!sec.is_global || in_job)
                s += " " + shell_word("--name=" + (sec.is_global ? std::string("global") : sec.name));
            in_job = in_job || !sec.is_global;
            std::vector<uint32_t> at;
            parser::fio_echo_places(sec.entries, 0, at);
            std::vector<parser::entry> in_order = sec.entries;
            for (size_t k = 0; k < at.size(); k++)
                in_order[at[k]] = sec.entries[k];
            s += entry_words(in_order); // as fio: a filename= after the directory= it goes under
        }
        // Run as fio, fio's bytes: each word ends with a space, and a file
        // without a section to print is an empty line.
        if (a.who == report::personality::fio)
            std::fprintf(out, "%s\n", any ? (s + " ").c_str() : "");
        else
            std::fprintf(out, "%s\n", s.c_str());
    }
    return 0;
}

int print_enghelp(const std::string &what, bool as_fio, FILE *out)
{
    const parser::option *ioengine = parser::find_option("ioengine");
    if (what.empty()) {
        print_engine_list(*ioengine, as_fio, out);
        return 0;
    }
    std::string engine = what.substr(0, what.find(','));
    bool known = false;
    for (const auto &c : ioengine->choices)
        known = known || engine == c.name;
    if (!known && as_fio) { // fio's lines: the loader's on stderr, the verdict on stdout
        std::fprintf(stderr, "fio: engine %s not loadable\n", engine.c_str());
        std::fprintf(out, "IO engine %s not found\n", engine.c_str());
        return 1;
    }
    if (!known) {
        std::fprintf(stderr, "IO engine %s not found\n", engine.c_str());
        return 1;
    }
    if (engine.size() < what.size() && as_fio) { // fio's layout, among the engine's own options
        std::vector<const parser::option *> own;
        for (const parser::option &o : parser::options())
            if (engine_option(o, engine))
                own.push_back(&o);
        return print_cmdhelp_fio(what.substr(engine.size() + 1), own, out, stderr);
    }
    if (engine.size() < what.size()) {
        const parser::option *o = parser::find_option(what.substr(engine.size() + 1));
        if (o && engine_option(*o, engine))
            return print_cmdhelp(o->name, out) ? 0 : 1;
        std::fprintf(stderr, "IO engine %s has no option %s\n", engine.c_str(), what.c_str() + engine.size() + 1);
        return 1;
    }
    int n = 0;
    for (const parser::option &o : parser::options()) {
        if (!engine_option(o, engine))
            continue;
        std::fprintf(out, "%-24s: %s\n", o.name, engine_option_help(o));
        n++;
    }
    if (!n)
        std::fprintf(out, "IO engine %s has no options\n", engine.c_str());
    return n ? 0 : 1;
}

int cpuclock_test(FILE *out)
{
    unsigned cpus = std::thread::hardware_concurrency();
    cpus = cpus ? cpus : 1;
    const int reads = 200000;
    std::mutex m;
    uint64_t last = 0, backwards = 0;
    std::vector<uint64_t> seen(cpus), first(cpus);
    std::vector<std::thread> threads;
    std::fprintf(out, "cs: Testing %u CPUs\n", cpus);
    for (unsigned cpu = 0; cpu < cpus; cpu++)
        threads.emplace_back([&, cpu] {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            pthread_setaffinity_np(pthread_self(), sizeof set, &set); // best effort: the read order is what is checked
            for (int i = 0; i < reads; i++) {
                std::lock_guard<std::mutex> g(m);
                uint64_t t = now_ns();
                backwards += t < last;
                last = t;
                first[cpu] = first[cpu] ? first[cpu] : t;
                seen[cpu]++;
            }
        });
    for (auto &t : threads)
        t.join();
    for (unsigned cpu = 0; cpu < cpus; cpu++)
        std::fprintf(out, "cs: cpu %2u: %llu clocks seen, first %llu\n", cpu, (unsigned long long)seen[cpu],
                     (unsigned long long)first[cpu]);
    if (backwards)
        std::fprintf(out, "cs: Failed: the clock ran backwards %llu times\n", (unsigned long long)backwards);
    else
        std::fprintf(out, "cs: Pass! (CLOCK_MONOTONIC, which ioplan times I/O with)\n");
    return backwards ? 1 : 0;
}

int crctest(const std::string &which, FILE *out)
{
    // fio takes a comma-separated list of names and times each one asked for (all without one).
    std::vector<std::string> asked, names;
    for (size_t at = 0; !which.empty() && at <= which.size();) {
        size_t comma = std::min(which.find(',', at), which.size());
        asked.push_back(which.substr(at, comma - at));
        at = comma + 1;
    }
    std::string known;
    for (unsigned i = 0; eng_checksum_name(i); i++) {
        names.push_back(eng_checksum_name(i));
        known += (known.empty() ? "" : ", ") + names.back();
    }
    for (const std::string &a : asked) {
        if (std::find(names.begin(), names.end(), a) == names.end()) {
            std::fprintf(stderr, "ioplan: unknown checksum '%s'. Available: %s\n", a.c_str(), known.c_str());
            return 1;
        }
    }
    for (unsigned i = 0; eng_checksum_name(i); i++) {
        const char *name = eng_checksum_name(i);
        double mib_s = 0;
        if (!asked.empty() && std::find(asked.begin(), asked.end(), name) == asked.end())
            continue;
        if (eng_checksum_speed(name, &mib_s) == 0)
            std::fprintf(out, "%s:%s%8.2f MiB/sec\n", name, std::strlen(name) < 7 ? "\t\t" : "\t", mib_s);
    }
    return 0;
}

int idle_calibrate(FILE *out)
{
    double mean = 0, stddev = 0;
    int ret = eng_idle_calibrate(&mean, &stddev);
    if (ret) {
        std::fprintf(stderr, "ioplan: error: --idle-prof=calibrate: %s\n", strerror(-ret));
        return 1;
    }
    std::fprintf(out, "CPU idleness:\n  unit work: mean=%3.2fus, stddev=%3.2f\n", mean, stddev);
    return 0;
}

} // namespace cli

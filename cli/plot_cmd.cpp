// cli/plot_cmd.cpp - `ioplan plot INPUT... -o CHART.svg|png` (plot_cmd.hpp).
// One JSON result, or any number of fio log files: named one by one (a shell
// glob), or a directory whose fio log files are all drawn.
#include "cli/plot_cmd.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "cli/log_inflate.hpp"
#include "cli/output.hpp"
#include "cli/report_cmd.hpp"
#include "engine/safety/safety.h"
#include "parser/structured.hpp"
#include "report/plot/plot.hpp"
#include "results/record.hpp"

namespace cli {

namespace {

constexpr size_t PLOT_INPUT_MAX = (size_t)256 << 20;
// OUT.gp is a name ioplan makes up beside the chart the user named: as a log's,
// only an empty file or ioplan's own (an earlier plot's, marked) is replaced.
// It replaced any file by that name (a user's c.svg.gp, kept beside c.svg).
constexpr unsigned SCRIPT_HOW = SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES;
const char *const USAGE = "usage: ioplan plot RESULT.json -o CHART.svg|png\n"
                          "       ioplan plot LOG|DIR... -o CHART.svg|png   (fio's *_bw/iops/lat/clat/slat logs)";

bool is_dir(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The fio log files in dir, by name.
std::vector<std::string> logs_in(const std::string &dir)
{
    std::vector<std::string> out;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (report::is_fio_log_name(e->d_name))
                out.push_back(dir + (dir.back() == '/' ? "" : "/") + e->d_name);
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Reads path; false after printing why.
bool read_input(const std::string &path, std::string *text)
{
    parser::read_limits lim;
    lim.max_bytes = PLOT_INPUT_MAX; // a json+ result or a per-I/O log is far larger than a job file
    lim.dash_is_stdin = true;
    parser::read_status st = parser::read_bounded(path, lim, text);
    if (st == parser::read_status::too_large)
        std::fprintf(stderr, "ioplan plot: error: %s is larger than %zu MiB\n", path.c_str(), PLOT_INPUT_MAX >> 20);
    else if (st != parser::read_status::ok)
        std::fprintf(stderr, "ioplan: error: cannot read %s\n", path.c_str());
    return st == parser::read_status::ok;
}

// log_store_compressed's NAME_bw.1.log.fz: plotted from the text --inflate-log prints.
bool is_compressed_log(const std::string &path)
{
    return path.size() > 7 && path.compare(path.size() - 7, 7, ".log.fz") == 0;
}

bool inflate_input(const std::string &path, std::string *text)
{
    std::string err;
    if (inflate_log_text(path, PLOT_INPUT_MAX, text, &err))
        return true;
    std::fprintf(stderr, "ioplan plot: error: %s: %s\n", path.c_str(), err.c_str());
    return false;
}

bool is_json(const std::string &text)
{
    size_t at = text.find_first_not_of(" \t\r\n");
    return at != std::string::npos && text[at] == '{';
}

// The inputs, directories expanded; false after printing why.
bool gather(const std::vector<std::string> &names, std::vector<report::log_input> *in)
{
    for (const std::string &name : names) {
        std::vector<std::string> files = is_dir(name) ? logs_in(name) : std::vector<std::string>{name};
        if (files.empty()) {
            std::fprintf(stderr, "ioplan plot: error: %s: no fio log files (NAME_bw|iops|lat|clat|slat[.N].log[.fz]) in it\n",
                         name.c_str());
            return false;
        }
        for (const std::string &f : files) {
            in->push_back({f, ""});
            if (!(is_compressed_log(f) ? inflate_input(f, &in->back().text) : read_input(f, &in->back().text)))
                return false;
        }
    }
    return true;
}

// A file of the chart's extension in $TMPDIR (else /tmp) for gnuplot to draw
// into, so that a chart it leaves incomplete (a full disk: it exits 0) never
// replaces an older one; "" when none can be made.
std::string chart_scratch(const std::string &output)
{
    const char *tmp = std::getenv("TMPDIR");
    size_t dot = output.rfind('.');
    std::string ext = dot == std::string::npos || output.find('/', dot) != std::string::npos ? "" : output.substr(dot);
    std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/ioplan-plot-XXXXXX" + ext;
    int fd = mkstemps(name.data(), (int)ext.size());
    if (fd < 0)
        return "";
    ::close(fd);
    return name;
}

// The whole chart gnuplot drew at scratch, in place of output (as --output's
// results: written once its space is had, a full disk leaving an older chart),
// then the script that redraws it.
int commit_chart(const std::string &scratch, const std::string &output, const std::string &script)
{
    std::ifstream in(scratch, std::ios::binary);
    std::string chart((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
        std::fprintf(stderr, "ioplan plot: error: reading the chart gnuplot drew in %s\n", scratch.c_str());
        return 1;
    }
    // Each whole or not at all (emit: a full disk leaves an older one, a script edited by hand too).
    if (int rc = emit(chart, "the chart", output, {}))
        return rc;
    return emit(script, "the chart's gnuplot script", output + ".gp", {}, SCRIPT_HOW);
}

int report_failure(const std::string &where, const std::string &err, bool bad_input)
{
    if (where.empty())
        std::fprintf(stderr, "ioplan plot: error: %s\n", err.c_str());
    else
        std::fprintf(stderr, "%s: error: %s\n", where.c_str(), err.c_str());
    return bad_input ? 2 : 1;
}

} // namespace

int plot_action(const args &a)
{
    std::vector<report::log_input> in;
    if (a.req.job_files.empty() || a.output_path.empty()) {
        std::fprintf(stderr, "ioplan: error: %s\n", USAGE);
        return 2;
    }
    std::string given = job_option_given(a, "plot");
    if (!given.empty()) {
        std::fprintf(stderr, "ioplan plot: error: %s\n%s\n", given.c_str(), USAGE);
        return 2;
    }
    if (!gather(a.req.job_files, &in))
        return 2;
    // One input not named as a log is read as a JSON result, and told so when it is not one.
    bool json = std::any_of(in.begin(), in.end(), [](const report::log_input &i) { return is_json(i.text); }) ||
                (in.size() == 1 && !report::is_fio_log_name(in[0].path));
    if (json && in.size() > 1) {
        std::fprintf(stderr, "ioplan plot: error: one JSON result at a time, or fio log files (not both)\n");
        return 2;
    }
    report::plot_options po;
    po.output = a.output_path;
    std::string where, err;
    for (const std::string &out : {po.output, po.output + ".gp"})
        if (!check_writable(out, &err, out == po.output ? 0 : SCRIPT_HOW)) {
            std::fprintf(stderr, "ioplan plot: error: -o %s%s%s%s: %s\n", po.output.c_str(),
                         out == po.output ? "" : " (its gnuplot script ", out == po.output ? "" : out.c_str(),
                         out == po.output ? "" : ")", err.c_str());
            return 2;
        }
    bool bad_input = false;
    report::ojson doc;
    if (json && !parse_result_text(in[0].path, in[0].text, &doc))
        return 2;
    std::string script;
    po.chart = chart_scratch(po.output);
    po.kept_script = &script;
    bool ok = json ? report::plot_document(doc, po, &err, &bad_input)
                   : report::plot_logs(in, po, &where, &err, &bad_input);
    int rc = !ok ? report_failure(where, err, bad_input) : po.chart.empty() ? 0 : commit_chart(po.chart, po.output, script);
    if (!po.chart.empty())
        ::unlink(po.chart.c_str());
    return rc;
}

} // namespace cli

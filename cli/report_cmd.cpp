// cli/report_cmd.cpp - `ioplan report` (report_cmd.hpp): reads each result,
// hands them to report/html, writes the page to -o or standard output.
#include "cli/report_cmd.hpp"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/output.hpp"
#include "parser/structured.hpp"
#include "report/html.hpp"
#include "results/compare.hpp"
#include "results/record.hpp"

namespace cli {

namespace {

constexpr size_t REPORT_INPUT_MAX = (size_t)256 << 20;
const char *const USAGE = "usage: ioplan report RESULT.json... [-o PAGE.html]";

// Reads and parses one result; false after printing why.
bool load(const std::string &path, report::html_input *out)
{
    parser::read_limits lim;
    lim.max_bytes = REPORT_INPUT_MAX;
    lim.dash_is_stdin = true;
    std::string text;
    parser::read_status st = parser::read_bounded(path, lim, &text);
    if (st != parser::read_status::ok) {
        std::string why = std::string("cannot read it: ") + std::strerror(errno);
        std::fprintf(stderr, "ioplan report: error: %s: %s\n", path.c_str(),
                     st == parser::read_status::too_large ? "larger than 256 MiB" : why.c_str());
        return false;
    }
    if (!parse_result_text(path, text, &out->doc))
        return false;
    size_t slash = path.rfind('/');
    out->name = slash == std::string::npos ? path : path.substr(slash + 1);
    return true;
}

// The run compare reads from a result document (record_of_file's reader, on
// the document the page draws); none when compare would refuse the file.
std::optional<resdb::run_record> run_of(const nlohmann::ordered_json &doc)
{
    try {
        return resdb::record_of(nlohmann::json::parse(doc.dump()));
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

} // namespace

void judge_against_first(std::vector<report::html_input> &in, const std::vector<std::optional<resdb::run_record>> &runs)
{
    for (size_t i = 1; i < in.size() && i < runs.size(); i++) {
        if (!runs[0] || !runs[i])
            continue;
        resdb::comparison c = resdb::compare(*runs[0], *runs[i]);
        in[i].differences = c.plan_differences;
        for (const resdb::metric_cmp &m : c.metrics)
            if (m.metric == "iops" || m.metric == "bw_bytes" || m.metric == "p99_ns")
                in[i].verdicts.push_back({ m.job, (size_t)m.ordinal, m.ddir, m.metric, m.verdict });
    }
}

bool parse_result_text(const std::string &path, const std::string &text, nlohmann::ordered_json *doc)
{
    resdb::result_span span = resdb::find_result(text);
    size_t begin = span.begin == std::string::npos ? 0 : span.begin;
    if (span.documents > 1)
        std::fputs(resdb::documents_note(path, span.documents).c_str(), stderr);
    try {
        auto end = span.begin == std::string::npos ? text.end() : text.begin() + (long)span.end;
        *doc = nlohmann::ordered_json::parse(text.begin() + (long)begin, end);
    } catch (const nlohmann::ordered_json::parse_error &e) {
        std::fprintf(stderr, "%s:%s: error: not a JSON result document\n", path.c_str(),
                     resdb::text_position(text, begin + (e.byte ? e.byte : 1)).c_str());
        return false;
    } catch (const nlohmann::ordered_json::out_of_range &) {
        /* 1e400: a number no double holds; nlohmann gives no position for it */
        std::fprintf(stderr, "%s: error: not a JSON result document: a number too large for a double\n",
                     path.c_str());
        return false;
    }
    return true;
}

// What report was given that it would not use: another output format (it
// wrote the HTML page anyway, asked for --output-format=normal or json), a job
// option (--bs=4k, --name=x: no job is run).  "" when nothing.
std::string unused(const args &a)
{
    if (a.output_format_set && a.output_format != "html")
        return "--output-format=" + a.output_format + ": ioplan report draws the HTML page only";
    return job_option_given(a, "report");
}

int report_action(const args &a)
{
    if (a.req.job_files.empty()) {
        std::fprintf(stderr, "ioplan: error: %s\n", USAGE);
        return 2;
    }
    std::string why = unused(a);
    if (!why.empty()) {
        std::fprintf(stderr, "ioplan report: error: %s\n%s\n", why.c_str(), USAGE);
        return 2;
    }
    std::vector<report::html_input> in(a.req.job_files.size());
    for (size_t i = 0; i < in.size(); i++)
        if (!load(a.req.job_files[i], &in[i]))
            return 2;
    if (in.size() > 1) {
        std::vector<std::optional<resdb::run_record>> runs;
        for (const report::html_input &r : in)
            runs.push_back(run_of(r.doc));
        judge_against_first(in, runs);
    }
    std::ostringstream page;
    std::string err;
    if (!report::write_html(in, page, &err)) {
        std::fprintf(stderr, "ioplan report: error: %s\n", err.c_str());
        return 2;
    }
    std::vector<input_file> inputs;
    for (const std::string &f : a.req.job_files)
        inputs.push_back({f, "the result " + f + " being shown"});
    return emit(page.str(), "the page", a.output_path, inputs);
}

} // namespace cli

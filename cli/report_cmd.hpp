// cli/report_cmd.hpp - `ioplan report RESULT.json... [-o PAGE.html]`: result
// documents (ioplan's or fio's JSON) read and drawn as one HTML page.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "report/html.hpp"
#include "results/record.hpp"

namespace cli {

// The result document in the text of path, parsed: fio's notes before it, its
// --status-interval documents and its text report around it are passed over
// (find_result), as `results import` does.  False after printing
// path:line:col: error where the JSON is bad.
bool parse_result_text(const std::string &path, const std::string &text, nlohmann::ordered_json *doc);

// Each result after the first gets the verdicts `ioplan compare FIRST IT`
// prints for its IOPS, bandwidth and p99 (resdb::compare): the page colours a
// change by them alone; and the differences of workload for which compare
// refuses the two, which the page shows as caveats.  runs[i] is in[i]'s run, none where it could not be
// read as one (its changes are then not judged).
void judge_against_first(std::vector<report::html_input> &in, const std::vector<std::optional<resdb::run_record>> &runs);

// 0 when the page was written; 2 for bad input (an unreadable or malformed
// result, positioned where the JSON parser stopped), 1 when writing failed.
int report_action(const args &a);

} // namespace cli

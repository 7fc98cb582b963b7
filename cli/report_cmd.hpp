// cli/report_cmd.hpp - `ioplan report RESULT.json... [-o PAGE.html]`: result
// documents (ioplan's or fio's JSON) read and drawn as one HTML page.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"

namespace cli {

// The result document in the text of path, parsed: fio's notes before it, its
// --status-interval documents and its text report around it are passed over
// (find_result), as `results import` does.  False after printing
// path:line:col: error where the JSON is bad.
bool parse_result_text(const std::string &path, const std::string &text, nlohmann::ordered_json *doc);

// 0 when the page was written; 2 for bad input (an unreadable or malformed
// result, positioned where the JSON parser stopped), 1 when writing failed.
int report_action(const args &a);

} // namespace cli

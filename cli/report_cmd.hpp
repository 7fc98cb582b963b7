// cli/report_cmd.hpp - `ioplan report RESULT.json... [-o PAGE.html]`: result
// documents (ioplan's or fio's JSON) read and drawn as one HTML page.
#pragma once

#include "cli/args.hpp"

namespace cli {

// 0 when the page was written; 2 for bad input (an unreadable or malformed
// result, positioned where the JSON parser stopped), 1 when writing failed.
int report_action(const args &a);

} // namespace cli

// parser/schema.hpp - the option table rendered as JSON for machines: the JSON
// Schema editors use to check TOML and YAML job files (schema/job.schema.json),
// and the raw table scripts read (--dump-options=json).
#pragma once

#include <string>

namespace parser {

std::string job_schema();

// The whole option table as JSON (ioplan --dump-options=json): scripts derive
// their option lists and defaults from it instead of keeping copies.
std::string options_json();

} // namespace parser

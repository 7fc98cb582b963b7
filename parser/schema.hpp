// parser/schema.hpp - schema/job.schema.json, generated from the option table:
// the JSON Schema editors use to check TOML and YAML job files.
#pragma once

#include <string>

namespace parser {

std::string job_schema();

} // namespace parser

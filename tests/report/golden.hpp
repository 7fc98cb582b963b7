// tests/report/golden.hpp - committed expected outputs, compared byte for byte.
//
// A golden file is regenerated only on purpose: `make golden-update` runs the
// golden tests with IOPLAN_GOLDEN_UPDATE=1, which rewrites the files instead of
// comparing (review the diff, then commit).  tests/generate.py sets
// IOPLAN_GENERATE_DIR=D to collect generated files under D without touching
// the work tree, so `make check-generated` can compare them.
#pragma once

#include <string>

namespace t {

// Compares text with the committed file rel (a path from the repository
// root); in update or generate mode writes it instead and returns true.
// On a mismatch returns false with the first differing line in *why.
bool golden_match(const std::string &rel, const std::string &text, std::string *why);

} // namespace t

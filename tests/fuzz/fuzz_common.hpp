// tests/fuzz/fuzz_common.hpp - what every fuzz target shares: input as text, and
// the rule that only parser::error may escape a reader (anything else is a bug).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "parser/diag.hpp"

namespace fuzz {

inline std::string text(const uint8_t *data, size_t size)
{
    return std::string(reinterpret_cast<const char *>(data), size);
}

// Runs f; a parser::error is the expected way to reject input, and its
// rendering must work too.
template <typename F>
void expect_clean(F f)
{
    try {
        f();
    } catch (const parser::error &e) {
        (void)e.text();
    }
}

} // namespace fuzz

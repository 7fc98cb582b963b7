// tests/fuzz/fuzz_toml.cpp - libFuzzer target: the TOML reader on arbitrary bytes.
#include "parser/structured.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::expect_clean([&] { parser::read_toml_text(fuzz::text(data, size), "fuzz.toml", "/nonexistent", {}); });
    return 0;
}

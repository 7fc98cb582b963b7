// tests/fuzz/fuzz_yaml.cpp - libFuzzer target: the YAML reader on arbitrary bytes.
#include "parser/structured.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::expect_clean([&] { parser::read_yaml_text(fuzz::text(data, size), "fuzz.yaml", "/nonexistent", {}); });
    return 0;
}

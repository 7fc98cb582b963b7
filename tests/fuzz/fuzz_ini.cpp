// tests/fuzz/fuzz_ini.cpp - libFuzzer target: the INI reader on arbitrary bytes.
#include "parser/ini.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parser::ini_options o;
    o.env = [](const std::string &, std::string *v) { *v = "1"; return true; };
    fuzz::expect_clean([&] { parser::read_ini_text(fuzz::text(data, size), "fuzz.fio", "/nonexistent", o); });
    return 0;
}

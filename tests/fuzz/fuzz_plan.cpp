// tests/fuzz/fuzz_plan.cpp - libFuzzer target: job text all the way to a plan
// and its --showplan JSON (option values, layering, groups, files).
#include <sstream>

#include "parser/ini.hpp"
#include "parser/parser.hpp"
#include "report/showplan.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::expect_clean([&] {
        parser::request req;
        parser::diag_list notes;
        parser::document doc = parser::read_ini_text(fuzz::text(data, size), "fuzz.fio", "/nonexistent");
        // Huge numjobs or nrfiles are valid input that only makes slow cases.
        for (const auto &s : doc.sections)
            for (const auto &e : s.entries)
                if ((e.key == "numjobs" || e.key == "nrfiles") && e.value.size() > 1)
                    return;
        auto p = parser::plan_documents({doc}, req, &notes);
        std::ostringstream out;
        report::write_showplan(*p, out);
    });
    return 0;
}

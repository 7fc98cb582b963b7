// tests/fuzz/fuzz_diskspd.cpp - libFuzzer target: DISKSPD arguments (the input
// split at NUL and blanks into argv) through translation and, when that works,
// the INI reader and the planner.
#include <sstream>
#include <vector>

#include "parser/diskspd/diskspd.hpp"
#include "parser/ini.hpp"
#include "parser/parser.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::vector<std::string> args;
    std::string cur;
    for (char c : fuzz::text(data, size)) {
        if (c == '\0' || c == ' ' || c == '\n') {
            if (!cur.empty())
                args.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty())
        args.push_back(cur);
    auto t = parser::diskspd::translate("diskspd", args);
    if (!t.errors.empty())
        return 0;
    fuzz::expect_clean([&] {
        parser::request req;
        parser::plan_documents({parser::read_ini_text(t.ini, "<diskspd>")}, req, nullptr);
    });
    return 0;
}

// tests/parser/applied.hpp - the option tests' one way to apply options to a
// default job_spec, through the option table's own appliers (as the parser does).
#ifndef IOPLAN_TESTS_PARSER_APPLIED_HPP
#define IOPLAN_TESTS_PARSER_APPLIED_HPP

#include <initializer_list>
#include <utility>

#include "parser/options.hpp"

namespace parser {

inline job_spec applied(std::initializer_list<std::pair<const char *, const char *>> kv)
{
    job_spec j = default_spec();
    for (const auto &p : kv) {
        const option &o = *find_option(p.first);
        o.apply(j, o, p.second);
    }
    return j;
}

inline job_spec with(const char *name, const char *value)
{
    return applied({{name, value}});
}

} // namespace parser

#endif

// parser/ini_grammar.hpp - the PEGTL grammar of one INI job-file line, and the
// message of every point where a line can go wrong.
//
// In a header of its own so a unit test can run PEGTL's analyze<> over it (no
// rule that can loop without consuming input); parser/ini.cpp applies it.
#pragma once

#include <tao/pegtl.hpp>

namespace parser {

namespace g {

using namespace tao::pegtl;

struct ws : star<blank> {};
struct comment : seq<one<';', '#'>, star<any>> {};
// fio takes "[]" too: a job named by its name= (or with no name at all).
struct sec_name : star<not_one<']', ';', '#'>> {};
struct sec_close : one<']'> {};
struct header_end : sor<eof, comment> {};
struct header : seq<one<'['>, sec_name, sec_close, ws, header_end> {};
struct inc_path : plus<not_one<';', '#'>> {};
// fio 3.33 takes the one character after "include" as the separator, so
// include=common.fio is an include there too.
struct include_line : seq<TAO_PEGTL_STRING("include"), sor<plus<blank>, one<'='>>, inc_path, opt<comment>> {};
struct key : plus<sor<alnum, one<'_', '-', '.', '$', '{', '}', '+'>>> {};
struct value : star<not_one<';', '#'>> {};
struct assign : seq<one<'='>, ws, value> {};
struct key_end : sor<assign, at<sor<eof, comment>>> {};
struct option_line : seq<key, ws, key_end, opt<comment>> {};
struct item : sor<eof, comment, header, include_line, option_line> {};
struct line : seq<ws, item, eof> {};

struct errors {
    template <typename Rule>
    static constexpr const char *message = nullptr;
};

// true: PEGTL refuses to build if a rule that can raise has no message.
template <typename Rule>
using control = must_if<errors, normal, true>::control<Rule>;

} // namespace g

template <>
inline constexpr const char *g::errors::message<g::sec_close> = "expected ']' to close the section header";
template <>
inline constexpr const char *g::errors::message<g::header_end> = "unexpected text after the section header";
template <>
inline constexpr const char *g::errors::message<g::inc_path> = "expected a file name after 'include'";
template <>
inline constexpr const char *g::errors::message<g::key_end> = "expected '=' after the option name";
template <>
inline constexpr const char *g::errors::message<g::item> =
    "expected an option (name=value), a [section] header, 'include FILE' or a comment";

} // namespace parser

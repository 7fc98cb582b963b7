// report/fio/json_text.cpp - fio's JSON text layout, byte for byte.
//
// Clients of fio read its JSON with grep and awk as well as with parsers
// (docker-diskmark greps for `"name" : "JOB"` and `"bw_bytes" : N`), so the
// text itself is an interface: two spaces per level, `"key" : value`, one
// member per line, an empty object or array as fio 3.33 prints it (an empty
// line between the brackets, as `"job options"` of a job given only flags), integers bare and floats with "%f"'s
// six decimals.  Unlike fio, strings are fully escaped (control characters
// too) and invalid UTF-8 is replaced, so the document stays strictly valid.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "report/fio/json_util.hpp"

namespace report {

namespace {

void indent(std::string &s, int level)
{
	s.append((size_t)level * 2, ' ');
}

// Plain ASCII needs no escaping; anything else goes through the JSON library,
// which escapes control characters and replaces invalid UTF-8.  (A trace of
// 262144 I/Os is written after SIGINT within a second: no allocation per key.)
void append_quoted(std::string &s, const std::string &v)
{
	bool plain = std::all_of(v.begin(), v.end(), [](char c) {
		return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
	});
	if (!plain) {
		s += ojson(v).dump(-1, ' ', false, ojson::error_handler_t::replace);
		return;
	}
	s += '"';
	s += v;
	s += '"';
}

void append_number(std::string &s, const ojson &v)
{
	char buf[512];	// "%f" of the largest double is 316 characters
	int n;
	if (v.is_number_unsigned())
		n = snprintf(buf, sizeof buf, "%" PRIu64, v.get<uint64_t>());
	else if (v.is_number_integer())
		n = snprintf(buf, sizeof buf, "%" PRId64, v.get<int64_t>());
	else {
		double d = v.get<double>();
		// JSON has no NaN or infinity; the writers already map them to 0.
		n = snprintf(buf, sizeof buf, "%f", std::isfinite(d) ? d : 0.0);
	}
	s.append(buf, n > 0 ? (size_t)n : 0);
}

void append_value(std::string &s, const ojson &v, int level);

// With no members this leaves fio's empty line between the brackets.
void append_members(std::string &s, const ojson &v, int level)
{
	bool first = true;
	if (v.empty())
		s += '\n';
	for (auto it = v.begin(); it != v.end(); ++it) {
		s += first ? "\n" : ",\n";
		first = false;
		indent(s, level + 1);
		if (v.is_object()) {
			append_quoted(s, it.key());
			s += " : ";
		}
		append_value(s, it.value(), level + 1);
	}
	s += '\n';
	indent(s, level);
}

void append_value(std::string &s, const ojson &v, int level)
{
	if (v.is_object() || v.is_array()) {
		const char *br = v.is_object() ? "{}" : "[]";
		s += br[0];
		append_members(s, v, level);
		s += br[1];
	} else if (v.is_number())
		append_number(s, v);
	else if (v.is_string())
		append_quoted(s, v.get_ref<const std::string &>());
	else
		s += v.dump();	// true, false, null: only in ioplan's own additions
}

} // namespace

std::string fio_json_text(const ojson &v)
{
	std::string s;
	append_value(s, v, 0);
	return s;
}

} // namespace report

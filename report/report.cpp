// report/report.cpp - report::write: parses the format list and runs the
// writers in fio's order over one model of the results.
#include "report/report.hpp"

#include "report/formats.hpp"
#include "report/group.hpp"

namespace report {

namespace {

bool format_bit(const std::string &name, unsigned *bit)
{
	if (name == "normal")
		*bit = FORMAT_NORMAL;
	else if (name == "terse" || name == "minimal" || name == "csv")
		*bit = FORMAT_TERSE;
	else if (name == "json")
		*bit = FORMAT_JSON;
	else if (name == "json+")
		*bit = FORMAT_JSON_PLUS;
	else
		return false;
	return true;
}

} // namespace

bool parse_formats(const std::string &list, unsigned *formats, std::string *err)
{
	unsigned mask = 0;
	size_t start = 0;

	for (;;) {
		size_t comma = list.find(',', start);
		std::string name = list.substr(start, comma == std::string::npos ? std::string::npos
										  : comma - start);
		unsigned bit;
		if (name.empty()) {
			*err = "--output-format: empty format name in '" + list +
			       "' (expected normal, terse, json or json+)";
			return false;
		}
		if (!format_bit(name, &bit)) {
			*err = "--output-format: unknown format '" + name +
			       "' (expected normal, terse, json or json+)";
			return false;
		}
		mask |= bit;
		if (comma == std::string::npos)
			break;
		start = comma + 1;
	}
	*formats = mask;
	return true;
}

std::string version_string()
{
	return std::string("ioplan-") + IOPLAN_VERSION;
}

void write(const results &r, const plan &p, const options &o, std::ostream &out)
{
	model m = build_model(r, p);

	if (o.formats & FORMAT_TERSE)
		write_terse(out, m, r);
	if (o.formats & (FORMAT_JSON | FORMAT_JSON_PLUS))
		write_json(out, m, r, p, (o.formats & FORMAT_JSON_PLUS) != 0);
	if (o.formats & FORMAT_NORMAL)
		write_normal(out, m, r, p, o);
	out.flush();
}

} // namespace report

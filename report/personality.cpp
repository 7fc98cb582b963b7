// report/personality.cpp - the one rule for which name and version ioplan presents.
#include "report/personality.hpp"

#include <cstring>

#include "report/report.hpp"

namespace report {

personality personality_of(const char *argv0)
{
	if (!argv0)
		return personality::ioplan;
	const char *base = std::strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	return std::strcmp(base, "fio") == 0 ? personality::fio : personality::ioplan;
}

std::string version_string(personality who)
{
	return who == personality::fio ? std::string(fio_level) : version_string();
}

std::string fio_mode_banner()
{
	return std::string("This is ") + version_string() + " run as fio: it answers --version with " +
	       fio_level + " and writes fio " + (fio_level + 4) + "'s output layouts.\n";
}

} // namespace report

// report/personality.hpp - who ioplan says it is: itself, or fio when run as `fio`.
//
// Programs built on fio (KDiskMark, fio-plot's bench-fio, docker-diskmark)
// check `fio --version` and JSON "fio version" for "fio-" / "fio-3".  Installed
// as `fio` (a symlink), ioplan answers as the fio level whose job language and
// output it follows; where a person reads (--help) it still names itself.  The
// --version handler and every report that prints a version ask this module.
#pragma once

#include <string>

namespace report {

enum class personality { ioplan, fio };

// The fio release whose job language and output layouts ioplan follows.
constexpr const char *fio_level = "fio-3.33";

// fio when argv[0]'s basename is exactly "fio", else ioplan.
personality personality_of(const char *argv0);

// "fio-3.33" as fio, "ioplan-<version>" as ioplan: --version, JSON "fio
// version", terse field 2, normal output's version line.
std::string version_string(personality who);

// --help's first line as fio: says that this is ioplan answering as fio.
std::string fio_mode_banner();

} // namespace report

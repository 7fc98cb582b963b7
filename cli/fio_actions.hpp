// cli/fio_actions.hpp - what fio's informational flags print: --showcmd,
// --enghelp, --cpuclock-test, --crctest and --idle-prof=calibrate.
//
// Each returns the exit status (fio's: 0, or 1 for an unknown name) after
// writing to out; errors about a name go to stderr.
#pragma once

#include <cstdio>
#include <string>

#include "cli/args.hpp"

namespace cli {

// Each job file as a command line, one a line ("ioplan --bs=8k --name=j1 ...",
// "fio ..." run as fio); the command line's defaults open the first.
// Throws parser::error for a job file that cannot be read.
int print_showcmd(const args &a, FILE *out);

// No value: the engines (as_fio: fio's lines, names only).  ENGINE: its options.
// ENGINE,OPTION: that option explained.
int print_enghelp(const std::string &what, bool as_fio, FILE *out);

// Reads the clock from a thread on every CPU in turn, checking it never runs backwards.
int cpuclock_test(FILE *out);

// MiB/s of each verify checksum over a buffer ("" = all of them).
int crctest(const std::string &which, FILE *out);

// The time of a unit of idle work, as fio's --idle-prof=calibrate prints it.
int idle_calibrate(FILE *out);

} // namespace cli

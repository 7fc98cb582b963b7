// cli/debug.hpp - fio's --debug classes and the lines ioplan prints for them.
//
// fio prints a line per internal event of each class asked for:
//   "file     1234 add file /mnt/f.0.0", "io       1234 load ioengine psync".
// ioplan prints the same shape for what the plan and the run's end show: the
// files and engines of every job (classes file and io) and steady-state
// thresholds (parse).  The other classes are
// accepted; a note says they show nothing in ioplan.  Lines go to stderr, so
// stdout carries only results (fio writes them to stdout).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "engine/plan.h"

namespace cli {

bool debug_class_known(const std::string &name);

// "fio: dumping debug options:process,file,...,all" in ioplan's words.
void print_debug_classes(FILE *out);

// parse: fio's "set steady state ... threshold to ..." line per job with ss_dur.
// With --parse-only these go to stdout, as fio's do (nothing else is written
// there; fio's t/steadystate_tests.py reads them from it).
void debug_parse(const std::vector<std::string> &classes, const plan &p, long pid, FILE *out);

// Before the run: the parse lines, a note per class that prints nothing, the file and io lines.
void debug_before_run(const std::vector<std::string> &classes, const plan &p, long pid, FILE *out);

// After the run: the closing lines of file and io.
void debug_after_run(const std::vector<std::string> &classes, const plan &p, long pid, FILE *out);

} // namespace cli

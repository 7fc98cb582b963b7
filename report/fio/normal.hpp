// report/fio/normal.hpp - pieces of fio's human-readable output shared by
// normal.cpp (job blocks, groups, disks) and normal_ddir.cpp (one direction).
#pragma once

#include <cstdint>
#include <string>

#include "engine/results.h"
#include "report/model.hpp"
#include "report/personality.hpp"

namespace report {

// "  read: IOPS=..., BW=..." and everything under it for direction d, or ""
// when the direction did not run.
// spread, when not empty, follows the IOPS/BW line (normal_repeats).
std::string normal_ddir(const entry &e, const group_stat &g, int d, const std::string &spread = "");

// "    repeats: 5 runs, IOPS min=..., median=..., max=..." for direction d when
// the entry's jobs ran more than once (repeat=N), else "" (normal_caveats.cpp).
std::string normal_repeats(const entry &e, const model &m, int d);

// "    clat (usec): min=..., max=..., avg=..., stdev=..." (fio's display_lat).
std::string normal_lat_line(const char *name, const res_lat &l);

// "    clat percentiles (usec):" and the "     |" rows under it.
std::string normal_percentiles(const char *name, const res_lat &l, const std::vector<double> &list,
			       int precision);

// "  lat (nsec)   : 20=88.18%, ..." lines: the non-empty latency buckets.
std::string normal_lat_dist(const entry &e);

// fio's "  steadystate  : attained=..." line and ioplan's line saying whether
// and when the window was steady, or "" without ss_dur (normal_steady.cpp).
std::string normal_steadystate(const entry &e);

// After everything else: "ioplan: interrupted: ..." and one line per error,
// warning or note of the run (preflight, I/O, verify, stalls), layout notices
// excepted (normal_caveats.cpp).
// The report's own findings (caveats.hpp) follow the engine's, CPU-bound
// excepted: each entry already says that under its cpu line.
// Run as fio, fio's own lines (the "may be ignored" ones) are left to the opening.
void write_normal_messages(std::ostream &out, const results &r, const plan &p, personality who);

} // namespace report

// tests/report/fio_oracle.hpp - fio 3.33 as the oracle for report/.
//
// Runs real fio on a small job file (null/psync/libaio engines, fractions of a
// second), then rebuilds ioplan results from fio's json+ document - byte and
// I/O counts, runtimes, latency statistics and histogram bins, sample
// statistics, distributions, disks - and renders them with ioplan's writers.
// Whatever fio printed from those numbers, ioplan must print the same.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/report/fixture.hpp"

namespace t {

// One fio run with --output-format=terse,json+,normal.
struct fio_run {
	std::string banner;		// job banners, version, "Starting" lines
	std::vector<std::string> terse;	// one per job, without '\n'
	nlohmann::json json;
	std::string normal;		// from the blank line after the banner on
};

// Writes job to a file in a fresh directory and runs /usr/bin/fio on it there.
fio_run run_fio(const std::string &job);

// ioplan's plan and results rebuilt from fio's json+ document.  With widen, a
// latency's min and max also cover its histogram's bucket values, so ioplan's
// clamp of percentiles to [min, max] (a deliberate difference) never applies.
struct rebuilt {
	std::unique_ptr<plan_holder> plan;
	std::unique_ptr<results_holder> res;
};
// members[i] > 1: fio's jobs[i] is a group_reporting entry of that many
// clones of one section; the rebuilt job has as many clones, the first holding
// fio's merged numbers and the rest empty, so the entry reads "jobs=N" again.
rebuilt rebuild(const nlohmann::json &doc, const std::vector<enum plan_rw> &rw, bool widen,
		const std::vector<uint32_t> &members = {});

// One latency (fio's clat_ns/slat_ns/lat_ns object) as ioplan's exact sums:
// the sum of squares is rebuilt from fio's mean and stddev.
void rebuild_lat(res_lat *l, const nlohmann::json &o, bool widen);

// Text renders of rebuilt results.
std::vector<std::string> ioplan_terse(rebuilt &b);
nlohmann::json ioplan_json(rebuilt &b, bool plus);
std::string ioplan_json_text(rebuilt &b, bool plus);	// as written, unparsed
std::string ioplan_normal(rebuilt &b);

// "a/b/c" -> JSON type name ("integer", "float", "string", "object", ...)
// for every node under j.
void key_paths(const nlohmann::json &j, const std::string &prefix,
	       std::vector<std::pair<std::string, std::string>> *out);

// Numbers in two lines equal within tolerance, all other text identical.
bool lines_match_approx(const std::string &a, const std::string &b, std::string *why);

// Splits normal output into the percentile blocks and everything else.
void split_percentile_blocks(const std::string &normal, std::vector<std::string> *blocks,
			     std::vector<std::string> *rest);

} // namespace t

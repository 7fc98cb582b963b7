// tests/report/scenarios.hpp - a catalogue of fixed runs every writer is tested on.
//
// Each scenario is a plan and results built by hand with known numbers: plain
// runs, clones with and without group_reporting, several groups, repeats, rate
// limits, and the awkward ones - an interrupted run, a run with errors, a run
// that did nothing, hostile names, non-finite inputs.  The strict-JSON test,
// the schema validation and the golden files all walk this one list, so a
// scenario added here is checked by all of them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "report/report.hpp"
#include "tests/report/fixture.hpp"

namespace t {

struct scenario_run {
	std::unique_ptr<plan_holder> plan;
	std::unique_ptr<results_holder> res;
	std::function<void(results &)> before_free;	// undo tricks before results_free
	scenario_run() = default;
	scenario_run(scenario_run &&) = default;
	scenario_run &operator=(scenario_run &&) = default;
	~scenario_run();
};

struct scenario {
	const char *name;	// file-name safe: golden files are named after it
	std::function<scenario_run()> build;
};

const std::vector<scenario> &scenarios();

// What report::write prints for a run in the given formats, with a fixed pid.
std::string render(scenario_run &s, unsigned formats);

} // namespace t

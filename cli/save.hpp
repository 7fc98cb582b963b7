// cli/save.hpp - --save: a run's results into the store (save.cpp).
#pragma once

#include "cli/args.hpp"
#include "engine/plan.h"
#include "engine/results.h"

namespace cli {

// --save[=LABEL]: the run into the store.  false (and the reason on stderr)
// when the store could not take it; this comes before the report is written.
bool save_run(const results &r, const plan &p, const args &a);

// --save's store, opened for writing before the run (made if it is not there):
// false, with the reason on stderr, when the run's results could not be kept
// in it, which would otherwise be found only once the run is over.
bool save_store_ok(const args &a);

} // namespace cli

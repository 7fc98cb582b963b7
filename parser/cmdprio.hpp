// parser/cmdprio.hpp - fio's cmdprio_bssplit value (libaio and io_uring), parsed
// into the plan's per-direction split (engine/plan.h struct plan_cmdprio).
#pragma once

#include <string>

#include "parser/spec.hpp"

namespace parser {

struct option;

// cmdprio_bssplit=LIST[,LIST]: read and write lists (one list: both); each
// entry bs/, bs/percent or bs/percent/class/level.  value_error on bad input.
void set_cmdprio_bssplit(job_spec &j, const option &o, const std::string &v);

} // namespace parser

// cli/replay.cpp - wires read_iolog (replay.hpp): the merge is a file the cli
// writes under the safety rules; the plan rewrite is the parser's replay stage.
#include "cli/replay.hpp"

#include "parser/replay_stage.hpp"

namespace cli {

bool load_replays(plan &p, bool merge_only)
{
    for (uint32_t g = 0; g < p.nr_groups; g++)
        for (uint32_t i = 0; i < p.groups[g].nr_jobs; i++) {
            plan_job &j = p.groups[g].jobs[i];
            if (j.merge_blktrace_path && !j.replay && !merge_traces(j))
                return false;
            if (!merge_only && !parser::replay_stage(j))
                return false;
        }
    return true;
}

} // namespace cli

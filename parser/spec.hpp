// parser/spec.hpp - a job as options are applied to it, before it becomes a plan_job.
//
// The option table's appliers write here.  Most values go straight into the
// plan_job (pj) they will end up in; what needs the whole plan to resolve
// (names, files, directories, wait_for, numjobs) is kept as text until the
// planner builds clones and files.  pj's pointer fields stay NULL here: the
// planner fills them when it copies the job into plan memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "parser/doc.hpp"

namespace parser {

struct job_spec {
    plan_job pj{};
    unsigned kb_base = 1024;
    std::string name;                 // name= (empty: the section name)
    std::string description;
    std::string wait_for;
    std::string filename_format = "$jobname.$jobnum.$filenum";
    std::vector<std::string> directories;
    std::vector<std::string> filenames;
    uint32_t numjobs = 1;
    std::vector<uint8_t> pattern;     // buffer_pattern / verify_pattern bytes
    bool randseed_set = false;
    bool iodepth_batch_complete_max_set = false;
    bool hipri_percentage_set = false;
    uint32_t startdelay_range = 0;
    bool log_on[3] = {};              // write_bw_log, write_iops_log, write_lat_log
    std::string log_prefix[3];        // their values ("": the job name)
    bool bw_avg_set = false, iops_avg_set = false;  // bwavgtime/iopsavgtime given (fio_option_is_set)
    std::string exec_prerun, exec_postrun;          // "" = none

    // Plan-wide settings that may be written in any section.
    std::string allow_device_write;
    bool allow_existing_file_write = false;

    // Options as typed in this job's own section, for the report echo.
    std::vector<entry> echo;
};

} // namespace parser

// parser/spec.hpp - a job as options are applied to it, before it becomes a plan_job.
//
// The option table's appliers write here.  Most values go straight into the
// plan_job (pj) they will end up in; what needs the whole plan to resolve
// (names, files, directories, wait_for, numjobs) is kept as text until the
// planner builds clones and files.  pj's pointer fields stay NULL here: the
// planner fills them when it copies the job into plan memory.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "parser/doc.hpp"

namespace parser {

// A value of an engine's own option: a number (bool, int, choice) or text.
struct engine_value {
    long long i = 0;
    std::string s;
    bool operator==(const engine_value &o) const { return i == o.i && s == o.s; }
};

// A file filename= or opendir= names, with the directory= in effect when it was
// read: fio joins them then (add_file), so a later directory= leaves it where it
// was ([global] filename=f under a job's directory=d is ./f; on the command line
// --filename=f --directory=d is ./f, the other order d/f).
struct named_file {
    std::string name;
    std::string dir;
};

struct job_spec {
    plan_job pj{};
    // bssplit and cmdprio_bssplit entries (pj's nr_split counts them): copied
    // into plan memory by fill_job, so that copies of a spec share nothing.
    std::vector<plan_bssplit> bssplit[PLAN_DDIR_NR];
    std::vector<plan_cmdprio_split> cmdprio_split[2];
    unsigned kb_base = 1024;
    // bsrange= or bssplit= gave this direction its sizes: a later bs= (here or in a
    // job under this [global]) leaves them, as fio's min_bs/max_bs outrank its bs.
    bool bs_range_set[PLAN_DDIR_NR] = {};
    std::string name;                 // name= (empty: the section name)
    std::string description;
    std::string wait_for;
    // size=, io_size=, offset=, offset_increment= and zoneskip= given in zones (fio's
    // "Nz"): N times zonesize=, applied once the job is read (finalize_spec), as fio's
    // file setup does; without a zonesize= they stay 0, as in fio.
    enum { NZ_SIZE, NZ_IO_SIZE, NZ_OFFSET, NZ_OFFSET_INCREMENT, NZ_ZONE_SKIP, NZ_NR };
    uint32_t in_zones[NZ_NR] = {};
    std::string filename_format = "$jobname.$jobnum.$filenum";
    std::vector<std::string> directories;
    std::vector<named_file> filenames;
    // The count fio prints ("opendir added N files") for each opendir= applied
    // here, in order; the planner says the ones its section added (planner.cpp).
    std::vector<uint32_t> opendir_counts;
    uint32_t numjobs = 1;
    std::vector<uint8_t> pattern;     // buffer_pattern / verify_pattern bytes
    std::vector<uint8_t> verify_pattern; // verify_pattern alone: what verify checks
    bool verify_set = false;          // verify= given: verify_pattern keeps its method
    bool randseed_set = false;
    bool allrandrepeat = false; // fio's seeds for every generator, set or not randrepeat (planner_build.cpp)
    bool hipri_percentage_set = false;
    uint64_t rank_offset_increment = 0; // each MPI rank's regions start this much after the previous rank's
    bool zone_strided = false;
    // random_distribution=zoned_abs (its ranges in bytes), and whether its last range was
    // left blank ("10/": the rest of the region, which only zoned_ranges=diskspd reads);
    // the rule is resolved once the job is read (finalize_zone_rule), whatever the order.
    bool zones_abs = false;
    bool zones_abs_rest = false;
    bool atomic = false;              // atomic=1: O_DIRECT, set once every option is read (fio's fixup)        // zonemode=strided (fio 3.33 refuses zonesize= without it)
    // The engine options given (an option's .engines), so check_engine_options can
    // refuse them under another engine.
    std::vector<std::string> engine_opts_set;
    // The engine whose option table the engine option values above belong to (fio
    // keeps them in that engine's struct, td->eo), as options_owner() names it; -1:
    // none set yet.  A job whose engine has another table starts from the defaults.
    int engine_opts_owner = -1;
    // Options an engine's file brings (engine/plan_engopts.h), by name, as given or
    // defaulted: fill_job writes the job's engine's ones into its options struct.
    std::map<std::string, engine_value> engine_values;
    uint32_t startdelay_range = 0;
    bool log_on[4] = {};              // write_bw_log, write_iops_log, write_lat_log, write_hist_log
    std::string log_prefix[4];        // their values ("": the job name)
    bool bw_avg_set = false, iops_avg_set = false;  // bwavgtime/iopsavgtime given (fio_option_is_set)
    std::string exec_prerun, exec_postrun;          // "" = none
    std::string ioscheduler;                        // "" = leave the devices' schedulers

    // write_iolog, read_iolog, replay_redirect: paths kept as text until the plan is built.
    std::string write_iolog, read_iolog, replay_redirect;
    std::string merge_blktrace_file;  // "" = no merge

    // Plan-wide settings that may be written in any section.
    std::string allow_device_write;
    bool allow_existing_file_write = false;

    // Options as typed in this job's own section, for the report echo, and the
    // place fio would list each in (fio_echo_places; empty: as typed).
    std::vector<entry> echo;
    std::vector<uint32_t> echo_at;
};

} // namespace parser

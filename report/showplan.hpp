// report/showplan.hpp - the resolved plan as JSON (`ioplan --showplan`).
//
// The stable, machine-readable view of what a job file means: every group,
// job, clone and file with every value in base units.  Tests and users diff it;
// field names follow plan.h so the two never drift.
#pragma once

#include <ostream>

#include "engine/plan.h"

namespace report {

// What the text shows: the whole plan (--showplan, and the plan hash of it), or
// its workload alone (the workload hash of it): the same text less what names
// this host's targets, so the same job run against /dev/sdb on one host and
// /dev/nvme0n1 on another is one workload.  Left out there: each file's path;
// the options that name a target or a peer (filename, directory, opendir,
// filename_format, replay_redirect, donorname, hostname, interface, uri);
// the safety permissions (allow_device_write, allow_existing_file_write,
// allow_mounted_write), which let a run write where it is but change no I/O;
// the values of the options that name an output file (write_*_log,
// write_iolog, merge_blktrace_file), whose keys stay; and each clone's seed,
// which randrepeat=0 draws anew for each run (randseed and the thread's
// number, which give it otherwise, stay).  The options are listed
// by name, not in the order typed.  Everything else stays: sizes, block
// sizes, rw, depth, engine, direct, rates, numjobs, runtime, the files'
// number and sizes, whether each is a device.
enum class showplan_view { whole, workload };

// The option names the workload view leaves out, or keeps without their value
// (an output file's name): fio's options of an imported run are judged by the
// same list (results/record.cpp keeps a copy, tests/report/test_showplan.cpp
// checks the two agree).
bool host_specific_option(const char *key);
bool output_name_option(const char *key);

void write_showplan(const plan &p, std::ostream &out, showplan_view view = showplan_view::whole);

} // namespace report

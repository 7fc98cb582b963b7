// cli/mpi/agg_bw_log.hpp - --bandwidth-log: fio's aggregate bandwidth logs.
//
// fio writes agg-read_bw.log, agg-write_bw.log and agg-trim_bw.log in the
// current directory: every bandwidth interval a line "time_ms, KiB/s, ddir, 0, 0"
// for each direction, the bandwidth of all jobs together, time since the run
// started.  The supervisor's status ticks give the totals, so the I/O loop
// does nothing for it.  (fio only samples when it computes its ETA line, so its
// files stay empty under --output or without a terminal; ioplan always fills them.)
// Each line is written whole as it is made: a write the disk cuts is cut off
// again, so a file ends at a whole line and stays ioplan's to replace.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>

#include "engine/engine.h"

namespace cli {

class agg_bw_log {
public:
    // Opens (truncates) the three files in dir when on; interval_ns: bwavgtime.
    agg_bw_log(bool on, uint64_t interval_ns, const std::string &dir = ".");
    ~agg_bw_log();
    agg_bw_log(const agg_bw_log &) = delete;
    agg_bw_log &operator=(const agg_bw_log &) = delete;

    // A status tick: a line per direction once an interval has passed.
    void tick(const eng_status &st);
    // Closes the files: "" or an error naming the file that could not be written.
    std::string finish();
    // The errno of that error (0 = none).
    int error() const { return errno_; }

private:
    void fail(const std::string &path, int err);

    void put(int d, const std::string &line);

    int fd_[PLAN_DDIR_NR] = {-1, -1, -1};
    std::string path_[PLAN_DDIR_NR];
    std::string err_;
    int errno_ = 0;
    uint64_t interval_ns_, last_ns_ = 0, last_bytes_[PLAN_DDIR_NR] = {};
};

// The file of direction ddir in dir.
std::string agg_bw_log_path(const std::string &dir, int ddir);

// Before any I/O: "" when the three files may be written in dir, else why
// not (a device, or a user's file by one of those names: it is kept).
std::string agg_bw_log_check(const std::string &dir = ".");

} // namespace cli

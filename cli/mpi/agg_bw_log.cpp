// cli/mpi/agg_bw_log.cpp - --bandwidth-log: fio's aggregate bandwidth logs (agg_bw_log.hpp).
#include "cli/mpi/agg_bw_log.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "engine/safety/safety.h"

namespace cli {

agg_bw_log::agg_bw_log(bool on, uint64_t interval_ns, const std::string &dir)
    : interval_ns_(interval_ns ? interval_ns : 500000000ull)
{
    if (!on)
        return;
    for (int d = 0; d < PLAN_DDIR_NR; d++) {
        path_[d] = agg_bw_log_path(dir, d);
        char why[SAFETY_WHY_MAX];
        // The preflight (agg_bw_log_check) judged whose the files are.
        int fd = safety_open_output(&safety_system, path_[d].c_str(), O_TRUNC,
                                    SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES | SAFETY_OUT_JUDGED, why, sizeof(why));
        fd_[d] = fd >= 0 ? fd : -1;
        if (fd < 0 && err_.empty())
            fail(path_[d], -fd);
    }
}

std::string agg_bw_log_path(const std::string &dir, int ddir)
{
    static const char *const names[PLAN_DDIR_NR] = {"agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"};
    return dir + "/" + names[ddir];
}

std::string agg_bw_log_check(const std::string &dir)
{
    for (int d = 0; d < PLAN_DDIR_NR; d++) {
        char why[SAFETY_WHY_MAX];
        std::string path = agg_bw_log_path(dir, d);
        if (safety_check_output(&safety_system, path.c_str(), SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES, why,
                                sizeof(why)))
            return why;
        if (safety_check_writable(path.c_str(), why, sizeof(why))) // a read-only directory: before the run, not after
            return path + ": " + why;
    }
    return "";
}

void agg_bw_log::fail(const std::string &path, int err)
{
    errno_ = err;
    err_ = path + ": " + std::strerror(err);
}

agg_bw_log::~agg_bw_log()
{
    finish();
}

// One line onto direction d's file.  A failed write's piece is cut off again
// (a stdio buffer had cut the file mid-line where the disk filled) and the file,
// still ioplan's, is marked so (the next run refused it as a user's).
void agg_bw_log::put(int d, const std::string &line)
{
    int err = -safety_write_whole(fd_[d], line.data(), line.size()); // a torn piece is cut off again
    if (!err)
        return;
    safety_mark_output(fd_[d]);
    ::close(fd_[d]);
    fd_[d] = -1;
    if (err_.empty()) {
        fail(path_[d], err);
        err_ += "; it ends at the last whole line written before it";
    }
}

void agg_bw_log::tick(const eng_status &st)
{
    if (fd_[0] < 0 && fd_[1] < 0 && fd_[2] < 0)
        return;
    if (st.elapsed_ns < last_ns_ + interval_ns_)
        return;
    uint64_t ms = (st.elapsed_ns - last_ns_) / 1000000ull;
    for (int d = 0; d < PLAN_DDIR_NR; d++) {
        // The totals only grow (eng_status); one that fell would be taken as all new.
        uint64_t bytes = st.bytes[d] >= last_bytes_[d] ? st.bytes[d] - last_bytes_[d] : st.bytes[d];
        uint64_t kib_s = ms ? bytes * 1000 / ms / 1024 : 0;
        if (fd_[d] >= 0) {
            char line[96];
            int n = std::snprintf(line, sizeof(line), "%" PRIu64 ", %" PRIu64 ", %d, 0, 0\n",
                                  (uint64_t)(st.elapsed_ns / 1000000u), kib_s, d);
            put(d, std::string(line, (size_t)n));
        }
        last_bytes_[d] = st.bytes[d];
    }
    last_ns_ = st.elapsed_ns;
}

std::string agg_bw_log::finish()
{
    for (int d = 0; d < PLAN_DDIR_NR; d++) {
        if (fd_[d] < 0)
            continue;
        // Removed during the run (its directory too): the lines went with it.
        bool removed = safety_output_removed(fd_[d]);
        if (!removed)
            safety_mark_output(fd_[d]); // ioplan's own: the next run may replace it
        if (::close(fd_[d]) != 0 && err_.empty())
            fail(path_[d], errno); // NFS and full quotas report here
        if (removed && err_.empty()) {
            errno_ = ENOENT;
            err_ = path_[d] + ": removed during the run, and what was written went with it";
        }
        fd_[d] = -1;
    }
    return err_;
}

} // namespace cli

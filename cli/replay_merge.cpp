// cli/replay_merge.cpp - merge_blktrace_file: read_iolog's blktrace files merged into one
// file before the run (replay.hpp), as fio's merge_blktrace_iologs does.
//
// The merge itself is parser/iolog/iolog_merge.c (on buffers, fuzzable); here the
// files are read and the result written.  Safety: the merged file replaces
// nothing ioplan was not given: an existing file is left alone when it already
// holds exactly the merge (a rerun) and refused when it holds anything else
// (another trace, or one of the inputs); an empty one is filled.  A merge
// that cannot fit in the memory available is refused before it starts.
#include "cli/replay.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "parser/iolog/iolog.h"
#include "parser/replay_stage.hpp"
#include "parser/structured.hpp"
#include "engine/safety/safety.h"

namespace cli {

namespace {

std::vector<std::string> colon_list(const char *s)
{
    std::vector<std::string> out(1);
    for (; *s; s++)
        if (*s == ':')
            out.emplace_back();
        else
            out.back() += *s;
    return out;
}

bool slurp(const std::string &path, std::vector<uint8_t> *buf)
{
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    buf->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

// The merge in out_path: true when written or already there; false after saying why.
bool write_merge(const char *out_path, const uint8_t *data, size_t len)
{
    std::vector<uint8_t> old;
    struct stat st;
    bool exists = !stat(out_path, &st);
    if (exists && S_ISREG(st.st_mode) && slurp(out_path, &old) && old.size() == len && !std::memcmp(old.data(), data, len))
        return true;
    if (exists && (!S_ISREG(st.st_mode) || st.st_size)) {
        std::fprintf(stderr,
                     "%s: error: merge_blktrace_file: it exists and holds other data; ioplan replaces nothing it "
                     "was not given (remove it or name another file)\n",
                     out_path);
        return false;
    }
    char why[1024] = "";
    int fd = safety_open_output(&safety_system, out_path, 0, 0, why, sizeof(why)); // never a device
    if (fd < 0) {
        std::fprintf(stderr, "%s: error: merge_blktrace_file: %s\n", out_path, why);
        return false;
    }
    int err = -safety_write_whole(fd, data, len);
    struct stat made;
    bool known = fstat(fd, &made) == 0;
    // A merge cut short (a full disk) is a shorter trace that a replay takes for
    // the whole one when the cut falls between two records: none is left.
    if (err && exists)
        (void)!ftruncate(fd, 0); // the empty file it was
    if (close(fd) && !err)
        err = errno; // NFS and full quotas report here
    if (!err)
        return true;
    if (!exists && known)
        (void)safety_remove_made(out_path, made.st_dev, made.st_ino);
    std::fprintf(stderr, "%s: error: merge_blktrace_file: cannot write it: %s (%s)\n", out_path, std::strerror(err),
                 exists ? "it is left empty, as it was" : "no file is left");
    return false;
}

void merge_error(const std::string &path, const iolog_error &e)
{
    if (e.where)
        std::fprintf(stderr, "%s: record %llu: error: merge_blktrace_file: %s\n", path.c_str(),
                     (unsigned long long)e.where, e.msg);
    else
        std::fprintf(stderr, "%s: error: merge_blktrace_file: %s\n", path.c_str(), e.msg);
}

// Bytes of memory available now (MemAvailable), 0 when unknown.
uint64_t mem_available()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    while (in >> key >> kib)
        if (key == "MemAvailable:")
            return kib * 1024;
        else
            in.ignore(1 << 10, '\n');
    return 0;
}

// The merge is built in memory: at most every source's records, times its
// iters.  A merge that could not fit is refused before it starts (exit 2),
// rather than growing until the system runs out.
bool merge_fits(const plan_job &j, const std::vector<iolog_merge_src> &src)
{
    long double need = 0;
    for (const auto &s : src)
        need += (long double)s.len * (s.iters > 0 ? s.iters : 1);
    uint64_t avail = mem_available();
    if (!avail || need <= (long double)avail)
        return true;
    std::fprintf(stderr,
                 "%s: error: merge_blktrace_iters: the merged trace would take up to %.0Lf bytes (each "
                 "trace's size times its iters), more than the %llu bytes of memory available\n",
                 j.merge_blktrace_path, need, (unsigned long long)avail);
    return false;
}

} // namespace

bool merge_traces(plan_job &j)
{
    std::vector<std::string> names = colon_list(j.read_iolog_path);
    std::vector<std::vector<uint8_t>> bufs(names.size());
    std::vector<iolog_merge_src> src(names.size());
    for (size_t i = 0; i < names.size(); i++) {
        std::string err;
        if (!parser::read_file_bytes(names[i], "trace", parser::TRACE_PIPE_MAX, &bufs[i], &err)) {
            std::fprintf(stderr, "%s: error: merge_blktrace_file: cannot read it: %s\n", names[i].c_str(),
                         err.c_str());
            return false;
        }
        src[i] = {bufs[i].data(), bufs[i].size(), j.nr_merge_scalars ? j.merge_scalars_pct[i] : 100,
                  j.nr_merge_iters ? j.merge_iters[i] : 1};
    }
    if (!merge_fits(j, src))
        return false;
    uint8_t *out = nullptr;
    size_t len = 0;
    uint32_t bad = 0;
    iolog_error e;
    int ret = iolog_merge(src.data(), (uint32_t)src.size(), &out, &len, &bad, &e);
    if (ret == -ENOMEM)
        throw std::bad_alloc();
    if (ret)
        merge_error(names[bad], e);
    bool ok = !ret && write_merge(j.merge_blktrace_path, out, len);
    std::free(out);
    if (ok) {
        // From here on the merged file is the job's trace, as in fio.
        std::free(j.read_iolog_path);
        j.read_iolog_path = plan_strdup(j.merge_blktrace_path);
    }
    return ok;
}

} // namespace cli

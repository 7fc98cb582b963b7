// parser/replay_stage.cpp - the replay stage of planning (replay_stage.hpp): a
// read_iolog trace read with the replay_* options and adopted as the job's I/Os,
// files and pattern.
#include "parser/replay_stage.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <linux/fs.h>
#include <new>
#include <string>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "parser/iolog/iolog.h"
#include "parser/structured.hpp"

namespace parser {

namespace {


// Where in a trace: its line (text, as path:line:col) or its record (blktrace); 0 is the whole file.
std::string trace_where(const char *path, uint64_t at, bool record)
{
    if (!at)
        return path;
    return std::string(path) + (record ? ": record " : ":") + std::to_string(at) + (record ? "" : ":1");
}

void trace_error(const char *path, const iolog_error &e)
{
    std::fprintf(stderr, "%s: error: read_iolog: %s\n", trace_where(path, e.where, e.record).c_str(), e.msg);
}

// Size of an existing target: a block device's capacity or a file's length; false if it does not exist.
bool target_size(const char *path, bool *is_dev, uint64_t *size)
{
    struct stat st;
    if (stat(path, &st))
        return false;
    *is_dev = S_ISBLK(st.st_mode);
    *size = (uint64_t)st.st_size;
    if (!*is_dev)
        return S_ISREG(st.st_mode);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool ok = fd >= 0 && !ioctl(fd, BLKGETSIZE64, size);
    if (fd >= 0)
        close(fd);
    return ok;
}

// Which files the trace writes (the rest it only reads, trims or syncs): one
// pass over the trace, not one per file, which a trace of many files and
// millions of I/Os would make quadratic.
std::vector<bool> trace_written(const iolog_trace &t)
{
    std::vector<bool> written(t.nr_files);
    for (uint64_t i = 0; i < t.nr_ios; i++)
        if (t.ios[i].ddir == PLAN_DDIR_WRITE && t.ios[i].file < t.nr_files)
            written[t.ios[i].file] = true;
    return written;
}

// A read the trace makes past what its writes before it made of a file (the
// first one per file, or none): fio 3.33 makes a missing or empty file no
// bigger than its writes do, and such a read fails its job (ENOENT when the
// trace never writes the file, EIO on the short read otherwise).
struct read_past_writes {
    uint64_t end = 0;       // where the read ends
    uint64_t made = 0;      // how far the writes before it reached
    uint32_t source = 0;    // its line; 0 = no such read
};

std::vector<read_past_writes> reads_past_writes(const iolog_trace &t)
{
    std::vector<read_past_writes> out(t.nr_files);
    std::vector<uint64_t> made(t.nr_files);
    for (uint64_t i = 0; i < t.nr_ios; i++) {
        const plan_replay_io &io = t.ios[i];
        if (io.file >= t.nr_files)
            continue;
        uint64_t end = io.offset + io.len;
        if (io.ddir == PLAN_DDIR_WRITE && end > made[io.file])
            made[io.file] = end;
        else if (io.ddir == PLAN_DDIR_READ && end > made[io.file] && !out[io.file].source)
            out[io.file] = read_past_writes{end, made[io.file], io.source};
    }
    return out;
}

// The trace's files as the job's files: devices and existing files must hold every traced I/O.
bool trace_files(const plan_job &j, const iolog_trace &t, std::vector<plan_file> *files)
{
    std::vector<bool> written = trace_written(t);
    // The null engine opens no file (fio's is diskless too): its reads need none.
    bool opens = j.ioengine != PLAN_IOENGINE_NULL;
    std::vector<read_past_writes> past = t.version && opens ? reads_past_writes(t) : std::vector<read_past_writes>();
    for (uint32_t f = 0; f < t.nr_files; f++) {
        plan_file pf{};
        uint64_t size = 0;
        bool dev = false, exists = target_size(t.files[f], &dev, &size);
        // A blktrace names devices by number: never create a file where a device should be.
        if (!exists && t.version == 0 && !j.replay_redirect) {
            std::fprintf(stderr,
                         "%s: error: read_iolog: the traced device %s is not on this machine; "
                         "name the target with replay_redirect=\n",
                         j.read_iolog_path, t.files[f]);
            return false;
        }
        // The null engine's targets are not the files of those names: none holds too little.
        if (opens && exists && (dev || size) && t.extent[f] > size) {
            std::fprintf(stderr,
                         "%s: error: read_iolog: the trace reaches byte %llu of '%s', which holds %llu; "
                         "nothing was run\n",
                         trace_where(j.read_iolog_path, t.first_src[f], t.version == 0).c_str(),
                         (unsigned long long)t.extent[f], t.files[f], (unsigned long long)size);
            return false;
        }
        // A text trace's file that is not there (or empty) holds what the trace writes
        // into it, no more: ioplan's layout of it would have given its reads data.
        if (!past.empty() && (!exists || (!dev && !size)) && past[f].source) {
            std::fprintf(stderr,
                         "%s: error: read_iolog: the trace reads '%s' up to byte %llu, but the file %s "
                         "and the trace's writes before this read reach byte %llu (fio 3.33's read "
                         "fails); nothing was run\n",
                         trace_where(j.read_iolog_path, past[f].source, false).c_str(), t.files[f],
                         (unsigned long long)past[f].end, exists ? "is empty" : "does not exist",
                         (unsigned long long)past[f].made);
            return false;
        }
        pf.path = t.files[f];
        pf.is_device = dev;
        pf.shared = true;
        // A file the trace writes grows to what the trace needs; an existing one keeps its size,
        // but an empty one it writes grows as a new one (fio's writes extend it: a client makes
        // the file empty, then replays its writes into it).
        // The null engine's is as long as the trace reaches, whatever file has its name.
        bool grows = !opens || !exists || (!dev && !size && written[f]);
        pf.size_bytes = grows ? (t.extent[f] + 4095) / 4096 * 4096 : 0;
        files->push_back(pf);
    }
    return true;
}

enum plan_rw trace_rw(const iolog_trace &t)
{
    bool r = t.bytes[PLAN_DDIR_READ], w = t.bytes[PLAN_DDIR_WRITE], tr = t.bytes[PLAN_DDIR_TRIM];
    if (w || (tr && r))
        return r ? PLAN_RW_RW : tr ? PLAN_RW_TRIMWRITE : PLAN_RW_WRITE;
    return tr ? PLAN_RW_TRIM : PLAN_RW_READ;
}

// Moves the trace into the job: its I/Os, its files (every clone the same), its pattern.
void adopt(plan_job &j, iolog_trace &t, const std::vector<plan_file> &files)
{
    uint32_t maxlen = 512;
    for (uint64_t i = 0; i < t.nr_ios; i++)
        if (t.ios[i].len > maxlen)
            maxlen = t.ios[i].len;
    j.replay = (plan_replay *)plan_calloc(1, sizeof(plan_replay));
    j.replay->ios = t.ios;
    j.replay->nr_ios = t.nr_ios;
    t.ios = nullptr;
    for (uint32_t c = 0; c < j.nr_clones; c++) {
        plan_clone &cl = j.clones[c];
        for (uint32_t i = 0; i < cl.nr_files; i++) {
            free(cl.files[i].path);
            free(cl.files[i].fio_name);
        }
        free(cl.files);
        cl.files = (plan_file *)plan_calloc(files.size(), sizeof(plan_file));
        for (size_t i = 0; i < files.size(); i++) {
            cl.files[i] = files[i];
            cl.files[i].path = plan_strdup(files[i].path);
        }
        cl.nr_files = (uint32_t)files.size();
        cl.offset_bytes = 0;
    }
    j.rw = trace_rw(t);
    j.time_based = false;
    j.nrfiles = (uint32_t)files.size();
    j.size_bytes = 0;
    j.offset_bytes = 0;
    for (plan_bs &b : j.bs)
        b = plan_bs{maxlen, maxlen, 0, 0, {}};
}

// Under mpirun each rank's write_iolog=P is written as P.HOST.RANK (ranks
// sharing a directory kept one trace no replay could read): a read_iolog=P
// that is not there while this rank's P.HOST.RANK is names the one to read.
std::string rank_trace_hint(const char *path)
{
    const char *n = getenv("IOPLAN_NRANKS"), *rank = getenv("IOPLAN_RANK"), *host = getenv("IOPLAN_HOST");
    struct stat st;
    if (!n || strtoul(n, nullptr, 10) < 2 || !rank || !host ||
        stat((std::string(path) + "." + host + "." + rank).c_str(), &st) != 0)
        return "";
    return std::string(" (under mpirun write_iolog= wrote this rank's trace as ") + path + "." + host + "." + rank +
           ": read_iolog=" + path + ".${IOPLAN_HOST}.${IOPLAN_RANK} replays each rank's own)";
}

} // namespace

bool replay_stage(plan_job &j)
{
    if (!j.read_iolog_path || j.replay)
        return true;
    std::vector<uint8_t> buf;
    std::string err;
    if (!read_file_bytes(j.read_iolog_path, "trace", TRACE_PIPE_MAX, &buf, &err)) {
        std::fprintf(stderr, "%s: error: read_iolog: cannot read it: %s%s\n", j.read_iolog_path, err.c_str(),
                     rank_trace_hint(j.read_iolog_path).c_str());
        return false;
    }
    iolog_opts o{j.replay_scale, j.replay_align_bytes, j.replay_skip_mask, j.replay_redirect};
    iolog_trace t;
    iolog_error e;
    int ret = iolog_parse(buf.data(), buf.size(), &o, &t, &e);
    std::vector<plan_file> files;
    bool ok = !ret && trace_files(j, t, &files);
    if (ret == -ENOMEM) {
        iolog_trace_free(&t);
        throw std::bad_alloc();
    }
    if (ret)
        trace_error(j.read_iolog_path, e);
    if (ok)
        adopt(j, t, files);
    iolog_trace_free(&t);
    return ok;
}

} // namespace parser

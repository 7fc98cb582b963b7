// parser/options_lookup.cpp - finding options by name, fio options ioplan knows
// but does not support, and the all-defaults job.
#include "parser/options.hpp"

#include <cstring>
#include <strings.h>

#include "parser/values.hpp"

namespace parser {

const option *find_option(const std::string &name)
{
    for (const option &o : options()) {
        if (!strcasecmp(o.name, name.c_str()))
            return &o;
        for (const char *a : o.aliases)
            if (!strcasecmp(a, name.c_str()))
                return &o;
    }
    return nullptr;
}

namespace {

struct unsupported_group {
    const char *reason;
    std::vector<const char *> names;
};

// fio 3.33 options (and common engine options) ioplan recognises so it can say
// precisely why a job using them does not run, instead of "unknown option".
const std::vector<unsupported_group> &unsupported()
{
    static const std::vector<unsupported_group> groups = {
        {"is not supported (an fio option newer than 3.33: steady state is sampled once a second, as fio 3.33 does)",
         {"steadystate_check_interval", "ss_interval"}},
        {"is deprecated (fio 3.33 refuses it too)", {"rwmixcycle", "percentage_sequential"}},
        {"is not supported (scheduling and NUMA placement)",
         {"iomem_align", "mem_align", "hugepage-size", "daemonize"}},
        {"is not supported (ioplan's clones are threads of one process: no per-job user, cgroup, I/O "
         "scheduler switch or file lock)",
         {"ioscheduler", "lockfile", "cgroup", "cgroup_weight", "cgroup_nodelete", "uid", "gid"}},
        {"is not supported (asynchronous verification)",
         {"verify_write_sequence",
          "verify_header_seed", "verify_pattern_interval"}},
        {"is not supported (zoned block devices)",
         {"zone_reset_frequency", "zone_reset_threshold", "max_open_zones", "job_max_open_zones", "read_beyond_wp",
          "zonecapacity", "ignore_zone_limits", "zone_append"}},
        {"is not supported",
         {"random_sequence_stride", "softrandommap", "sync_file_range",
          "fadvise_stream", "num_range", "fdp", "fdp_pli", "plids", "dataplacement",
          "sprandom", "spr_num_regions", "spr_op", "ramp_size", "size_increment", "file_size",
          "invalidate_cache", "write_barrier", "kb_base_output",
          "bwavgtime_ms", "loops_per_job", "nr_range", "group_reporting_each", "new_group_each"}},
        {"is an fio profile option (profiles are not supported)", {"profile", "dir", "size_gb"}},
        {"is an option of an ioengine ioplan does not support",
         {"http_host", "http_mode", "http_verbose", "https", "gpu_dev_ids",
          "gpu_dev_id", "apptag", "apptag_mask", "http_s3_key", "http_s3_keyid", "http_s3_region",
          "pi_act", "pi_chk", "pool", "sg_write_mode", "clientname", "cuda_io",
          "libblkio_driver", "libblkio_path", "md_per_io_size", "verb", "write_mode", "brick",
          "busy_poll", "conf", "cont", "http_s3_sse_customer_algorithm", "http_s3_sse_customer_key",
          "http_s3_storage_class", "http_swift_auth_token", "nfs_url", "rbdname", "readfua",
          "writefua", "skip_bad", "volume", "rocm_io", "bindname",
          "namespace", "hugepage", "clustername",
          "busy_poll", "xnvme_be", "xnvme_async", "xnvme_sync", "xnvme_admin", "xnvme_dev_nsid", "xnvme_iovec",
          "sg_type", "fixedbufs_percentage", "registerfiles_percentage", "pre_read_gb",
          "rdma_ops", "filestat_type", "exec_prog", "exec_args", "chunk_size", "odirect", "dev_dax", "pmem_path",
          "libiscsi_url", "spdk_json_conf", "mtd", "ime_psync", "cpuio", "gfapi", "rados", "rbd"}},
    };
    return groups;
}

} // namespace

bool deprecated_option(const std::string &name)
{
    // fio 3.33's FIO_OPT_SOFT_DEPRECATED options: accepted, noted, without effect.
    static const char *const names[] = {"verifysort", "verifysort_nr", "flow_watermark"};
    for (const char *n : names)
        if (!strcasecmp(n, name.c_str()))
            return true;
    return false;
}

std::string unsupported_reason(const std::string &name)
{
    for (const auto &g : unsupported())
        for (const char *n : g.names)
            if (!strcasecmp(n, name.c_str()))
                return g.reason;
    return "";
}

std::vector<std::string> option_names()
{
    std::vector<std::string> out;
    for (const option &o : options()) {
        out.emplace_back(o.name);
        for (const char *a : o.aliases)
            out.emplace_back(a);
    }
    return out;
}

const char *opt_type_name(opt_type t)
{
    static const char *const names[] = {
        "flag", "bool", "int", "size", "size or percent", "size list", "int list", "size range",
        "size range list", "bssplit", "time", "string", "path list", "choice", "float list", "pattern", "cpu list",
    };
    return names[(int)t];
}

bool option_foreign_to(const option &o, const char *engine)
{
    if (!o.engines)
        return false;
    std::string list = std::string(" ") + o.engines + " ";
    return list.find(std::string(" ") + engine + " ") == std::string::npos;
}

job_spec default_spec()
{
    job_spec j;
    // Padding too: a plan's bytes then depend only on its values (the
    // every-choice test compares plans with memcmp).
    std::memset(&j.pj, 0, sizeof j.pj);
    j.pj.repeat = 1;
    for (const option &o : options())
        if (o.def)
            o.apply(j, o, o.def);
    j.pj.startdelay_max_ns = j.pj.startdelay_min_ns;
    j.randseed_set = false; // the default seed is not the user's randseed=
    j.bw_avg_set = j.iops_avg_set = false;
    j.verify_set = false; // verify=none by default: verify_pattern then picks the pattern check
    j.pj.thinktime_blocks_set = false; // thinktime_iotime alone thinks by time only, as fio
    return j;
}

} // namespace parser

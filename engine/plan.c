/*
 * engine/plan.c - ownership and small queries of the plan contract (plan.h).
 *
 * The parser allocates every piece of a plan through plan_alloc/plan_calloc/
 * plan_strdup so that one function, plan_free, can release it from C or C++.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

struct plan *plan_alloc(void)
{
	struct plan *p = calloc(1, sizeof(*p));

	if (p)
		p->abi_version = PLAN_ABI_VERSION;
	return p;
}

char *plan_strdup(const char *s)
{
	return strdup(s ? s : "");
}

void *plan_calloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size ? size : 1);
}

static void free_kvs(struct plan_kv *kv, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

static void free_clone(struct plan_clone *c)
{
	for (uint32_t i = 0; i < c->nr_files; i++) {
		free(c->files[i].path);
		free(c->files[i].fio_name);
	}
	free(c->files);
}

void plan_job_free(struct plan_job *j)
{
	for (uint32_t i = 0; i < j->nr_clones; i++)
		free_clone(&j->clones[i]);
	free(j->clones);
	free_kvs(j->opts, j->nr_opts);
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		free((void *)j->bs[d].split);
	for (int d = 0; d < 2; d++)
		free(j->cmdprio[d].split);
	free(j->buffer_pattern);
	free(j->verify_pattern);
	free(j->name);
	free(j->section);
	free(j->description);
	plan_engopts_free(j->engine_opts, j->ioengine);
	free(j->bw_log_prefix);
	free(j->iops_log_prefix);
	free(j->lat_log_prefix);
	free(j->hist_log_prefix);
	free(j->log_suffix);
	free(j->write_iolog_path);
	free(j->read_iolog_path);
	free(j->missing_directory);
	free(j->replay_redirect);
	free(j->merge_blktrace_path);
	if (j->replay)
		free(j->replay->ios);
	free(j->replay);
	free(j->exec_prerun);
	free(j->ioscheduler);
	free(j->exec_postrun);
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (uint32_t g = 0; g < p->nr_groups; g++) {
		for (uint32_t j = 0; j < p->groups[g].nr_jobs; j++)
			plan_job_free(&p->groups[g].jobs[j]);
		free(p->groups[g].jobs);
	}
	free(p->groups);
	free_kvs(p->global_opts, p->nr_global_opts);
	free(p->allow_device_write);
	free(p->aux_path);
	free(p);
}

const struct plan_job *plan_job_at(const struct plan *p, uint32_t i)
{
	for (uint32_t g = 0; g < p->nr_groups; g++) {
		if (i < p->groups[g].nr_jobs)
			return &p->groups[g].jobs[i];
		i -= p->groups[g].nr_jobs;
	}
	return NULL;
}

void plan_job_output_name(char *path, size_t n, const struct plan_job *j, const char *ext)
{
	snprintf(path, n, "%s.%s%s", j->name, ext, j->log_suffix ? j->log_suffix : "");
}

bool plan_fills_device(const struct plan_job *j)
{
	return j->fill_device && plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) && !j->verify_only &&
	       j->ioengine != PLAN_IOENGINE_MMAP;
}

uint64_t plan_share_ppm(uint64_t x, uint32_t ppm)
{
	const uint64_t m = 1000000;

	return x / m * ppm + x % m * ppm / m;
}

bool plan_file_drawn_empty(const struct plan_job *j, const struct plan_file *f)
{
	return j->filesize_min_bytes != j->filesize_max_bytes && !f->size_bytes;
}

bool plan_file_sized_as_found(const struct plan_job *j, const struct plan_file *f)
{
	return !j->filesize_min_bytes && !f->size_bytes && !f->size_ppm && !f->region_bytes &&
	       !plan_fills_device(j);
}

uint32_t plan_clone_files(const struct plan *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; c < j->nr_clones; c++)
			n += j->clones[c].nr_files;
	}
	return n;
}

uint64_t plan_min_bs(const struct plan_job *j)
{
	uint64_t a = UINT64_MAX;

	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (j->bs[d].min_bytes && j->bs[d].min_bytes < a)
			a = j->bs[d].min_bytes;
	return a == UINT64_MAX ? 1 : a;
}

uint32_t plan_files_with_extra_block(const struct plan_job *j, uint32_t nfiles)
{
	if (j->filesize_min_bytes || !nfiles)
		return 0;
	return (uint32_t)(j->size_bytes % nfiles / plan_min_bs(j));
}

uint64_t plan_bs_max(const struct plan_bs *b)
{
	uint64_t m = b->max_bytes;

	for (uint32_t i = 0; i < b->nr_split; i++)
		if (b->split[i].bs_bytes > m)
			m = b->split[i].bs_bytes;
	return m;
}

bool plan_seq_reaches(const struct plan_job *j)
{
	return !plan_rw_is_random(j->rw) && j->rw != PLAN_RW_TRIMWRITE && !j->rw_seq_skip_bytes &&
	       !j->rw_seq_back_bytes && !j->sequential_stride_bytes && !j->zone_size_bytes && !j->interlocked;
}

bool plan_seq_holed(const struct plan_job *j)
{
	return !plan_rw_is_random(j->rw) && j->rw != PLAN_RW_TRIMWRITE && j->rw_seq_skip_bytes &&
	       !j->sequential_stride_bytes && !j->zone_size_bytes && !j->interlocked;
}

bool plan_seq_uses_file_size(const struct plan_job *j)
{
	return plan_seq_reaches(j) || plan_seq_holed(j);
}

bool plan_seq_back(const struct plan_job *j)
{
	return !plan_rw_is_random(j->rw) && j->rw_seq_back_bytes && !j->zone_size_bytes && !j->interlocked;
}

bool plan_random_loop_moves(const struct plan_job *j)
{
	return plan_rw_is_random(j->rw) && (j->offset_ppm || j->offset_increment_ppm) && !j->zone_size_bytes &&
	       !j->interlocked && !j->file_append && j->verify == PLAN_VERIFY_NONE &&
	       (j->loops > 1 || j->io_size_bytes || j->io_size_ppm);
}

bool plan_io_uses_file_size(const struct plan_job *j)
{
	return plan_seq_uses_file_size(j) || j->zone_size_bytes || plan_random_turns_seq(j) || plan_seq_back(j) ||
	       plan_random_loop_moves(j);
}

uint64_t plan_seq_fixed_bs(const struct plan_job *j, enum plan_ddir d)
{
	/* fio's get_next_buflen: bs_is_seq_rand gives sequential I/O the first size. */
	const struct plan_bs *b = &j->bs[j->bs_is_seq_rand ? PLAN_DDIR_READ : d];

	return b->min_bytes && plan_bs_max(b) <= b->min_bytes ? b->min_bytes : 0;
}

bool plan_rw_has_ddir(enum plan_rw rw, enum plan_ddir d)
{
	switch (rw) {
	case PLAN_RW_READ:
	case PLAN_RW_RANDREAD:
		return d == PLAN_DDIR_READ;
	case PLAN_RW_WRITE:
	case PLAN_RW_RANDWRITE:
		return d == PLAN_DDIR_WRITE;
	case PLAN_RW_TRIM:
	case PLAN_RW_RANDTRIM:
		return d == PLAN_DDIR_TRIM;
	case PLAN_RW_RW:
	case PLAN_RW_RANDRW:
		return d == PLAN_DDIR_READ || d == PLAN_DDIR_WRITE;
	case PLAN_RW_TRIMWRITE:
	case PLAN_RW_RANDTRIMWRITE:
		return d == PLAN_DDIR_TRIM || d == PLAN_DDIR_WRITE;
	}
	return false;
}

bool plan_rw_is_random(enum plan_rw rw)
{
	return rw == PLAN_RW_RANDREAD || rw == PLAN_RW_RANDWRITE ||
	       rw == PLAN_RW_RANDTRIM || rw == PLAN_RW_RANDRW ||
	       rw == PLAN_RW_RANDTRIMWRITE;
}

bool plan_rw_seq_turns(const struct plan_job *j)
{
	return j->rw_seq_nr > 1 || j->rw_seq_only;
}

bool plan_random_turns_seq(const struct plan_job *j)
{
	if (!plan_rw_is_random(j->rw))
		return false;
	if (plan_rw_seq_turns(j))
		return true;
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (plan_rw_has_ddir(j->rw, (enum plan_ddir)d) && j->percentage_random_pct[d] < 100)
			return true;
	return false;
}

void plan_job_resolve_queue(struct plan_job *j)
{
	/* fio: the most completions reaped at once is at least the fewest waited for. */
	if (j->iodepth_batch_complete_max < j->iodepth_batch_complete_min)
		j->iodepth_batch_complete_max = j->iodepth_batch_complete_min;
	if (!j->iodepth_low || j->iodepth_low > j->iodepth)
		j->iodepth_low = j->iodepth;
}

/*
 * The one name table per plan enum: --showplan, the reports, verify's messages and
 * diagnostics all print these, so a value has one spelling everywhere.  The names
 * are fio's where fio has one (its option value, or what its messages print).
 */
#define PLAN_NAME(table, v) \
	((unsigned)(v) < sizeof(table) / sizeof((table)[0]) ? (table)[v] : "?")

const char *plan_rw_name(enum plan_rw rw)
{
	static const char *const names[] = {
		"read", "write", "trim", "randread", "randwrite", "randtrim",
		"rw", "randrw", "trimwrite", "randtrimwrite",
	};

	return PLAN_NAME(names, rw);
}

const char *plan_ioengine_name(enum plan_ioengine e)
{
#define PLAN_IOENGINE_STR(token, suffix, help, opts) #token,
	static const char *const names[PLAN_IOENGINE_NR] = { PLAN_IOENGINES(PLAN_IOENGINE_STR) };
#undef PLAN_IOENGINE_STR

	return PLAN_NAME(names, e);
}

const char *plan_ddir_name(enum plan_ddir d)
{
	static const char *const names[PLAN_DDIR_NR] = { "read", "write", "trim" };

	return PLAN_NAME(names, d);
}

const char *plan_random_dist_name(enum plan_random_dist d)
{
	static const char *const names[] = { "random", "zipf", "pareto", "normal", "zoned" };

	return PLAN_NAME(names, d);
}

const char *plan_zone_rule_name(enum plan_zone_rule r)
{
	static const char *const names[] = { "fio", "diskspd_pct", "diskspd_abs" };

	return PLAN_NAME(names, r);
}

const char *plan_rate_process_name(enum plan_rate_process r)
{
	static const char *const names[] = { "linear", "poisson" };

	return PLAN_NAME(names, r);
}

const char *plan_sync_mode_name(enum plan_sync_mode s)
{
	static const char *const names[] = { "none", "sync", "dsync" };

	return PLAN_NAME(names, s);
}

const char *plan_file_service_name(enum plan_file_service f)
{
	static const char *const names[] = { "roundrobin", "sequential", "random", "zipf", "pareto",
					      "normal" };

	return PLAN_NAME(names, f);
}

const char *plan_fallocate_name(enum plan_fallocate f)
{
	static const char *const names[] = { "native", "none", "posix", "keep", "truncate" };

	return PLAN_NAME(names, f);
}

const char *plan_buffer_fill_name(enum plan_buffer_fill b)
{
	static const char *const names[] = { "random", "zero", "pattern", "random_once" };

	return PLAN_NAME(names, b);
}

/*
 * Indexed by fio's verify numbers.  17 (a header, then verify_pattern) has no
 * verify= value in fio; its messages call it "pattern", as they call 18.
 */
const char *plan_verify_name(enum plan_verify v)
{
	static const char *const names[] = {
		"none", "meta", "md5", "crc64", "crc32", "crc32c", "crc32c-intel",
		"crc16", "crc7", "sha256", "sha512", "sha3-224", "sha3-256",
		"sha3-384", "sha3-512", "xxhash", "sha1", "pattern", "pattern", "null",
	};

	return PLAN_NAME(names, v);
}

const char *plan_repeat_aggregate_name(enum plan_repeat_aggregate a)
{
	static const char *const names[] = { "max", "median", "mean", "min" };

	return PLAN_NAME(names, a);
}

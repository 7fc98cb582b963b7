/*
 * engine/worker/worker_verify_report.c - what a verify mismatch leaves behind.
 *
 * Each mismatch the checks of worker_verify.c find becomes a res_error
 * (EILSEQ, as fio reports it) naming the file and offset with what was
 * expected and found, up to VFY_BAD_MAX described per block and the rest
 * counted.  As fio's, the job ends at the I/O that held one (its other chunks
 * reported first) unless continue_on_error=verify lets it go on;
 * verify_fatal ends it at the first chunk whatever.  With verify_dump the
 * chunk read is also written out under fio's names, beside the user's files
 * only through the safety layer (a file of the user's is never replaced).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/safety/safety.h"
#include "engine/worker/worker.h"

/*
 * Clones that read the same file find the same bad blocks and dump them under
 * the same names.  A dump is ioplan's own only once marked, after its write: a
 * sibling judging it in between saw a user's file and refused it.  One dump at
 * a time in the process, so a sibling sees none or a marked one.
 */
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The swap and loop backing files the dumps are judged against (under
 * dump_lock), read at the first dump and again once a second old.  Read for
 * each dump, twice (its name, then the open file), a verify that found 4096
 * bad blocks read every loop device's backing file 8192 times: 419 467 opens
 * and 4.2 s of CPU with 48 loop devices.  A swap file or loop device set up on
 * a dump's name less than a second before its write is not seen.
 */
#define DUMP_BUSY_TTL_NS 1000000000ull

static struct safety_files *dump_busy;
static uint64_t dump_busy_ns;

static const struct safety_files *dump_busy_files(void)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (dump_busy && now - dump_busy_ns < DUMP_BUSY_TTL_NS)
		return dump_busy;
	safety_files_free(dump_busy);
	dump_busy = NULL;
	if (safety_files_load(&safety_system, &dump_busy))
		return NULL;	/* out of memory: each open reads its own */
	dump_busy_ns = now;
	return dump_busy;
}

static int dump_file_locked(const char *name, const uint8_t *p, uint64_t len, char *why, size_t n)
{
	/* Named by offset, unknown before the run: judged in full here; a user's file is kept. */
	int fd = safety_open_output_seen(&safety_system, dump_busy_files(), name, O_TRUNC,
					 SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES, why, n), ret;
	char plain[128];
	struct stat sb;

	if (fd < 0) {
		/* The open's own error (a refusal names what it found): name the dump, the errno follows. */
		snprintf(plain, sizeof(plain), "cannot open for writing: %s", strerror(-fd));
		if (!strcmp(why, plain))
			snprintf(why, n, "cannot open %s for writing", name);
		return fd;
	}
	ret = safety_write_whole(fd, p, len);
	if (!ret) {
		safety_mark_output(fd);
		close(fd);
		return 0;
	}
	/* A full disk: no empty or cut dump is left to pass for the block read. */
	snprintf(why, n, "writing %s (no dump is left)", name);
	if (fstat(fd, &sb))
		sb.st_ino = 0;
	close(fd);
	if (sb.st_ino)
		safety_remove_made(name, sb.st_dev, sb.st_ino);
	return ret;
}

static int dump_file(const char *name, const uint8_t *p, uint64_t len, char *why, size_t n)
{
	int ret;

	pthread_mutex_lock(&dump_lock);
	ret = dump_file_locked(name, p, len, why, n);
	pthread_mutex_unlock(&dump_lock);
	return ret;
}

/*
 * The chunk as written, for its .expected dump, as fio's dump_verify_buffers
 * makes it: the I/O's data `at` bytes in (verify_pattern's, through the I/O
 * from its start, %o and all; else fio's data made again from the seed the
 * header holds), then its header (none for verify=pattern).  NULL where there
 * is none (a bad header is dumped alone, as fio's).  With verify_pattern and a
 * digest (verify=xxhash verify_pattern=0xabcd) no .expected was written.
 */
static uint8_t *expected_chunk(struct worker *w, const uint8_t *chunk, uint64_t offset, uint64_t at,
			       const struct vfy_bad *b)
{
	const struct vfy *v = w->vf.vfy;
	uint64_t iv = v->interval, seed = 0;
	bool pattern = w->job->verify_pattern_len;
	uint8_t *io;

	if ((!pattern && !b->sum_len) || !(io = malloc(at + iv)))
		return NULL;
	if (v->kind != PLAN_VERIFY_PATTERN)
		memcpy(&seed, chunk + offsetof(struct vfy_hdr, rand_seed), sizeof(seed));	/* its header swapped back */
	if (pattern)
		vfy_fill_pattern(v, io, at + iv, offset - at);
	else
		buf_fill_verified(io, at + iv, &w->fill, seed);
	memmove(io, io + at, iv);
	if (v->kind != PLAN_VERIFY_PATTERN)
		vfy_stamp_expected(w->vf.vfy, io, offset, seed);
	return io;
}

/* verify_dump: the chunk read, named as fio names it (BASENAME.OFFSET.received or .hdr_fail, and .expected). */
static void dump_bad(struct worker *w, uint32_t f, const uint8_t *buf, uint64_t buf_off,
		     const struct vfy_bad *b)
{
	const char *path = w->clone->files[f].path, *slash = strrchr(path, '/');
	const char *aux = w->sh->aux_path ? w->sh->aux_path : "";
	uint64_t iv = w->vf.vfy->interval, at = (b->offset - buf_off) / iv * iv;
	bool hdr = !b->sum_len && strcmp(b->field, "pattern") && strcmp(b->field, "trimmed block");
	uint8_t *want;
	char name[4096], why[512], what[600];
	int ret;

	snprintf(name, sizeof(name), "%s%s%s.%" PRIu64 ".%s", aux, *aux ? "/" : "",
		 slash ? slash + 1 : path, buf_off + at, hdr ? "hdr_fail" : "received");
	ret = dump_file(name, buf + at, iv, why, sizeof(why));
	if (!ret && !hdr && (want = expected_chunk(w, buf + at, buf_off + at, at, b))) {
		snprintf(name, sizeof(name), "%s%s%s.%" PRIu64 ".expected", aux, *aux ? "/" : "",
			 slash ? slash + 1 : path, buf_off + at);
		ret = dump_file(name, want, iv, why, sizeof(why));
		free(want);
	}
	if (!ret)
		return;
	snprintf(what, sizeof(what), "verify_dump: %s", why);
	worker_error(w, .err = -ret, .ddir = PLAN_DDIR_READ, .file = f, .offset = buf_off + at, .what = what);
	/* A dump asked for and not written is the job's error (exit 1), also where
	 * continue_on_error=verify lets the mismatches go; the checks go on. */
	worker_set_error(w, -ret);
}

bool worker_verify_report_bad(struct worker *w, uint32_t file, uint32_t n, const struct vfy_bad *bad,
		       const uint8_t *buf, uint64_t buf_off)
{
	char what[sizeof(((struct res_error *)0)->what)];

	if (w->job->verify_fatal)
		n = 1;	/* the first mismatch ends the job: later ones are not looked at */
	for (uint32_t i = 0; i < n && i < VFY_BAD_MAX; i++) {
		vfy_describe(w->vf.vfy, &bad[i], what, sizeof(what));
		worker_error(w, .err = EILSEQ, .ddir = PLAN_DDIR_READ, .file = file,
			     .offset = bad[i].offset, .len = w->vf.vfy->interval, .what = what);
		if (w->job->verify_dump)
			dump_bad(w, file, buf, buf_off, &bad[i]);
	}
	if (n > VFY_BAD_MAX)
		w->res.total_err += n - VFY_BAD_MAX;
	w->res.verify_failures += n;
	/* fio's verify error is the I/O's: fatal unless td_non_fatal_error allows EILSEQ. */
	if (!worker_may_continue(w, PLAN_DDIR_READ, EILSEQ)) {
		worker_fail(w, EILSEQ);
		return true;
	}
	if (!w->job->verify_fatal)
		return false;
	worker_fail(w, 0);	/* ended, but as fio's the error allowed is not the job's (exit 0) */
	return true;
}

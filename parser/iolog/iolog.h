/*
 * parser/iolog/iolog.h - fio's I/O traces: reading iologs (v2, v3) and blktrace binaries.
 *
 * A trace replayed with read_iolog is read whole, before any I/O, so that a bad
 * or out-of-range trace is refused with the line (text) or record (blktrace) at
 * fault instead of failing half-way through a replay.  The reader works on a
 * buffer (the fuzz target feeds it directly); the replay stage (parser/replay_stage.cpp) reads the file, turns the
 * result into the job's plan_replay and its files.  Formats, as fio 3.33 reads
 * them (iolog.c, blktrace.c):
 *   v2:  "fio version 2 iolog", then "FILE add|open|close" and
 *        "FILE read|write|trim|sync|datasync OFFSET LENGTH" ("FILE wait USEC 0":
 *        a pause);
 *   v3:  "fio version 3 iolog", the same lines each led by the time in µs
 *        (fio appends a run's log after a header of its own, times from 0);
 *   blktrace: 48-byte struct blk_io_trace records (either byte order), each
 *        followed by pdu_len bytes; only queue events are I/Os, as in fio.
 * No packaged library reads these formats (blktrace's own tools only print
 * them), so the reader is written here.
 */
#ifndef IOPLAN_PARSER_IOLOG_IOLOG_H
#define IOPLAN_PARSER_IOLOG_IOLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the replay options do to a trace as it is read (fio's replay_*). */
struct iolog_opts {
	uint64_t scale;			/* replay_scale: offsets divided by it; 0/1 = as is */
	uint64_t align;			/* replay_align: offsets rounded down to it; 0 = as is */
	uint32_t skip;			/* replay_skip: 1 << plan_ddir, 1 << PLAN_REPLAY_SYNC / _DATASYNC */
	const char *redirect;		/* replay_redirect: every I/O goes to this one file */
};

struct iolog_trace {
	struct plan_replay_io *ios;
	uint64_t nr_ios;
	uint64_t cap;
	char **files;			/* iolog: names as written; blktrace: /dev/block/MAJ:MIN */
	uint64_t *extent;		/* per file: the end of its furthest I/O */
	uint32_t *first_src;		/* per file: the line/record of that furthest I/O */
	uint32_t nr_files;
	int version;			/* 2, 3, or 0 for blktrace */
	uint64_t bytes[PLAN_DDIR_NR];	/* totals, for reports and tests */
};

/* Where and why a trace was refused: line (text) or record (blktrace), 1-based. */
struct iolog_error {
	uint64_t where;			/* 0 = the file as a whole */
	bool record;			/* where counts blktrace records, not lines */
	char msg[200];
};

/* True when buf starts with a blktrace record (either byte order). */
bool iolog_is_blktrace(const uint8_t *buf, size_t len);

/* One blktrace record's 48-byte header (struct blk_io_trace), in host order. */
struct iolog_bt_rec {
	uint32_t magic, sequence;
	uint64_t time, sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};

/* True when a blktrace file (buf starts with its first record) is in the other byte order. */
bool iolog_bt_swapped(const uint8_t *buf);

/*
 * Decodes the record at byte pos of a blktrace file of len bytes: 0, or -EINVAL
 * with *e naming record rec (truncated, wrong magic or version, a payload past
 * the end).  The payload (pdu_len bytes) follows the header.
 */
int iolog_bt_record(const uint8_t *buf, size_t len, size_t pos, bool swap, uint64_t rec,
		    struct iolog_bt_rec *r, struct iolog_error *e);

/*
 * Reads a whole trace from buf.  0, or -EINVAL with *e filled (truncated
 * record, wrong magic, unknown action, malformed line, I/O on a file never
 * added), or -ENOMEM.  *t is released by iolog_trace_free either way.
 */
int iolog_parse(const uint8_t *buf, size_t len, const struct iolog_opts *o,
		struct iolog_trace *t, struct iolog_error *e);
void iolog_trace_free(struct iolog_trace *t);

/* One blktrace file to merge (iolog_merge.c), with its merge_blktrace_* entries. */
struct iolog_merge_src {
	const uint8_t *buf;
	size_t len;
	int32_t scalar_pct;		/* merge_blktrace_scalars: times * pct / 100 */
	int32_t iters;			/* merge_blktrace_iters: the trace is repeated so often */
};

/*
 * Merges n blktrace files into one (fio's merge_blktrace_file), in *out
 * (malloc'd, *out_len bytes).  0, -EINVAL with *e and *bad_src naming the
 * source and record at fault, or -ENOMEM.
 */
int iolog_merge(const struct iolog_merge_src *src, uint32_t n, uint8_t **out, size_t *out_len,
		uint32_t *bad_src, struct iolog_error *e);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_PARSER_IOLOG_IOLOG_H */

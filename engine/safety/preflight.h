/*
 * engine/safety/preflight.h - checks before any I/O: is the run possible, and will its
 * numbers mean what the user thinks?
 *
 * Errors stop the run before a byte is written: a missing directory, too little
 * free space for the files to lay out, direct=1 on a filesystem that does not
 * honour O_DIRECT (found by a real aligned probe, not a list of names), a range
 * past the end of an existing file or device, a block-device write the safety
 * rules refuse, a target that is no file (a directory, a socket, a FIFO to
 * write) or a stream (FIFO, character device) without size= to end it, a
 * verify_state_load file that is no whole state file, a net hostname= the
 * resolver does not know.  Warnings run anyway: a buffered read test whose working set
 * fits in free memory measures the page cache.
 * What fio finds only when a job
 * starts (a file missing under allow_file_create=0, direct=1 transfers the file
 * system refuses) is an error of that job alone: said here, and the job fails
 * in the engine with its error in the report while the other jobs run.
 */
#ifndef IOPLAN_ENGINE_PREFLIGHT_H
#define IOPLAN_ENGINE_PREFLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/path_index.h"
#include "engine/plan.h"
#include "engine/results.h"
#include "engine/safety/safety.h"
#include "engine/target.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pf_finding {
	enum res_msg_level level;
	char code[32];			/* stable: "no-space", "direct-unsupported", ... */
	char *text;			/* whole, however long its paths (two of PATH_MAX fit) */
	int32_t job_id;			/* -1 = about the whole plan */
	bool job_fails;			/* an error that fails its job when it starts, as fio's */
};

struct pf_report {
	struct pf_finding *findings;
	uint32_t nr;
	uint32_t nr_errors;		/* errors that stop the run (not job_fails ones) */
	uint64_t bytes_to_lay_out;
	/* Each target path as checked, sorted by path: the layout must find the same (eng_opts.preflight). */
	struct tgt_seen *seen;
	uint32_t nr_seen;
	struct path_index seen_index;	/* of seen, by path (pf_seen_of) */
};

/* Runs every check; 0 (findings in *out, free with pf_free) or -ENOMEM. */
int pf_run(const struct plan *p, const struct safety_env *env, struct pf_report *out);
void pf_free(struct pf_report *r);

/* What the preflight saw at path, or NULL when it did not look there. */
const struct tgt_seen *pf_seen_of(const struct pf_report *r, const char *path);

/*
 * 0 when a file in dir can be opened with O_DIRECT and written with an aligned
 * 4 KiB buffer; otherwise the -errno of the step that failed.  The probe file is
 * created with O_EXCL under a unique name and removed.
 */
int pf_direct_probe(const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_PREFLIGHT_H */

/*
 * engine/layout/layout.h - the files of a plan: safety checks, creation, layout, unlink.
 *
 * Before any job runs, every distinct path of the plan is checked and, where
 * needed, created and filled with random data (so reads measure real data and
 * the measured window never pays for allocation).  ioplan marks the files it
 * creates with the extended attribute user.ioplan (mark.h) and refuses to write into an
 * existing file without that mark unless the plan allows it: a benchmark must
 * never destroy data it was not given.
 */
#ifndef IOPLAN_ENGINE_LAYOUT_H
#define IOPLAN_ENGINE_LAYOUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/mark.h"
#include "engine/path_index.h"
#include "engine/plan.h"
#include "engine/results.h"
#include "engine/target.h"

#define LAYOUT_CHUNK (1u << 20)		/* bytes per layout write */

struct layout_file {
	const char *path;		/* borrowed from the plan */
	uint64_t need;			/* bytes the file must hold; 0 = its existing size */
	bool grows;			/* made empty, not sized: fill_device writes it until the device is
					 * full, or its job's open makes it (create_on_open) */
	bool made_on_open;		/* every job's open makes it (create_on_open): mode 0600, fio's open's */
	bool deferred;			/* left to its job's first open to make, in the job's time (layout_defers) */
	bool no_length;			/* drawn under one block from a filesize= range: no I/O opens it
					 * here (fio's open before its failed fill does), so the layout makes it */
	bool sized;			/* an engine that cannot extend it writes it: ftruncate to size */
	bool writes;			/* some job writes or trims it */
	bool run_writes;		/* some job's run writes it (not create_only): its mark is re-stamped after */
	bool trims;			/* some job trims it: its data has holes after the run */
	bool fill;			/* some job reads it (or overwrite=1): lay out data */
	bool direct;
	bool is_device;
	bool allow_create;
	bool on_open_only;		/* every job using it has create_on_open=1: fio's setup lays nothing out */
	bool made_by_job;		/* an earlier group's filecreate job makes it, and fio's setup would
					 * not (on_open_only): the layout does not */
	bool as_found;			/* every job using it takes it as found (filestat under create_on_open):
					 * missing, it is left to their stat to fail, as fio's, or to find
					 * what an earlier job made (filecreate) */
	enum plan_fallocate fallocate;	/* of the first job using it */
	bool create_fsync;		/* some job using it wants it synced once laid out */
	bool ours;			/* ioplan created it (mark found or created now) */
	bool shared;			/* named by more than one clone, job or rank (unlink_each_loop) */
	enum mark_state mark;		/* what its mark says (MARK_NONE when unmarked) */
	bool noted;			/* the no-xattr note was given */
	bool appeared;			/* absent at the preflight: written only if it is ioplan's */
	int claim_fd;			/* a written device held O_EXCL for the run, or -1 */
	uint32_t last_job;		/* flattened index of the last job using it */
	int32_t first_job;		/* for messages */
	const struct plan_job *job;	/* first_job's: its write content is the layout's data */
	uint32_t first_clone;		/* of first_job: the thread fio lays the file out in */
	uint32_t first_names;		/* how often that thread names it (filename=a:a, filename_format
					 * without $filenum): fio counts each in its layout line */
	bool laid_out;			/* created or extended by this run's layout */
	bool announced;			/* its layout line was given before the layout (layout_announce) */
	bool made;			/* this run made it (its layout or its job's first open) */
	uint32_t round;			/* layout_prepare's round that lays it out (ranks sharing it) */
	bool set_up;			/* setup_size is known (layout_resolve): a regular file or none */
	uint64_t setup_size;		/* its size as the setups of the jobs resolved so far leave it */
	int32_t dir;			/* its directory in layout.dirs, or -1: opened by path (a device) */
	struct tgt_id id;		/* what layout found there: every later open must find the same */
	uint32_t preflight_seen;	/* its entry in layout.seen + 1 (layout_expect); 0: none */
	uint64_t token;			/* its mark's token when this run made it, else 0 (mark.h) */
	/* What the layout last saw of it (links followed), for the run's other
	 * steps to use instead of a stat() of their own each. */
	bool seen;
	bool seen_after_run;		/* layout_finish looked at it again: size is its last */
	mode_t mode;
	dev_t dev, rdev;
	uint64_t size;
};

/* A plan file's size when its job's files were set up (layout_resolve). */
struct layout_found {
	const struct plan_file *pf;
	uint64_t size;
};

/* A directory of the plan's files, opened once when the layout first looks into it. */
struct layout_dir {
	char *path;
	int fd;				/* O_PATH descriptor, or -1 until opened */
	struct stat st;			/* fstat of fd once opened: a descriptor's file never changes */
	bool batches;			/* its file system's syncfs is durable: new small files are synced together */
};

#define LAYOUT_BATCH 256	/* new small files made durable by one syncfs */

/* A new small file whose data is written, waiting for the batch's syncfs and then its mark (layout.c). */
struct layout_pending {
	struct layout_file *lf;
	int fd;
	struct stat st;			/* its fstat once written: what the mark binds to */
};

struct layout {
	struct layout_file *files;	/* sorted by path */
	uint32_t nr;
	struct path_index index;	/* of files, by path (layout_find) */
	struct layout_dir *dirs;
	uint32_t nr_dirs;
	const struct tgt_seen *seen;	/* what the preflight saw, sorted by path (layout_expect) */
	uint32_t nr_seen;
	_Atomic uint64_t total;		/* bytes to write, for the progress line */
	_Atomic uint64_t done;
	uint64_t tokens;		/* mark_token's generator for the files it creates */
	struct layout_pending *batch;	/* written, not yet synced (layout.c: batch_add) */
	uint32_t nr_batch, max_batch;	/* max_batch 0: each file is synced on its own */
	struct layout_found *found;	/* sorted by pf (layout_resolve); NULL: none needed */
	uint32_t nr_found;
};

/*
 * The I/O region of file f of clone c: start and length, given the file's
 * actual size (0 when not known yet).  *len is 0 when it must come from the
 * file's size and that is not known.
 */
void layout_region(const struct plan_job *j, const struct plan_clone *c,
		   const struct plan_file *f, uint64_t actual, uint64_t *start, uint64_t *len);
/*
 * The same, with offset=N%, offset_increment=N% and file_append's end of
 * found, the size fio's setup of the job saw (layout_size_found), instead of
 * actual.  layout_region takes found as actual, except that file_append starts
 * at 0: the targets it serves have no size from a setup (a file being
 * created, an engine without local files).
 */
void layout_region_found(const struct plan_job *j, const struct plan_clone *c, const struct plan_file *f,
			 uint64_t found, uint64_t actual, uint64_t *start, uint64_t *len);

/* Why an unmarked existing file is refused (preflight and layout say the same). */
#define LAYOUT_FOREIGN_WRITE \
	"refusing to write into an existing file ioplan did not create (allow it with allow_existing_file_write)"
#define LAYOUT_FOREIGN_GROW \
	"existing file is too small and ioplan did not create it (allow extending it with allow_existing_file_write)"
/* What the report says when allow_existing_file_write (on when run as fio) let it happen. */
#define LAYOUT_FOREIGN_WRITTEN \
	"an existing file ioplan did not create is written, as allow_existing_file_write allows (on when run as fio)"
#define LAYOUT_FOREIGN_GROWN \
	"an existing file ioplan did not create is extended, as allow_existing_file_write allows (on when run as fio)"

/*
 * An existing empty regular file that a job needs bytes in, or whose job's
 * writes grow it (fill_device, create_on_open), is laid out like a file ioplan
 * created, and marked as ioplan's: it holds no data to lose, and
 * fio's clients make one first (KDiskMark creates its test file empty, then
 * runs fio --create_only=1 on it).  Preflight and layout ask the same question.
 */
static inline int layout_adopts_empty(uint64_t size, uint64_t need, bool grows)
{
	return size == 0 && (need > 0 || grows);
}

/*
 * What the preflight saw at the paths (borrowed, sorted by path): the layout
 * refuses a target or directory that is not what was checked then, and
 * follows a symbolic link only where the preflight found one (target.h).
 */
void layout_expect(struct layout *l, const struct tgt_seen *seen, uint32_t n);

/* Collects the plan's distinct files.  0 or -ENOMEM. */
int layout_init(struct layout *l, const struct plan *p);
void layout_release(struct layout *l);
/* The set's entry for a path, or NULL (binary search: the set is sorted). */
struct layout_file *layout_find(const struct layout *l, const char *path);

/*
 * Checks and lays out every file of the given round (LAYOUT_ALL_ROUNDS: every
 * file).  Ranks sharing a file lay it out in turns (eng_sync.layout_share):
 * one rank in round 0, then the others find it there.  Problems are added to
 * r->msgs with the path; the first one is returned as -errno (-EPERM for a
 * file ioplan must not write, -ENOENT, -ENOSPC, ...).  *stop is polled between
 * chunks (-EINTR when set).
 */
#define LAYOUT_ALL_ROUNDS UINT32_MAX
int layout_prepare(struct layout *l, const struct plan *p, struct results *r,
		   const _Atomic int *stop, uint32_t round);

/* Whether lf is laid out in that round. */
static inline bool layout_in_round(const struct layout_file *lf, uint32_t round)
{
	return round == LAYOUT_ALL_ROUNDS || lf->round == round;
}

/*
 * fio's "Laying out IO file (N files / M MiB)" for each thread of the round
 * with files to make or extend, as the preflight found them, before the
 * layout writes them (layout_notes.c); returns how many lines it noted.
 */
uint32_t layout_announce(struct layout *l, const struct plan *p, struct results *r, uint32_t round);
/* The same line for each thread whose files the layout extended or made without announcing them. */
void layout_note_laid_out(const struct layout *l, struct results *r, uint32_t round);
/* Whether ret (of file at) is a full file system, which ends the round's layout; noted with the files left. */
bool layout_stop_when_full(const struct layout *l, struct results *r, int ret, uint32_t at, uint32_t round);

/*
 * Whether every byte of [0, size) of the open file fd is data on its disk:
 * extents without a gap, none unwritten or delayed, once the page cache is
 * written back (layout_extents.c).  False where the file system cannot say.
 */
bool layout_data_whole(int fd, uint64_t size);

/*
 * After the run: re-stamps the mark of every file of ours that jobs wrote, so
 * that ioplan's own writes do not make the next run take it for the user's.
 */
void layout_finish(struct layout *l, struct results *r);

/*
 * The files this run made that it leaves, in the plan's order, into *out
 * (the run's note names them): what the layout knows of each, without a look
 * of its own but at a file whose size the run may have changed unseen.
 * 0 or -ENOMEM.
 */
int layout_left(const struct layout *l, const struct plan *p, struct res_left *out);

/*
 * Opens path for a job's I/O as the layout checked it: relative to its
 * directory's descriptor, not through a symbolic link the user did not name,
 * and only when the file is the one the layout found (target.h).  A path the
 * layout did not check (a device, an engine that lays nothing out) is opened
 * by name, as before.  A file left to this open (layout_defers) is made by it.
 * The fd, or -errno with the reason in why; *st gets its fstat.
 */
int layout_open(const struct layout *l, const char *path, int flags, char *why, size_t n,
		struct stat *st);

/*
 * The layout's own record of path (links followed), filled by layout_prepare:
 * true with *st's mode, dev, rdev and size when it saw the file, else false.
 */
bool layout_seen(const struct layout *l, const char *path, struct stat *st);
/* The same of one of the layout's files, at hand. */
bool layout_file_seen(const struct layout_file *lf, struct stat *st);

/*
 * fio sets up each job's files before any job runs, one job (and clone) after
 * the other in the job file's order (create_serialize, on by default): each
 * sees the file as the setups before its own left it, and takes offset=N%,
 * offset_increment=N% and file_append's end of that size (real_file_size),
 * then lays the file out to its own region's end; a sequential pass reaches
 * into that size past a region of size=, and a holed one wraps at its end
 * (plan_seq_uses_file_size).  The same here: from each
 * regular file's size before the run (what the preflight saw, else a stat
 * now), the plan's uses of it in that order; each that needs the size gets it
 * recorded for layout_size_found, and its region's end raises the file's need
 * so the layout makes it that long (file_append past an earlier job's region).
 * A use that needs more than the size found grows it as fio's setup does: a
 * job that reads it lays it out, one that writes it with fallocate= native,
 * posix or truncate sizes it; under none and keep it stays as it was for the
 * job's writes to grow, or for a writing job without overwrite= or
 * file_append is 0 (fio removes it first; ioplan keeps it, only the sizes
 * later jobs find follow fio's).  Devices are left out: their size is their
 * own.  Only plans with such a job are resolved.  0 or -ENOMEM.
 */
int layout_resolve(struct layout *l, const struct plan *p);

/*
 * The size fio's setup of pf's job saw (layout_resolve), which a percentage
 * offset and file_append's end are taken of and a sequential pass reaches
 * into (a holed one wraps at its end); now when none was recorded.
 */
uint64_t layout_size_found(const struct layout *l, const struct plan_file *pf, uint64_t now);

/* What the preflight saw at lf's path, or NULL (not looked at, or a device kept by its name). */
const struct tgt_seen *layout_seen_at(const struct layout *l, const struct layout_file *lf);

/*
 * Removes lf's file (layout_unlink.c): by its directory's descriptor, and only
 * while the name still holds the file the layout found.
 */
void layout_remove(const struct layout *l, const struct layout_file *lf);

/* Unlinks the files of job j (unlink=1) that no later job uses and ioplan created. */
void layout_unlink_job(struct layout *l, const struct plan_job *j, uint32_t job_index);

/*
 * unlink_each_loop, before each loop after the first, as fio's: path is
 * removed and, when create (a job that writes), created again empty, marked
 * partial, the layout's record of it (identity, mark, size) following it.
 * Only a regular file ioplan created, that only this clone names, by a name
 * that is no symbolic link: any other file is LAYOUT_KEPT, why saying why
 * (fio would remove it).  A device, or a path the layout has no record of,
 * is LAYOUT_NOT_A_FILE (fio skips those too).  Called by the one worker that
 * uses the file, which is why the const layout's record may change under it.
 * LAYOUT_RENEWED, or -errno with what failed in why.
 */
enum { LAYOUT_RENEWED, LAYOUT_NOT_A_FILE, LAYOUT_KEPT };
int layout_renew(const struct layout *l, const char *path, bool create, char *why, size_t n);

/*
 * fio's create_on_open, layout_on_open.c: whether a missing lf is left to its
 * job's first open (only one clone names it, and the job writes it in its run).
 */
bool layout_defers(const struct layout_file *lf);
/* Whether path is such a file, not made yet: it has no size and no descriptor until then. */
bool layout_waits_for_open(const struct layout *l, const char *path);
/* Keeps what st says of lf, for the run's later steps (layout_seen). */
void layout_remember(struct layout_file *lf, const struct stat *st);
/*
 * Where lf's data goes, for a look at its device: its record (else a stat), or
 * for a file its job's first open (or an earlier filecreate job) makes and that
 * is not there yet, its directory's (*path then the directory's).  False when
 * neither is known.
 */
bool layout_file_where(const struct layout *l, const struct layout_file *lf, struct stat *st, const char **path);
/*
 * Makes lf, which must not exist, empty (mode 0600, as fio's open) in its
 * directory dfd, opened with flags, and marks it m (MARK_NONE: not now): the
 * layout's record follows it.  The fd (its fstat in *st), or -errno with why.
 */
int layout_make_empty(struct layout_file *lf, int dfd, int flags, enum mark_state m, char *why, size_t n,
		      struct stat *st);
/* A deferred lf made by its job's open (layout_open): the fd, or -errno with why. */
int layout_make_on_open(const struct layout *l, struct layout_file *lf, int flags, char *why, size_t n,
			struct stat *st);

/* After the layout: a note for each file unlink=1 or a looping unlink_each_loop job keeps where fio would not, and why. */
void layout_note_kept(const struct layout *l, const struct plan *p, struct results *r);
/* After the layout: fio's "may be ignored" note for each file a job takes as found and finds empty
 * past its offset (layout_ignored.c), in fio's order of setting the jobs up. */
void layout_note_ignored(const struct plan *p, struct results *r);
/* The first job whose files' sizes may make such a note (its notes follow the layout lines of the jobs before it), or INT32_MAX. */
int32_t layout_first_ignoring(const struct plan *p);


#endif /* IOPLAN_ENGINE_LAYOUT_H */

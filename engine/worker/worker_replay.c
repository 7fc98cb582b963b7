/*
 * engine/worker/worker_replay.c - capture (write_iolog) and replay (read_iolog) in a worker.
 *
 * Capture writes fio's iolog version 3, as fio 3.33 does (iolog.c): a header,
 * "add" lines for the clone's files, an "open" line where fio opens each file
 * and a "close" line as it closes, one "TIME FILE DDIR OFFSET LENGTH" line per
 * I/O as it is handed to the engine; times are µs since the log began.  fio
 * opens a file with its first I/O, closes it as its file service finds it done
 * (set_io_u_file: gen.retired), and closes every file as each loop ends and
 * before its verify read-back (clear_io_state), to open each again with its
 * next I/O; ioplan keeps its files open from the set-up (under openfiles it
 * opens one on its pick, as fio), so the log's lines follow fio's I/O instead
 * (open_due) and a replay of either tool's log meets the same lines.  The
 * file is opened for appending, as fio opens it.  Lines go out in writes of whole lines: the
 * clones of a job (numjobs=, write_iolog in [global]) append to one log,
 * and fio's stdio buffer, written wherever it fills, cuts one clone's line
 * in two with another's (1 of 32776 lines of a two-clone null run; ioplan's
 * 4 KiB stdio buffer cut 41), which a replay of the log then misreads.
 *
 * Replay is open loop: trace I/O i is due at the window's start plus its trace
 * time scaled by replay_time_scale, whatever the device did with the I/Os
 * before it (fio instead sleeps the trace's gap after each issue, so a slow
 * device pushes the whole rest of the trace later and hides it).  Each I/O's
 * lag behind its due time is measured: the report gives the share issued
 * late and the worst lag.  A trace's sync (flush) entry syncs the files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/logs/logs.h"
#include "engine/safety/safety.h"
#include "engine/worker/worker.h"

static const char *const iolog_act[] = { "read", "write", "trim" };

/* Room for many lines, and more than one of the longest (a path is at most PATH_MAX). */
#define IOLOG_BUF (64u << 10)

/*
 * The lines kept so far, written whole; the first error is kept for the job's
 * end, and the log ends there (a failed write's piece cut off again): the lines
 * after it went on where space was found, and a replay of the trace with its
 * middle missing read as whole.
 */
static void iolog_flush(struct worker *w)
{
	int ret = w->rp.log_err ? 0 : safety_write_whole(w->rp.log_fd, w->rp.log, w->rp.log_len);

	if (ret)
		w->rp.log_err = -ret;
	w->rp.log_len = 0;
}

/* One line into the log's buffer; written first when it does not fit there. */
__attribute__((format(printf, 2, 3))) static void iolog_printf(struct worker *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (int tries = 0; tries < 2; tries++) {
		va_start(ap, fmt);
		n = vsnprintf(w->rp.log + w->rp.log_len, IOLOG_BUF - w->rp.log_len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < IOLOG_BUF - w->rp.log_len) {
			w->rp.log_len += (size_t)n;
			return;
		}
		iolog_flush(w);
	}
	if (!w->rp.log_err)
		w->rp.log_err = ENAMETOOLONG;	/* a line longer than the buffer: none can be */
}

static uint64_t iolog_us(struct worker *w)
{
	uint64_t now = clk_now(&w->clk);

	return now > w->rp.log_t0 ? (now - w->rp.log_t0) / 1000u : 0;
}

/*
 * Whether a file is open for the log.  With an engine that opens none itself
 * (null, net, nbd, the file-operation engines) each is open from the start to
 * the end, as fio logs its diskless engines' files; under openfiles (or
 * unlink_each_loop) a file opens and closes during the run, and its lines say when.
 */
static bool iolog_file_open(const struct worker *w, uint32_t f)
{
	if (w->fds[f] >= 0)
		return true;
	return !ioe_opens_files(w->job->ioengine) && (!w->max_open || w->rp.held[f]);
}

/* One file line: "TIME PATH add|open|close". */
static void iolog_file_line(struct worker *w, uint64_t us, uint32_t f, const char *act)
{
	iolog_printf(w, "%llu %s %s\n", (unsigned long long)us, w->clone->files[f].path, act);
}

/* Open and its "open" line written: fio has opened it too. */
static bool iolog_file_opened(const struct worker *w, uint32_t f)
{
	return iolog_file_open(w, f) && !w->rp.open_due[f];
}

static void iolog_files(struct worker *w, const char *act, bool open_only)
{
	uint64_t us = iolog_us(w);

	for (uint32_t f = 0; f < w->clone->nr_files; f++)
		if (!open_only || iolog_file_opened(w, f))
			iolog_file_line(w, us, f, act);
}

/*
 * fio's clear_io_state: every file fio has open closes, and opens again with
 * its next I/O.  Under openfiles ioplan's own opens and closes are fio's.
 */
static void iolog_clear(struct worker *w)
{
	if (w->max_open)
		return;
	iolog_files(w, "close", true);
	for (uint32_t f = 0; f < w->clone->nr_files; f++)
		w->rp.open_due[f] = iolog_file_open(w, f);
}

/*
 * gen.retired: fio's set_io_u_file closes a file whose fill fails (its pass
 * done, found by a pick in turn, a draw, or a full map), then opens it again
 * with its next I/O (a skewed service starts it over; else the next loop).
 * Under openfiles ioplan's own closes are fio's.
 */
static void iolog_retired(void *worker, uint32_t f)
{
	struct worker *w = worker;

	if (!iolog_file_opened(w, f))
		return;
	iolog_file_line(w, iolog_us(w), f, "close");
	w->rp.open_due[f] = true;
}

/* Before a line of file f's I/O: a loop that began since closed the files, and f opens now if fio's would. */
static void iolog_before_io(struct worker *w, uint32_t f)
{
	if (w->rp.rounds != w->gen.rounds) {
		w->rp.rounds = w->gen.rounds;
		iolog_clear(w);
	}
	if (w->rp.open_due[f]) {
		w->rp.open_due[f] = false;
		iolog_file_line(w, iolog_us(w), f, "open");
	}
}

/*
 * A file opened or closed during the run (worker_files.c).  An open ioplan
 * makes ahead of fio's (not on an openfiles pick) waits for the file's first
 * I/O; a file closed before it had any was never open in fio's log.
 */
void worker_iolog_file(struct worker *w, uint32_t f, const char *act)
{
	bool open = !strcmp(act, "open");

	if (!w->rp.log || f >= w->clone->nr_files)
		return;
	if (open && !w->max_open) {
		w->rp.open_due[f] = true;
		return;
	}
	if (!open && w->rp.open_due[f]) {
		w->rp.open_due[f] = false;
		return;
	}
	iolog_file_line(w, iolog_us(w), f, act);
}

/*
 * Under openfiles the null engine's files open and close in fio's log as fio's
 * get_next_file picks them and its set_io_u_file retires them, though no
 * descriptor is opened (worker_file_ready, worker_close_file).
 */
void worker_iolog_held(struct worker *w, uint32_t f, bool open)
{
	if (!w->rp.log || f >= w->clone->nr_files || w->rp.held[f] == open)
		return;
	w->rp.held[f] = open;
	iolog_file_line(w, iolog_us(w), f, open ? "open" : "close");
}

/* A verify read-back begins: fio's do_verify follows a clear_io_state. */
void worker_iolog_read_back(struct worker *w)
{
	if (w->rp.log)
		iolog_clear(w);
}

static void iolog_free(struct worker *w)
{
	free(w->rp.log);
	free(w->rp.last_write);
	free(w->rp.open_due);
	free(w->rp.held);
	w->rp.log = NULL;
	w->rp.last_write = NULL;
	w->rp.open_due = NULL;
	w->rp.held = NULL;
}

/* why without a trailing ": strerror(err)": the error's line ends with those words already. */
static void drop_errno_words(char *why, int err)
{
	const char *words = strerror(err);
	size_t n = strlen(why), k = strlen(words);

	if (n >= k + 2 && !strcmp(why + n - k, words) && !strncmp(why + n - k - 2, ": ", 2))
		why[n - k - 2] = '\0';
}

int worker_iolog_open(struct worker *w)
{
	if (!w->job->write_iolog_path)
		return 0;
	char why[512], what[1024];
	/* Named by the user and appended to, as fio's; never a device (safety.h). */
	int fd = safety_open_output(&safety_system, w->job->write_iolog_path, O_APPEND, 0, why, sizeof(why));

	if (fd < 0) {
		/* why says more where it can (a FIFO nothing reads); its errno's words are worker_error's to add. */
		drop_errno_words(why, -fd);
		snprintf(what, sizeof(what), "write_iolog=%.400s: %s", w->job->write_iolog_path, why);
		worker_error(w, .err = -fd, .what = what);
		return fd;
	}
	w->rp.log = malloc(IOLOG_BUF);
	w->rp.last_write = calloc(w->clone->nr_files ? w->clone->nr_files : 1, sizeof(*w->rp.last_write));
	w->rp.open_due = calloc(w->clone->nr_files ? w->clone->nr_files : 1, sizeof(*w->rp.open_due));
	w->rp.held = calloc(w->clone->nr_files ? w->clone->nr_files : 1, sizeof(*w->rp.held));
	if (!w->rp.log || !w->rp.last_write || !w->rp.open_due || !w->rp.held) {
		close(fd);
		iolog_free(w);
		return -ENOMEM;
	}
	w->rp.log_fd = fd;
	w->rp.log_len = 0;
	w->rp.log_t0 = clk_now(&w->clk);
	iolog_printf(w, "fio version 3 iolog\n");
	iolog_files(w, "add", false);
	w->rp.rounds = w->gen.rounds;
	for (uint32_t f = 0; f < w->clone->nr_files; f++)
		w->rp.open_due[f] = !w->max_open && iolog_file_open(w, f);
	iolog_files(w, "open", true);	/* under openfiles: those open (engines that open none) */
	return 0;
}

/* Once the generator is set up: the log hears of the files it finds done (iolog_retired). */
void worker_iolog_track(struct worker *w)
{
	if (!w->rp.log || w->max_open)
		return;
	w->gen.retired = iolog_retired;
	w->gen.retired_arg = w;
}

static void iolog_line(struct worker *w, uint32_t file, uint8_t ddir, uint64_t offset, uint64_t len)
{
	iolog_printf(w, "%llu %s %s %llu %llu\n", (unsigned long long)iolog_us(w), w->clone->files[file].path,
		     iolog_act[ddir], (unsigned long long)offset, (unsigned long long)len);
}

void worker_iolog_io(struct worker *w, const struct io_u *u)
{
	if (!w->rp.log || u->ddir >= PLAN_DDIR_NR)
		return;
	iolog_before_io(w, u->file);
	iolog_line(w, u->file, u->ddir, u->offset, u->len);
	if (u->ddir == PLAN_DDIR_WRITE)
		w->rp.last_write[u->file] = u->offset;
}

/* A verify read (made beside the queue, worker_verify.c): in the log as fio's are, so a replay reads it too. */
void worker_iolog_read(struct worker *w, uint32_t file, uint64_t offset, uint64_t len)
{
	if (!w->rp.log || file >= w->clone->nr_files)
		return;
	iolog_before_io(w, file);
	iolog_line(w, file, PLAN_DDIR_READ, offset, len);
}

/*
 * A sync of one file (fsync=N, fdatasync=N, end_fsync, a trace's flush), as
 * fio logs it: "sync" or "datasync" at the file's last write, length 0.  A
 * replay of the log syncs there too; without the line it dropped them all.
 */
void worker_iolog_sync(struct worker *w, uint32_t file, bool data)
{
	if (!w->rp.log || file >= w->clone->nr_files)
		return;
	iolog_before_io(w, file);
	iolog_printf(w, "%llu %s %s %llu 0\n", (unsigned long long)iolog_us(w), w->clone->files[file].path,
		     data ? "datasync" : "sync", (unsigned long long)w->rp.last_write[file]);
}

void worker_iolog_close(struct worker *w)
{
	char what[sizeof(((struct res_error *)0)->what)];
	bool removed;
	int err;

	if (!w->rp.log)
		return;
	iolog_files(w, "close", true);
	iolog_flush(w);
	err = w->rp.log_err;
	/* Removed during the run (its directory too): the trace went with it. */
	removed = !err && safety_output_removed(w->rp.log_fd);
	if (close(w->rp.log_fd) && !err)
		err = errno;
	iolog_free(w);
	if (removed && !err)
		err = ENOENT;
	if (!err)
		return;
	/* The log is a result of the run: losing it fails the job (exit 1), naming the log. */
	snprintf(what, sizeof(what), removed ? "write_iolog=%.280s was removed during the run, and the trace with it" :
		 "writing write_iolog=%.230s (the trace ends at the last whole line before the error)",
		 w->job->write_iolog_path);
	worker_error(w, .err = err, .what = what);
	worker_set_error(w, err);
}

void worker_replay_start(struct worker *w, uint64_t now)
{
	w->rp.next = 0;
	w->rp.t0 = now;
}

/*
 * The due time of trace I/O io: its trace time, scaled (100 % = the trace's pace).
 * One too late for the clock (a blktrace time near 2^64 ns, or one slowed down
 * by replay_time_scale) is due never rather than wrapped round to at once.
 */
static uint64_t replay_due_ns(const struct worker *w, const struct plan_replay_io *io)
{
	uint32_t pct = w->job->replay_time_scale_pct ? w->job->replay_time_scale_pct : 100;
	double after;
	uint64_t ns;

	if (w->job->replay_no_stall)
		return w->rp.t0;
	after = (double)io->time_ns * 100.0 / (double)pct;
	if (after >= 0x1p64)
		return UINT64_MAX;
	ns = (uint64_t)after;
	return ns > UINT64_MAX - w->rp.t0 ? UINT64_MAX : w->rp.t0 + ns;
}

bool worker_replay_next(struct worker *w)
{
	const struct plan_replay *r = w->job->replay;

	if (w->rp.next < r->nr_ios) {
		const struct plan_replay_io *io = &r->ios[w->rp.next++];

		if (io->ddir >= PLAN_REPLAY_SYNC) {
			/* A flush in the trace: the file it names syncs before the next I/O goes
			 * out (as fio's, beside the I/Os still in flight), by the line's kind. */
			w->rp.sync_file = io->file < w->clone->nr_files ? io->file : 0;
			w->rp.sync_data = io->ddir == PLAN_REPLAY_DATASYNC;
			w->rp.sync_due = true;
			w->need_sync = true;
			return false;
		}
		w->held.offset = io->offset;
		w->held.len = io->len;
		w->held.file = io->file < w->clone->nr_files ? io->file : 0;
		w->held.ddir = io->ddir;
		w->rp.due = replay_due_ns(w, io);
		return true;
	}
	return false;
}

bool worker_replay_due(struct worker *w)
{
	if (w->rp.due <= w->now)
		return true;
	w->now = clk_now(&w->clk);
	if (w->rp.due <= w->now)
		return true;
	w->wait_until = w->rp.due;
	return false;
}

void worker_replay_issued(struct worker *w, uint64_t start_ns)
{
	uint64_t lag = start_ns > w->rp.due ? start_ns - w->rp.due : 0;

	if (!w->counting)
		return;
	w->res.replay_ios++;
	if (w->job->replay_no_stall)
		return;	/* no schedule to be late for */
	if (lag > RES_REPLAY_LATE_NS)
		w->res.replay_late++;
	if (lag > w->res.replay_lag_max_ns)
		w->res.replay_lag_max_ns = lag;
}

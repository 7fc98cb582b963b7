/*
 * engine/gen/file_service.c - which file serves the next I/O: file_service_type
 * in turn or drawn (file_pick.h), and openfiles' opens and closes, as fio 3.33's
 * get_next_file does.
 *
 * Apart from iogen.c, which draws each I/O's offset and length, because this is
 * the one place that knows which files are open, done or drawn again; it asks
 * iogen.c whether a file's pass is done and starts passes through
 * file_service.h.
 */
#include "engine/gen/draw.h"
#include "engine/gen/file_service.h"

/* fio opens a file when it is first picked (get_next_file), none before. */
void gen_limit_open(struct gen *g, uint32_t max)
{
	if (!max || max >= g->nr_files)
		return;
	g->max_open = max;
	g->nr_open = 0;
}

void gen_file_closed(struct gen *g, uint32_t file)
{
	struct gen_file *f = &g->files[file];

	if (!f->open)
		return;
	f->open = false;
	f->closing = false;
	g->nr_open--;
}

/* openfiles: a closed file may be served only while fewer than max_open are open. */
static bool may_serve(struct gen *g, struct gen_file *f, bool *waits)
{
	if (!g->max_open || f->open)
		return true;
	if (g->nr_open < g->max_open) {
		f->open = true;
		g->nr_open++;
		return true;
	}
	*waits = true;
	return false;
}

/*
 * Direction d's next file in turn from g->cur; -1 when none has room, or
 * (*waits) at the first that may not open yet: fio's get_next_file_rr fails
 * there (-EBUSY) with its turn moved past that file, and tries again after a
 * completion, so each try moves the turn on.  Under openfiles a file still
 * open whose turn comes with no room closes then (fio's fill there fails and
 * set_io_u_file closes it), not with its last I/O: -1 too (*waits, retry).
 */
static int32_t file_in_turn(struct gen *g, uint8_t d, bool *waits)
{
	uint32_t n = g->nr_files, idx;
	int64_t last_found = -1;

	for (uint32_t i = 0; i < n; i++) {
		idx = g->cur + i < n ? g->cur + i : g->cur + i - n;
		if (gen_pass_is_done(g, &g->files[idx], d)) {
			if (!g->files[idx].retired)
				last_found = idx;
			gen_file_retired(g, &g->files[idx]);	/* fio's fill there fails: it closes */
			/* openfiles: it closes at its turn (the turn moves past it), then the next is picked */
			if (g->max_open && g->files[idx].open && !g->files[idx].closing) {
				g->files[idx].closing = true;
				if (g->job->file_service == PLAN_FILE_SERVICE_ROUNDROBIN)
					g->cur = idx + 1 < n ? idx + 1 : 0;
				g->mix_undoable = false;	/* fio's failed fill decided the direction */
				*waits = true;
				g->retry = true;
				return -1;
			}
			continue;
		}
		if (!may_serve(g, &g->files[idx], waits)) {
			g->cur = idx + 1 < n ? idx + 1 : 0;
			return -1;
		}
		if (g->job->file_service == PLAN_FILE_SERVICE_ROUNDROBIN)
			g->cur = idx + 1 < n ? idx + 1 : 0;
		else
			g->cur = idx;
		return (int32_t)idx;
	}
	/* No file has room: fio's turn moved past each file it tried, up to the last one
	 * found done here (its count of done files then ends the loop), so the next loop
	 * starts after that one. */
	if (last_found >= 0 && g->job->file_service == PLAN_FILE_SERVICE_ROUNDROBIN)
		g->cur = (uint32_t)last_found + 1 < n ? (uint32_t)last_found + 1 : 0;
	return -1;
}

/*
 * A drawn file whose pass is done, as fio finds it by a failed fill: 1 draw
 * again, 0 serve it, -1 stop (with *waits: it closes first).  Under openfiles
 * fio closes it before the next draw.  A skewed law retires no file: it starts
 * over (fio's fio_file_reset), a random pass on the file drawn without a close
 * (fio resets its map and draws the offset again), a sequential one for a later
 * draw.  Otherwise the file is done, and the loop is over once all are.
 */
static int drawn_done(struct gen *g, struct gen_file *f, uint32_t idx, uint8_t d, bool *waits)
{
	bool must_close = g->max_open && f->open && !f->closing;

	gen_file_retired(g, f);	/* fio's fill there fails: it closes */
	if (g->skewed_service) {
		gen_file_restart(g, f, d);
		if (gen_pass_is_done(g, f, d))
			return -1;	/* no room even fresh: nothing to serve */
		if (g->random)
			return 0;
	}
	if (must_close) {
		f->closing = true;
		*waits = true;
		g->mix_undoable = false;	/* fio's failed fill decided the direction */
		g->retry = true;
		return -1;
	}
	g->cur = idx;	/* loop_is_over's scan starts at the file just seen */
	return !g->skewed_service && gen_loop_is_over(g, d) ? -1 : 1;
}

/*
 * fio's get_next_file_rand: files are drawn until one with room comes up; a
 * closed one while openfiles are open is fio's -EBUSY (*waits), and the next
 * try, after a completion, draws again.  -1 when none has room.
 */
static int32_t drawn_file(struct gen *g, uint8_t d, bool *waits)
{
	struct gen_file *f;
	uint32_t idx;
	int r;

	for (;;) {
		idx = file_pick_next(&g->pick);
		f = &g->files[idx];
		r = gen_pass_is_done(g, f, d) ? drawn_done(g, f, idx, d, waits) : 0;
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		if (!may_serve(g, f, waits))
			return -1;
		g->cur = idx;
		return (int32_t)idx;
	}
}

/*
 * openfiles: fio's next loop closes every file first (clear_io_state), so its
 * first picks open files afresh; those still open close before the next pick
 * (true: busy, the caller closes them once idle and picks again).  A mix's
 * direction was decided before the loop was found over: fio's next loop,
 * re-seeded, decides its first one afresh, so the pick is made again too.
 */
static bool close_for_loop(struct gen *g)
{
	bool any = false;

	if (!g->max_open)
		return false;
	for (uint32_t i = 0; i < g->nr_files; i++)
		if (g->files[i].open) {
			g->files[i].closing = true;
			any = true;
		}
	any = any || g->mixed;
	g->busy = g->retry = any;
	return any;
}

/* The file of the next I/O by file_service; every file starts a new pass when all are done. */
static int32_t next_file(struct gen *g, uint8_t d)
{
	bool waits = false;
	int32_t idx;

	for (int round = 0; round < 2; round++) {
		idx = g->drawn_service ? drawn_file(g, d, &waits) : file_in_turn(g, d, &waits);
		if (idx >= 0)
			return idx;
		/* Files left in this pass wait for an open one to close: not a new pass yet,
		 * and no direction decided (fio's get_next_file fails before its fill). */
		g->busy = waits;
		if (waits) {
			gen_mix_undo(g);
			return -1;
		}
		/* Interlocked windows end when every file's tickets are gone. */
		if (g->limited && g->job->interlocked)
			return -1;
		if (!gen_new_pass(g, d) || close_for_loop(g))
			return -1;
	}
	return -1;
}

/*
 * fio's file_service_type=TYPE:N: a file picked keeps the next N-1 I/Os while
 * it can serve them (fio's file_service_left), then the type picks again.
 */
int32_t gen_pick_file(struct gen *g, uint8_t d)
{
	int32_t idx;

	/* One file serves every I/O while its pass lasts: no turn, no draw, nothing to open
	 * (openfiles is off), so the bookkeeping below would come to the same. */
	if (g->nr_files == 1 && !gen_pass_is_done(g, g->files, d))
		return 0;
	/* fio keeps the file only while it is open (openfiles= may have closed it). */
	if (g->svc_left && g->svc_file < g->nr_files && (!g->max_open || g->files[g->svc_file].open)) {
		if (!gen_pass_is_done(g, &g->files[g->svc_file], d)) {
			g->svc_left--;
			return (int32_t)g->svc_file;
		}
		gen_file_retired(g, &g->files[g->svc_file]);	/* fio's fill there fails: it closes */
	}
	idx = next_file(g, d);
	if (idx >= 0) {
		g->svc_file = (uint32_t)idx;
		g->svc_left = g->job->file_service_extra;
	}
	return idx;
}


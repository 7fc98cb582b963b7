/*
 * engine/worker/worker_errors.c - what an error does to a job: recorded where it
 * happened, and fatal unless continue_on_error and ignore_error allow it.
 *
 * Out of the hot loop's file on purpose: the loop tests one compare per
 * completion (result against length) and calls here only when it fails, so the
 * completion path keeps no stack frame for messages it never formats.
 */
#include <errno.h>
#include <stdio.h>

#include "engine/worker/worker.h"

void worker_record_error(struct worker *w, const struct worker_fault *f)
{
	struct res_error *e;

	w->res.total_err++;
	if (w->res.nr_errors >= RES_ERRORS_MAX)
		return;
	e = &w->res.errors[w->res.nr_errors++];
	e->err = f->err;
	e->ddir = f->ddir;
	e->file_index = f->file;
	e->offset = f->offset;
	e->len = f->len;
	e->done = f->done;
	snprintf(e->what, sizeof(e->what), "%s", f->what ? f->what : "");
}

void worker_set_error(struct worker *w, int err)
{
	if (!w->res.error)
		w->res.error = err;
}

void worker_fail(struct worker *w, int err)
{
	worker_set_error(w, err);
	w->fatal = true;
}

/*
 * fio's td_non_fatal_error: continue_on_error names the kinds of error a job
 * survives (EILSEQ is a verify error whatever the direction), and of those only
 * the errnos in the kind's ignore_error list, by default EIO and EILSEQ.
 */
bool worker_may_continue(const struct worker *w, uint8_t ddir, int err)
{
	const struct plan_job *j = w->job;
	uint32_t kind = err == EILSEQ ? 2 : ddir == PLAN_DDIR_READ ? 0 : 1;
	static const uint32_t bits[] = { PLAN_COE_READ, PLAN_COE_WRITE, PLAN_COE_VERIFY };

	if (!(j->continue_on_error & bits[kind]))
		return false;
	if (!j->nr_ignore_errors[kind])
		return err == EIO || err == EILSEQ;
	for (uint32_t i = 0; i < j->nr_ignore_errors[kind] && i < PLAN_IGNORE_ERRORS_MAX; i++)
		if (j->ignore_errors[kind][i] == err)
			return true;
	return false;
}

/* fill_device: a write the device has no room for ends the job, not as an error (fio's). */
static bool device_filled(struct worker *w, const struct io_u *u, int err)
{
	if ((err != ENOSPC && err != EDQUOT) || u->ddir != PLAN_DDIR_WRITE || !plan_fills_device(w->job))
		return false;
	w->ioe.peer_done = true;
	w->gen_done = true;
	worker_drain_begin(w);
	return true;
}

/*
 * A failed or short I/O: recorded with where it happened; fatal unless allowed.
 * A transfer that ends before its length (0 bytes from /dev/null, the end of a
 * file truncated under the run) is EIO, as fio's "full resid": never a success
 * that moved no data.
 */
bool worker_io_failed(struct worker *w, struct io_u *u)
{
	char what[64];
	int err;

	if (u->result == -ECANCELED && w->cancelled)
		return false;	/* a stop called it back (worker_cancel_stalled): neither done nor failed */
	if (w->ioe.peer_done && u->result >= 0) {
		/* net: the peer closed (or the run stopped the wait), or the device is full: what came counts. */
		w->gen_done = true;
		worker_drain_begin(w);
		return u->result > 0;
	}
	if (u->result > 0) {
		/* Short: counted, then the rest is re-issued (its errno, if any, replaces result). */
		if (u->counted && w->counting)
			w->res.ddir[u->ddir].short_ios++;
		if (worker_finish_short(w, u))
			return true;
	}
	/* fio counts every I/O its engine took (total_io_u), a failed one too: without bytes or
	 * latency; not a failure of what the engine does before the I/O (fio's open of the file). */
	if (u->counted && w->counting && !w->ioe.fail_what)
		w->res.ddir[u->ddir].ios++;
	if (u->result >= 0) {
		err = EIO;
		snprintf(what, sizeof(what), "short %s (%llu of %u bytes)",
			 plan_ddir_name(u->ddir), (unsigned long long)u->result, u->len);
		worker_error(w, .err = err, .ddir = u->ddir, .file = u->file, .offset = u->offset,
			     .len = u->len, .done = (uint64_t)u->result, .what = what);
		/* fio's "full resid" (td_verror, not the I/O's error): fatal whatever continue_on_error says. */
		worker_fail(w, err);
		return false;
	} else {
		err = (int)-u->result;
		if (device_filled(w, u, err))
			return false;
		/* An engine that tried something else than the I/O (exec: its program; the
		 * metadata engines: the unlink) names it, and it has no offset; exec's has no file. */
		if (w->ioe.fail_what)
			worker_error(w, .err = err, .ddir = u->ddir, .file = w->ioe.ops->no_io ? UINT32_MAX : u->file,
				     .what = w->ioe.fail_what);
		else
			worker_error(w, .err = err, .ddir = u->ddir, .file = u->file, .offset = u->offset,
				     .len = u->len, .what = plan_ddir_name(u->ddir));
	}
	if (worker_may_continue(w, u->ddir, err))
		return false;
	worker_fail(w, err);
	return false;
}

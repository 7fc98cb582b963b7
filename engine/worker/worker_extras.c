/*
 * engine/worker/worker_extras.c - what an I/O of a job with extras does beyond the plain path.
 *
 * The hot loop (worker_io.c) is compiled into copies; in a plain job's copy
 * these calls are folded away, and in the others they are out of line, so the
 * per-I/O path stays small: a write's buffer refilled or stamped for verify and
 * its priority picked (prepare), a rate slot, openfiles, overlap and fsync=N
 * bookkeeping once the engine took it (taken), a completion's schedule delay,
 * priorities, latency limits, trace and fio's logs (account), and verify's
 * check, sync_file_range= and openfiles' close as it completes (complete).
 */
#include "engine/worker/worker.h"

/* cmdprio: fio's clat_prio sample (lat with lat_percentiles, else clat); the logs' priority column. */
static void prio_account(struct worker *w, struct res_ddir *d, const struct io_u *u, uint64_t lat,
			 uint64_t clat)
{
	if (d->nr_prios)
		lat_add(&d->prios[u->prio_idx].lat, w->job->lat_percentiles ? lat : clat);
	worker_logs_prio(w, u->ioprio);
}

/* A completion's schedule delay, priority, latency limits, trace entry and fio's log lines. */
void worker_account_extras(struct worker *w, struct io_u *u, struct res_ddir *d, uint64_t now,
			   uint64_t lat, uint64_t clat)
{
	const struct plan_job *j = w->job;

	if (u->due_ns)
		lat_add(&d->sched_lat, now > u->due_ns ? now - u->due_ns : 0);
	if (w->prio)
		prio_account(w, d, u, lat, clat);
	if (j->max_latency_ns[u->ddir])
		worker_latency_ok(w, u, lat);
	if (j->lat_target_ns && lat > j->lat_target_ns)
		worker_lat_target_over(w, u, lat);
	if (w->lg.iops_ser_own && lat > w->lg.iops_ser.lat_max[u->ddir])
		w->lg.iops_ser.lat_max[u->ddir] = lat;
	if (w->res.trace_nr < w->res.trace_cap) {
		struct res_io_rec *t = &w->res.trace[w->res.trace_nr++];

		t->t_ns = now;
		t->offset = u->offset;
		t->lat_ns = lat;
		t->bytes = (uint32_t)u->result;
		t->file_index = u->file;
		t->ddir = u->ddir;
	}
	if (w->lg.log) {
		clone_log_io(w->lg.log, now, u->ddir, (uint32_t)u->result, u->offset, lat, clat);
		worker_logs_io_samples(w, u->ddir, (uint32_t)u->result, clat);
	}
}

/* verify's check of a read, sync_file_range='s range, fsync=N's sync due again, openfiles' close after a file's last completion. */
void worker_complete_extras(struct worker *w, struct io_u *u)
{
	if (w->vf.vfy && u->result == (int64_t)u->len)
		worker_verify_done(w, u);
	else if (u->ddir == PLAN_DDIR_WRITE && w->job->verify_backlog && w->vf.maps)
		worker_verify_hist(w, -1);	/* a failed write is no I/O to read back (fio's unlog_io_piece) */
	if (w->written && u->ddir == PLAN_DDIR_WRITE && u->result > 0)
		worker_sync_written(w, u);
	if (w->syncs_every && worker_sync_completed(w))
		w->need_sync = true;
	/* openfiles: a file a pick found done (gen_file_closing) closes with its last completion. */
	if (w->max_open && !--w->file_inflight[u->file] && gen_file_closing(&w->gen, u->file) &&
	    !(w->have_held && w->held.file == u->file))
		worker_close_file(w, u->file);
}

/* A verified write's data is made by worker_verify_stamp, from its header seed (verify=null: the plain buffer). */
static bool verified_fill(const struct worker *w)
{
	return w->vf.vfy && w->vf.vfy->kind != PLAN_VERIFY_NULL;
}

/* What a write's buffer and an I/O's priority need before it goes out. */
void worker_prepare_extras(struct worker *w, struct io_u *u)
{
	if (u->ddir == PLAN_DDIR_WRITE) {
		if (w->dedupe.pct) {
			uint64_t seed = dedupe_next_seed(&w->dedupe);

			buf_fill(u->buf, u->len, &w->fill, &seed);
			w->stamp_ok = false;
		} else if (w->job->refill_buffers && !verified_fill(w)) {
			buf_fill(u->buf, u->len, &w->fill, &w->rng_misc);
			w->stamp_ok = false;
		} else if (w->vary_writes) {
			buf_vary(u->buf, u->len, &w->rng_misc);
			w->stamp_ok = false;
		}
		if (w->vf.vfy)
			worker_verify_stamp(w, u);
	}
	if (w->prio)
		prio_pick_io(w->prio, u);
}

/* taken()'s rarer part: overlap and openfiles bookkeeping, a rate slot, fsync=N and its kin. */
void worker_taken_extras(struct worker *w, struct io_u *u)
{
	struct rate *r = &w->rate[u->ddir];

	if (w->slot_busy)
		w->slot_busy[u->slot] = true;
	if (w->max_open)
		w->file_inflight[u->file]++;	/* only openfiles closes a file after its last I/O */
	if (w->rated && rate_is_limited(r)) {
		u->due_ns = r->due_ns;
		rate_advance(r, u->len, &w->rng_misc);
	}
	/* verify_backlog=N counts writes issued: the check comes before the next I/O (draw). */
	if (u->ddir == PLAN_DDIR_WRITE && w->job->verify_backlog && w->vf.maps)
		worker_verify_hist(w, 1);
	/* fsync=N, fdatasync=N and sync_file_range= count writes issued; the sync goes out
	 * before the next I/O, beside the writes in flight (worker_sync.c). */
	if ((w->job->fsync_every | w->job->fdatasync_every | w->job->sync_file_range_every) &&
	    worker_sync_count(w, u->ddir))
		w->need_sync = true;
}

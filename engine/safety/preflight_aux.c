/*
 * engine/safety/preflight_aux.c - preflight of what a job touches besides its targets.
 *
 * Log, state, prerun and redirect files ioplan names itself (never over a
 * user's file or a device), verify state files to load (whole and of these
 * files), the net peer's name (resolved now, not an EINVAL at run time) and
 * the nbd export's size (asked once; a region past its end is refused), and
 * mmap's page-sized blocks where fio's mmap engine asks for them.
 * All before any I/O, each an error naming the option and what is wrong.
 */
#include "engine/safety/preflight_internal.h"
#include "engine/engine.h"
#include "engine/ioengine.h"
#include "engine/layout/layout.h"
#include "engine/logs/logs.h"
#include "engine/scratch.h"
#include "engine/verify/checksum.h"
#include "engine/verify/verify.h"

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * One file the job writes besides its targets, judged by the rule of
 * safety_check_output and, when must_write, whether it can be written at all.
 */
static void check_side_file(struct pf_state *s, const struct plan_job *j, const char *option, const char *path,
			    unsigned how, bool must_write)
{
	char why[SAFETY_WHY_MAX];
	int r = safety_check_output(s->env, path, how, why, sizeof(why));

	if (!r && must_write)
		r = safety_check_writable(path, why, sizeof(why));

	/*
	 * A missing or unwritable directory's reason (or a broken link's) is the open's own
	 * words: the file it was for is named here.
	 */
	if (r == -ENOENT || r == -ENOTDIR || r == -EROFS || r == -EACCES || r == -ELOOP)
		pf_add(s, RES_MSG_ERROR, "side-file", (int32_t)j->job_id, "job '%s': %s: %s: %s", j->name, option,
		       path, why);
	else if (r)
		pf_add(s, RES_MSG_ERROR, "side-file", (int32_t)j->job_id, "job '%s': %s: %s", j->name, option, why);
}

/*
 * verify_state_save by fio's default, not asked for: a user's file at the name
 * (fio's state of an earlier run, say) is left as it is, with a warning, and the
 * run goes on without saving, where an asked-for save refuses the run.
 */
static bool state_file_is_users(struct pf_state *s, const struct plan_job *j, const char *path)
{
	char why[SAFETY_WHY_MAX];

	if (safety_check_output(s->env, path, SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES, why, sizeof(why)) != -EEXIST)
		return false;
	pf_add(s, RES_MSG_WARNING, "side-file", (int32_t)j->job_id,
	       "job '%s': verify_state_save (on by default, as fio's): %s exists and ioplan did not write it: "
	       "this run's state is not saved over it (move it away, or set verify_state_save=0)", j->name, path);
	return true;
}

typedef void (*side_file_fn)(void *arg, const struct plan_job *j, const char *option, const char *path,
			     unsigned how);

/*
 * Logs, verify state, prerun/postrun output and exec redirects have names
 * ioplan makes up: a user's file by that name is kept (-EEXIST), ioplan's own
 * from an earlier run is replaced (how: the rule of safety_check_output).  Once
 * per name: clones share the job-named ones (the first clone's, and the
 * section-named of the others).
 */
static void each_side_file(const struct plan *p, const struct plan_job *j, side_file_fn fn, void *arg)
{
	const unsigned made_up = SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES;
	char path[4096];

	for (uint32_t c = 0; c < j->nr_clones; c++) {
		for (int k = 0; k < LOG_KIND_NR; k++)
			if ((c <= 1 || j->per_job_logs) && log_file_name(path, sizeof(path), j, &j->clones[c], k))
				fn(arg, j, log_option(k), path, j->per_job_logs ? made_up : SAFETY_OUT_DERIVED);
		if (j->verify_state_save && j->verify != PLAN_VERIFY_NONE && !j->verify_only &&
		    plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE)) {
			vstate_name(path, sizeof(path), p->aux_path, j->name, j->clones[c].thread_number - 1,
				    j->log_suffix);
			fn(arg, j, "verify_state_save", path, made_up);
		}
	}
	if (j->write_iolog_path)
		fn(arg, j, "write_iolog", j->write_iolog_path, 0);
	for (int post = 0; post < 2; post++)
		if (post ? j->exec_postrun : j->exec_prerun) {
			plan_job_output_name(path, sizeof(path), j, post ? "postrun.txt" : "prerun.txt");
			fn(arg, j, post ? "exec_postrun" : "exec_prerun", path, made_up);
		}
	for (int err = 0; plan_engopt_int(j->engine_opts, j->ioengine, "std_redirect") && err < 2; err++) {
		plan_job_output_name(path, sizeof(path), j, err ? "stderr" : "stdout");
		fn(arg, j, "std_redirect", path, made_up);
	}
}

static void check_one_side_file(void *arg, const struct plan_job *j, const char *option, const char *path,
				unsigned how)
{
	struct pf_state *s = arg;

	/*
	 * verify_state_save by default over a user's file: a warning, and no save;
	 * where it cannot be written, a warning when the thread ends (worker_verify_setup.c).
	 */
	if (!strcmp(option, "verify_state_save") && !j->verify_state_save_asked) {
		if (!state_file_is_users(s, j, path))
			check_side_file(s, j, option, path, how, false);	/* a device, swap: refused */
		return;
	}
	check_side_file(s, j, option, path, how, true);
}

struct side_file_visit {
	void (*fn)(void *arg, const struct plan_job *j, const char *option, const char *path);
	void *arg;
};

static void visit_side_file(void *arg, const struct plan_job *j, const char *option, const char *path,
			    unsigned how)
{
	const struct side_file_visit *v = arg;

	v->fn(v->arg, j, option, path);
}

void eng_each_side_file(const struct plan *p,
			void (*fn)(void *arg, const struct plan_job *j, const char *option, const char *path),
			void *arg)
{
	struct side_file_visit v = { fn, arg };

	for (uint32_t i = 0; i < p->nr_jobs; i++)
		each_side_file(p, plan_job_at(p, i), visit_side_file, &v);
}

/* verify_state_load: each clone's state file is one fio would load, of this job and its files, before any I/O. */
static void check_state_files(struct pf_state *s, const struct plan_job *j)
{
	char path[PATH_MAX], why[256];

	if (!j->verify_only || !j->verify_state_load || j->verify == PLAN_VERIFY_NONE)
		return;
	for (uint32_t c = 0; c < j->nr_clones; c++) {
		vstate_name(path, sizeof(path), s->p->aux_path, j->name, j->clones[c].thread_number - 1,
				    j->log_suffix);
		if (vstate_check(path, j->name, j->clones[c].nr_files, why, sizeof(why)))
			pf_add(s, RES_MSG_ERROR, "verify-state", (int32_t)j->job_id,
			    "job '%s': verify_state_load: %s: %s", j->name, path, why);
	}
}

/*
 * verify='s digest, where OpenSSL makes it: a configuration (OPENSSL_CONF, else
 * openssl.cnf) whose provider does not load leaves it none, and every worker
 * would fail after the layout.  The same jobs as worker_verify_setup() ask.
 */
static void check_digest(struct pf_state *s, const struct plan_job *j)
{
	struct csum_ctx c;
	int ret;

	if (!csum_digest_len(j->verify) || j->create_only ||
	    !(ioe_opens_files(j->ioengine) || ioe_is_remote(j->ioengine) || ioe_fakes_io(j->ioengine)))
		return;
	ret = csum_init(&c, j->verify);
	if (!ret)
		csum_release(&c);
	else if (ret == -ENOPKG && csum_library_problem())
		pf_add(s, RES_MSG_ERROR, "verify-digest", (int32_t)j->job_id, "job '%s': verify=%s: OpenSSL's libcrypto cannot be opened: %s", j->name,
		       plan_verify_name(j->verify), csum_library_problem());
	else if (ret == -ENOPKG)
		pf_add(s, RES_MSG_ERROR, "verify-digest", (int32_t)j->job_id,
		    "job '%s': verify=%s: OpenSSL has no such digest here: its configuration (OPENSSL_CONF, "
		    "else openssl.cnf) names a provider that does not load", j->name, plan_verify_name(j->verify));
}

/* net: the peer's name resolves now, or the resolver says why (not an EINVAL at run time). */
static void check_net_host(struct pf_state *s, const struct plan_job *j)
{
	const char *host = plan_engopt_str(j->engine_opts, j->ioengine, "hostname");
	long long proto = plan_engopt_int(j->engine_opts, j->ioengine, "protocol");
	struct addrinfo hints = { 0 }, *res = NULL;
	int r;

	if ((j->ioengine != PLAN_IOENGINE_NET && j->ioengine != PLAN_IOENGINE_NETSPLICE) || !host)
		return;
	if (proto == PLAN_NET_UNIX) {
		if (strlen(host) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			pf_add(s, RES_MSG_ERROR, "net-host", (int32_t)j->job_id,
			    "job '%s': filename=%.64s...: a unix socket path has at most %zu bytes", j->name,
			    host, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		return;
	}
	hints.ai_family = proto == PLAN_NET_TCPV6 || proto == PLAN_NET_UDPV6 ? AF_INET6 : AF_INET;
	r = getaddrinfo(host, NULL, &hints, &res);
	if (r)
		pf_add(s, RES_MSG_ERROR, "net-host", (int32_t)j->job_id, "job '%s': hostname=%.200s: %s", j->name,
		    host, r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
	freeaddrinfo(res);
}

/* nbd: the export is asked its size once; a region past its end is refused before any I/O. */
static void check_remote_size(struct pf_state *s, const struct plan_job *j)
{
	const struct ioe_ops *o = ioe_find(j->ioengine);
	const char *uri = plan_engopt_str(j->engine_opts, j->ioengine, "uri");
	uint64_t size = 0, start, len;
	int ret;

	if (!o || !o->target_size || eng_ioengine_unavailable(j->ioengine))
		return;
	if ((ret = o->target_size(j, &size))) {
		pf_add(s, RES_MSG_ERROR, "remote-target", (int32_t)j->job_id, "job '%s': %s: cannot ask the size: %s",
		    j->name, uri ? uri : "no uri=", strerror(-ret));
		return;
	}
	for (uint32_t c = 0; c < j->nr_clones; c++)
		for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
			layout_region(j, &j->clones[c], &j->clones[c].files[f], size, &start, &len);
			if (start + len <= size)
				continue;
			pf_add(s, RES_MSG_ERROR, "remote-target", (int32_t)j->job_id,
			    "job '%s': %s: the region (bytes %llu to %llu) runs past the end of the export (%llu bytes): "
			    "lower size= or offset=", j->name, uri, (unsigned long long)start,
			    (unsigned long long)(start + len), (unsigned long long)size);
			return;
		}
}

/*
 * fio's mmap engine refuses, at its start, a block size that is no multiple of
 * the page when direct=1, fsync= or fdatasync= asks for writeback of whole pages.
 */
static void check_mmap_block(struct pf_state *s, const struct plan_job *j)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t bs = plan_min_bs(j);

	if (j->ioengine != PLAN_IOENGINE_MMAP || page <= 0 || !(bs % (uint64_t)page) ||
	    !(j->direct || j->fsync_every || j->fdatasync_every))
		return;
	pf_add_job_failure(s, "mmap-block-size", (int32_t)j->job_id,
			   "job '%s': ioengine=mmap with %s needs block sizes in multiples of the page (%ld bytes), "
			   "but the smallest is %llu", j->name,
			   j->direct ? "direct=1" : j->fsync_every ? "fsync=" : "fdatasync=", page,
			   (unsigned long long)bs);
}

/* Is path one of j's own files? */
static bool job_file(const struct plan_job *j, const char *path)
{
	for (uint32_t c = 0; c < j->nr_clones; c++)
		for (uint32_t f = 0; f < j->clones[c].nr_files; f++)
			if (!strcmp(j->clones[c].files[f].path, path))
				return true;
	return false;
}

/*
 * e4defrag: the extent moves give the donor the file's old blocks, so the
 * donor must be a file the run creates (engine/scratch.h).  One that holds
 * data (a user's file, or the job's own) failed each clone's start with a bare
 * "File exists" after the layout; fio 3.33 opens it as it is and moves its
 * blocks away.  Refused here, naming it, before any I/O.
 */
static void check_e4defrag_donor(struct pf_state *s, const struct plan_job *j)
{
	const char *donor = plan_engopt_str(j->engine_opts, j->ioengine, "donorname");
	char path[PATH_MAX];
	struct stat st;

	if (j->ioengine != PLAN_IOENGINE_E4DEFRAG || !donor)
		return;
	for (uint32_t c = 0; c < j->nr_clones; c++) {
		bool own;

		if (!j->clones[c].nr_files)
			continue;
		scratch_path_beside(j->clones[c].files[0].path, donor, path, sizeof(path));
		own = job_file(j, path);
		if (!own && (lstat(path, &st) || (S_ISREG(st.st_mode) && !st.st_size && !st.st_blocks)))
			continue;	/* made by the run, or empty: nothing of anyone's in it */
		pf_add(s, RES_MSG_ERROR, "e4defrag-donor", (int32_t)j->job_id,
		       "job '%s': donorname=%s: %s %s: the extent moves would give it the file's old blocks; "
		       "name a file that does not exist (ioplan creates it and removes it after the run)", j->name,
		       donor, path, own ? "is one of the job's own files" :
		       S_ISLNK(st.st_mode) ? "is a symbolic link (ioplan makes no file through one)" :
		       S_ISREG(st.st_mode) ? "exists and holds data ioplan was not given" : "is not a regular file");
		return;
	}
}

void pf_check_aux(struct pf_state *s, const struct plan_job *j)
{
	check_e4defrag_donor(s, j);
	check_mmap_block(s, j);
	each_side_file(s->p, j, check_one_side_file, s);
	check_state_files(s, j);
	check_digest(s, j);
	check_net_host(s, j);
	check_remote_size(s, j);
}

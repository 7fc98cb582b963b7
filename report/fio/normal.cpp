// report/fio/normal.cpp - fio's normal (human) output: job banners, per-entry
// blocks, "Run status group N (all jobs):" lines and disk stats (fio.md §5).
//
// The text matches fio 3.33 line for line where fio's layout is known, so a
// grep for "IOPS=" or "BW=" finds the same on ioplan's output.  Difference:
// no percentile above the max.
#include <algorithm>
#include <cstring>
#include <ostream>

#include "report/formats.hpp"
#include "report/idleness.hpp"
#include "report/fio/normal.hpp"
#include "report/ranks.hpp"
#include "report/units.hpp"

namespace report {

namespace {

std::string bs_range(const plan_bs &bs, bool pow2, int sf)
{
	return num2str(bs.min_bytes, sf, 1, pow2, unit::byte) + "-" +
	       num2str(bs.max_bytes, sf, 1, pow2, unit::byte);
}

// fio leaves the line out for the engines that do no I/O (its FIO_NOIO: cpuio
// and exec, whose own line says what the thread does, a fio-note), not the
// "..." of their clones.
std::string banner_line(const plan_job &j)
{
	if (j.ioengine == PLAN_IOENGINE_CPUIO || j.ioengine == PLAN_IOENGINE_EXEC)
		return j.nr_clones > 1 ? "...\n" : "";
	bool pow2 = j.kb_base != 1000;
	std::string s = strf("%s: (g=%u): rw=%s, ", j.name ? j.name : "", j.groupid,
			     plan_rw_name(j.rw));

	s += "bs=(R) " + bs_range(j.bs[PLAN_DDIR_READ], pow2, sig_figs_of(&j)) + ", (W) " +
	     bs_range(j.bs[PLAN_DDIR_WRITE], pow2, sig_figs_of(&j)) + ", ";
	if (j.bs_is_seq_rand)
		s += "bs_is_seq_rand, ";
	else
		s += "(T) " + bs_range(j.bs[PLAN_DDIR_TRIM], pow2, sig_figs_of(&j)) + ", ";
	s += strf("ioengine=%s, iodepth=%u\n", plan_ioengine_name(j.ioengine), j.iodepth);
	if (j.nr_clones > 1)
		s += "...\n";
	return s;
}

// fio sets each job's files up in turn, noting "fio: file F may be ignored"
// for each it runs past, then laying them out: run as fio, a job's ignored
// lines come before its layout lines (as ioplan they are notes at the end).
// The engine records "Laying out IO file (1 file / 4MiB)" with the job; fio
// prints it prefixed with the job name.
void write_layout_lines(std::ostream &out, const results &r, const plan &p, personality who)
{
	uint32_t said = 0;
	auto ignored_up_to = [&](int32_t job) {
		for (; said < r.nr_msgs && who == personality::fio; said++)
			if (r.msgs[said].job_id > job && !fio_ignored_line(r.msgs[said], p).empty())
				break;
			else
				out << fio_ignored_line(r.msgs[said], p);
	};
	for (uint32_t i = 0; i < r.nr_msgs; i++) {
		const res_msg &m = r.msgs[i];
		if (!m.code || std::strcmp(m.code, "layout") != 0 || !m.text)
			continue;
		ignored_up_to(m.job_id);
		const plan_job *j = m.job_id >= 0 ? plan_job_at(&p, (uint32_t)m.job_id) : nullptr;
		if (j && j->name)
			out << j->name << ": ";
		out << m.text << '\n';
	}
	ignored_up_to(INT32_MAX);
}

std::string entry_header(const entry &e, const model &m, const options &o)
{
	std::string s;
	/* fio's first member's pid; its threads' own ids under --thread, as ioplan's workers are */
	long pid = o.pid && e.st.get().tid ? e.st.get().tid : o.pid;
	if (!e.error)
		s = strf("%s: (groupid=%u, jobs=%u): err=%2d: pid=%ld: %s\n", e.name.c_str(),
			 e.groupid, e.threads, e.error, pid, ctime_str(m.now_wall_ns).c_str());
	else
		s = strf("%s: (groupid=%u, jobs=%u): err=%2d (%s): pid=%ld: %s\n", e.name.c_str(),
			 e.groupid, e.threads, e.error, e.verror.c_str(), pid,
			 ctime_str(m.now_wall_ns).c_str());
	if (!e.description.empty())
		s += strf("  Description  : [%s]\n", e.description.c_str());
	return s;
}

std::string sync_block(const entry &e)
{
	const res_clone &c = e.st.get();
	const plan_job *j = e.last;
	if (!c.sync_lat.n)
		return std::string();
	int prec = j ? percentile_precision(j->percentiles, j->nr_percentiles < PLAN_PERCENTILES_MAX
								  ? j->nr_percentiles
								  : PLAN_PERCENTILES_MAX)
		     : 0;
	return "  fsync/fdatasync/sync_file_range:\n" + normal_lat_line("sync", c.sync_lat) +
	       normal_percentiles("sync", c.sync_lat, percentile_list(e), prec);
}

std::string dist_line(const char *head, const char *const *labels, const uint64_t *counts,
		      uint64_t total)
{
	std::vector<double> v = dist_pct(counts, 7, total, 0.1);
	std::string s = head;
	for (int i = 0; i < 7; i++)
		s += strf("%s%s=%3.1f%%", i ? ", " : "", labels[i], v[(size_t)i]);
	return s + "\n";
}

// Not in fio's layout: how far an open-loop replay (read_iolog) fell behind its trace.
std::string replay_line(const res_clone &c)
{
	if (c.replay_ios && c.replay_late == 0 && c.replay_lag_max_ns == 0)
		return strf("  replay       : %llu I/Os, issued as fast as possible (replay_no_stall)\n",
			    (unsigned long long)c.replay_ios);
	return strf("  replay       : %llu I/Os, %.2f%% issued late (over %.0f ms behind the trace), worst lag %.3f ms\n",
		    (unsigned long long)c.replay_ios,
		    c.replay_ios ? 100.0 * (double)c.replay_late / (double)c.replay_ios : 0.0,
		    (double)RES_REPLAY_LATE_NS / 1e6, (double)c.replay_lag_max_ns / 1e6);
}

std::string entry_tail(const entry &e)
{
	static const char *const depth[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	const res_clone &c = e.st.get();
	uint64_t submits = 0, reaps = 0;
	for (int i = 0; i < RES_BATCH_NR; i++) {
		submits += c.submit[i];
		reaps += c.complete[i];
	}
	std::string s = strf("  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%llu, majf=%llu, "
			     "minf=%llu\n",
			     usr_cpu_pct(e), sys_cpu_pct(e), (unsigned long long)c.ctx,
			     (unsigned long long)c.majf, (unsigned long long)c.minf);
	// Not in fio's layout: the numbers above measured the tool, not the device.
	if (c.cpu_bound) {
		uint64_t ios = total_rw_ios(e) + c.sync_ios;
		s += strf("  warning      : CPU-bound: a worker thread was busy the whole run "
			  "(%.0f ns of CPU per I/O); the tool, not the device, set the pace\n",
			  ios ? (double)(c.usr_ns + c.sys_ns) / (double)ios : 0.0);
	}
	if (e.last && e.last->replay)
		s += replay_line(c);
	s += dist_line("  IO depths    : ", depth, c.depth, depth_total(e));
	s += dist_line("     submit    : ", batch, c.submit, submits);
	s += dist_line("     complete  : ", batch, c.complete, reaps);
	const res_ddir *d = c.ddir;
	s += strf("     issued rwts: total=%llu,%llu,%llu,%llu short=%llu,%llu,%llu,0 "
		  "dropped=%llu,%llu,%llu,0\n",
		  (unsigned long long)d[0].ios, (unsigned long long)d[1].ios,
		  (unsigned long long)d[2].ios, (unsigned long long)c.sync_ios,
		  (unsigned long long)d[0].short_ios, (unsigned long long)d[1].short_ios,
		  (unsigned long long)d[2].short_ios, (unsigned long long)d[0].drop_ios,
		  (unsigned long long)d[1].drop_ios, (unsigned long long)d[2].drop_ios);
	if (e.last && e.last->continue_on_error)
		s += strf("     errors    : total=%llu, first_error=%d/<%s>\n",
			  (unsigned long long)e.total_err, e.first_error, strerror(e.first_error));
	// fio prints the target in ns and the window in us, as it stores them.
	// No depth: the job never reached its I/O loop, and fio prints no line.
	const plan_job *j = e.last;
	if (e.lat_depth)
		s += strf("     latency   : target=%llu, window=%llu, percentile=%.2f%%, depth=%u\n",
			  (unsigned long long)(j ? j->lat_target_ns : 0),
			  (unsigned long long)(j ? j->lat_window_ns / 1000 : 0), j ? j->lat_percentile : 100.0,
			  e.lat_depth);
	// block_error_percentiles: fio's section; ioplan tracks no per-block trim counts, so
	// it is what fio prints for a job without trims (no percentiles, every state 0).
	if (j && j->block_error_hist)
		s += "  block lifetime percentiles :\n   |        states               : unwritten=0, trimmed=0, "
		     "written=0, trim failure=0, write failure=0\n";
	return s + normal_steadystate(e);
}

void write_entry(std::ostream &out, const entry &e, const model &m, const options &o)
{
	const res_clone &c = e.st.get();
	uint64_t bytes = c.ddir[0].bytes + c.ddir[1].bytes + c.ddir[2].bytes;

	// fio shows nothing for a job that moved no data and issued nothing; a
	// job that failed is shown all the same, so its err= line says why.
	if (!bytes && !total_rw_ios(e) && !e.error)
		return;
	out << entry_header(e, m, o);
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (c.ddir[d].bytes)
			out << normal_ddir(e, m.group(e.groupid), d, normal_repeats(e, m, d));
	// unified_rw_reporting=both: fio adds the merged direction when it ran.
	if (e.mixed && ddir_ran(*e.mixed, 0))
		out << normal_ddir(*e.mixed, m.group(e.groupid), 0);
	out << normal_lat_dist(e) << sync_block(e) << entry_tail(e);
}

void group_line(std::ostream &out, const group_stat &g, const char *label, uint64_t agg,
		uint64_t min_bw, uint64_t max_bw, uint64_t io, uint64_t min_run, uint64_t max_run)
{
	bool p2 = g.kb_base == 1024;
	unit bw = g.bits ? unit::bit_per_sec : unit::byte_per_sec;
	auto n2s = [&g](uint64_t v, bool pow2, unit u) { return num2str(v, g.sig_figs, 1, pow2, u); };

	out << strf("%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%llu-%llumsec\n", label,
		    n2s(agg, p2, bw).c_str(), n2s(agg, !p2, bw).c_str(), n2s(min_bw, p2, bw).c_str(),
		    n2s(max_bw, p2, bw).c_str(), n2s(min_bw, !p2, bw).c_str(),
		    n2s(max_bw, !p2, bw).c_str(), n2s(io, p2, unit::byte).c_str(),
		    n2s(io, !p2, unit::byte).c_str(), (unsigned long long)min_run,
		    (unsigned long long)max_run);
}

// unified_rw_reporting=both: fio's extra line sums bytes and aggregate rates of
// the directions that ran and takes the extremes of their ranges.
void mixed_group_line(std::ostream &out, const group_stat &g)
{
	uint64_t io = 0, agg = 0, min_bw = UINT64_MAX, max_bw = 0, min_run = UINT64_MAX, max_run = 0;

	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		if (!g.max_run[d])
			continue;
		io += g.iobytes[d];
		agg += g.agg[d];
		min_bw = std::min(min_bw, g.min_bw[d]);
		max_bw = std::max(max_bw, g.max_bw[d]);
		min_run = std::min(min_run, g.min_run[d]);
		max_run = std::max(max_run, g.max_run[d]);
	}
	group_line(out, g, "  MIXED", agg, min_bw, max_bw, io, min_run, max_run);
}

void write_group(std::ostream &out, const group_stat &g)
{
	static const char *const label[] = { "   READ", "  WRITE", "   TRIM" };

	out << strf("\nRun status group %u (all jobs):\n", g.groupid);
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (g.max_run[d])
			group_line(out, g, g.unified == PLAN_UNIFIED_MIXED ? "  MIXED" : label[d],
				   g.agg[d], g.min_bw[d], g.max_bw[d], g.iobytes[d], g.min_run[d],
				   g.max_run[d]);
	if (g.unified == PLAN_UNIFIED_BOTH)
		mixed_group_line(out, g);
}

void write_disks(std::ostream &out, const results &r)
{
	if (!r.nr_disks)
		return;
	out << "\nDisk stats (read/write):\n";
	for (uint32_t i = 0; i < r.nr_disks; i++) {
		const res_disk &d = r.disks[i];
		out << strf("  %.*s: ios=%llu/%llu, merge=%llu/%llu, ticks=%llu/%llu, in_queue=%llu, "
			    "util=%3.2f%%\n",
			    (int)strnlen(d.name, sizeof(d.name)), d.name,
			    (unsigned long long)d.read_ios, (unsigned long long)d.write_ios,
			    (unsigned long long)d.read_merges, (unsigned long long)d.write_merges,
			    (unsigned long long)d.read_ticks_ms, (unsigned long long)d.write_ticks_ms,
			    (unsigned long long)d.in_queue_ms, disk_util_pct(d));
	}
}

// fio's "Starting 2 threads and 1 process": its clones are processes unless
// the job sets thread= (ioplan runs threads either way); under mpirun every
// rank's (nranks), as fio's client counts the jobs of all its servers.
std::string starting_line(const plan &p, uint32_t nranks)
{
	uint32_t threads = 0, procs = 0;
	for (uint32_t i = 0; i < p.nr_jobs; i++)
		if (const plan_job *j = plan_job_at(&p, i))
			(j->thread ? threads : procs) += j->nr_clones * std::max(nranks, 1u);
	std::string s = "Starting ";
	if (threads)
		s += strf("%u thread%s", threads, threads > 1 ? "s" : "");
	if (procs)
		s += strf("%s%u process%s", threads ? " and " : "", procs, procs > 1 ? "es" : "");
	return s + "\n";
}

} // namespace

std::string fio_ignored_line(const res_msg &m, const plan &p)
{
	static const std::string tail = " may be ignored";
	if (!m.code || std::strcmp(m.code, "file-ignored") != 0 || !m.text || m.job_id < 0)
		return "";
	const plan_job *j = plan_job_at(&p, (uint32_t)m.job_id);
	std::string text = m.text, head = std::string("job '") + (j && j->name ? j->name : "") + "': ";
	size_t end = text.rfind(tail);
	if (text.compare(0, head.size(), head) != 0 || end == std::string::npos || end < head.size())
		return "";
	return "fio: " + text.substr(head.size(), end + tail.size() - head.size()) + "\n";
}

void write_fio_ignored(std::ostream &out, const results &r, const plan &p)
{
	for (uint32_t i = 0; i < r.nr_msgs; i++)
		out << fio_ignored_line(r.msgs[i], p);
}

// fio's notes as its threads start (fio-note messages), after the Starting line, as fio prints them.
// fio's jobs print them from their own process (thread=1: a thread of fio's), into a copy of the
// output's stdio buffer: onto stdout they come out, but into an --output file only a thread's
// do, the processes' buffers being lost as they exit; threads_only leaves the others out so.
void write_fio_notes(std::ostream &out, const results &r, const plan &p, bool threads_only)
{
	for (uint32_t i = 0; i < r.nr_msgs; i++) {
		const res_msg &m = r.msgs[i];
		if (!m.code || std::strcmp(m.code, "fio-note") != 0 || !m.text)
			continue;
		const plan_job *j = m.job_id >= 0 ? plan_job_at(&p, (uint32_t)m.job_id) : nullptr;
		if (!threads_only || (j && j->thread))
			out << m.text << '\n';
	}
}

std::string job_banner(const plan_job &j)
{
	return banner_line(j);
}

void write_banner(const plan &p, std::ostream &out, personality who, const fio_said &said, uint32_t nranks)
{
	for (uint32_t i = 0; i <= p.nr_jobs; i++) {
		if (i < said.before.size())
			out << said.before[i];
		const plan_job *j = plan_job_at(&p, i);
		if (j && !(i < said.no_banner.size() && said.no_banner[i]))
			out << banner_line(*j);
	}
	out << version_string(who) << '\n';
	out << starting_line(p, nranks);
}

void write_normal_opening(std::ostream &out, const results &r, const plan &p, const options &o)
{
	if (!o.banner_written)
		write_banner(p, out, o.who, o.said, r.world ? r.world->nranks : 1);
	if (o.notes_written)
		return;
	if (!o.notes_text.empty())
		out << o.notes_text;
	else
		write_opening_notes(out, r, p, o.who, o.fio_output_file);
}

void write_opening_notes(std::ostream &out, const results &r, const plan &p, personality who,
			 bool fio_output_file)
{
	write_layout_lines(out, r, p, who);
	write_fio_notes(out, r, p, fio_output_file);
}

void write_normal(std::ostream &out, const model &m, const results &r, const plan &p,
		  const options &o)
{
	if (o.banner)
		write_normal_opening(out, r, p, o);
	if (o.who == personality::fio)
		for (const std::string &s : m.fio_base_notes)
			out << s;
	out << '\n';
	for (const entry &e : m.entries)
		write_entry(out, e, m, o);
	for (const group_stat &g : m.groups)
		write_group(out, g);
	write_disks(out, r);
	write_normal_ranks(out, r);
	write_idleness(out, r.idle);
	write_normal_messages(out, r, p, o.who);
}

} // namespace report

// report/diskspd/diskspd_profile.cpp - DISKSPD's "Input parameters:" section, read
// back from the plan (so it shows what will run, not what was typed), and
// the -Rp profile-only output.
#include "report/diskspd/diskspd_model.hpp"

#include <set>
#include <sstream>

namespace report::diskspd {

namespace {

uint64_t secs(uint64_t ns) { return ns / 1000000000u; }

uint32_t write_pct(const plan_job &j)
{
	bool r = plan_rw_has_ddir(j.rw, PLAN_DDIR_READ), w = plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE);
	if (!w)
		return 0;
	if (!r)
		return 100;
	return 100 - j.rwmixread_pct;
}

uint64_t block_bytes(const plan_job &j)
{
	return write_pct(j) == 100 ? j.bs[PLAN_DDIR_WRITE].min_bytes : j.bs[PLAN_DDIR_READ].min_bytes;
}

void cache_lines(std::ostream &out, const plan_job &j)
{
	out << (j.direct ? "\t\tsoftware cache disabled\n" : "\t\tusing software cache\n");
	if (j.sync_mode == PLAN_SYNC_NONE)
		out << "\t\tusing hardware write cache, writethrough off\n";
	else if (j.direct)
		out << "\t\thardware write cache disabled, writethrough on\n";
	else
		out << "\t\thardware and software write caches disabled, writethrough on\n";
	if (j.buffer_fill == PLAN_BUF_ZERO)
		out << "\t\tzeroing write buffers\n";
	if (j.buffer_fill == PLAN_BUF_RANDOM_ONCE && j.write_source_bytes) {
		out << "\t\twrite buffer size: " << display_size(j.write_source_bytes) << "\n";
		out << "\t\twrite buffer source: random fill\n";
	}
}

void pattern_lines(std::ostream &out, const plan_job &j)
{
	uint32_t w = write_pct(j);
	if (w == 0)
		out << "\t\tperforming read test\n";
	else if (w == 100)
		out << "\t\tperforming write test\n";
	else
		out << "\t\tperforming mix test (read/write ratio: " << 100 - w << "/" << w << ")\n";
	uint64_t bs = block_bytes(j);
	out << "\t\tblock size: " << display_size(bs) << "\n";
	uint32_t pct = j.percentage_random_pct[PLAN_DDIR_READ];
	if (plan_rw_is_random(j.rw)) {
		uint64_t align = j.bs[PLAN_DDIR_READ].align_bytes ? j.bs[PLAN_DDIR_READ].align_bytes : bs;
		if (pct > 0 && pct < 100)
			out << "\t\tusing mixed random/sequential I/O (" << pct
			    << "% random) (alignment/stride: ";
		else
			out << "\t\tusing random I/O (alignment: ";
		out << display_size(align) << ")\n";
	} else {
		uint64_t stride = j.sequential_stride_bytes ? j.sequential_stride_bytes : bs;
		out << "\t\tusing" << (j.interlocked ? " interlocked" : "") << " sequential I/O (stride: "
		    << display_size(stride) << ")\n";
	}
}

void region_lines(std::ostream &out, const plan_job &j, const plan_file &f, const options &o)
{
	out << "\t\tnumber of outstanding I/O operations per thread: " << j.iodepth << "\n";
	if (j.offset_bytes)
		out << "\t\tbase file offset: " << display_size(j.offset_bytes) << "\n";
	if (uint64_t max = max_file_bytes(j, f, o))
		out << "\t\tmax file size: " << display_size(max) << "\n";
	if (j.offset_increment_bytes)
		out << "\t\tthread stride size: " << display_size(j.offset_increment_bytes) << "\n";
	// -fs, -fr: the hint the job gives (a line's translation states none without them)
	if (j.fadvise_hint == PLAN_FADVISE_SEQUENTIAL)
		out << "\t\tusing FILE_FLAG_SEQUENTIAL_SCAN hint\n";
	if (j.fadvise_hint == PLAN_FADVISE_RANDOM)
		out << "\t\tusing FILE_FLAG_RANDOM_ACCESS hint\n";
}

void engine_lines(std::ostream &out, const plan_job &j, bool one_file)
{
	if (one_file)
		out << "\t\tthreads per file: " << j.nr_clones << "\n";
	if (j.iodepth > 1 && one_file)
		out << "\t\tusing " << plan_ioengine_name(j.ioengine) << "\n";
	out << "\t\tIO priority: normal\n";
	throughput_limit t = throughput_of(j);
	if (t.iops)
		out << "\t\tthroughput rate-limited to " << t.iops << " IOPS\n";
	else if (t.bytes_per_s)
		out << "\t\tthroughput rate-limited to " << t.bytes_per_s / 1000 << " B/ms\n";
}

// "IO Distribution:", the -rd ranges as stated (DISKSPD's _PrintDistribution).
void distribution_lines(std::ostream &out, const options &o)
{
	char line[96];
	uint64_t at = 0;
	if (o.distribution.empty())
		return;
	out << "\t\tIO Distribution:\n";
	for (const io_range &r : o.distribution) {
		if (!o.distribution_abs) {
			snprintf(line, sizeof(line), "\t\t   %3u%% of IO => [%2llu%% - %3llu%%) of target\n", r.io_pct,
				 (unsigned long long)at, (unsigned long long)(at + r.span));
			out << line;
		} else {
			snprintf(line, sizeof(line), "\t\t   %3u%% of IO => [", r.io_pct);
			out << line << (at ? display_size(at, 6) : "     0   ") << " - "
			    << (r.span ? display_size(at + r.span, 6) + ")" : "      end)") << "\n";
		}
		at += r.span;
	}
}

void target_block(std::ostream &out, const plan_job &j, const plan_file &f, bool one_file, const options &o)
{
	out << "\tpath: '" << (f.path ? f.path : "") << "'\n";
	out << "\t\tthink time: " << j.thinktime_ns / 1000000u << "ms\n";
	out << "\t\tburst size: " << (j.thinktime_ns ? j.thinktime_blocks : 0) << "\n";
	cache_lines(out, j);
	pattern_lines(out, j);
	region_lines(out, j, f, o);
	engine_lines(out, j, one_file && !o.total_threads);
	distribution_lines(out, o);
}

void timespan_lines(std::ostream &out, const plan &p, const options &o)
{
	const plan_job *j0 = plan_job_at(&p, 0);
	out << "\ttimespan:   1\n\t-------------\n";
	out << "\tduration: " << (j0 ? secs(j0->runtime_ns) : 0) << "s\n";
	out << "\twarm up time: " << (j0 ? secs(j0->ramp_time_ns) : 0) << "s\n";
	out << "\tcool down time: " << (j0 ? secs(j0->cooldown_ns) : 0) << "s\n";
	if (o.disable_affinity)
		out << "\taffinity disabled\n";
	if (o.measure_latency)
		out << "\tmeasuring latency\n";
	if (o.iops_stddev)
		out << "\tgathering IOPS at intervals of " << o.iops_interval_ms << "ms\n";
	out << "\trandom seed: " << first_seed(p) << "\n";
	if (o.total_threads)	/* -F: targets are shared by a pool; -O (its requests) is refused */
		out << "\tthread pool with " << o.total_threads << " threads\n"
		    << "\tnumber of outstanding I/O operations per thread: 0\n";
	for (size_t i = 0; i < o.affinity.size(); i++)
		out << (i ? ", " : "\tadvanced affinity round robin (group/core): ") << "0/" << o.affinity[i]
		    << (i + 1 == o.affinity.size() ? "\n" : "");
	/* -Zr: random content made for each write.  A mix writing the counting pattern
	 * refills it per write too (refill_buffers), but its content is no random data. */
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job *j = plan_job_at(&p, i);

		if (j->refill_buffers && j->buffer_fill == PLAN_BUF_RANDOM) {
			out << "\tgenerating random data for each write IO\n"
			       "\t  WARNING: this increases the CPU cost of issuing writes and should only\n"
			       "\t           be compared to other results using the -Zr flag\n";
			break;
		}
	}
}

} // namespace

uint64_t first_seed(const plan &p)
{
	const plan_job *j = plan_job_at(&p, 0);
	return j ? j->randseed : 0;
}

void write_parameters(std::ostream &out, const plan &p, const options &o)
{
	out << "Input parameters:\n\n";
	if (o.verbose)
		out << "\tusing verbose mode\n";
	timespan_lines(out, p, o);
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		if (!j.nr_clones)
			continue;
		const plan_clone &c = j.clones[0];
		std::set<std::string> seen;
		for (uint32_t f = 0; f < c.nr_files; f++)
			if (seen.insert(c.files[f].path ? c.files[f].path : "").second)
				target_block(out, j, c.files[f], c.nr_files == 1, o);
	}
	out << "\n";
}

void write_profile(const plan &p, const options &o, std::ostream &out)
{
	out << "\nCommand Line: " << o.command_line << "\n\n";
	write_parameters(out, p, o);
}

} // namespace report::diskspd

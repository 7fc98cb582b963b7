// parser/diskspd/diskspd_ini.cpp - writes a read DISKSPD command line as job text.
//
// fio's option names wherever fio has the concept, so the text is a job file a
// fio user can read (and, minus the options the table marks ioplan_only, one fio accepts); the
// few DISKSPD ideas fio lacks use ioplan's own options.  Everything the
// command line applies to every target goes in [global]; each target (with
// -t) is one job section, so its threads are that job's clones.
#include "parser/diskspd/diskspd_impl.hpp"

#include <cstdio>
#include <sstream>

namespace parser::diskspd {

namespace {

// fio separates several files in filename= with ':', so a literal one is escaped.
std::string escape_filename(const std::string &p)
{
	std::string out;
	for (char c : p) {
		if (c == ':')
			out += '\\';
		out += c;
	}
	return out;
}

// DISKSPD's default write content: the bytes 0, 1, ... 255 over and over.
std::string counting_pattern()
{
	std::string s = "0x";
	char b[3];
	for (int i = 0; i < 256; i++) {
		snprintf(b, sizeof(b), "%02x", i);
		s += b;
	}
	return s;
}

const char *rw_name(const facts &f)
{
	bool mixed = f.write_pct > 0 && f.write_pct < 100;
	if (f.random)
		return mixed ? "randrw" : f.write_pct == 100 ? "randwrite" : "randread";
	return mixed ? "rw" : f.write_pct == 100 ? "write" : "read";
}

// A per-thread limit as fio's read,write pair: DISKSPD limits the sum, fio
// each direction, so a mixed job's limit is split by the write percentage.
std::string split_rate(uint64_t total, uint32_t write_pct)
{
	if (write_pct == 0)
		return std::to_string(total);
	uint64_t w = total * write_pct / 100;
	return std::to_string(total - w) + "," + std::to_string(w);
}

// Bytes of the I/O region of one target; 0 when the file's own size decides.
uint64_t region_bytes(const state &s)
{
	const facts &f = s.info;
	uint64_t end = s.max_given ? f.max_bytes : s.create_bytes;
	return end > f.base_bytes ? end - f.base_bytes : 0;
}

// The -rdabs remainder is written in bytes where the line gives the region's
// size (so fio reads the text too), else blank: the engine finds the rest of
// each file's region when it opens it, as DISKSPD does.
std::string distribution(const state &s)
{
	std::ostringstream o;
	o << (s.rd_abs ? "zoned_abs:" : "zoned:");
	uint64_t used = 0;
	for (size_t i = 0; i < s.rd.size(); i++) {
		uint64_t span = s.rd[i].span;
		if (span == 0)
			span = region_bytes(s) > used ? region_bytes(s) - used : 0;
		used += span;
		o << (i ? ":" : "") << s.rd[i].io_pct << "/";
		if (span)
			o << span;
	}
	return o.str();
}

void pattern_lines(std::ostream &o, const state &s)
{
	const facts &f = s.info;
	if (f.random) {
		if (f.random_pct < 100)
			o << "percentage_random=" << f.random_pct << "\n";
		// DISKSPD draws every offset independently: no coverage map.
		o << "norandommap=1\n";
		if (f.align_bytes != f.block_bytes)
			o << "blockalign=" << f.align_bytes << "\n";
		if (!s.rd.empty()) {
			o << "random_distribution=" << distribution(s) << "\n";
			o << "zoned_ranges=diskspd\n";	// DISKSPD's effective distribution, not fio's zones
		}
	} else if (f.align_bytes != f.block_bytes) {
		o << "sequential_stride=" << f.align_bytes << "\n";
	}
	const bool multi = f.total_threads > 1 || f.threads_per_target > 1;
	if (f.interlocked && multi)
		o << "interlocked=1\n";
	if (f.thread_stride_bytes)
		o << "offset_increment=" << f.thread_stride_bytes << "\n";
	if (s.parallel && !f.random && f.outstanding > 1)
		o << "sequential_parallel=1\n";
}

// A thread stride (-T) moves each thread's start (offset_increment=), which with
// size= alone would move its region's end past the file -c makes: DISKSPD's
// threads stay in the target, so the file's size is stated (filesize=) and the
// file is made as -c says, never larger.
void region_lines(std::ostream &o, const state &s)
{
	const facts &f = s.info;
	const uint64_t files = f.total_threads ? f.targets.size() : 1;
	if (f.base_bytes == 0 && !s.max_given && !f.thread_stride_bytes) {
		if (s.create_bytes)
			o << "size=" << s.create_bytes * files << "\n";
		return;
	}
	if (s.create_bytes)
		o << "filesize=" << s.create_bytes << "\n";
	if (f.base_bytes)
		o << "offset=" << f.base_bytes << "\n";
	if (region_bytes(s))
		o << "size=" << region_bytes(s) * files << "\n";
}

void buffer_lines(std::ostream &o, const state &s)
{
	const facts &f = s.info;
	if (f.zero_buffers) {
		o << "zero_buffers=1\n";
	} else if (f.random_per_write) {
		o << "refill_buffers=1\n";
	} else if (f.write_source_bytes) {
		o << "buffer_fill=random_once\n";
		o << "write_source_size=" << f.write_source_bytes << "\n";
	} else if (f.write_pct > 0 || s.create_bytes) {
		o << "buffer_pattern=" << counting_pattern() << "\n";
	}
}

void rate_lines(std::ostream &o, const facts &f)
{
	if (f.throughput_bytes_per_ms)
		o << "rate=" << split_rate(f.throughput_bytes_per_ms * 1000, f.write_pct) << "\n";
	if (f.throughput_iops)
		o << "rate_iops=" << split_rate(f.throughput_iops, f.write_pct) << "\n";
	if (f.burst) {
		o << "thinktime=" << f.think_ms << "ms\n";
		o << "thinktime_blocks=" << f.burst << "\n";
	}
}

void global_section(std::ostream &o, const state &s)
{
	const facts &f = s.info;
	o << "[global]\n";
	o << "ioengine=io_uring\n";
	o << "thread=1\n";
	o << "group_reporting=1\n";
	o << "time_based=1\n";
	o << "runtime=" << f.duration_s << "s\n";
	o << "ramp_time=" << f.warmup_s << "s\n";
	if (f.cooldown_s)
		o << "cooldown=" << f.cooldown_s << "s\n";
	o << "bs=" << f.block_bytes << "\n";
	o << "rw=" << rw_name(f) << "\n";
	if (f.write_pct > 0 && f.write_pct < 100)
		o << "rwmixwrite=" << f.write_pct << "\n";
	pattern_lines(o, s);
	region_lines(o, s);
	if (f.unbuffered)
		o << "direct=1\n";
	if (f.write_through)
		o << "sync=dsync\n";
	// Without -fr or -fs DISKSPD gives no access hint; fio's default
	// (fadvise_hint=1) would advise random or sequential from rw=.
	o << "fadvise_hint=" << (s.fadvise.empty() ? "0" : s.fadvise) << "\n";
	if (f.iops_stddev) {	// -D: its interval, and the report's IopsStdDev column
		o << "iopsavgtime=" << f.iops_interval_ms << "\n";
		o << "diskspd_iops_stddev=1\n";
	}
	if (f.measure_latency)	// keep a histogram of total (issue to completion) latency
		o << "lat_percentiles=1\n";
	else	// no -L: the report shows no latency (a job file's shows it by default)
		o << "diskspd_latency=0\n";
	rate_lines(o, f);
	buffer_lines(o, s);
	if (!f.affinity.empty()) {
		// DISKSPD places thread i on the i-th CPU of the list, round robin.
		o << "cpus_allowed=";
		for (size_t i = 0; i < f.affinity.size(); i++)
			o << (i ? "," : "") << f.affinity[i];
		o << "\n";
		o << "cpus_allowed_policy=split\n";
	}
}

// -t: one job per target, t clones each; DISKSPD numbers the threads target
// by target, and seeds thread i with seed + i (see diskspd.hpp).
void per_target_jobs(std::ostream &o, const facts &f)
{
	for (size_t i = 0; i < f.targets.size(); i++) {
		o << "\n[target" << i + 1 << "]\n";
		o << "filename=" << escape_filename(f.targets[i].path) << "\n";
		o << "numjobs=" << f.threads_per_target << "\n";
		o << "iodepth=" << f.outstanding << "\n";
		o << "randseed=" << f.seed + (uint64_t)i * f.threads_per_target << "\n";
	}
}

// -F: every thread works on every target, -o I/Os in flight on each.
void shared_job(std::ostream &o, const facts &f)
{
	o << "\n[threads]\n";
	o << "filename=";
	for (size_t i = 0; i < f.targets.size(); i++)
		o << (i ? ":" : "") << escape_filename(f.targets[i].path);
	o << "\n";
	if (f.targets.size() > 1)
		o << "file_service_type=roundrobin\n";
	o << "numjobs=" << f.total_threads << "\n";
	o << "iodepth=" << (uint64_t)f.outstanding * f.targets.size() << "\n";
	o << "randseed=" << f.seed << "\n";
}

} // namespace

std::string write_ini(const state &s)
{
	std::ostringstream o;
	o << "; translated from DISKSPD by ioplan:\n";
	std::string line = s.info.command_line;
	for (char &c : line)
		if (c == '\n' || c == '\r')
			c = ' ';
	o << "; " << line << "\n";
	global_section(o, s);
	if (s.info.total_threads)
		shared_job(o, s.info);
	else
		per_target_jobs(o, s.info);
	return o.str();
}

} // namespace parser::diskspd

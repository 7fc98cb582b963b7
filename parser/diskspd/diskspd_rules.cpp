// parser/diskspd/diskspd_rules.cpp - the DISKSPD flags with sub-letters (-s, -S, -Z,
// -R, -z, -rd) and DISKSPD 2.2's whole-profile conflict rules, checked once
// every flag is read so messages do not depend on argument order.
#include "parser/diskspd/diskspd_impl.hpp"

namespace parser::diskspd {

void state::opt_s(const std::string &v)
{
	if (s_given) {
		error("-s: sequential I/O given more than once");
		return;
	}
	s_given = true;
	std::string rest = v;
	if (!rest.empty() && rest[0] == 'i') {
		info.interlocked = true;
		rest = rest.substr(1);
	}
	if (!rest.empty() && size_arg("-s", rest, &info.align_bytes)) {
		stride_given = true;
		if (info.align_bytes == 0)
			error("-s: the stride must be at least 1 byte");
	}
}

// DISKSPD's caching letters (Windows: b u w h m r) and diskspd for Linux's
// (d = O_DIRECT, s = O_SYNC, h = both), each as its own tool means it.
void state::opt_S(const std::string &v)
{
	const std::string flag = "-S" + v;
	if (v.empty()) {
		opt_S("u");	// -S alone is -Su: no OS cache, no write-through
		return;
	}
	for (char c : v) {
		bool cache = c == 'b' || c == 'u' || c == 'h' || c == 'd';
		bool wt = c == 'w' || c == 'h' || c == 's';
		if (c == 'm') {
			error(flag + ": memory-mapped I/O is not supported (fio's ioengine=mmap is "
			      "the Linux analogue)");
			continue;
		}
		if (c == 'r') {
			// Windows: the SMB client's cache off, ignored on a local volume.
			warn(flag + ": turns off a Windows SMB client's cache; Linux has no such "
			     "switch, so it changes nothing here (-Su is O_DIRECT; an NFS or SMB "
			     "mount's cache is set when it is mounted)");
			continue;
		}
		if (!cache && !wt) {
			error(flag + ": unknown caching letter '" + std::string(1, c) +
			      "' (use b, u, w, h or r; diskspd for Linux's d and s)");
			continue;
		}
		if ((cache && cache_given) || (wt && wt_given)) {
			error(flag + ": conflicts with an earlier caching flag (-S, -Sb, -Su, -Sd, -Sw, "
			      "-Ss, -Sh or -h)");
			continue;
		}
		cache_given = cache_given || cache;
		wt_given = wt_given || wt;
		if (c == 'u' || c == 'h' || c == 'd')
			info.unbuffered = true;
		if (wt)
			info.write_through = true;
	}
}

void state::opt_Z(const std::string &v)
{
	if (v.empty()) {
		info.zero_buffers = true;
		return;
	}
	if (v == "r") {
		info.random_per_write = true;
		return;
	}
	size_t comma = v.find(',');
	if (comma != std::string::npos) {
		error("-Z" + v + ": a write source file is not supported; -Z<size> alone fills "
		      "the source with random data");
		return;
	}
	uint64_t n;
	if (size_arg("-Z", v, &n)) {
		if (n == 0)
			error("-Z: the write source size must be at least 1 byte");
		info.write_source_bytes = n;
	}
}

void state::opt_R(const std::string &v)
{
	std::string f = v;
	if (!f.empty() && f[0] == 'p') {
		info.profile_only = true;
		f = f.substr(1);
	}
	if (f == "text")
		info.format = result_format::text;
	else if (f == "xml")
		info.format = result_format::xml;
	else
		error("-R" + v + ": unknown result format (use -Rtext, -Rxml, -Rptext or -Rpxml)");
}

void state::opt_z(const std::string &v)
{
	if (v.empty()) {
		// DISKSPD seeds from the system's uptime; so does this, so the run is
		// reproducible from the seed the report prints.
		seed_from_uptime = true;
		info.seed = uptime_ms() & UINT32_MAX;
		return;
	}
	uint64_t n;
	if (uint_arg("-z", v, UINT32_MAX, &n))
		info.seed = n;
}

void state::opt_rd(const std::string &v)
{
	const std::string flag = "-rd" + v;
	if (v.compare(0, 3, "pct") != 0 && v.compare(0, 3, "abs") != 0) {
		error(flag + ": unknown distribution (use -rdpct<IO%>/<target%>:... or "
		      "-rdabs<IO%>/<size>:...)");
		return;
	}
	rd_abs = v[0] == 'a';
	uint32_t io_acc = 0;
	uint64_t span_acc = 0;
	for (size_t pos = 3; pos <= v.size();) {
		size_t colon = v.find(':', pos);
		std::string item = v.substr(pos, colon == std::string::npos ? colon : colon - pos);
		size_t slash = item.find('/');
		uint64_t io, span;
		if (slash == std::string::npos) {
			error(flag + ": expected <IO%>/<" + (rd_abs ? "size" : "target%") + "> in '" +
			      item + "'");
			return;
		}
		if (!uint_arg("-rd", item.substr(0, slash), 100 - io_acc, &io))
			return;
		if (rd_abs ? !size_arg("-rd", item.substr(slash + 1), &span)
			   : !uint_arg("-rd", item.substr(slash + 1), 100 - span_acc, &span))
			return;
		if (span == 0) {
			error(flag + ": a range of the target cannot be empty");
			return;
		}
		if (rd_abs && span < info.block_bytes) {	// DISKSPD's rule: a range holds a block
			error(flag + ": the range of " + std::to_string(span) + " bytes is smaller than the block "
			      "size (-b: " + std::to_string(info.block_bytes) + " bytes)");
			return;
		}
		rd.push_back({ (uint32_t)io, span });
		io_acc += (uint32_t)io;
		span_acc += span;
		if (colon == std::string::npos)
			break;
		pos = colon + 1;
	}
	if (!rd_abs && span_acc == 100 && io_acc < 100)
		error(flag + ": the target is covered with " + std::to_string(100 - io_acc) +
		      "% of the I/O left to place");
	else if (io_acc < 100 && (rd_abs || span_acc < 100))
		rd.push_back({ 100 - io_acc, rd_abs ? 0 : 100 - span_acc });	// the rest
}

// -rdabs ranges that run past the end of a target whose size the line gives:
// DISKSPD cuts them when it opens the target, drops those past its end and
// counts the I/O shares of the rest out of their sum.  So does the run; the
// line said otherwise, so the warning names the sizes.
void state::check_abs_ranges()
{
	uint64_t end = max_given ? info.max_bytes : create_bytes, used = 0;
	if (!rd_abs || !end || end <= info.base_bytes)
		return;
	uint64_t range = end - info.base_bytes;
	for (const dist_range &r : rd)
		used += r.span;
	const std::string as_diskspd = " (-c or -f, less -B): as DISKSPD, the ranges are cut at its end "
				       "and those past it dropped with their share of the I/O (see \"Effective IO "
				       "Distributions\" in the results)";
	if (used > range)
		warn("-rd: the -rdabs ranges cover " + std::to_string(used) + " bytes, more than the " +
		     std::to_string(range) + " bytes of the target range" + as_diskspd);
	else if (!rd.empty() && rd.back().span == 0 && rd.back().io_pct && used == range)
		warn("-rd: the -rdabs ranges cover the whole target range, leaving none for the last " +
		     std::to_string(rd.back().io_pct) + "% of the I/O" + as_diskspd);
}

void state::validate()
{
	const bool multi = info.total_threads > 1 || info.threads_per_target > 1;
	if (info.total_threads > 0 && info.threads_per_target > 1)
		error("-F and -t cannot be used together (-F: threads in all, each on every target; "
		      "-t: threads per target)");
	if (info.disable_affinity && !info.affinity.empty())
		error("-n and -a cannot be used together");
	if ((info.throughput_bytes_per_ms || info.throughput_iops) && completion_routines)
		error("-g cannot be used with -x");
	if ((info.burst == 0) != (info.think_ms == 0))
		error("-i and -j must be given together (-i<I/Os per burst> -j<ms between bursts>)");
	if (s_given && info.random && !info.interlocked)
		error("-s conflicts with -r/-rs: an access pattern is sequential or random");
	if (info.random && T_given)
		error("-T conflicts with -r: a thread stride only applies to sequential I/O");
	if (info.random && info.interlocked)
		error("-si conflicts with -r: interlocked sequential I/O cannot be random");
	if (info.random && parallel)
		error("-p conflicts with -r");
	if (!rd.empty() && !info.random)
		error("-rd: a random distribution needs random I/O (-r or -rs)");
	if (info.interlocked && T_given)
		error("-si conflicts with -T: threads either share one stream (-si) or start "
		      "apart (-T)");
	if (info.interlocked && parallel)
		error("-si conflicts with -p");
	if (!info.random && !info.interlocked && T_given && !multi)
		error("-T has no effect unless several threads share a target (-t2 or more, or -F)");
	if (parallel && info.outstanding == 1)
		warn("-p has no effect unless -o is more than 1");
	if (info.interlocked && !multi)
		warn("-si: single-threaded test, -si ignored");
	if (!info.random && !info.interlocked && multi && !T_given)
		warn("several threads read the same offsets: the access pattern will not be "
		     "sequential (consider -si, or -T)");
	if (info.write_source_bytes && info.write_source_bytes < info.block_bytes)
		error("-Z" + std::to_string(info.write_source_bytes) + ": the write source is "
		      "smaller than the block size (" + std::to_string(info.block_bytes) + ")");
	if (max_given && info.max_bytes <= info.base_bytes)
		error("-f: the end of the target range must be beyond the base offset (-B)");
	else if (max_given && info.max_bytes - info.base_bytes < info.block_bytes)
		error("-f: the target range (" + std::to_string(info.max_bytes - info.base_bytes) +
		      " bytes) is smaller than one block (-b: " + std::to_string(info.block_bytes) + " bytes)");
	if (create_bytes && create_bytes < info.block_bytes)
		error("-c: the file (" + std::to_string(create_bytes) + " bytes) is smaller than one block (-b: " +
		      std::to_string(info.block_bytes) + " bytes)");
	else if (create_bytes && info.random && create_bytes < info.align_bytes)
		error("-c: the file (" + std::to_string(create_bytes) + " bytes) is smaller than one step of "
		      "random alignment (-r: " + std::to_string(info.align_bytes) + " bytes)");
	else if (create_bytes && info.base_bytes && info.base_bytes + info.block_bytes > create_bytes)
		error("-B: the base offset (" + std::to_string(info.base_bytes) + " bytes) leaves no whole block "
		      "(-b: " + std::to_string(info.block_bytes) + " bytes) in the file (-c: " +
		      std::to_string(create_bytes) + " bytes)");
	if (info.zero_buffers + info.random_per_write + (info.write_source_bytes > 0) > 1)
		error("-Z, -Zr and -Z<size> choose the write content; give only one");
}

} // namespace parser::diskspd

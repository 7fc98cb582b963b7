// parser/diskspd/diskspd_options.cpp - the dispatch from a DISKSPD flag to its handler,
// and the handlers of the flags that take one plain value (-a, -B, -f, -g, -r,
// ...).  Flags with sub-letters and DISKSPD 2.2's whole-profile conflict rules
// are in diskspd_rules.cpp.
#include "parser/diskspd/diskspd_impl.hpp"
#include "parser/options.hpp"

#include <cctype>
#include <cstdlib>

namespace parser::diskspd {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The most a flag may give: the top of the range of the job option it
// becomes (parser/options.cpp), in the flag's unit (per: the option's units
// in one of the flag's).  DISKSPD takes up to 2^32 - 1; past the option's
// range the translated job was refused in its own terms, "<diskspd>:18:9:
// error: iodepth=99999999 is out of range", naming no flag the user gave.
uint64_t job_max(const char *name, double per = 1)
{
	const option *o = find_option(name);
	double most = o && o->min <= o->max ? o->max / per : (double)UINT32_MAX;
	return most < (double)UINT32_MAX ? (uint64_t)most : UINT32_MAX;
}

} // namespace

// -W and -C: DISKSPD reads the value with atoi, so a bare -W or -C is 0 seconds.
bool state::seconds(const std::string &flag, const std::string &v, uint32_t *out, const char *job_option)
{
	uint64_t n;
	if (v.empty()) {
		*out = 0;
		return true;
	}
	if (!uint_arg(flag, v, job_max(job_option), &n))
		return false;
	*out = (uint32_t)n;
	return true;
}

// A flag that takes no value: true, after complaining about any value given.
bool state::no_value(const std::string &a)
{
	if (a.size() > 2)
		error(a + ": " + a.substr(0, 2) + " takes no value");
	return true;
}

void state::option(const std::string &a)
{
	const char c = a[1];
	const std::string v = a.substr(2);
	uint64_t n;

	switch (c) {
	case 'a': opt_a(v); break;
	case 'b': break;	// read by prescan
	case 'B': opt_B(v); break;
	case 'c':
		if (size_arg("-c", v, &n))
			create_bytes = n;
		break;
	case 'C': seconds("-C", v, &info.cooldown_s, "cooldown"); break;
	case 'd':
		// -d0 would be a job without end (runtime=0 is "no limit"): the range
		// starts at 1, and a 0 says why.
		count_arg("-d", v, &info.duration_s, job_max("runtime"),
			  "-d" + v + ": the measured duration must be at least 1 second");
		break;
	case 'W': seconds("-W", v, &info.warmup_s, "ramp_time"); break;
	case 'D':
		info.iops_stddev = true;
		// -D0 is -D, as DISKSPD keeps its 1000 ms unless the interval is above 0.
		if (!v.empty() && uint_arg("-D", v, job_max("iopsavgtime"), &n) && n)
			info.iops_interval_ms = (uint32_t)n;
		break;
	case 'f': opt_f(v); break;
	case 'F':
		count_arg("-F", v, &info.total_threads, job_max("numjobs"));
		break;
	case 'g': opt_g(v); break;
	case 'h':
		if (!v.empty())
			error(a + ": -h takes no value (it is the deprecated spelling of -Sh)");
		else
			opt_S("h");
		break;
	case 'i':
		if (uint_arg("-i", v, UINT32_MAX, &n))
			info.burst = (uint32_t)n;
		break;
	case 'j':
		if (uint_arg("-j", v, job_max("thinktime", 1000), &n))	/* ms, thinktime's us */
			info.think_ms = (uint32_t)n;
		break;
	case 'L': info.measure_latency = no_value(a); break;
	case 'n': info.disable_affinity = no_value(a); break;
	case 'o': count_arg("-o", v, &info.outstanding, job_max("iodepth")); break;
	case 'p': parallel = no_value(a); break;
	case 'r': opt_r(v); break;
	case 'R': opt_R(v); break;
	case 's': opt_s(v); break;
	case 'S': opt_S(v); break;
	case 't':
		t_given = true;
		count_arg("-t", v, &info.threads_per_target, job_max("numjobs"));
		break;
	case 'T':
		T_given = true;
		size_arg("-T", v, &info.thread_stride_bytes);
		break;
	case 'v':
		info.verbose = true;
		if (v == "s")
			warn("-vs: wait statistics are Windows kernel counters; ioplan prints none");
		else if (!v.empty())
			error(a + ": unknown verbose mode (use -v)");
		break;
	case 'w':
		if (v.empty())
			error("-w: missing write percentage (use -w0 to -w100)");
		else if (uint_arg("-w", v, 100, &n))
			info.write_pct = (uint32_t)n;
		break;
	case 'x':
		completion_routines = true;
		warn("-x: completion routines are a Windows I/O model; ioplan issues "
		     "asynchronous I/O through io_uring either way");
		break;
	case 'z': opt_z(v); break;
	case 'Z': opt_Z(v); break;
	default: opt_windows_only(a); break;
	}
}

void state::opt_windows_only(const std::string &a)
{
	switch (a[1]) {
	case 'I':
		if (a == "-I3")
			return;	// normal priority: what every Linux I/O gets
		error(a + ": I/O priority hints are Windows-only; on Linux run under "
		      "ionice(1), or use fio's prioclass=/prio= in a job file");
		return;
	case 'l':
		error(a + ": large-page buffers are not supported; the Linux analogue is "
		      "hugetlbfs (fio's iomem=mmaphuge)");
		return;
	case 'N':
		error(a + ": memory-mapped flush modes need -Sm, which ioplan does not support");
		return;
	case 'O':
		error(a + ": the thread-pool model (-O) is not supported; use -t or -F with -o");
		return;
	case 'P':
		warn(a + ": progress dots are not printed");
		return;
	case 'X':
		error(a + ": XML profiles are not read; write the test as a job file instead "
		      "(ioplan diskspd ... --showplan shows one)");
		return;
	case 'y':
		error(a + ": named Windows events have no Linux equivalent; start runs from a "
		      "script instead");
		return;
	case 'e':
		error(a + ": ETW tracing is Windows-only; on Linux use perf trace or blktrace");
		return;
	case ':':
		warn(a + ": DISKSPD experiment flags are ignored");
		return;
	case 'u':
		error(a + ": IoRing (-u, DISKSPD 2.3) is not a 2.2 flag; ioplan uses io_uring "
		      "already");
		return;
	}
	error(a + ": unknown DISKSPD option");
}

void state::opt_a(const std::string &v)
{
	if (v.empty() || v == "g")
		return;	// -ag: round-robin over all CPUs, DISKSPD's default
	if (v[0] == 'g') {
		error("-a" + v + ": processor groups are Windows-only; on Linux list plain CPU "
		      "numbers, e.g. -a0,1,2");
		return;
	}
	for (size_t i = 0; i < v.size(); i++) {
		if (!is_digit(v[i]) && v[i] != ',') {
			error("-a" + v + ": expected a comma-separated list of CPU numbers");
			return;
		}
	}
	if (v.front() == ',' || v.back() == ',' || v.find(",,") != std::string::npos) {
		error("-a" + v + ": expected a comma-separated list of CPU numbers");
		return;
	}
	std::vector<uint32_t> cpus;
	for (size_t at = 0; at < v.size();) {
		size_t comma = v.find(',', at), len = (comma == std::string::npos ? v.size() : comma) - at;
		/* strtoull saturates: any length of digits is a number to compare */
		unsigned long long cpu = std::strtoull(v.substr(at, len).c_str(), nullptr, 10);
		if (cpu > 1023) {	/* cpus_allowed's range */
			error("-a" + v + ": CPU " + v.substr(at, len) + " is past the last CPU number ioplan takes (1023)");
			return;
		}
		cpus.push_back((uint32_t)cpu);
		at += len + 1;
	}
	info.affinity = cpus;
}

void state::opt_B(const std::string &v)
{
	if (base_given) {
		error("-B: the base offset can only be given once");
		return;
	}
	base_given = true;
	size_t colon = v.find(':');
	if (!size_arg("-B", v.substr(0, colon), &info.base_bytes) || colon == std::string::npos)
		return;
	uint64_t len;
	if (colon + 1 == v.size()) {
		error("-B" + v + ": no length after ':'");
	} else if (max_given) {
		error("-B" + v + ": the end of the target range (-Bbase:length or -f) can only "
		      "be given once");
	} else if (size_arg("-B", v.substr(colon + 1), &len)) {
		max_given = true;
		info.max_bytes = info.base_bytes + len;
	}
}

void state::opt_f(const std::string &v)
{
	if (!v.empty() && !is_digit(v[0])) {
		for (char h : v) {
			if (h == 'r')
				fadvise = "random";
			else if (h == 's')
				fadvise = "sequential";
			else if (h == 't')
				warn("-ft: Linux has no temporary-file hint; ignored");
			else
				error("-f" + v + ": unknown hint '" + std::string(1, h) +
				      "' (use r, s or t)");
		}
		return;
	}
	if (max_given) {
		error("-f: the end of the target range (-Bbase:length or -f) can only be given once");
		return;
	}
	max_given = true;
	size_arg("-f", v, &info.max_bytes);
}

void state::opt_g(const std::string &v)
{
	bool iops = !v.empty() && (v.back() == 'i' || v.back() == 'I');
	uint64_t n;
	if (!uint_arg("-g", iops ? v.substr(0, v.size() - 1) : v, UINT32_MAX, &n))
		return;
	if (n == 0) {
		error("-g: the limit must be at least 1");
		return;
	}
	if (iops)
		info.throughput_iops = n;
	else
		info.throughput_bytes_per_ms = n;
}

void state::opt_r(const std::string &v)
{
	if (v.size() >= 1 && v[0] == 's') {
		uint64_t n;
		if (rs_given) {
			error("-rs: given more than once");
		} else if (uint_arg("-rs", v.substr(1), 100, &n)) {
			if (n == 0)
				error("-rs: the random percentage must be between 1 and 100");
			rs_given = true;
			info.random = true;
			info.random_pct = (uint32_t)n;
		}
		return;
	}
	if (v.size() >= 1 && v[0] == 'd') {
		opt_rd(v.substr(1));
		return;
	}
	if (r_given) {
		error("-r: random I/O given more than once");
		return;
	}
	r_given = true;
	info.random = true;
	if (!rs_given)
		info.random_pct = 100;
	if (!v.empty() && size_arg("-r", v, &info.align_bytes)) {
		stride_given = true;
		if (info.align_bytes == 0)
			error("-r: the alignment must be at least 1 byte");
	}
}

} // namespace parser::diskspd

// parser/diskspd/diskspd.cpp - reads a DISKSPD 2.2 argument list into facts.
//
// Semantics follow Windows DISKSPD 2.2 (not the Linux port, whose bare -r
// ignores -b and whose suffixes are case-sensitive): sizes take K/M/G/T or b
// (blocks of -b) in either case, -b is read before everything that may be
// counted in blocks, options precede targets, and the conflicts DISKSPD
// rejects are rejected here with a message naming the flag.  Flags that only
// mean something on Windows are errors or warnings that name what Linux has
// instead.  Writing the job text is diskspd_ini.cpp's part.
#include "parser/diskspd/diskspd.hpp"
#include "parser/diskspd/diskspd_impl.hpp"

#include <cctype>
#include <cstring>
#include <ctime>

namespace parser::diskspd {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Leading decimal digits of s into *v; returns how many were read (0 = none, or overflow).
size_t read_uint(const std::string &s, uint64_t *v)
{
	uint64_t n = 0;
	size_t i = 0;
	for (; i < s.size() && is_digit(s[i]); i++) {
		if (n > (UINT64_MAX - 9) / 10)
			return 0;
		n = n * 10 + (uint64_t)(s[i] - '0');
	}
	*v = n;
	return i;
}

} // namespace

bool state::size_arg(const std::string &flag, const std::string &s, uint64_t *out)
{
	uint64_t n, mul = 1;
	size_t used = read_uint(s, &n);
	if (used == 0) {
		error(flag + ": expected a size (bytes, or a number with K, M, G, T or b), got '" + s + "'");
		return false;
	}
	std::string rest = s.substr(used);
	if (!rest.empty()) {
		switch (std::toupper((unsigned char)rest[0])) {
		case 'K': mul = 1ull << 10; break;
		case 'M': mul = 1ull << 20; break;
		case 'G': mul = 1ull << 30; break;
		case 'T': mul = 1ull << 40; break;
		case 'B': mul = info.block_bytes; break;
		default:
			error(flag + ": unknown size suffix '" + rest.substr(0, 1) +
			      "' (use K, M, G, T, or b for blocks of -b)");
			return false;
		}
		if (rest.size() > 1) {
			error(flag + ": unexpected '" + rest.substr(1) + "' after the size");
			return false;
		}
	}
	if (n != 0 && mul > UINT64_MAX / n) {
		error(flag + ": size too large");
		return false;
	}
	*out = n * mul;
	return true;
}

bool state::uint_arg(const std::string &flag, const std::string &s, uint64_t max, uint64_t *out)
{
	uint64_t n;
	if (s.empty() || read_uint(s, &n) != s.size() || n > max) {
		error(flag + ": expected a whole number from 0 to " + std::to_string(max) + ", got '" +
		      s + "'");
		return false;
	}
	*out = n;
	return true;
}

bool state::count_arg(const std::string &flag, const std::string &s, uint32_t *out, uint64_t max,
			const std::string &zero_says)
{
	uint64_t n;
	if (s.empty() || read_uint(s, &n) != s.size() || n > max) {
		error(flag + ": expected a whole number from 1 to " + std::to_string(max) + ", got '" + s + "'");
		return false;
	}
	if (n == 0) {
		error(zero_says.empty() ? flag + ": must be at least 1" : zero_says);
		return false;
	}
	*out = (uint32_t)n;
	return true;
}

// Pass 1: -b, because -c100b, -r2b ... count in blocks of the final -b.
void state::prescan(const std::vector<std::string> &args)
{
	for (const std::string &a : args) {
		if (a.size() < 2 || a[0] != '-' || a[1] != 'b')
			continue;
		uint64_t bs;
		if (!size_arg("-b", a.substr(2), &bs))
			continue;
		if (bs == 0 || bs > UINT32_MAX)
			error("-b: the block size must be between 1 byte and 4 GiB");
		else
			info.block_bytes = bs;
	}
	info.align_bytes = info.block_bytes;
}

void state::target_arg(const std::string &a)
{
	if (a.size() > 1 && a[0] == '#') {
		error("target '" + a + "': physical drive numbers are Windows names; on Linux name "
		      "the block device, e.g. /dev/sdb or /dev/nvme0n1");
		return;
	}
	if (a.size() == 2 && std::isalpha((unsigned char)a[0]) && a[1] == ':') {
		error("target '" + a + "': drive letters are Windows names; on Linux give a file "
		      "path on the mounted filesystem, e.g. /mnt/data/testfile.dat");
		return;
	}
	// The line becomes a job file's filename= (diskspd_ini.cpp), whose value
	// ends at a line's end, ';' or '#', loses its outer blanks and expands
	// ${VAR}: a name with one of them named another file ('x;y.dat' ran on
	// 'x', '${HOME}.dat' on /root.dat), and a newline in it became job options
	// of its own (exec_prerun= ran).  Refused, as DISKSPD's Windows names are.
	const char *why = nullptr;
	if (a.empty()) {
		error("target '': an empty file name");
		return;
	}
	if (a.find('\n') != std::string::npos)
		why = "a line break in it";
	else if (a.find_first_of(";#") != std::string::npos)
		why = "';' or '#' in it (a job file's comment starts there)";
	else if (a.find("${") != std::string::npos)
		why = "'${' in it (a job file expands ${VAR} there)";
	else if (std::strchr(" \t\r", a.front()) || std::strchr(" \t\r", a.back()))	// trim()'s set, but \n
		why = "a blank at its start or end (a job file's values lose them)";
	if (why) {
		std::string shown;	// its line breaks as \n and \r: the message stays one line
		for (char c : a)
			shown += c == '\n' ? std::string("\\n") : c == '\r' ? std::string("\\r") : std::string(1, c);
		error("target '" + shown + "': a file name with " + why +
		      " cannot be carried into the job ioplan runs; rename it, or name it through a symlink");
		return;
	}
	target t;
	t.path = a;
	info.targets.push_back(t);
}

void state::run(const std::vector<std::string> &args)
{
	prescan(args);
	bool in_targets = false;	// also: a target was named, even a bad one
	for (const std::string &a : args) {
		if (a.size() >= 2 && a[0] == '-') {
			if (in_targets) {
				error(a + ": options must come before the targets");
				continue;
			}
			option(a);
		} else if (a == "-") {
			error("'-': an option letter is missing");
		} else {
			in_targets = true;
			target_arg(a);
		}
	}
	if (!in_targets)
		error("no target: name at least one file or device after the options");
	for (target &t : info.targets)
		t.create_bytes = create_bytes;
	validate();
	check_abs_ranges();
}

uint64_t uptime_ms()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

translation translate(const std::string &program, const std::vector<std::string> &args)
{
	state s;
	s.info.command_line = program;
	for (const std::string &a : args)
		s.info.command_line += " " + a;
	s.run(args);
	translation t;
	t.warnings = s.warnings;
	t.errors = s.errors;
	if (t.errors.empty())
		t.ini = write_ini(s);
	t.info = s.info;
	t.info.distribution = s.rd;
	t.info.distribution_abs = s.rd_abs;
	return t;
}

} // namespace parser::diskspd

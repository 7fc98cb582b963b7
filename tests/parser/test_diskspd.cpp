// tests/parser/test_diskspd.cpp - DISKSPD command lines to job text
// (parser/diskspd*.cpp): exact text for the seeds' command lines, one check
// per flag, every conflict's error, and real fio 3.33 accepting the text.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "parser/diskspd/diskspd.hpp"
#include "parser/options.hpp"
#include "tests/report/fixture.hpp"

namespace {

namespace ds = parser::diskspd;

std::vector<std::string> words(const std::string &s)
{
	std::istringstream in(s);
	std::vector<std::string> out;
	std::string w;
	while (in >> w)
		out.push_back(w);
	return out;
}

ds::translation tr(const std::string &args) { return ds::translate("diskspd", words(args)); }

// The job text of a command line that must translate cleanly.
std::string ini(const std::string &args)
{
	ds::translation t = tr(args);
	INFO("args: " << args);
	for (const std::string &e : t.errors)
		INFO("error: " << e);
	REQUIRE(t.errors.empty());
	return t.ini;
}

// The lines of the job text without the long default write pattern, which
// has a test of its own.
std::string ini_short(const std::string &args)
{
	std::istringstream in(ini(args));
	std::string line, out;
	while (std::getline(in, line))
		if (line.compare(0, 15, "buffer_pattern=") != 0)
			out += line + "\n";
	return out;
}

bool has_line(const std::string &text, const std::string &line)
{
	return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

// The one error of a command line, which must name what it is about.
std::string only_error(const std::string &args)
{
	ds::translation t = tr(args);
	INFO("args: " << args);
	REQUIRE(t.errors.size() == 1);
	CHECK(t.ini.empty());
	return t.errors[0];
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

} // namespace

TEST_CASE("diskspd: seed 000's random 4K read, exact job text")
{
	CHECK(ini_short("-b4K -c1G -r -o1 -t1 -Sh -n -D -L -W0 -d10 -w0 testfile.dat") ==
	      "; translated from DISKSPD by ioplan:\n"
	      "; diskspd -b4K -c1G -r -o1 -t1 -Sh -n -D -L -W0 -d10 -w0 testfile.dat\n"
	      "[global]\n"
	      "ioengine=io_uring\n"
	      "thread=1\n"
	      "group_reporting=1\n"
	      "time_based=1\n"
	      "runtime=10s\n"
	      "ramp_time=0s\n"
	      "bs=4096\n"
	      "rw=randread\n"
	      "norandommap=1\n"
	      "size=1073741824\n"
	      "direct=1\n"
	      "sync=dsync\n"
	      "fadvise_hint=0\n"
	      "iopsavgtime=1000\n"
	      "diskspd_iops_stddev=1\n"
	      "lat_percentiles=1\n"
	      "\n"
	      "[target1]\n"
	      "filename=testfile.dat\n"
	      "numjobs=1\n"
	      "iodepth=1\n"
	      "randseed=0\n");
}

TEST_CASE("diskspd: seed 000's -o32 -w100 variant writes with DISKSPD's 0..255 pattern")
{
	std::string t = ini("-b4K -c1G -r -o32 -t1 -Sh -n -D -L -W0 -d10 -w100 testfile.dat");
	CHECK(has_line(t, "rw=randwrite"));
	CHECK(has_line(t, "iodepth=32"));
	std::string pat = "0x";
	char b[3];
	for (int i = 0; i < 256; i++) {
		snprintf(b, sizeof(b), "%02x", i);
		pat += b;
	}
	CHECK(has_line(t, "buffer_pattern=" + pat));
}

TEST_CASE("diskspd: seed 003's mixed 60/40 line with lower-case suffixes")
{
	CHECK(ini_short("-t2 -o32 -b4k -r4k -w40 -d120 -Sh -D -L -c5G IO.dat") ==
	      "; translated from DISKSPD by ioplan:\n"
	      "; diskspd -t2 -o32 -b4k -r4k -w40 -d120 -Sh -D -L -c5G IO.dat\n"
	      "[global]\n"
	      "ioengine=io_uring\n"
	      "thread=1\n"
	      "group_reporting=1\n"
	      "time_based=1\n"
	      "runtime=120s\n"
	      "ramp_time=5s\n"
	      "bs=4096\n"
	      "rw=randrw\n"
	      "rwmixwrite=40\n"
	      "norandommap=1\n"
	      "size=5368709120\n"
	      "direct=1\n"
	      "sync=dsync\n"
	      "fadvise_hint=0\n"
	      "iopsavgtime=1000\n"
	      "diskspd_iops_stddev=1\n"
	      "lat_percentiles=1\n"
	      "\n"
	      "[target1]\n"
	      "filename=IO.dat\n"
	      "numjobs=2\n"
	      "iodepth=32\n"
	      "randseed=0\n");
}

TEST_CASE("diskspd: seed 002's Azure -F4 lines")
{
	std::string w = ini_short("-c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh testfile.dat");
	CHECK(w == "; translated from DISKSPD by ioplan:\n"
		   "; diskspd -c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh testfile.dat\n"
		   "[global]\n"
		   "ioengine=io_uring\n"
		   "thread=1\n"
		   "group_reporting=1\n"
		   "time_based=1\n"
		   "runtime=30s\n"
		   "ramp_time=30s\n"
		   "bs=8192\n"
		   "rw=randwrite\n"
		   "norandommap=1\n"
		   "size=214748364800\n"
		   "direct=1\n"
		   "sync=dsync\n"
		   "fadvise_hint=0\n"
		   "diskspd_latency=0\n"
		   "\n"
		   "[threads]\n"
		   "filename=testfile.dat\n"
		   "numjobs=4\n"
		   "iodepth=128\n"
		   "randseed=0\n");
	std::string r = ini_short("-c200G -b4K -F4 -r -o128 -W7200 -d30 -Sh testfile.dat");
	CHECK(has_line(r, "ramp_time=7200s"));
	CHECK(has_line(r, "rw=randread"));
	CHECK(has_line(r, "bs=4096"));
}

TEST_CASE("diskspd: CrystalDiskMark's SEQ1M Q8T1 read: -S is O_DIRECT without write-through")
{
	CHECK(ini_short("-b1024K -o8 -t1 -W0 -S -w0 -d5 -L cdm.tmp") ==
	      "; translated from DISKSPD by ioplan:\n"
	      "; diskspd -b1024K -o8 -t1 -W0 -S -w0 -d5 -L cdm.tmp\n"
	      "[global]\n"
	      "ioengine=io_uring\n"
	      "thread=1\n"
	      "group_reporting=1\n"
	      "time_based=1\n"
	      "runtime=5s\n"
	      "ramp_time=0s\n"
	      "bs=1048576\n"
	      "rw=read\n"
	      "direct=1\n"
	      "fadvise_hint=0\n"
	      "lat_percentiles=1\n"
	      "\n"
	      "[target1]\n"
	      "filename=cdm.tmp\n"
	      "numjobs=1\n"
	      "iodepth=8\n"
	      "randseed=0\n");
	std::string w = ini("-b4K -o32 -t1 -W0 -S -w100 -Z4K -r -d5 -L cdm.tmp");
	CHECK(has_line(w, "buffer_fill=random_once"));
	CHECK(has_line(w, "write_source_size=4096"));
	CHECK(!contains(w, "buffer_pattern"));
}

TEST_CASE("diskspd: DISKSPD's defaults when nothing is given")
{
	std::string t = ini_short("f");
	CHECK(has_line(t, "bs=65536"));
	CHECK(has_line(t, "runtime=10s"));
	CHECK(has_line(t, "ramp_time=5s"));
	CHECK(has_line(t, "iodepth=2"));
	CHECK(has_line(t, "rw=read"));
	CHECK(!contains(t, "direct="));
	CHECK(!contains(t, "size="));
	ds::facts f = tr("f").info;
	CHECK(f.duration_s == 10);
	CHECK(f.warmup_s == 5);
	CHECK(f.cooldown_s == 0);
	CHECK(f.outstanding == 2);
	CHECK(!f.measure_latency);
	CHECK(!contains(t, "lat_percentiles"));
	CHECK(f.format == ds::result_format::text);
}

TEST_CASE("diskspd: bare -r aligns to -b, -r<align> sets blockalign, b counts blocks of the final -b")
{
	CHECK(!contains(ini("-r -b4K f"), "blockalign"));
	CHECK(tr("-r -b4K f").info.align_bytes == 4096);
	CHECK(has_line(ini("-b4K -r8K f"), "blockalign=8192"));
	// -r2b before -b8K still counts in 8 KiB blocks (DISKSPD reads -b first).
	CHECK(has_line(ini("-r2b -b8K f"), "blockalign=16384"));
	CHECK(has_line(ini("-b4K -c100b f"), "size=409600"));
}

TEST_CASE("diskspd: size suffixes are case-insensitive and include T")
{
	CHECK(has_line(ini("-c1t f"), "size=1099511627776"));
	CHECK(has_line(ini("-c1T f"), "size=1099511627776"));
	CHECK(has_line(ini("-b8k f"), "bs=8192"));
	CHECK(has_line(ini("-b1m f"), "bs=1048576"));
	CHECK(has_line(ini("-c2g f"), "size=2147483648"));
	CHECK(has_line(ini("-b512 f"), "bs=512"));
	CHECK(contains(only_error("-b4X f"), "-b"));
	CHECK(contains(only_error("-c4KB f"), "-c"));
	CHECK(contains(only_error("-cK f"), "-c"));
}

TEST_CASE("diskspd: per-thread seeds are seed + thread number, threads numbered target by target")
{
	std::string t = ini("-t3 -r -z7 a b c");
	CHECK(contains(t, "[target1]\nfilename=a\nnumjobs=3\niodepth=2\nrandseed=7\n"));
	CHECK(contains(t, "[target2]\nfilename=b\nnumjobs=3\niodepth=2\nrandseed=10\n"));
	CHECK(contains(t, "[target3]\nfilename=c\nnumjobs=3\niodepth=2\nrandseed=13\n"));
	CHECK(tr("-z7 a").info.seed == 7);
	// Bare -z seeds from the uptime, as DISKSPD does, and the job uses that seed.
	ds::translation u = tr("-z a");
	CHECK(u.errors.empty());
	CHECK(has_line(u.ini, "randseed=" + std::to_string(u.info.seed)));
	CHECK(contains(only_error("-z4294967296 a"), "-z"));
}

TEST_CASE("diskspd: -s stride, -si one shared stream, -T thread offsets")
{
	CHECK(has_line(ini("-b4K -s8K f"), "sequential_stride=8192"));
	CHECK(!contains(ini("-b4K -s f"), "sequential_stride"));
	std::string si = ini("-b4K -t4 -si f");
	CHECK(has_line(si, "interlocked=1"));
	CHECK(has_line(si, "numjobs=4"));
	CHECK(has_line(ini("-b4K -F4 -si f"), "interlocked=1"));
	// One thread: DISKSPD warns and ignores -si.
	ds::translation one = tr("-si f");
	CHECK(one.errors.empty());
	REQUIRE(one.warnings.size() == 1);
	CHECK(contains(one.warnings[0], "-si"));
	CHECK(!contains(one.ini, "interlocked"));
	std::string T = ini("-b512K -t4 -T16M -s f");
	CHECK(has_line(T, "offset_increment=16777216"));
	CHECK(tr("-b512K -t4 -T16M -s f").warnings.empty());
	// Several threads, no -T/-si: DISKSPD's warning about overlapping streams.
	ds::translation ov = tr("-t2 f");
	REQUIRE(ov.warnings.size() == 1);
	CHECK(contains(ov.warnings[0], "-si"));
}

TEST_CASE("diskspd: -w, -rs, -rd, -g, -i/-j, -B/-f, -S letters, -Z forms, -a, -fr")
{
	CHECK(has_line(ini("-w30 f"), "rw=rw"));
	CHECK(has_line(ini("-w30 f"), "rwmixwrite=30"));
	CHECK(has_line(ini("-w0 f"), "rw=read"));
	std::string rs = ini("-rs25 -r4K -b4K f");
	CHECK(has_line(rs, "rw=randread"));
	CHECK(has_line(rs, "percentage_random=25"));
	CHECK(tr("-rs25 f").info.random_pct == 25);
	CHECK(has_line(ini("-r -rdpct90/10 f"), "random_distribution=zoned:90/10:10/90"));
	CHECK(has_line(ini("-r -rdpct90/10:5/80 f"), "random_distribution=zoned:90/10:5/80:5/10"));
	CHECK(has_line(ini("-r -c8M -rdabs50/1M f"),
		       "random_distribution=zoned_abs:50/1048576:50/7340032"));
	CHECK(has_line(ini("-g100 f"), "rate=100000"));
	CHECK(has_line(ini("-g100 -w30 f"), "rate=70000,30000"));
	CHECK(has_line(ini("-g100 -w100 f"), "rate=0,100000"));
	CHECK(has_line(ini("-g500i f"), "rate_iops=500"));
	std::string ij = ini("-i4 -j5 f");
	CHECK(has_line(ij, "thinktime=5ms"));
	CHECK(has_line(ij, "thinktime_blocks=4"));
	std::string bf = ini("-c64M -B4K -f32M f");
	CHECK(has_line(bf, "filesize=67108864"));
	CHECK(has_line(bf, "offset=4096"));
	CHECK(has_line(bf, "size=33550336"));
	CHECK(has_line(ini("-B1M:2M f"), "size=2097152"));
	CHECK(has_line(ini("-B1M:2M f"), "offset=1048576"));
	std::string sb = ini("-Sb f");
	CHECK(!contains(sb, "direct="));
	CHECK(!contains(sb, "sync="));
	std::string sw = ini("-Sw f");
	CHECK(!contains(sw, "direct="));
	CHECK(has_line(sw, "sync=dsync"));
	std::string suw = ini("-Suw f");
	CHECK(has_line(suw, "direct=1"));
	CHECK(has_line(suw, "sync=dsync"));
	std::string h = ini("-h f");
	CHECK(has_line(h, "direct=1"));
	CHECK(has_line(h, "sync=dsync"));
	CHECK(has_line(ini("-Z -w100 f"), "zero_buffers=1"));
	CHECK(has_line(ini("-Zr -w100 f"), "refill_buffers=1"));
	std::string af = ini("-a0,2 f");
	CHECK(has_line(af, "cpus_allowed=0,2"));
	CHECK(has_line(af, "cpus_allowed_policy=split"));
	CHECK(!contains(ini("-ag f"), "cpus_allowed"));
	CHECK(has_line(ini("-fr f"), "fadvise_hint=random"));
	CHECK(has_line(ini("-C3 f"), "cooldown=3s"));
	CHECK(has_line(ini("-D250 f"), "iopsavgtime=250"));
	std::string two = ini("-F2 -o4 a b");
	CHECK(has_line(two, "filename=a:b"));
	CHECK(has_line(two, "file_service_type=roundrobin"));
	CHECK(has_line(two, "iodepth=8"));
	CHECK(has_line(ini("-c1M x:y"), "filename=x\\:y"));
}

TEST_CASE("diskspd: facts for the report")
{
	ds::facts f = tr("-b4K -L -D500 -n -v -Rxml -W2 -d3 -C1 -z9 f").info;
	CHECK(f.command_line == "diskspd -b4K -L -D500 -n -v -Rxml -W2 -d3 -C1 -z9 f");
	CHECK(f.measure_latency);
	CHECK(f.iops_stddev);
	CHECK(f.iops_interval_ms == 500);
	CHECK(f.disable_affinity);
	CHECK(f.verbose);
	CHECK(f.format == ds::result_format::xml);
	CHECK(!f.profile_only);
	CHECK(f.warmup_s == 2);
	CHECK(f.duration_s == 3);
	CHECK(f.cooldown_s == 1);
	CHECK(f.seed == 9);
	CHECK(f.block_bytes == 4096);
	ds::facts p = tr("-Rptext -c1M f").info;
	CHECK(p.profile_only);
	CHECK(p.format == ds::result_format::text);
	REQUIRE(p.targets.size() == 1);
	CHECK(p.targets[0].create_bytes == 1048576);
	CHECK(tr("-D f").info.iops_interval_ms == 1000);
	// DISKSPD reads -W and -C with atoi: bare, each is 0 (ioplan refused them:
	// "-W: expected a whole number from 0 to 1000000000, got ''").
	ds::translation bare = tr("-W -C f");
	CHECK(bare.errors.empty());
	CHECK(bare.info.warmup_s == 0);
	CHECK(bare.info.cooldown_s == 0);
	CHECK(has_line(ini("-W -C1 f"), "ramp_time=0s"));
}

TEST_CASE("diskspd: DISKSPD's conflict rules are errors naming the flags")
{
	CHECK(contains(only_error("-F4 -t2 f"), "-F and -t"));
	CHECK(contains(only_error("-n -a0,1 f"), "-n and -a"));
	CHECK(contains(only_error("-g100 -x f"), "-g cannot be used with -x"));
	CHECK(contains(only_error("-i4 f"), "-i and -j"));
	CHECK(contains(only_error("-j4 f"), "-i and -j"));
	CHECK(contains(only_error("-r -s f"), "-s conflicts with -r"));
	CHECK(contains(only_error("-s -r f"), "-s conflicts with -r"));
	CHECK(contains(only_error("-r -T4K -t2 f"), "-T conflicts with -r"));
	CHECK(contains(only_error("-r -si -t2 f"), "-si conflicts with -r"));
	CHECK(contains(only_error("-rdpct90/10 f"), "-rd"));
	CHECK(contains(only_error("-si -T4K -t2 f"), "-si conflicts with -T"));
	CHECK(contains(only_error("-T4K f"), "-T has no effect"));
	CHECK(contains(only_error("-r -r f"), "-r"));
	CHECK(contains(only_error("-s -s f"), "-s"));
	CHECK(contains(only_error("-B1M -f1M f"), "-f"));
	CHECK(contains(only_error("-b8K -Z4K -w100 f"), "-Z"));
	CHECK(contains(only_error("-Su -Sb f"), "conflicts with an earlier caching flag"));
	CHECK(contains(only_error("-Sw -Sh f"), "conflicts with an earlier caching flag"));
	CHECK(contains(only_error("-Sh -h f"), "conflicts with an earlier caching flag"));
	CHECK(contains(only_error("-f1M -B0:2M f"), "only be given once"));
	CHECK(contains(only_error("-r -rdpct10/100 f"), "left to place"));
	// DISKSPD's own check: an -rdabs range holds a block
	CHECK(only_error("-r -b8K -rdabs10/4K f") == "-rdabs10/4K: the range of 4096 bytes is smaller than the block "
						      "size (-b: 8192 bytes)");
	CHECK(contains(only_error("-Z -Zr f"), "-Z"));
	// a CPU past cpus_allowed's range was refused by the translated job, at its line there
	CHECK(only_error("-a0,1024 f") == "-a0,1024: CPU 1024 is past the last CPU number ioplan takes (1023)");
	CHECK(contains(only_error("-a99999999999999999999999 f"), "CPU 99999999999999999999999 is past"));
	CHECK(has_line(ini("-a0,1023 f"), "cpus_allowed=0,1023"));
	CHECK(contains(only_error("-p -r -o4 f"), "-p conflicts with -r"));
	CHECK(contains(only_error("-si -p -o4 -t2 f"), "-si conflicts with -p"));
}

TEST_CASE("diskspd: -p gives each outstanding I/O its own sequential stream")
{
	CHECK(has_line(ini("-p -o4 f"), "sequential_parallel=1"));
	CHECK(!has_line(ini("-p -o1 f"), "sequential_parallel=1")); // -o1: nothing in parallel
}

TEST_CASE("diskspd: malformed values and misplaced options")
{
	CHECK(contains(only_error("-w f"), "-w: missing write percentage"));
	CHECK(contains(only_error("-w101 f"), "-w"));
	CHECK(contains(only_error("-o0 f"), "-o"));
	CHECK(contains(only_error("-tx f"), "-t"));
	CHECK(contains(only_error("-d1.5 f"), "-d"));
	CHECK(contains(only_error("-d0 f"), "-d0"));
	CHECK(contains(only_error("-Rcsv f"), "-Rcsv"));
	CHECK(contains(only_error("-q f"), "-q: unknown DISKSPD option"));
	CHECK(contains(only_error("f -b4K"), "-b4K: options must come before the targets"));
	CHECK(contains(only_error("-b4K"), "no target"));
	CHECK(contains(only_error("-b0 f"), "-b"));
	CHECK(contains(only_error("-L1 f"), "-L"));
	// All problems are reported, not only the first.
	CHECK(tr("-w -o0 -q f").errors.size() == 3);
}

TEST_CASE("diskspd: Windows-only flags name the Linux equivalent")
{
	CHECK(contains(only_error("#1"), "/dev/"));
	CHECK(contains(only_error("-c1G E:"), "file path"));
	CHECK(contains(only_error("-Sm f"), "mmap"));
	// -Sr (a Windows SMB client's cache) is accepted with a warning: nothing to turn off here.
	auto sr = tr("-Sr f");
	CHECK(sr.errors.empty());
	REQUIRE(sr.warnings.size() == 1);
	CHECK(contains(sr.warnings[0], "SMB"));
	CHECK(contains(only_error("-ag0,1 f"), "plain CPU numbers"));
	CHECK(contains(only_error("-l f"), "hugetlbfs"));
	CHECK(contains(only_error("-I1 f"), "ionice"));
	CHECK(contains(only_error("-Xprofile.xml f"), "job file"));
	CHECK(contains(only_error("-ePROCESS f"), "perf"));
	CHECK(contains(only_error("-ysStart f"), "no Linux equivalent"));
	CHECK(contains(only_error("-O4 -F2 f"), "-O"));
	CHECK(contains(only_error("-Z1M,src.bin -w100 f"), "source file"));
	CHECK(tr("-I3 f").errors.empty());
	ds::translation x = tr("-x f");
	CHECK(x.errors.empty());
	REQUIRE(x.warnings.size() == 1);
	CHECK(contains(x.warnings[0], "io_uring"));
	ds::translation ft = tr("-ft f");
	REQUIRE(ft.warnings.size() == 1);
	CHECK(contains(ft.warnings[0], "-ft"));
}

TEST_CASE("diskspd: -rd runs by DISKSPD's rule, the -rdabs rest found in the run, ranges past the end cut")
{
	CHECK(has_line(ini("-r -rdpct10/1 f"), "zoned_ranges=diskspd"));
	CHECK(!has_line(ini("-r f"), "zoned_ranges=diskspd"));
	// The rest of a target whose size the line does not give: blank, the run finds it
	ds::translation rest = tr("-r -rdabs10/1M f");
	CHECK(rest.errors.empty());
	CHECK(rest.warnings.empty());
	CHECK(has_line(rest.ini, "random_distribution=zoned_abs:10/1048576:90/"));
	CHECK(has_line(rest.ini, "zoned_ranges=diskspd"));
	CHECK(has_line(ini("-r -c16M -B4M -rdabs10/8M:90/4M f"), "random_distribution=zoned_abs:10/8388608:90/4194304"));
	// Ranges past a target of known size run as DISKSPD runs them, with a warning saying so
	ds::translation past = tr("-r -c16M -rdabs10/1M:30/3G f");
	CHECK(past.errors.empty());
	REQUIRE(past.warnings.size() == 1);
	CHECK(past.warnings[0] ==
	      "-rd: the -rdabs ranges cover 3222274048 bytes, more than the 16777216 bytes of the target range "
	      "(-c or -f, less -B): as DISKSPD, the ranges are cut at its end and those past it dropped with their "
	      "share of the I/O (see \"Effective IO Distributions\" in the results)");
	CHECK(has_line(past.ini, "random_distribution=zoned_abs:10/1048576:30/3221225472:60/"));
	ds::translation b4 = tr("-r -c16M -B4M -rdabs10/8M:90/8M f");
	REQUIRE(b4.warnings.size() == 1);
	CHECK(contains(b4.warnings[0], "more than the 12582912 bytes"));
	ds::translation none = tr("-r -c16M -rdabs10/8M:20/8M f");
	REQUIRE(none.warnings.size() == 1);
	CHECK(contains(none.warnings[0], "leaving none for the last 70% of the I/O"));
	CHECK(has_line(none.ini, "random_distribution=zoned_abs:10/8388608:20/8388608:70/"));
}

TEST_CASE("diskspd: real fio 3.33 accepts the job text without ioplan's own options")
{
	const char *lines[] = {
		"-b4K -c1G -r -o1 -t1 -Sh -n -D -L -W0 -d10 -w0 testfile.dat",
		"-t2 -o32 -b4k -r4k -w40 -d120 -Sh -D -L -c5G IO.dat",
		"-c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh testfile.dat",
		"-b1024K -o8 -t1 -W0 -S -w0 -d5 -L cdm.tmp",
		"-b4K -o32 -t16 -r -W0 -S -w100 -Z4K -d5 -L cdm.tmp",
		"-c64M -b8K -F2 -rs30 -o4 -g100 -w30 -Sw -a0,1 -i4 -j5 -fr -B4K -f32M a:b.dat c.dat",
		"-c64M -b4K -r -rdabs10/1M:80/2M -w20 -g10i -Zr y",
		"-b512K -t4 -si1M -c64M -C2 -Z1M -w100 x",
		"-b512K -t4 -T16M -c64M -Z -w50 x",
	};
	char dir[] = "/tmp/ioplan-diskspd-XXXXXX";
	REQUIRE(mkdtemp(dir) != nullptr);
	const std::string path = std::string(dir) + "/job.fio";
	for (const char *l : lines) {
		std::istringstream in(ini(l));
		std::ofstream out(path);
		std::string line;
		while (std::getline(in, line)) {
			std::string key = line.substr(0, line.find('='));
			// The table's ioplan_only flag says which lines fio would refuse.
			const parser::option *opt = parser::find_option(key);
			bool own = opt && opt->ioplan_only;
			if (!own)
				out << line << "\n";
		}
		out.close();
		int status = -1;
		std::string msg = t::run("/usr/bin/fio --parse-only " + path + " 2>&1", &status);
		INFO(l << "\n" << msg);
		CHECK(status == 0);
	}
	// The oracle is not a rubber stamp: an option fio does not know fails.
	{
		std::ofstream out(path);
		out << "[x]\nfilename=f\nsequential_stride=8192\n";
	}
	int status = 0;
	t::run("/usr/bin/fio --parse-only " + path + " 2>&1", &status);
	CHECK(status != 0);
	unlink(path.c_str());
	rmdir(dir);
}

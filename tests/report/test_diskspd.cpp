// tests/report/test_diskspd.cpp - DISKSPD text and XML output (report/diskspd*.cpp)
// on hand-built results: exact text for a small fixture, the seeds' awk
// pipeline, nearest-rank percentiles against an independent computation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

#include "report/diskspd/diskspd.hpp"
#include "report/diskspd/diskspd_model.hpp"
#include "tests/report/diskspd_fixture.hpp"
#include "tests/report/fixture.hpp"
#include "tests/report/golden.hpp"

namespace {

namespace dr = report::diskspd;

std::string slurp(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

std::string text_of(const t::diskspd_run &f, const dr::options &o)
{
	std::ostringstream out;
	dr::write_text(f.get_results(), f.get_plan(), o, out);
	return out.str();
}

// The lines of text from the one starting with `first` on.
std::vector<std::string> lines_from(const std::string &text, const std::string &first)
{
	std::vector<std::string> all = t::split(text, '\n'), out;
	bool on = false;
	for (const std::string &l : all) {
		on = on || l == first;
		if (on)
			out.push_back(l);
	}
	return out;
}

} // namespace

TEST_CASE("diskspd text: exact output for a two-thread mixed fixture")
{
	t::diskspd_run f;
	std::string want = slurp(t::root() + "/tests/golden/diskspd/diskspd.txt");
	REQUIRE(!want.empty());
	CHECK(text_of(f, f.opts()) == want);
}

TEST_CASE("diskspd text: the seed's awk pipeline prints thread 0's MiB/s")
{
	t::diskspd_run f;
	char path[] = "/tmp/ioplan-diskspd-text-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	std::string text = text_of(f, f.opts());
	REQUIRE(write(fd, text.data(), text.size()) == (ssize_t)text.size());
	close(fd);
	int status = -1;
	std::string got = t::run(std::string("awk '/^Total IO$/ {getline;getline;getline; print $7}' ") +
				 path, &status);
	unlink(path);
	CHECK(status == 0);
	// Thread 0 moved 10 x 4 KiB in the measured 2 s.
	char want[32];
	snprintf(want, sizeof(want), "%.2f\n", 40960.0 / 1048576.0 / 2.0);
	CHECK(got == want);
}

TEST_CASE("diskspd text: columns follow -L and -D")
{
	t::diskspd_run f;
	dr::options o = f.opts();
	o.measure_latency = false;
	o.iops_stddev = false;
	std::string text = text_of(f, o);
	CHECK(text.find("AvgLat") == std::string::npos);
	CHECK(text.find("IopsStdDev") == std::string::npos);
	CHECK(text.find("latency distribution") == std::string::npos);
	CHECK(text.find("thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  file\n") !=
	      std::string::npos);
	CHECK(text.find("\n" + std::string(78, '-') + "\n") != std::string::npos);
	CHECK(text.find("measuring latency") == std::string::npos);
	o.iops_stddev = true;
	text = text_of(f, o);
	CHECK(text.find("|  I/O per s | IopsStdDev |  file\n") != std::string::npos);
}

TEST_CASE("diskspd text: no measured time says the test was interrupted")
{
	t::diskspd_run f;
	for (uint32_t c = 0; c < 2; c++)
		f.clone(c).end_ns = f.clone(c).start_ns;
	std::string text = text_of(f, f.opts());
	CHECK(text.find("The test was interrupted before the measurements began.") != std::string::npos);
	CHECK(text.find("Total IO") == std::string::npos);
}

TEST_CASE("diskspd text: percentiles are nearest rank, checked against a sort of the samples")
{
	// 997 samples (no p * n is a whole number, so rounding cannot hide a
	// wrong rank) at values the histogram holds exactly.
	t::diskspd_run f(false);
	std::mt19937_64 rng(42);
	std::vector<uint64_t> reads, writes, all;
	for (int i = 0; i < 997; i++) {
		uint32_t idx = 128 + (uint32_t)(rng() % 1200);
		uint64_t v = res_hist_value(idx);
		bool w = rng() % 3 == 0;
		res_ddir &d = f.clone(i % 2).ddir[w ? PLAN_DDIR_WRITE : PLAN_DDIR_READ];
		t::record(&d.lat, v);
		d.ios++;
		d.bytes += 4096;
		(w ? writes : reads).push_back(v);
		all.push_back(v);
	}
	std::string text = text_of(f, f.opts());
	std::vector<std::string> table = lines_from(text, "Total latency distribution:");
	REQUIRE(table.size() >= 18);
	auto rank = [](std::vector<uint64_t> v, double frac) {
		std::sort(v.begin(), v.end());
		size_t k = (size_t)std::ceil(frac * (double)v.size());
		return (double)v[k ? k - 1 : 0] / 1e6;
	};
	const char *labels[] = { "min",	    "25th",    "50th",	  "75th",    "90th",
				 "95th",    "99th",    "3-nines", "4-nines", "5-nines",
				 "6-nines", "7-nines", "8-nines", "9-nines", "max" };
	const double fracs[] = { 0,	  .25,	    .5,	       .75,	    .9,
				 .95,	  .99,	    .999,      .9999,	    .99999,
				 .999999, .9999999, .99999999, .999999999, 1 };
	for (int i = 0; i < 15; i++) {
		char want[128];
		snprintf(want, sizeof(want), "%7s | %10.3f | %10.3f | %10.3f", labels[i],
			 rank(reads, fracs[i]), rank(writes, fracs[i]), rank(all, fracs[i]));
		CHECK(table[3 + i] == want);
	}
}

TEST_CASE("diskspd text: the first and the last rank are the exact min and max, not a bucket's value")
{
	// Values between two of the histogram's: a bucket's value is not the
	// sample. DISKSPD keeps every value, so with 5 reads its 25th percentile
	// (rank 2) comes from the histogram, but 3-nines to 9-nines are rank 5,
	// the max, and a 25th of 3 writes is rank 1, the min.
	t::diskspd_run f(false);
	const uint64_t reads[] = { res_hist_value(900) + 1, res_hist_value(1000) + 1,
				   res_hist_value(1100) + 1, res_hist_value(1200) + 1,
				   res_hist_value(1300) + 1 };
	const uint64_t writes[] = { res_hist_value(700) - 3, res_hist_value(800) - 3,
				    res_hist_value(850) - 3 };
	for (uint64_t v : reads)
		t::record(&f.clone(0).ddir[PLAN_DDIR_READ].lat, v);
	for (uint64_t v : writes)
		t::record(&f.clone(1).ddir[PLAN_DDIR_WRITE].lat, v);
	f.clone(0).ddir[PLAN_DDIR_READ].ios = 5;
	f.clone(1).ddir[PLAN_DDIR_WRITE].ios = 3;
	const res_lat &r = f.clone(0).ddir[PLAN_DDIR_READ].lat;
	const res_lat &w = f.clone(1).ddir[PLAN_DDIR_WRITE].lat;
	REQUIRE(res_hist_value(res_hist_index(r.max_ns)) < r.max_ns);
	REQUIRE(res_hist_value(res_hist_index(w.min_ns)) > w.min_ns);
	for (double frac : { .999, .9999, .99999, .999999, .9999999, .99999999, .999999999 })
		CHECK(dr::percentile_ms(r, frac) == (double)reads[4] / 1e6);
	CHECK(dr::percentile_ms(w, .25) == (double)writes[0] / 1e6);
	CHECK(dr::percentile_ms(w, .99) == (double)writes[2] / 1e6);
	std::vector<std::string> table = lines_from(text_of(f, f.opts()), "Total latency distribution:");
	REQUIRE(table.size() >= 18);
	char want[128];
	snprintf(want, sizeof(want), "%7s | %10.3f | %10.3f | %10.3f", "9-nines", reads[4] / 1e6,
		 writes[2] / 1e6, reads[4] / 1e6);
	CHECK(table[16] == want);
	snprintf(want, sizeof(want), "%7s | %10.3f | %10.3f | %10.3f", "max", reads[4] / 1e6,
		 writes[2] / 1e6, reads[4] / 1e6);
	CHECK(table[17] == want);
}

TEST_CASE("diskspd text: a direction without I/O shows N/A in the latency table")
{
	t::diskspd_run f(false);
	for (uint64_t v : { 1000000u, 2000000u, 3000000u })
		t::record(&f.clone(0).ddir[PLAN_DDIR_READ].lat, v);
	f.clone(0).ddir[PLAN_DDIR_READ].ios = 3;
	std::vector<std::string> table = lines_from(text_of(f, f.opts()), "Total latency distribution:");
	REQUIRE(table.size() >= 18);
	CHECK(table[3].find("|        N/A |") != std::string::npos);
	CHECK(table[17].find("|        N/A |") != std::string::npos);
}

TEST_CASE("diskspd: -Rp prints the command line and input parameters only")
{
	t::diskspd_run f;
	std::ostringstream out;
	dr::write_profile(f.get_plan(), f.opts(), out);
	std::string want = slurp(t::root() + "/tests/golden/diskspd/diskspd.txt");
	CHECK(out.str() == want.substr(0, want.find("System information:")));
}

namespace {

// Runs a python3 script over the document in a temporary file (its argv[1]): what it prints.
std::string run_python(const std::string &doc, const char *script, int *status)
{
	char path[] = "/tmp/ioplan-diskspd-xml-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, doc.data(), doc.size()) == (ssize_t)doc.size());
	close(fd);
	std::string out = t::run(std::string("/usr/bin/python3 -c \"$(cat <<'PY'\n") + script +
				 "PY\n)\" " + path + " 2>&1",
				 status);
	unlink(path);
	return out;
}

// Runs python3's xml.etree over the document and prints facts found in it.
std::string xml_facts(const std::string &doc, int *status)
{
	const char *script =
		"import sys, xml.etree.ElementTree as ET\n"
		"r = ET.parse(sys.argv[1]).getroot()\n"
		"ts = r.find('TimeSpan')\n"
		"lat = ts.find('Latency')\n"
		"b50 = [b for b in lat.findall('Bucket') if b.findtext('Percentile') == '50'][0]\n"
		"print(r.tag, ts.findtext('TestTimeSeconds'), len(ts.findall('Thread')),\n"
		"      len(lat.findall('Bucket')), b50.findtext('TotalMilliseconds'),\n"
		"      [b.findtext('Percentile') for b in lat.findall('Bucket')][-8:],\n"
		"      len(ts.find('Iops').findall('Bucket')), ts.find('Iops').find('Bucket').get('Total'),\n"
		"      len(ts.find('CpuUtilization').findall('CPU')),\n"
		"      ts.find('Thread').find('Target').findtext('Path'),\n"
		"      r.find('Profile').find('TimeSpans').find('TimeSpan').findtext('RandSeed'))\n";
	return run_python(doc, script, status);
}

// Parses the document with python3's xml.etree: the ascii() of the first
// <Path>'s text and how many <Path> elements there are.
std::string xml_paths(const std::string &doc, int *status)
{
	return run_python(doc,
			  "import sys, xml.etree.ElementTree as ET\n"
			  "t = [e.text for e in ET.parse(sys.argv[1]).getroot().iter('Path')]\n"
			  "print(ascii(t[0]), len(t))\n",
			  status);
}

} // namespace

TEST_CASE("diskspd xml: well-formed, DISKSPD's elements, values agree with the text")
{
	t::diskspd_run f;
	// A path that needs escaping.
	plan_job &j = const_cast<plan_job &>(*plan_job_at(&f.get_plan(), 0));
	for (uint32_t c = 0; c < j.nr_clones; c++) {
		free(j.clones[c].files[0].path);
		j.clones[c].files[0].path = plan_strdup("a&b<c>\"d'.dat");
	}
	std::ostringstream out;
	dr::write_xml(f.get_results(), f.get_plan(), f.opts(), out);
	int status = -1;
	std::string facts = xml_facts(out.str(), &status);
	INFO(out.str());
	CHECK(status == 0);
	CHECK(facts == "Results 2.00 2 108 5.997 ['99.9', '99.99', '99.999', '99.9999', "
		       "'99.99999', '99.999999', '99.9999999', '100'] 2 8 2 a&b<c>\"d'.dat 5\n");
	// The text's total 50th percentile is the same number.
	std::string text = text_of(f, f.opts());
	CHECK(text.find("   50th |      4.014 |     20.054 |      5.997\n") != std::string::npos);
}

// Every byte a Linux file name may hold that XML 1.0 cannot carry: C0
// controls, DEL (allowed), CR (kept as &#13;), invalid UTF-8, U+FFFE; and a
// valid two-byte character that must pass unchanged.
const char hostile_path[] = "we\"ird\\ <&>'\x01\x1f\x7f\t\r\n\xff\xc3\xa9\xef\xbf\xbe\xed\xa0\x80\xc0\xaf.dat";

TEST_CASE("golden: diskspd xml of a hostile file name is tests/golden/diskspd/diskspd-hostile.xml and parses")
{
	t::diskspd_run f;
	plan_job &j = const_cast<plan_job &>(*plan_job_at(&f.get_plan(), 0));
	for (uint32_t c = 0; c < j.nr_clones; c++) {
		free(j.clones[c].files[0].path);
		j.clones[c].files[0].path = plan_strdup(hostile_path);
	}
	std::ostringstream out;
	dr::write_xml(f.get_results(), f.get_plan(), f.opts(), out);
	std::string why;
	CHECK_MESSAGE(t::golden_match("tests/golden/diskspd/diskspd-hostile.xml", out.str(), &why), why);
	int status = -1;
	std::string facts = xml_paths(out.str(), &status);
	CHECK(status == 0);
	// What a parser reads back: U+FFFD for each byte XML cannot carry, the rest as written.
	const char *want = R"('we"ird\\ <&>\'\ufffd\ufffd\x7f\t\r\n\ufffd\xe9)"
			   R"(\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd.dat')";
	CHECK(facts == std::string(want) + " 3\n");
}

TEST_CASE("diskspd xml: an interrupted run has DISKSPD's Error element")
{
	t::diskspd_run f;
	for (uint32_t c = 0; c < 2; c++)
		f.clone(c).end_ns = 0;
	std::ostringstream out;
	dr::write_xml(f.get_results(), f.get_plan(), f.opts(), out);
	CHECK(out.str().find("<Error>The test was interrupted") != std::string::npos);
	CHECK(out.str().find("<Thread>") == std::string::npos);
}

TEST_CASE("diskspd: -d2 -D keeps 2 buckets; I/Os completing after the duration are not a third")
{
	t::diskspd_run f;
	dr::options o = f.opts();
	std::ostringstream before;
	dr::write_xml(f.get_results(), f.get_plan(), o, before);
	std::string text = text_of(f, o);
	// A 5 ms third sample of a few late completions, as the engine records one.
	for (uint32_t c = 0; c < 2; c++) {
		res_series &s = f.clone(c).iops_series;
		s.samples = (res_sample *)realloc(s.samples, 3 * sizeof(res_sample));
		s.samples[2] = res_sample{};
		s.samples[2].t_start_ns = 2000000000ull;
		s.samples[2].t_end_ns = 2005000000ull;
		s.samples[2].ios[PLAN_DDIR_READ] = 3;
		s.nr = s.cap = 3;
	}
	std::ostringstream after;
	dr::write_xml(f.get_results(), f.get_plan(), o, after);
	CHECK(after.str() == before.str());
	std::string xml = after.str();
	size_t n = 0;
	for (size_t at = xml.find("<Bucket SampleMillisecond="); at != std::string::npos;
	     at = xml.find("<Bucket SampleMillisecond=", at + 1))
		n++;
	CHECK(n == 3 * 2); // two threads and their target: 2 buckets each
	CHECK(xml.find("SampleMillisecond=\"3000\"") == std::string::npos);
	CHECK(text_of(f, o) == text); // the IopsStdDev column too
}

namespace {

constexpr uint64_t KiB = 1024;

// A file's effective distribution as the engine records it: {io_first, io%, offset, bytes} ranges.
res_zones zones_of(std::initializer_list<res_zone> ranges)
{
	res_zones z{};
	for (const res_zone &r : ranges) {
		z.zone[z.nr++] = r;
		z.io_span += r.io_pct;
	}
	return z;
}

// DISKSPD's -rdpct10/10:10/10:0/10 (and the 80/70 it adds) over 100 KiB and over 1 MiB, 4K aligned.
const res_zones pct_100k = zones_of({ { 0, 10, 0, 8 * KiB }, { 10, 10, 8 * KiB, 12 * KiB }, { 20, 80, 28 * KiB, 72 * KiB } });
const res_zones pct_1m = zones_of({ { 0, 10, 0, 100 * KiB }, { 10, 10, 100 * KiB, 104 * KiB },
				    { 20, 80, 304 * KiB, 720 * KiB } });

void give(t::diskspd_run &f, uint32_t c, const res_zones &z)
{
	res_clone &k = f.clone(c);
	free(k.zones);
	k.zones = (res_zones *)malloc(sizeof(res_zones));
	REQUIRE(k.zones);
	*k.zones = z;
	k.nr_zones = 1;
}

void rename_file(t::diskspd_run &f, uint32_t c, const char *path)
{
	plan_job &j = const_cast<plan_job &>(*plan_job_at(&f.get_plan(), 0));
	free(j.clones[c].files[0].path);
	j.clones[c].files[0].path = plan_strdup(path);
}

// The text from the CPU table's last row to "Total IO", exclusive.
std::string section_before_total(const std::string &text)
{
	size_t from = text.find("\navg.|"), to = text.find("\nTotal IO\n");
	REQUIRE(from != std::string::npos);
	REQUIRE(to != std::string::npos);
	from = text.find('\n', from + 1) + 1;
	return text.substr(from, to + 1 - from);
}

} // namespace

TEST_CASE("diskspd text: Effective IO Distributions follow the CPU table, each distinct one once")
{
	t::diskspd_run f;
	const std::string head = "\nEffective IO Distributions\n--------------------------\n";
	const std::string ranges_100k = "    10% of IO => [     0    -      8KiB)\n"
					"    10% of IO => [     8KiB -     20KiB)\n"
					"    80% of IO => [    28KiB -    100KiB)\n";
	// No -rd: no section, nothing between the CPU table and the IO tables but a blank line.
	CHECK(section_before_total(text_of(f, f.opts())) == "\n");
	// Both threads on one target with one distribution: one block, both threads.
	give(f, 0, pct_100k);
	give(f, 1, pct_100k);
	CHECK(section_before_total(text_of(f, f.opts())) ==
	      head + "target: testfile.dat [thread: 0 1]\n" + ranges_100k + "\n");
	// The same ranges on two targets: one block, each target with its thread, by path.
	rename_file(f, 0, "testfile2.dat");
	rename_file(f, 1, "testfile.dat");
	CHECK(section_before_total(text_of(f, f.opts())) ==
	      head + "target: testfile.dat [thread: 1]\ntarget: testfile2.dat [thread: 0]\n" + ranges_100k + "\n");
	// Another size, other ranges: a block each, in DISKSPD's order of the ranges (8K ends before 100K).
	give(f, 0, pct_1m);
	CHECK(section_before_total(text_of(f, f.opts())) ==
	      head + "target: testfile.dat [thread: 1]\n" + ranges_100k + "target: testfile2.dat [thread: 0]\n" +
		      "    10% of IO => [     0    -    100KiB)\n"
		      "    10% of IO => [   100KiB -    204KiB)\n"
		      "    80% of IO => [   304KiB -      1MiB)\n\n");
}

TEST_CASE("diskspd text: -rdabs ranges dropped past the end leave the others' shares out of what is left")
{
	// -rdabs10/50K:20/10K:30/1G (and the 40% rest) on 100 KiB: the 1G range is cut at the end,
	// the rest is past it; 10:20:30 of 60.
	t::diskspd_run f;
	res_zones z = zones_of({ { 0, 10, 0, 50 * KiB }, { 10, 20, 50 * KiB, 10 * KiB }, { 30, 30, 60 * KiB, 40 * KiB } });
	give(f, 0, z);
	give(f, 1, z);
	CHECK(section_before_total(text_of(f, f.opts())) ==
	      "\nEffective IO Distributions\n--------------------------\n"
	      "target: testfile.dat [thread: 0 1]\n"
	      "    16.7% of IO => [     0    -     50KiB)\n"
	      "    33.3% of IO => [    50KiB -     60KiB)\n"
	      "    50.0% of IO => [    60KiB -    100KiB)\n\n");
}

TEST_CASE("diskspd text: a target's threads, three or more in a row as a range")
{
	CHECK(dr::thread_list({ 0 }) == " 0");
	CHECK(dr::thread_list({ 0, 1 }) == " 0 1");
	CHECK(dr::thread_list({ 0, 1, 2 }) == " 0 - 2");
	CHECK(dr::thread_list({ 0, 1, 2, 4 }) == " 0 - 2 4");
	CHECK(dr::thread_list({ 3, 4, 5, 6, 9, 10 }) == " 3 - 6 9 10");
	// DISKSPD 2.2 prints " 0 0 2" here (it repeats a lone thread before a gap); no
	// command line gives a target threads apart, so this says it once.
	CHECK(dr::thread_list({ 0, 2 }) == " 0 2");
}

TEST_CASE("diskspd xml: each target's effective distribution, a gap as an IO=\"0\" range")
{
	t::diskspd_run f;
	give(f, 0, pct_100k);
	std::ostringstream out;
	dr::write_xml(f.get_results(), f.get_plan(), f.opts(), out);
	const std::string want = "        <WriteCount>4</WriteCount>\n"
				 "        <Distribution>\n"
				 "          <Absolute>\n"
				 "            <Range IO=\"10\">8192</Range>\n"
				 "            <Range IO=\"10\">12288</Range>\n"
				 "            <Range IO=\"0\">8192</Range>\n"
				 "            <Range IO=\"80\">73728</Range>\n"
				 "          </Absolute>\n"
				 "        </Distribution>\n";
	std::string xml = out.str();
	INFO(xml);
	CHECK(xml.find(want) != std::string::npos);
	// thread 1 had none: one <Distribution> in the document's results
	CHECK(xml.find("<Distribution>") == xml.rfind("<Distribution>"));
	int status = -1;
	run_python(xml, "import sys, xml.etree.ElementTree as ET\nET.parse(sys.argv[1])\n", &status);
	CHECK(status == 0);
}

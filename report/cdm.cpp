// report/cdm.cpp - CrystalDiskMark's text export layout (cdm.hpp).
//
// The row format follows CrystalDiskMark's export (reference/diskspd-and-
// crystaldiskmark.md §3.2); the header lines are ioplan's own.
#include "report/cdm.hpp"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <set>
#include <sys/statvfs.h>
#include <tuple>
#include <vector>

#include "report/caveats.hpp"
#include "report/ranks.hpp"
#include "report/report.hpp"
#include "report/runs.hpp"
#include "report/units.hpp"

namespace report {

namespace {

enum section { SEC_READ, SEC_WRITE, SEC_MIX, SEC_TRIM, SEC_NR };

section section_of(enum plan_rw rw)
{
	switch (rw) {
	case PLAN_RW_READ:
	case PLAN_RW_RANDREAD:
		return SEC_READ;
	case PLAN_RW_WRITE:
	case PLAN_RW_RANDWRITE:
		return SEC_WRITE;
	case PLAN_RW_RW:
	case PLAN_RW_RANDRW:
		return SEC_MIX;
	default:
		return SEC_TRIM;
	}
}

// The direction whose block size names the row.
int main_ddir(enum plan_rw rw)
{
	if (plan_rw_has_ddir(rw, PLAN_DDIR_READ))
		return PLAN_DDIR_READ;
	if (plan_rw_has_ddir(rw, PLAN_DDIR_WRITE))
		return PLAN_DDIR_WRITE;
	return PLAN_DDIR_TRIM;
}

// (random, bs bytes, Q, T): what a row is, for naming profiles.
using shape = std::tuple<bool, uint64_t, uint32_t, uint32_t>;

shape shape_of(const plan_job &j)
{
	return shape(plan_rw_is_random(j.rw), j.bs[main_ddir(j.rw)].min_bytes, j.iodepth,
		     j.nr_clones);
}

std::string block_size(uint64_t bs)
{
	if (bs && bs % (1u << 20) == 0)
		return strf("%4lluMiB", (unsigned long long)(bs >> 20));
	if (bs && bs % 1024 == 0)
		return strf("%4lluKiB", (unsigned long long)(bs >> 10));
	return strf("%4lluB", (unsigned long long)bs);
}

// " (LO - HI MB/s)" when a figure was chosen from runs that differ.
std::string range_text(const score &s)
{
	if (s.n < 2)
		return "";
	return strf("  (%.3f - %.3f MB/s)", s.lo_bytes_per_s / 1e6, s.hi_bytes_per_s / 1e6);
}

// " *1,3": the footnotes that speak of this row.
std::string marks_of(const std::vector<finding> &notes, uint32_t job_id)
{
	std::string m;
	for (size_t k = 0, n = 0; k < notes.size(); k++) {
		if (notes[k].jobs.empty() || std::none_of(notes[k].jobs.begin(), notes[k].jobs.end(),
							  [](bool b) { return b; }))
			continue;
		n++;
		if (finding_marks(notes[k], job_id))
			m += strf("%s%zu", m.empty() ? " *" : ",", n);
	}
	return m;
}

// A job that failed before it moved a byte says so: a row of zeros would read
// as a disk that answers nothing.  T= is every thread the row's figures are of:
// under mpirun each of the nranks that ran the job ran its clones.
std::string row(const plan_job &j, uint32_t nranks, const std::vector<run_figures> &runs, int failed,
		const std::string &marks)
{
	std::string name = strf("  %s %s (Q=%3u, T=%2u): ", plan_rw_is_random(j.rw) ? "RND" : "SEQ",
				block_size(j.bs[main_ddir(j.rw)].min_bytes).c_str(), j.iodepth,
				j.nr_clones * std::max(nranks, 1u));
	if (failed)
		return name + "failed: " + strerror(failed) + marks + "\n";
	score s = score_of(measured(runs), j.repeat_aggregate);

	return name + strf("%9.3f MB/s [%9.1f IOPS] <%9.2f us>", s.bytes_per_s / 1e6, s.iops,
			   s.lat_mean_ns / 1e3) +
	       range_text(s) + marks + "\n";
}

std::string heading(section s, const plan_job &first)
{
	switch (s) {
	case SEC_READ:
		return "[Read]\n";
	case SEC_WRITE:
		return "[Write]\n";
	case SEC_MIX:
		return strf("[Mix] Read %u%%/Write %u%%\n", first.rwmixread_pct,
			    100 - first.rwmixread_pct);
	default:
		return "[Trim]\n";
	}
}

std::string profile_name(const plan &p)
{
	const uint64_t K = 1024, M = 1024 * 1024;
	const shape seq1m_q8(false, M, 8, 1), seq1m_q1(false, M, 1, 1), seq128k(false, 128 * K, 32, 1);
	const shape rnd_q32(true, 4 * K, 32, 1), rnd_q32t16(true, 4 * K, 32, 16), rnd_q1(true, 4 * K, 1, 1);
	std::set<shape> rows;
	bool mix = false;

	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		if (section_of(j.rw) == SEC_MIX)
			mix = true;
		else
			rows.insert(shape_of(j));
	}
	std::string name = "Custom";
	if (rows == std::set<shape>{ seq1m_q8, seq1m_q1, rnd_q32, rnd_q1 })
		name = "Default";
	else if (rows == std::set<shape>{ seq1m_q8, seq128k, rnd_q32t16, rnd_q1 })
		name = "Default (NVMe SSD)";
	else if (rows == std::set<shape>{ seq1m_q8, rnd_q32 } ||
		 rows == std::set<shape>{ seq1m_q8, rnd_q32t16 })
		name = "Peak Performance";
	else if (rows == std::set<shape>{ seq1m_q1, rnd_q1 })
		name = "Real World Performance";
	else if (rows == std::set<shape>{ seq1m_q8 })
		name = "Demo";
	return mix ? name + " + Mix" : name;
}

std::string size_text(uint64_t b)
{
	if (b && b % (1ull << 30) == 0)
		return strf("%llu GiB", (unsigned long long)(b >> 30));
	if (b && b % (1ull << 20) == 0)
		return strf("%llu MiB", (unsigned long long)(b >> 20));
	if (b && b % 1024 == 0)
		return strf("%llu KiB", (unsigned long long)(b >> 10));
	return strf("%llu B", (unsigned long long)b);
}

std::string seconds_text(uint64_t ns)
{
	if (ns % 1000000000ull == 0)
		return strf("%llu sec", (unsigned long long)(ns / 1000000000ull));
	return strf("%g sec", (double)ns / 1e9);
}

// The test file's size: the first file of the first job (the presets share one).
uint64_t test_size(const plan_job &j)
{
	if (j.nr_clones && j.clones[0].nr_files && j.clones[0].files[0].size_bytes)
		return j.clones[0].files[0].size_bytes;
	return j.size_bytes;
}

std::string date_text(uint64_t wall_ns)
{
	time_t t = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;
	char buf[64];

	if (!localtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y/%m/%d %H:%M:%S", &tm))
		return "-";
	return buf;
}

void write_footer(std::ostream &out, const results &r, const plan &p, const cdm_options &o)
{
	const plan_job &first = *plan_job_at(&p, 0);
	uint64_t pause = 0;
	for (uint32_t i = 0; i < p.nr_jobs; i++)
		pause = std::max(pause, plan_job_at(&p, i)->group_pause_ns);
	std::string measure = first.runtime_ns ? seconds_text(first.runtime_ns) : "one pass";

	out << "Profile: " << (o.profile.empty() ? profile_name(p) : o.profile) << "\n";
	out << "   Test: " << size_text(test_size(first)) << strf(" (x%u)", first.repeat)
	    << (o.target.empty() ? "" : " [" + o.target + "]") << "\n";
	out << "   Mode: " << (o.admin ? "[Admin]" : "[User]") << "\n";
	out << "   Time: Measure " << measure << " / Interval " << seconds_text(pause) << "\n";
	out << "   Date: " << date_text(r.start_wall_ns) << "\n";
	out << "     OS: " << std::string(r.kernel, strnlen(r.kernel, sizeof(r.kernel))) << "\n";
}

// A table from a file under CrystalDiskMark's default 1 GiB, or runs under its
// 5 s, is a smoke test (the default preset is 16 MiB for 0.5 s): caches and
// short runs flatter it, and a reader comparing it with CrystalDiskMark's must
// be told so under the profile's name.
void write_smoke_note(std::ostream &out, const plan &p)
{
	const uint64_t cdm_size = 1ull << 30, cdm_runtime_ns = 5000000000ull;
	if (!p.nr_jobs)
		return;
	const plan_job &first = *plan_job_at(&p, 0);
	uint64_t size = test_size(first);
	if (size >= cdm_size && (!first.runtime_ns || first.runtime_ns >= cdm_runtime_ns))
		return;
	out << "  Note: a smoke test (" << size_text(size) << ", "
	    << (first.runtime_ns ? seconds_text(first.runtime_ns) : std::string("one pass"))
	    << " per run), not CrystalDiskMark's 1 GiB for 5 sec: caches and short runs flatter the figures "
	       "(--preset=cdm-default for comparable ones)\n";
}

// What keeps a row from being the whole truth: errors and an interrupted run.
void write_notes(std::ostream &out, const results &r, const plan &p,
		 const std::vector<std::vector<run_figures>> &runs)
{
	for (uint32_t i = 0; i < p.nr_jobs; i++)
		for (const run_figures &f : runs[i])
			if (f.error) {
				out << strf("  Error: %s (run %u): %s\n", plan_job_at(&p, i)->name,
					    f.run, strerror(f.error));
				break;
			}
	if (r.interrupted)
		out << "  Note: interrupted; the figures cover only what ran\n";
	write_smoke_note(out, p);
	for (uint32_t i = 0; i < r.nr_msgs; i++)
		if (!strcmp(r.msgs[i].code, "run/left-files"))
			out << "  Note: " << r.msgs[i].text << "\n";
}

// CrystalDiskMark shows the best of its runs: say of how many, and how.
std::string runs_line(const plan &p, const std::vector<std::vector<run_figures>> &runs)
{
	size_t most = 0;
	for (uint32_t i = 0; i < p.nr_jobs; i++)
		most = std::max(most, measured(runs[i]).size());
	if (most < 2)
		return "";
	return strf("* Each figure is %s of %zu runs; (low - high MB/s) of the runs follows it\n",
		    repeat_aggregate_word(plan_job_at(&p, 0)->repeat_aggregate), most);
}

bool marks_rows(const finding &f)
{
	return std::any_of(f.jobs.begin(), f.jobs.end(), [](bool b) { return b; });
}

// Numbered footnotes for the marked rows, in mark order, then the run's own.
void write_footnotes(std::ostream &out, const std::vector<finding> &notes)
{
	size_t n = 0;
	for (const finding &f : notes)
		if (marks_rows(f))
			out << strf("*%zu %s\n", ++n, f.text.c_str());
	for (const finding &f : notes)
		if (!marks_rows(f))
			out << "*  " << f.text << "\n";
	if (!notes.empty())
		out << "\n";
}

} // namespace

void write_cdm(std::ostream &out, const results &r, const plan &p, const cdm_options &o)
{
	std::vector<std::vector<run_figures>> runs = runs_by_job(r, p);
	std::vector<finding> notes = without_percentile_findings(findings_of(r, p));

	out << "ioplan " << IOPLAN_VERSION << " - results in CrystalDiskMark's layout\n";
	out << "* MB/s = 1,000,000 bytes/s\n";
	out << "* KB = 1000 bytes, KiB = 1024 bytes\n";
	out << runs_line(p, runs);
	for (int s = 0; s < SEC_NR; s++) {
		bool opened = false;
		for (uint32_t i = 0; i < p.nr_jobs; i++) {
			const plan_job &j = *plan_job_at(&p, i);
			if (section_of(j.rw) != s)
				continue;
			if (!opened)
				out << "\n" << heading((section)s, j);
			opened = true;
			out << row(j, ranks_that_ran_job(r, i), runs[i], job_failure(r, i), marks_of(notes, i));
		}
	}
	out << "\n";
	write_footnotes(out, notes);
	if (p.nr_jobs)
		write_footer(out, r, p, o);
	write_notes(out, r, p, runs);
	out.flush();
}

std::string cdm_target_usage(const std::string &dir)
{
	struct statvfs st;

	if (statvfs(dir.c_str(), &st) != 0 || !st.f_blocks)
		return "";
	double gib = (double)(1ull << 30);
	double total = (double)st.f_blocks * (double)st.f_frsize;
	double used = total - (double)st.f_bfree * (double)st.f_frsize;
	return strf("%s: %.0f%% (%.0f/%.0fGiB)", dir.c_str(), used * 100.0 / total, used / gib,
		    total / gib);
}

} // namespace report

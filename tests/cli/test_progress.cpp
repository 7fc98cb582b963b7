// tests/cli/test_progress.cpp - the status line (cli/progress.cpp) against the
// lines fio 3.33 printed in reference/fio.md §5, and its padding, pacing and
// phases.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "cli/progress.hpp"
#include "tests/report/fixture.hpp"

namespace {

// A snapshot with states (copied into owned storage) and the given counters.
struct snapshot {
	std::string states;
	eng_status st = {};
	snapshot(const char *s, uint32_t running, uint32_t files, double done, uint64_t eta_s)
	    : states(s)
	{
		st.phase = ENG_PHASE_RUN;
		st.nr_running = running;
		st.files_open = files;
		st.states = &states[0];
		st.done_fraction = done;
		st.eta_ns = eta_s == UINT64_MAX ? UINT64_MAX : eta_s * 1000000000u;
	}
};

// The mark of a snapshot taken 1 s before, with dbytes/dios less.
cli::progress_mark one_second_before(const eng_status &now, const uint64_t *dbytes, const uint64_t *dios)
{
	cli::progress_mark m;
	m.valid = true;
	m.elapsed_ns = now.elapsed_ns - 1000000000u;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		m.bytes[d] = now.bytes[d] - dbytes[d];
		m.ios[d] = now.ios[d] - dios[d];
	}
	return m;
}

} // namespace

TEST_CASE("progress: fio's rate-limited write line")
{
	t::plan_holder p({ { "w", PLAN_RW_RANDWRITE, 0, 1, false, {}, [](plan_job &j) {
				    j.rate_bytes_per_s[PLAN_DDIR_WRITE] = 2048 * 1024;
			    } } });
	snapshot s("w", 1, 1, 0.6, 2);
	s.st.elapsed_ns = 3000000000u;
	s.st.bytes[PLAN_DDIR_WRITE] = 3 * 2048 * 1024;
	s.st.ios[PLAN_DDIR_WRITE] = 3 * 512;
	const uint64_t db[3] = { 0, 2048 * 1024, 0 }, di[3] = { 0, 512, 0 };
	CHECK(cli::format_status(p.get(), s.st, one_second_before(s.st, db, di)) ==
	      "Jobs: 1 (f=1), 0B/s-2048KiB/s: [w(1)][60.0%][w=2048KiB/s][w=512 IOPS][eta 00m:02s]");
}

TEST_CASE("progress: the world's line counts every rank's copy of the plan")
{
	// Three ranks of a one-job plan, rank 2 finished: its limit no longer counts.
	t::plan_holder p({ { "w", PLAN_RW_RANDWRITE, 0, 1, false, {}, [](plan_job &j) {
				    j.rate_iops[PLAN_DDIR_WRITE] = 300;
			    } } });
	snapshot s("ww_", 2, 2, 0.5, 1);
	CHECK(cli::format_status(p.get(), s.st, cli::progress_mark(), 3) ==
	      "Jobs: 2 (f=2), 0-600 IOPS: [w(2),_(1)][50.0%][eta 00m:01s]");
	CHECK(cli::format_status(p.get(), s.st, cli::progress_mark()) ==
	      "Jobs: 2 (f=2), 0-300 IOPS: [w(1)][50.0%][eta 00m:01s]");
}

TEST_CASE("progress: a limit given for every direction counts only the job's own")
{
	// rate_iops=500 sets read, write and trim alike; fio's line sums the directions a
	// job does (td_read, td_write, td_trim): "0-500 IOPS" for a reader, not 1500.
	auto every = [](uint64_t v) {
		return [v](plan_job &j) {
			for (int d = 0; d < PLAN_DDIR_NR; d++)
				j.rate_iops[d] = j.rate_iops_min[d] = v;
		};
	};
	t::plan_holder p({ { "r", PLAN_RW_RANDREAD, 0, 1, false, {}, every(500) },
			   { "m", PLAN_RW_RANDRW, 0, 1, false, {}, every(100) } });
	snapshot s("rm", 2, 2, 0.5, 1);
	CHECK(cli::format_status(p.get(), s.st, cli::progress_mark()) ==
	      "Jobs: 2 (f=2), 700-700 IOPS: [r(1),m(1)][50.0%][eta 00m:01s]");
}

TEST_CASE("progress: fio's mixed line, unknown share, both directions")
{
	t::plan_holder p({ { "m", PLAN_RW_RANDRW, 0, 1, false, {}, nullptr } });
	snapshot s("m", 1, 1, -1.0, 0);
	s.st.elapsed_ns = 2000000000u;
	const uint64_t db[3] = { 79ull * 1048576, 82627379, 0 }, di[3] = { 20200, 20180, 0 };
	s.st.bytes[0] = db[0];
	s.st.bytes[1] = db[1];
	s.st.ios[0] = di[0];
	s.st.ios[1] = di[1];
	CHECK(cli::format_status(p.get(), s.st, one_second_before(s.st, db, di)) ==
	      "Jobs: 1 (f=1): [m(1)][-.-%][r=79.0MiB/s,w=78.8MiB/s][r=20.2k,w=20.2k IOPS][eta 00m:00s]");
}

TEST_CASE("progress: fio's line with a finished thread and IOPS limits of running ones")
{
	t::plan_holder p({ { "writer", PLAN_RW_RANDWRITE, 0, 1, false, {},
			     [](plan_job &j) { j.rate_iops[PLAN_DDIR_WRITE] = 500; } },
			   { "reader", PLAN_RW_RANDREAD, 1, 2, false, {},
			     [](plan_job &j) { j.rate_iops[PLAN_DDIR_READ] = 1000; } } });
	snapshot s("_rr", 2, 2, 1.0, 0);
	s.st.elapsed_ns = 4000000000u;
	const uint64_t db[3] = { 8008 * 1024, 0, 0 }, di[3] = { 2002, 0, 0 };
	s.st.bytes[0] = 3 * db[0];
	s.st.ios[0] = 3 * di[0];
	// The finished writer's 500 IOPS no longer count.
	CHECK(cli::format_status(p.get(), s.st, one_second_before(s.st, db, di)) ==
	      "Jobs: 2 (f=2), 0-2000 IOPS: [_(1),r(2)][100.0%][r=8008KiB/s][r=2002 IOPS][eta 00m:00s]");
}

TEST_CASE("progress: no rates before a second snapshot, run-length states, long ETAs")
{
	t::plan_holder p({ { "a", PLAN_RW_READ, 0, 3, false, {}, nullptr },
			   { "b", PLAN_RW_WRITE, 0, 2, false, {}, nullptr } });
	snapshot s("RR/WP", 3, 4, 0.0345, 7 * 60);
	CHECK(cli::format_status(p.get(), s.st, cli::progress_mark()) ==
	      "Jobs: 3 (f=4): [R(2),/(1),W(1),P(1)][3.5%][eta 07m:00s]");
	s.st.eta_ns = (uint64_t)(49710ull * 86400 + 6 * 3600 + 28 * 60 + 14) * 1000000000u;
	s.st.done_fraction = 1.7;	// never shows more than 100%
	CHECK(cli::format_status(p.get(), s.st, cli::progress_mark()) ==
	      "Jobs: 3 (f=4): [R(2),/(1),W(1),P(1)][100.0%][eta 49710d:06h:28m:14s]");
	s.st.eta_ns = UINT64_MAX;
	s.st.done_fraction = std::nan("");
	CHECK(cli::format_status(p.get(), s.st, cli::progress_mark()) ==
	      "Jobs: 3 (f=4): [R(2),/(1),W(1),P(1)][-.-%][eta --]");
}

TEST_CASE("progress: phase-aware - the layout share while files are laid out")
{
	t::plan_holder p({ { "a", PLAN_RW_READ, 0, 1, false, {}, nullptr } });
	snapshot s("I", 1, 1, -1.0, UINT64_MAX);
	s.st.phase = ENG_PHASE_LAYOUT;
	s.st.layout_done_bytes = 1 << 20;
	s.st.layout_total_bytes = 4 << 20;
	CHECK(cli::format_status(p.get(), s.st, cli::progress_mark()) ==
	      "Jobs: 1 (f=1): [I(1)][layout 25.0%][eta --]");
	s.st.phase = ENG_PHASE_RUN;
	CHECK(cli::format_status(p.get(), s.st, cli::progress_mark()) ==
	      "Jobs: 1 (f=1): [I(1)][-.-%][eta --]");
}

TEST_CASE("progress: update pads over the previous line, paces itself, rates between updates")
{
	t::plan_holder p({ { "a", PLAN_RW_READ, 0, 1, false, {}, nullptr } });
	cli::progress_line line(p.get());
	snapshot s("R", 1, 1, 0.5, 10);
	CHECK(line.due(0));
	CHECK(line.clear().empty());
	s.st.elapsed_ns = 1000000000u;
	std::string first = line.update(s.st);
	CHECK(first == "Jobs: 1 (f=1): [R(1)][50.0%][eta 00m:10s]\r");
	CHECK_FALSE(line.due(1400000000u));
	CHECK(line.due(1500000000u));

	s.st.elapsed_ns = 1500000000u;
	s.st.bytes[0] = 512 * 1024;	// in 0.5 s: 1 MiB/s
	s.st.ios[0] = 128;
	std::string second = line.update(s.st);
	CHECK(second == "Jobs: 1 (f=1): [R(1)][50.0%][r=1024KiB/s][r=256 IOPS][eta 00m:10s]\r");

	s.states = "_";
	s.st.states = &s.states[0];
	s.st.nr_running = 0;
	s.st.elapsed_ns = 2000000000u;
	s.st.bytes[0] = 4096;	// the next group's window restarted the counters
	s.st.ios[0] = 1;
	std::string third = line.update(s.st);
	std::string body = "Jobs: 0 (f=1): [_(1)][50.0%][r=8192B/s][r=2 IOPS][eta 00m:10s]";
	CHECK(third == body + std::string(second.size() - 1 - body.size(), ' ') + "\r");
	CHECK(line.clear() == std::string(body.size(), ' ') + "\r");
}

TEST_CASE("progress: --eta-interval paces the line, --eta-newline keeps one line per period")
{
	t::plan_holder p({ { "a", PLAN_RW_READ, 0, 1, false, {}, nullptr } });
	cli::progress_line line(p.get());
	line.set_timing(2000000000u, 3000000000u);
	snapshot s("R", 1, 1, 0.5, 10);
	s.st.elapsed_ns = 1000000000u;
	CHECK(line.update(s.st).back() == '\r');
	CHECK_FALSE(line.due(2500000000u));
	CHECK(line.due(3000000000u));
	s.st.elapsed_ns = 3000000000u;
	std::string kept = line.update(s.st);
	CHECK(kept.back() == '\n');
	CHECK(line.clear().empty()); // nothing to blank over a kept line
	s.st.elapsed_ns = 5000000000u;
	CHECK(line.update(s.st).back() == '\r');
	s.st.elapsed_ns = 6000000000u;
	CHECK(line.update(s.st).back() == '\n');
}

TEST_CASE("progress: --eta modes")
{
	cli::eta_mode m = cli::eta_mode::never;
	std::string err;
	CHECK(cli::parse_eta_mode("auto", &m, &err));
	CHECK(m == cli::eta_mode::automatic);
	CHECK(cli::parse_eta_mode("always", &m, &err));
	CHECK(m == cli::eta_mode::always);
	CHECK(cli::parse_eta_mode("never", &m, &err));
	CHECK(m == cli::eta_mode::never);
	CHECK_FALSE(cli::parse_eta_mode("sometimes", &m, &err));
	CHECK(err == "--eta: unknown value 'sometimes' (valid: auto, always, never)");
	CHECK(cli::progress_enabled(cli::eta_mode::always, false));
	CHECK(cli::progress_enabled(cli::eta_mode::automatic, true));
	CHECK_FALSE(cli::progress_enabled(cli::eta_mode::automatic, false));
	CHECK_FALSE(cli::progress_enabled(cli::eta_mode::never, true));
}

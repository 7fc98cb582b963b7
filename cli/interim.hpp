// cli/interim.hpp - fio's --status-interval and SIGUSR1: reports of the
// results so far, written while the run goes on.
//
// Every interval of the run's elapsed time (and whenever SIGUSR1 comes), the
// supervisor asks the engine for the results so far (eng_snapshot) and renders
// them with the same writers, in the same formats, as the final report: fio's
// layout is one whole report after another (JSON documents back to back, a
// terse line per job, normal blocks), then the final one.  Normal output's
// banner opens the first report only.
//
// The supervisor runs with SIGINT blocked, so it must never block: text for
// stdout is queued and written as far as stdout takes it without waiting
// (drain()); what is left goes out before the final report.  An --output file
// takes each report as it comes (output_file::append).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "engine/engine.h"
#include "report/personality.hpp"

namespace cli {

// Normal output's opening notes (the layout lines, fio's notes as its jobs
// start), which the engine hands over on its own thread before any job runs
// (engine.h: eng_opts.opening).  fio prints them then, after its banner and
// before its progress line and --status-interval reports; they came only with
// the final report, after those, and a run with reports so far lost them.
// The layout's lines come before it writes and the rest after it: each hand-
// over holds the last one's lines, and only those not yet out go (ready()).
// The supervisor sleeps until something happens, so a hand-over wakes it
// (wake_fd).
class opening_notes {
public:
	// banner_written: the banner went to stdout as the run began (run.cpp: banner_now);
	// fio_output_file: report::options::fio_output_file.
	opening_notes(const plan &p, report::personality who, bool banner_out, bool fio_output_file);
	~opening_notes();
	opening_notes(const opening_notes &) = delete;
	opening_notes &operator=(const opening_notes &) = delete;

	const bool banner_written;

	// eng_opts.opening: renders them, on the engine's thread.
	static void take(void *self, const results *r);

	// The notes handed over and not yet out (else ""); sent() once they went.
	std::string ready();
	void sent();
	// Some went out, and none handed over waits.
	bool all_out();
	// Readable after a hand-over, until drained (drain_wake); -1 without one.
	int wake_fd() const { return wake_fd_; }
	void drain_wake();

private:
	const plan &p_;
	report::personality who_;
	bool fio_output_file_;
	int wake_fd_ = -1;
	std::mutex mu_;
	std::string text_;	// all of them, as last handed over
	std::string ready_text_;	// text_ as ready() last saw it
	std::string out_text_;	// ready_text_ once what ready() gave went out
	bool came_ = false;
	bool out_ = false;
};

class interim_reports {
public:
	// The report text of r; banner: normal output's opening (the first report's).
	using render_fn = std::function<std::string(const results &r, bool banner)>;
	// Where the text goes when it is not stdout (an --output file); false on a write error.
	using sink_fn = std::function<bool(const std::string &text)>;

	// Takes the snapshot (owned from here) instead of rendering it: under
	// mpirun rank 0 gathers the other ranks' first (cli/mpi/live.hpp) and
	// calls show() with the merge.
	using gather_fn = std::function<void(results *r)>;

	// interval_ns 0: only SIGUSR1 asks.  sink empty: stdout.
	interim_reports(uint64_t interval_ns, render_fn render, sink_fn sink);

	void set_gather(gather_fn gather) { gather_ = std::move(gather); }

	// Renders r as the next report and sends it where reports go.
	void show(const results &r);

	// At each supervisor tick: a report when the interval is due or asked is set.
	void tick(eng *e, uint64_t elapsed_ns, bool asked);

	// Sends text where the reports go (an --output file, or stdout's queue) now.
	void emit(const std::string &text);

	// Writes what stdout takes now without waiting.
	void drain();

	// Whether it needs the supervisor's ticks: an interval, or text stdout has not taken yet.
	bool timed() const { return interval_ns_ || !pending_.empty(); }

	// Whether stdout's reader left (EPIPE): the supervisor stops the run, as SIGTERM would.
	bool reader_gone() const { return reader_gone_; }

	// The text not written yet (stdout), for the caller to write before the final report.
	std::string take_pending();

	// Whether a report was rendered: the final one then opens without the banner.
	bool any() const { return count_ != 0; }

	// How long a report waits for threads that cannot answer at once (engine.h).
	uint64_t wait_ns() const;

private:
	void report(eng *e);

	uint64_t interval_ns_;
	uint64_t next_ns_;
	render_fn render_;
	sink_fn sink_;
	gather_fn gather_;
	std::string pending_;
	unsigned count_ = 0;
	bool failed_ = false;
	bool reader_gone_ = false;
};

} // namespace cli

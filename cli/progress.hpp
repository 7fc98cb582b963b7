// cli/progress.hpp - the live status line on stderr, in fio's shape.
//
//   Jobs: 2 (f=2), 0-2000 IOPS: [_(1),r(2)][53.4%][r=8008KiB/s][r=2002 IOPS][eta 01m:07s]
//
// Formatting only: the CLI polls eng_get_status() and prints what update()
// returns, at most twice a second (due()), when progress_enabled() says so.
// The text follows fio 3.33's status line (reference/fio.md §5): running
// threads and open files, the summed rate limits of the running threads, the
// thread states run-length encoded, the share done, the current bandwidth and
// IOPS per direction (omitted when zero), the ETA; then spaces over whatever
// the previous line left, and '\r'.  Phase-aware where fio is not: while
// files are laid out the share shown is the layout's ("[layout 45.0%]").
#pragma once

#include <cstdint>
#include <string>

#include "engine/engine.h"
#include "engine/plan.h"

namespace cli {

// --eta=auto|always|never.
enum class eta_mode { automatic, always, never };

// Parses --eta's value; false with a one-line reason in *err.
bool parse_eta_mode(const std::string &s, eta_mode *mode, std::string *err);

// Whether to show the line: always, never, or (auto) when stderr is a terminal.
bool progress_enabled(eta_mode mode, bool stderr_is_tty);

// Where the previous snapshot was, for rates between two snapshots.
struct progress_mark {
	bool valid = false;
	uint64_t elapsed_ns = 0;
	uint64_t bytes[PLAN_DDIR_NR] = {};
	uint64_t ios[PLAN_DDIR_NR] = {};
};

// The status line for snapshot st of plan p, without padding or '\r'.  Rates
// are over the time since prev (none when prev is invalid or no time passed).
// copies: how many runs of p st counts (under mpirun, the ranks): st.states
// then holds p's threads that many times over.
std::string format_status(const plan &p, const eng_status &st, const progress_mark &prev, uint32_t copies = 1);

class progress_line {
public:
	explicit progress_line(const plan &p) : plan_(p) {}

	// The world's line: st counts copies runs of the plan (format_status).
	void set_copies(uint32_t copies) { copies_ = copies; }

	// --eta-interval (0: 500 ms) and --eta-newline (0: never): every
	// newline_ns a line ends with '\n' and stays, as fio's does.
	void set_timing(uint64_t interval_ns, uint64_t newline_ns);

	// At most one line per interval (500 ms) of the run's elapsed time.
	bool due(uint64_t elapsed_ns) const;

	// The text to write for st: the line, spaces over the rest of the previous
	// one, '\r'.  Remembers st for the next rates.
	std::string update(const eng_status &st);

	// Spaces over the last line and '\r', so the report starts on a clean line.
	std::string clear() const;

private:
	const plan &plan_;
	progress_mark mark_;
	size_t last_len_ = 0;
	uint64_t last_shown_ns_ = 0;
	uint64_t interval_ns_ = 500000000;
	uint64_t newline_ns_ = 0;
	uint64_t last_newline_ns_ = 0;
	bool shown_ = false;
	uint32_t copies_ = 1;
};

} // namespace cli

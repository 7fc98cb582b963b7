// cli/progress.cpp - fio's status line from an eng_status snapshot (progress.hpp).
#include "cli/progress.hpp"

#include "report/units.hpp"

namespace cli {

namespace {

using report::num2str;
using report::strf;

const char ddir_letter[PLAN_DDIR_NR] = { 'r', 'w', 't' };

// A thread in one of these states counts towards the rate-limit sums.
bool is_running_state(char c)
{
	switch (c) {
	case 'R': case 'r': case 'W': case 'w': case 'M': case 'm':
	case 'D': case 'd': case 'F': case 'V': case '/':
		return true;
	default:
		return false;
	}
}

bool kib_units(const plan &p)
{
	const plan_job *j = plan_job_at(&p, 0);
	return !j || j->kb_base != 1000;
}

// ", 0B/s-2048KiB/s" or ", 0-2000 IOPS": the running threads' summed limits, of the
// directions each job does only, as fio's td_read/td_write/td_trim (rate_iops=500 sets all three).
std::string rate_limits(const plan &p, const eng_status &st, uint32_t copies)
{
	uint64_t min_b = 0, max_b = 0, min_i = 0, max_i = 0;
	uint32_t t = 0;
	for (uint32_t i = 0; i < p.nr_jobs * copies; i++) {
		const plan_job *j = plan_job_at(&p, i % p.nr_jobs);
		for (uint32_t c = 0; c < j->nr_clones; c++, t++) {
			if (!st.states || t >= p.nr_threads * copies || !is_running_state(st.states[t]))
				continue;
			for (int d = 0; d < PLAN_DDIR_NR; d++) {
				if (!plan_rw_has_ddir(j->rw, (plan_ddir)d))
					continue;
				min_b += j->rate_min_bytes_per_s[d];
				max_b += j->rate_bytes_per_s[d];
				min_i += j->rate_iops_min[d];
				max_i += j->rate_iops[d];
			}
		}
	}
	bool kib = kib_units(p);
	if (min_b || max_b)
		return ", " + num2str(min_b, 4, 1, kib, report::unit::byte_per_sec) + "-" +
		       num2str(max_b, 4, 1, kib, report::unit::byte_per_sec);
	if (min_i || max_i)
		return strf(", %llu-%llu IOPS", (unsigned long long)min_i, (unsigned long long)max_i);
	return "";
}

// "_(1),r(2)": each run of equal state letters as letter(count).
std::string run_string(const plan &p, const eng_status &st, uint32_t copies)
{
	std::string out;
	uint32_t n = st.states ? p.nr_threads * copies : 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t k = i;
		while (k < n && st.states[k] == st.states[i])
			k++;
		out += strf("%s%c(%u)", out.empty() ? "" : ",", st.states[i], k - i);
		i = k;
	}
	return out;
}

std::string pct_string(double fraction)
{
	if (!(fraction >= 0.0))	// negative or NaN: not known yet
		return "-.-%";
	if (fraction > 1.0)
		fraction = 1.0;
	return strf("%.1f%%", fraction * 100.0);
}

std::string done_part(const eng_status &st)
{
	if (st.phase == ENG_PHASE_LAYOUT && st.layout_total_bytes)
		return "[layout " +
		       pct_string((double)st.layout_done_bytes / (double)st.layout_total_bytes) + "]";
	return "[" + pct_string(st.done_fraction) + "]";
}

uint64_t per_sec(uint64_t now, uint64_t before, uint64_t dt_ns)
{
	// The counters only grow (eng_status); one that fell would be taken as all new.
	uint64_t delta = now >= before ? now - before : now;
	return (uint64_t)((unsigned __int128)delta * 1000000000u / dt_ns);
}

// "[r=79.0MiB/s,w=78.8MiB/s][r=20.2k,w=20.2k IOPS]", directions at zero left out.
std::string rate_parts(const plan &p, const eng_status &st, const progress_mark &prev)
{
	if (!prev.valid || st.elapsed_ns <= prev.elapsed_ns)
		return "";
	uint64_t dt = st.elapsed_ns - prev.elapsed_ns;
	std::string bw, iops;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		uint64_t b = per_sec(st.bytes[d], prev.bytes[d], dt);
		uint64_t n = per_sec(st.ios[d], prev.ios[d], dt);
		if (b)
			bw += strf("%s%c=", bw.empty() ? "" : ",", ddir_letter[d]) +
			      num2str(b, 4, 1, kib_units(p), report::unit::byte_per_sec);
		if (n)
			iops += strf("%s%c=", iops.empty() ? "" : ",", ddir_letter[d]) +
				num2str(n, 4, 1, false, report::unit::none);
	}
	std::string out;
	if (!bw.empty())
		out += "[" + bw + "]";
	if (!iops.empty())
		out += "[" + iops + " IOPS]";
	return out;
}

std::string eta_part(uint64_t eta_ns)
{
	if (eta_ns == UINT64_MAX)
		return "[eta --]";
	return "[eta " + report::eta_str(eta_ns / 1000000000u) + "]";
}

} // namespace

bool parse_eta_mode(const std::string &s, eta_mode *mode, std::string *err)
{
	if (s == "auto")
		*mode = eta_mode::automatic;
	else if (s == "always")
		*mode = eta_mode::always;
	else if (s == "never")
		*mode = eta_mode::never;
	else {
		*err = "--eta: unknown value '" + s + "' (valid: auto, always, never)";
		return false;
	}
	return true;
}

bool progress_enabled(eta_mode mode, bool stderr_is_tty)
{
	return mode == eta_mode::always || (mode == eta_mode::automatic && stderr_is_tty);
}

std::string format_status(const plan &p, const eng_status &st, const progress_mark &prev, uint32_t copies)
{
	std::string s = strf("Jobs: %u (f=%u)", st.nr_running, st.files_open);
	s += rate_limits(p, st, copies);
	s += ": [" + run_string(p, st, copies) + "]";
	s += done_part(st);
	s += rate_parts(p, st, prev);
	s += eta_part(st.eta_ns);
	return s;
}

void progress_line::set_timing(uint64_t interval_ns, uint64_t newline_ns)
{
	if (interval_ns)
		interval_ns_ = interval_ns;
	newline_ns_ = newline_ns;
}

bool progress_line::due(uint64_t elapsed_ns) const
{
	return !shown_ || elapsed_ns >= last_shown_ns_ + interval_ns_;
}

std::string progress_line::update(const eng_status &st)
{
	std::string line = format_status(plan_, st, mark_, copies_);
	size_t len = line.size();
	if (len < last_len_)
		line.append(last_len_ - len, ' ');
	bool keep = newline_ns_ && st.elapsed_ns >= last_newline_ns_ + newline_ns_;
	line += keep ? '\n' : '\r';
	last_len_ = keep ? 0 : len; // a kept line is not blanked by the next
	if (keep)
		last_newline_ns_ = st.elapsed_ns;
	last_shown_ns_ = st.elapsed_ns;
	shown_ = true;
	mark_.valid = true;
	mark_.elapsed_ns = st.elapsed_ns;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		mark_.bytes[d] = st.bytes[d];
		mark_.ios[d] = st.ios[d];
	}
	return line;
}

std::string progress_line::clear() const
{
	return last_len_ ? std::string(last_len_, ' ') + "\r" : std::string();
}

} // namespace cli

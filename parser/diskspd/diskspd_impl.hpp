// parser/diskspd/diskspd_impl.hpp - the state shared by the DISKSPD argument reader's
// files (diskspd.cpp: sizes, targets, the driver; diskspd_options.cpp: the
// flag dispatch and plain-value flags; diskspd_rules.cpp: flags with
// sub-letters and DISKSPD's conflict rules; diskspd_ini.cpp: job text).
// Internal to parser/.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "parser/diskspd/diskspd.hpp"

namespace parser::diskspd {

struct state {
	facts info;
	std::vector<std::string> warnings;
	std::vector<std::string> errors;

	uint64_t create_bytes = 0;	// -c
	bool seed_from_uptime = false;	// bare -z
	bool r_given = false, rs_given = false, s_given = false;
	bool stride_given = false;	// -s<stride> or -r<align>
	bool t_given = false, T_given = false;
	bool cache_given = false;	// -S, -Sb, -Su, -Sh, -h
	bool wt_given = false;		// -Sw, -Sh, -h
	bool completion_routines = false;	// -x
	bool parallel = false;		// -p
	bool base_given = false, max_given = false;
	std::string fadvise;		// -fr / -fs
	bool rd_abs = false;
	std::vector<dist_range> rd;	// -rd, empty = uniform

	void error(const std::string &m) { errors.push_back(m); }
	void warn(const std::string &m) { warnings.push_back(m); }

	bool size_arg(const std::string &flag, const std::string &s, uint64_t *out);
	bool uint_arg(const std::string &flag, const std::string &s, uint64_t max, uint64_t *out);
	// A count of at least 1 and at most max (a job option's range: job_max in diskspd_options.cpp);
	// a 0 is refused with zero_says when given.
	bool count_arg(const std::string &flag, const std::string &s, uint32_t *out, uint64_t max = UINT32_MAX,
		       const std::string &zero_says = "");

	void run(const std::vector<std::string> &args);
	void prescan(const std::vector<std::string> &args);
	void target_arg(const std::string &a);
	void option(const std::string &a);	// diskspd_options.cpp
	void validate();			// diskspd_options.cpp
	void check_abs_ranges();		// diskspd_rules.cpp

	// Handlers (diskspd_options.cpp); v is the text after the flag letter(s).
	void opt_a(const std::string &v);
	void opt_B(const std::string &v);
	void opt_f(const std::string &v);
	void opt_g(const std::string &v);
	void opt_r(const std::string &v);
	void opt_rd(const std::string &v);
	void opt_s(const std::string &v);
	void opt_S(const std::string &v);
	void opt_Z(const std::string &v);
	void opt_R(const std::string &v);
	void opt_z(const std::string &v);
	void opt_windows_only(const std::string &a);
	bool no_value(const std::string &a);
	// Whole seconds, at most the top of job_option's range (runtime, ramp_time, cooldown).
	bool seconds(const std::string &flag, const std::string &v, uint32_t *out, const char *job_option);
};

// The job text for a read, validated state (diskspd_ini.cpp).
std::string write_ini(const state &s);

// Milliseconds since boot: DISKSPD's seed for a bare -z.
uint64_t uptime_ms();

} // namespace parser::diskspd

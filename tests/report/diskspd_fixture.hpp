// tests/report/diskspd_fixture.hpp - one small DISKSPD-shaped run for the
// DISKSPD report tests: `-b4K -c1G -r -o4 -t2 -Sh -n -D -L -W0 -d2 -w40 -z5
// testfile.dat`, two threads on one 1 GiB file, a 2 s measured window.
#pragma once

#include <memory>

#include "report/diskspd/diskspd.hpp"
#include "tests/report/fixture.hpp"

namespace t {

class diskspd_run {
public:
	// with_ios: thread 0 reads 1..6 ms and writes 10..40 ms, thread 1 reads
	// 7 and 8 ms (each value one the histogram holds exactly), with 1 s IOPS
	// samples; without, the clones are empty for a test to fill.
	explicit diskspd_run(bool with_ios = true);
	const ::plan &get_plan() const { return p_->get(); }
	const ::results &get_results() const { return r_->get(); }
	res_clone &clone(uint32_t c) { return r_->clone(0, c); }
	report::diskspd::options opts() const;

private:
	std::unique_ptr<plan_holder> p_;
	std::unique_ptr<results_holder> r_;
};

} // namespace t

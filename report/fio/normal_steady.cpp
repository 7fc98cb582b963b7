// report/fio/normal_steady.cpp - steady state in the normal output: fio 3.33's
// "steadystate  :" line as fio prints it, then ioplan's own line saying whether
// and when the job was steady, the SNIA PTS way of reporting a steady window.
#include "report/fio/normal.hpp"
#include "report/units.hpp"

namespace report {

namespace {

uint64_t mean_of(const uint64_t *v, uint32_t n)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / n : 0;
}

// fio's show_ss_normal: the IEC figure and, as fio does, the same number with
// an SI prefix beside it, in the job's own kb_base, unit_base and significant_figures.
std::string fio_line(const entry &e, const res_ss &s)
{
	uint32_t kb = e.first && e.first->kb_base ? e.first->kb_base : 1024;
	bool p2 = kb == 1024;
	uint64_t bw = mean_of(s.bw, s.dur_s) / kb;
	int sf = sig_figs_of(e.first);
	unit u = bits_of(e.first) ? unit::bit_per_sec : unit::byte_per_sec;

	return strf("  steadystate  : attained=%s, bw=%s (%s), iops=%s, %s%s=%.3f%s\n",
		    s.flags & RES_SS_ATTAINED ? "yes" : "no",
		    num2str(bw, sf, (int)kb, p2, u).c_str(),
		    num2str(bw, sf, (int)kb, !p2, u).c_str(),
		    num2str(mean_of(s.iops, s.dur_s), sf, 1, false, unit::none).c_str(),
		    s.flags & PLAN_SS_IOPS ? "iops" : "bw", s.flags & PLAN_SS_SLOPE ? " slope" : " mean dev",
		    s.criterion, s.flags & PLAN_SS_PCT ? "%" : "");
}

// Seconds from the entry's first thread start (ss_ramp counts from there) to t.
double since_start(const entry &e, uint64_t t)
{
	const res_clone &c = e.st.get();
	uint64_t t0 = c.thread_start_ns ? c.thread_start_ns : c.start_ns;
	return t > t0 ? (double)(t - t0) / 1e9 : 0.0;
}

} // namespace

std::string normal_steadystate(const entry &e)
{
	if (!e.ss)
		return "";
	const res_ss &s = *e.ss;
	std::string out = fio_line(e, s);
	const char *what = s.flags & PLAN_SS_IOPS ? "iops" : "bw";
	const char *pct = s.flags & PLAN_SS_PCT ? "%" : "";
	const char *crit = s.flags & PLAN_SS_SLOPE ? "slope" : "max deviation";

	if (s.flags & RES_SS_ATTAINED) {
		double end = since_start(e, s.attained_ns);
		return out + strf("  steady state : reached at %.1fs: %s %s %.3f%s < %.3f%s over the %us window "
				  "%.1fs-%.1fs; the job stopped there\n",
				  end, what, crit, s.criterion, pct, s.limit, pct, s.dur_s,
				  end - s.dur_s > 0 ? end - s.dur_s : 0.0, end);
	}
	if (!(s.flags & RES_SS_FULL))
		return out + strf("  steady state : not reached: only %llu of the %u samples of a window were taken "
				  "(ss_ramp %.1fs)\n",
				  (unsigned long long)s.nr_samples, s.dur_s, (double)s.ramp_ns / 1e9);
	return out + strf("  steady state : not reached in %.1fs: the last %us window's %s %s was %.3f%s, "
			  "limit %.3f%s\n",
			  since_start(e, s.last_sample_ns), s.dur_s, what, crit, s.criterion, pct, s.limit, pct);
}

} // namespace report

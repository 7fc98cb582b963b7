// report/fio/normal_ddir.cpp - one direction of fio's normal output: the IOPS/BW
// line, slat/clat/lat with auto-scaled units, the percentile block, bw and
// iops sample lines; and the latency distribution lines (fio.md §5).
#include <algorithm>
#include <cmath>

#include "report/fio/normal.hpp"
#include "report/prio.hpp"
#include "report/units.hpp"

namespace report {

namespace {

bool i2p(const group_stat &g)
{
	return g.kb_base == 1024;
}

std::string ddir_headline(const entry &e, const group_stat &g, int d)
{
	const res_ddir &dd = e.st.get().ddir[d];
	uint64_t rt = ddir_runtime_ms(e, d), bw = ddir_bw_bytes(e, d);
	// fio's show_ddir_status: the group's kb_base (its last job's), the job's own unit_base.
	unit u = bits_of(e.first) ? unit::bit_per_sec : unit::byte_per_sec;

	const char *name = e.unified == PLAN_UNIFIED_MIXED ? "mixed" : plan_ddir_name((enum plan_ddir)d);

	int sf = sig_figs_of(e.first);

	return strf("  %s: IOPS=%s, BW=%s (%s)(%s/%llumsec)%s\n", name,
		    num2str(ddir_iops(e, d), sf, 1, false, unit::none).c_str(),
		    num2str(bw, sf, 1, i2p(g), u).c_str(),
		    num2str(bw, sf, 1, !i2p(g), u).c_str(),
		    num2str(dd.bytes, sf, 1, i2p(g), unit::byte).c_str(), (unsigned long long)rt,
		    d == PLAN_DDIR_WRITE ? "; 0 zone resets" : "");
}

// The metadata engines' operation, as the rate line names it (nullptr for a data engine).
static const char *metadata_op(enum plan_ioengine e, const char **done)
{
	switch (e) {
	case PLAN_IOENGINE_FILECREATE: *done = "files created"; return "creates";
	case PLAN_IOENGINE_FILESTAT: *done = "files stat'ed"; return "stats";
	case PLAN_IOENGINE_FILEDELETE: *done = "files deleted"; return "deletes";
	case PLAN_IOENGINE_DIRCREATE: *done = "directories created"; return "creates";
	case PLAN_IOENGINE_DIRSTAT: *done = "directories stat'ed"; return "stats";
	case PLAN_IOENGINE_DIRDELETE: *done = "directories deleted"; return "deletes";
	default: return nullptr;
	}
}

// A metadata engine's I/Os are fake; its operations are the timed ones (clat
// samples): how many, and their rate over the members' mean measured window
// (in ns: the headline's whole milliseconds are too coarse for a short job).
static std::string metadata_line(const entry &e, const res_ddir &dd)
{
	const char *done = nullptr, *op = e.first ? metadata_op(e.first->ioengine, &done) : nullptr;
	double window_s = e.members ? (double)e.run_ns / e.members / 1e9 : 0;

	if (!op || !dd.clat.n || window_s <= 0)
		return std::string();
	return strf("    %s: %llu %s, %s/s\n", op, (unsigned long long)dd.clat.n, done,
		    num2str((uint64_t)((double)dd.clat.n / window_s), 4, 1, false, unit::none).c_str());
}

std::string bw_line(const res_sample_stat &bw, const group_stat &g, int d)
{
	uint64_t min = (uint64_t)bw.min, max = (uint64_t)bw.max;
	double mean = res_sample_stat_mean(&bw), dev = res_sample_stat_stddev(&bw);
	double base = (double)g.kb_base, pct = bw_share_pct(g, d, mean);
	const char *label = i2p(g) ? "KiB" : "kB";

	// fio 3.33 calls the larger unit MiB whatever kb_base divided by (and its
	// bits variant never applies: it tests unit_base against a value the option
	// never takes), so under kb_base=1000 the line says MiB/s of 1000 kB.
	if (mean > base * base) {
		min = (uint64_t)((double)min / base);
		max = (uint64_t)((double)max / base);
		mean /= base;
		dev /= base;
		label = "MiB";
	}
	return strf("   bw (%5s/s): min=%5llu, max=%5llu, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, "
		    "samples=%llu\n",
		    label, (unsigned long long)min, (unsigned long long)max, pct, mean, dev,
		    (unsigned long long)bw.n);
}

std::string iops_line(const res_sample_stat &io)
{
	return strf("   iops        : min=%5llu, max=%5llu, avg=%5.02f, stdev=%5.02f, samples=%llu\n",
		    (unsigned long long)io.min, (unsigned long long)io.max,
		    res_sample_stat_mean(&io), res_sample_stat_stddev(&io),
		    (unsigned long long)io.n);
}

// One row of "lat (unit)" buckets, five per line as fio prints them.
std::string dist_lines(const uint64_t *counts, int n, uint64_t total, const char *unit_name,
		       const char *const *labels)
{
	std::vector<double> v = dist_pct(counts, n, total, 0.01);
	std::string s;
	int on_line = 0;

	for (int i = 0; i < n; i++) {
		if (v[(size_t)i] <= 0.0)
			continue;
		if (on_line == 5) {
			s += "\n";
			on_line = 0;
		}
		s += on_line ? ", " : strf("  lat (%s)   : ", unit_name);
		s += strf("%s=%3.2f%%", labels[i], v[(size_t)i]);
		on_line++;
	}
	return s.empty() ? s : s + "\n";
}

} // namespace

std::string normal_lat_line(const char *name, const res_lat &l)
{
	uint64_t min = l.min_ns, max = l.max_ns;
	double mean = res_lat_mean(&l), dev = res_lat_stddev(&l);
	const char *base = "(nsec)";

	if (min > 2000000 && max > 99999999ull && dev > 1000000.0) {
		min /= 1000000;
		max /= 1000000;
		mean /= 1e6;
		dev /= 1e6;
		base = "(msec)";
	} else if (min > 2000 && max > 99999 && dev > 1000.0) {
		min /= 1000;
		max /= 1000;
		mean /= 1e3;
		dev /= 1e3;
		base = "(usec)";
	}
	return strf("    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", name, base,
		    num2str(min, 6, 1, false, unit::none).c_str(),
		    num2str(max, 6, 1, false, unit::none).c_str(), mean, dev);
}

// Values are scaled to usec or msec only when the whole range allows it, and
// rounded up per step ((v+999)/1000), as fio shows them.
std::string normal_percentiles(const char *name, const res_lat &l, const std::vector<double> &list,
			       int precision)
{
	if (list.empty() || !l.n)
		return std::string();
	std::vector<uint64_t> v;
	for (double p : list)
		v.push_back(res_lat_percentile(&l, p));
	uint64_t minv = *std::min_element(v.begin(), v.end());
	uint64_t maxv = *std::max_element(v.begin(), v.end());
	int steps = 0;
	uint64_t divisor = 1;
	const char *unit_name = "nsec";
	if (minv > 2000000 && maxv > 99999999ull) {
		steps = 2, divisor = 1000000, unit_name = "msec";
	} else if (minv > 2000 && maxv > 99999) {
		steps = 1, divisor = 1000, unit_name = "usec";
	}
	uint64_t top = maxv / divisor;
	int width = std::max(5, top ? (int)(std::log10((double)top) + 1) : 0);
	int per_line = (80 - 7) / (precision + 10 + width);
	std::string s = strf("    %s percentiles (%s):\n     |", name, unit_name);
	for (size_t j = 0; j < v.size(); j++) {
		if (j && j % (size_t)per_line == 0)
			s += "     |";
		for (int i = 0; i < steps; i++)
			v[j] = (v[j] + 999) / 1000;
		bool last = j + 1 == v.size();
		s += strf(" %*.*fth=[%*llu]%c", precision + 3, precision, list[j], width,
			  (unsigned long long)v[j], last ? '\n' : ',');
		if (!last && j % (size_t)per_line == (size_t)per_line - 1)
			s += "\n";
	}
	return s;
}

std::string normal_ddir(const entry &e, const group_stat &g, int d, const std::string &spread)
{
	const res_ddir &dd = e.st.get().ddir[d];
	const plan_job *j = e.last;
	std::vector<double> list = percentile_list(e);
	int prec = j ? percentile_precision(j->percentiles, std::min<uint32_t>(j->nr_percentiles,
									       PLAN_PERCENTILES_MAX))
		     : 0;

	if (!ddir_runtime_ms(e, d))
		return std::string();
	std::string s = ddir_headline(e, g, d) + spread + metadata_line(e, dd);
	if (dd.slat.n)
		s += normal_lat_line("slat", dd.slat);
	if (dd.clat.n)
		s += normal_lat_line("clat", dd.clat);
	if (dd.lat.n)
		s += normal_lat_line(" lat", dd.lat);
	s += normal_prio_lat_lines(dd, j);
	if (j && j->slat_percentiles)	/* also when clat and lat have none (their list is then empty) */
		s += normal_percentiles("slat", dd.slat, percentile_list(e, true), prec);
	if (j && j->clat_percentiles)
		s += normal_percentiles("clat", dd.clat, list, prec);
	if (j && j->lat_percentiles)
		s += normal_percentiles("lat", dd.lat, list, prec);
	s += normal_prio_percentiles(dd, j, list, prec);
	if (dd.bw_kib_s.n)
		s += bw_line(dd.bw_kib_s, g, d);
	if (dd.iops.n)
		s += iops_line(dd.iops);
	return s;
}

std::string normal_lat_dist(const entry &e)
{
	static const char *const labels[] = { "2", "4", "10", "20", "50", "100", "250", "500",
					      "750", "1000", "2000", ">=2000" };
	const res_clone &c = e.st.get();
	uint64_t total = total_rw_ios(e);

	return dist_lines(c.latbkt, RES_LATBKT_NS, total, "nsec", labels) +
	       dist_lines(c.latbkt + RES_LATBKT_NS, RES_LATBKT_US, total, "usec", labels) +
	       dist_lines(c.latbkt + RES_LATBKT_NS + RES_LATBKT_US, RES_LATBKT_MS, total, "msec",
			  labels);
}

} // namespace report

// report/fio/terse.cpp - fio's terse output, versions 2 to 5 (fio.md §3; --terse-version).
//
// Version 3 (the default): 121 ';'-separated fields per entry, +9 per disk, +2
// with continue_on_error, +1 with a description.  Field positions and units are
// what awk scripts written for fio expect: $3 job name, $7 read KiB/s, $48
// write KiB/s.  The others differ as fio 3.33's stat.c makes them: version 2
// has no fio version field, a trim block and no disk fields, and puts the
// description on a line of its own; 4 adds the trim block after write; 5 adds
// to each direction the bandwidth sample count and the IOPS min, max, mean,
// deviation and sample count.
#include <ostream>

#include "report/formats.hpp"
#include "report/units.hpp"

namespace report {

namespace {

// min;max;mean;dev in µs: min/max truncated, mean/dev "%f" (fields 10-13, 14-17, 38-41).
std::string lat_fields(const res_lat &l)
{
	if (!l.n)
		return ";0;0;0.000000;0.000000";
	return strf(";%llu;%llu;%f;%f", (unsigned long long)(l.min_ns / 1000),
		    (unsigned long long)(l.max_ns / 1000), res_lat_mean(&l) / 1000.0,
		    res_lat_stddev(&l) / 1000.0);
}

// Twenty "P%=usec" slots; the unused ones read "0%=0" (fields 18-37).
std::string percentile_fields(const entry &e, int d)
{
	std::vector<double> list = percentile_list(e);
	const res_lat *src = percentile_source(e, d);
	std::string s;

	for (size_t i = 0; i < PLAN_PERCENTILES_MAX; i++) {
		if (i >= list.size() || !src) {
			s += ";0%=0";
			continue;
		}
		uint64_t v = res_lat_percentile(src, list[i]);
		s += strf(";%f%%=%llu", list[i], (unsigned long long)(v / 1000));
	}
	return s;
}

// bw min;max;agg%;mean;dev in KiB/s (fields 42-46).  The share of the group
// uses whole KiB/s of the aggregate, as fio's terse writer does.
std::string bw_fields(const res_sample_stat &bw, const group_stat &g, int d)
{
	if (!bw.n)
		return ";0;0;0.000000%;0.000000;0.000000";
	double mean = res_sample_stat_mean(&bw), pct = 100.0;
	uint64_t agg_kib = g.agg[d] / 1024;
	if (g.agg[d]) {
		pct = agg_kib ? mean * 100.0 / (double)agg_kib : 100.0;
		if (pct > 100.0)
			pct = 100.0;
	}
	return strf(";%llu;%llu;%f%%;%f;%f", (unsigned long long)bw.min, (unsigned long long)bw.max,
		    pct, mean, res_sample_stat_stddev(&bw));
}

// Version 5's extra fields of a direction.
std::string v5_fields(const res_ddir &dd)
{
	const res_sample_stat &io = dd.iops;
	std::string s = strf(";%llu", (unsigned long long)dd.bw_kib_s.n);
	if (!io.n)
		return s + ";0;0;0.000000;0.000000;0";
	return s + strf(";%llu;%llu;%f;%f;%llu", (unsigned long long)io.min, (unsigned long long)io.max,
			res_sample_stat_mean(&io), res_sample_stat_stddev(&io), (unsigned long long)io.n);
}

std::string ddir_fields(const entry &e, const group_stat &g, int d, int ver)
{
	const res_ddir &dd = e.st.get().ddir[d];
	std::string s = strf(";%llu;%llu;%llu;%llu", (unsigned long long)(dd.bytes >> 10),
			     (unsigned long long)(ddir_bw_bytes(e, d) / 1024),
			     (unsigned long long)ddir_iops(e, d),
			     (unsigned long long)ddir_runtime_ms(e, d));
	s += lat_fields(dd.slat);
	s += lat_fields(dd.clat);
	s += percentile_fields(e, d);
	s += lat_fields(dd.lat);
	s += bw_fields(dd.bw_kib_s, g, d);
	return ver == 5 ? s + v5_fields(dd) : s;
}

// Fields 88-121: cpu, depths, then µs buckets (ns buckets folded into the
// first, as fio keeps the v3 layout) and ms buckets.
std::string tail_fields(const entry &e)
{
	const res_clone &c = e.st.get();
	uint64_t total = total_rw_ios(e);
	std::string s = strf(";%f%%;%f%%;%llu;%llu;%llu", usr_cpu_pct(e), sys_cpu_pct(e),
			     (unsigned long long)c.ctx, (unsigned long long)c.majf,
			     (unsigned long long)c.minf);

	for (double v : dist_pct(c.depth, RES_DEPTH_NR, depth_total(e), 0.1))
		s += strf(";%3.1f%%", v);
	std::vector<double> us = dist_pct(c.latbkt + RES_LATBKT_NS, RES_LATBKT_US, total, 0.01);
	uint64_t ns_total = 0;
	for (int i = 0; i < RES_LATBKT_NS; i++)
		ns_total += c.latbkt[i];
	if (total)
		us[0] += 100.0 * (double)ns_total / (double)total;
	for (double v : us)
		s += strf(";%3.2f%%", v);
	std::vector<double> ms = dist_pct(c.latbkt + RES_LATBKT_NS + RES_LATBKT_US, RES_LATBKT_MS,
					  total, 0.01);
	for (double v : ms)
		s += strf(";%3.2f%%", v);
	return s;
}

std::string disk_fields(const results &r)
{
	std::string s;
	for (uint32_t i = 0; i < r.nr_disks; i++) {
		const res_disk &d = r.disks[i];
		s += strf(";%s;%llu;%llu;%llu;%llu;%llu;%llu;%llu;%3.2f%%",
			  terse_safe(d.name).c_str(), (unsigned long long)d.read_ios,
			  (unsigned long long)d.write_ios, (unsigned long long)d.read_merges,
			  (unsigned long long)d.write_merges, (unsigned long long)d.read_ticks_ms,
			  (unsigned long long)d.write_ticks_ms, (unsigned long long)d.in_queue_ms,
			  disk_util_pct(d));
	}
	return s;
}

} // namespace

std::string terse_safe(const std::string &s)
{
	std::string out = s;
	for (char &ch : out)
		if (ch == ';' || ch == '\n' || ch == '\r')
			ch = '_';
	return out;
}

double disk_util_pct(const res_disk &d)
{
	double ms = (double)d.elapsed_ns / 1e6;
	if (ms <= 0.0)
		return 0.0;
	double u = 100.0 * (double)d.io_ticks_ms / ms;
	return u > 100.0 ? 100.0 : u;
}

std::string terse_line(const entry &e, const group_stat &g, const results &r, const std::string &version,
		       int ver)
{
	std::string s = ver == 2 ? strf("2;%s;%u;%d", terse_safe(e.name).c_str(), e.groupid, e.error)
				 : strf("%d;%s;%s;%u;%d", ver, version.c_str(),
					terse_safe(e.name).c_str(), e.groupid, e.error);

	// unified_rw_reporting: mixed puts the merged direction in the read slot
	// alone; both appends it after the per-direction fields (as fio).
	s += ddir_fields(e, g, PLAN_DDIR_READ, ver);
	if (e.unified != PLAN_UNIFIED_MIXED) {
		s += ddir_fields(e, g, PLAN_DDIR_WRITE, ver);
		if (ver != 3)
			s += ddir_fields(e, g, PLAN_DDIR_TRIM, ver);
	}
	if (e.mixed)
		s += ddir_fields(*e.mixed, g, PLAN_DDIR_READ, ver);
	s += tail_fields(e);
	if (ver >= 3)
		s += disk_fields(r);
	if (e.last && e.last->continue_on_error)
		s += strf(";%llu;%d", (unsigned long long)e.total_err, e.first_error);
	if (!e.description.empty())
		s += (ver == 2 ? "\n;" : ";") + terse_safe(e.description);
	return s + "\n";
}

namespace {

// The names of one direction's fields, prefixed read_, write_, trim_ or mixed_.
std::string ddir_names(const std::string &d, int ver)
{
	std::string s = ";" + d + "_kib;" + d + "_bw_kib_s;" + d + "_iops;" + d + "_runtime_ms";
	for (const char *lat : {"slat", "clat"})
		for (const char *f : {"min_us", "max_us", "mean_us", "dev_us"})
			s += ";" + d + "_" + lat + "_" + f;
	for (int i = 1; i <= PLAN_PERCENTILES_MAX; i++)
		s += strf(";%s_clat_pct%02d", d.c_str(), i);
	for (const char *f : {"min_us", "max_us", "mean_us", "dev_us"})
		s += ";" + d + "_lat_" + f;
	for (const char *f : {"min", "max", "agg_pct", "mean", "dev"})
		s += ";" + d + "_bw_" + f;
	if (ver == 5)
		for (const char *f : {"bw_samples", "iops_min", "iops_max", "iops_mean", "iops_dev", "iops_samples"})
			s += ";" + d + "_" + f;
	return s;
}

} // namespace

// One name per field of the lines write_terse prints for this model, in their
// order, so a spreadsheet opening --output-format=csv has its columns named.
std::string terse_header(const model &m, const results &r, int ver)
{
	std::string s = ver == 2 ? "terse_version;jobname;groupid;error"
				 : "terse_version;fio_version;jobname;groupid;error";
	const entry *first = m.entries.empty() ? nullptr : &m.entries.front();
	bool mixed_only = first && first->unified == PLAN_UNIFIED_MIXED;
	s += ddir_names(mixed_only ? "mixed" : "read", ver);
	if (!mixed_only) {
		s += ddir_names("write", ver);
		if (ver != 3)
			s += ddir_names("trim", ver);
	}
	if (first && first->mixed)
		s += ddir_names("mixed", ver);
	s += ";cpu_usr;cpu_sys;cpu_ctx;cpu_majf;cpu_minf";
	for (const char *d : {"1", "2", "4", "8", "16", "32", "ge64"})
		s += std::string(";iodepth_") + d;
	for (const char *u : {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"})
		s += std::string(";lat_us_") + u;
	for (const char *u : {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", "ge2000"})
		s += std::string(";lat_ms_") + u;
	for (uint32_t i = 0; ver >= 3 && i < r.nr_disks; i++)
		for (const char *f : {"name", "read_ios", "write_ios", "read_merges", "write_merges", "read_ticks",
				      "write_ticks", "in_queue", "util"})
			s += strf(";disk%u_%s", i, f);
	if (first && first->last && first->last->continue_on_error)
		s += ";total_err;first_error";
	if (first && !first->description.empty())
		s += ";description";
	return s + "\n";
}

void write_terse(std::ostream &out, const model &m, const results &r, const std::string &version,
		       int ver)
{
	for (const entry &e : m.entries)
		out << terse_line(e, m.group(e.groupid), r, version, ver);
}

} // namespace report

// report/ranks.cpp - the world of an mpirun run in normal output and JSON
// (ranks.hpp).
#include "report/ranks.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "report/units.hpp"

namespace report {

namespace {

std::string ms(uint64_t ns)
{
	return strf("%.3fms", (double)ns / 1e6);
}

std::string fixed_host(const char *h, size_t cap)
{
	return std::string(h, strnlen(h, cap));
}

// A rank's or host's figures over every job: bytes and I/Os added, the
// longest runtime, the worst p99 and max, the mean over every I/O.
struct over_jobs {
	uint64_t bytes = 0, ios = 0, runtime = 0, p99 = 0, lat_max = 0, first = 0, end = 0, lat_n = 0;
	double lat_sum = 0;
};

over_jobs over(const res_rank_job *jobs, uint32_t nr)
{
	over_jobs o;
	for (uint32_t j = 0; j < nr; j++) {
		const res_rank_job &x = jobs[j];
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			o.bytes += x.bytes[d];
			o.ios += x.ios[d];
		}
		o.runtime = std::max(o.runtime, x.runtime_ns);
		o.p99 = std::max(o.p99, x.lat_p99_ns);
		o.lat_max = std::max(o.lat_max, x.lat_max_ns);
		if (x.first_io_ns && (!o.first || x.first_io_ns < o.first))
			o.first = x.first_io_ns;
		o.end = std::max(o.end, x.end_ns);
		o.lat_n += x.lat_n;
		o.lat_sum += x.lat_mean_ns * (double)x.lat_n;
	}
	return o;
}

std::string per_s(uint64_t n, uint64_t ns, unit u)
{
	return ns ? num2str((uint64_t)((double)n * 1e9 / (double)ns), 4, 1, u == unit::byte, u) : "0";
}

// ", straggler: +212% time per byte in group 1" for each group it straggled in.
std::string straggled(const res_world &w, uint32_t rank)
{
	std::string out;
	for (uint32_t g = 0; g < w.nr_groups; g++) {
		double pct = w.groups[g].slower_pct[rank];
		if (w.straggler_pct > 0 && pct > w.straggler_pct)
			out += std::isinf(pct) ? strf(", straggler: no data moved in group %u", w.groups[g].groupid)
					       : strf(", straggler: +%.0f%% time per byte in group %u", pct, w.groups[g].groupid);
	}
	return out;
}

std::string rank_line(const res_world &w, const res_rank &k)
{
	over_jobs o = over(k.jobs, k.nr_jobs);
	std::string host = fixed_host(k.host, sizeof(k.host));
	if (host.empty()) // a --partial merge without the rank's file: nothing says where it ran
		host = "no rank file";
	return strf("  rank %u (%s): io=%s, ios=%llu, runtime=%s, lat p99=%lluus max=%lluus, start +%s%s%s\n", k.rank,
		    host.c_str(), num2str(o.bytes, 4, 1, true, unit::byte).c_str(),
		    (unsigned long long)o.ios, ms(o.runtime).c_str(), (unsigned long long)(o.p99 / 1000),
		    (unsigned long long)(o.lat_max / 1000), ms(k.start_late_max_ns).c_str(),
		    k.error ? strf(", error %d (%s)", k.error, strerror(k.error)).c_str() : "",
		    straggled(w, k.rank).c_str());
}

// A host's ranks together: bandwidth and IOPS over the host's window (its
// ranks' first I/O to their last completion), latency of every I/O.
std::string host_line(const res_host &h)
{
	over_jobs o = over(h.jobs, h.nr_jobs);
	uint64_t window = o.end > o.first ? o.end - o.first : 0;
	return strf("  host %s: %u rank%s, io=%s, bw=%s/s, iops=%s, window=%s, lat mean=%.1fus p99=%lluus max=%lluus\n",
		    fixed_host(h.host, sizeof(h.host)).c_str(), h.nranks, h.nranks == 1 ? "" : "s",
		    num2str(o.bytes, 4, 1, true, unit::byte).c_str(), per_s(o.bytes, window, unit::byte).c_str(),
		    per_s(o.ios, window, unit::none).c_str(), ms(window).c_str(),
		    o.lat_n ? o.lat_sum / (double)o.lat_n / 1000 : 0.0, (unsigned long long)(o.p99 / 1000),
		    (unsigned long long)(o.lat_max / 1000));
}

// "group 0: first done +1.002s (rank 1, n1), 12MiB by then at 11.9MiB/s; last done ..."
std::string group_line(const res_world &w, const res_world_group &g)
{
	uint64_t first = g.first_done_ns - g.start_ns, last = g.last_done_ns - g.start_ns;
	const res_rank &f = w.ranks[g.first_done_rank], &l = w.ranks[g.last_done_rank];
	return strf("  group %u: first done +%s (rank %u, %s), %s by then at %s/s; last done +%s (rank %u, %s), %s at "
		    "%s/s; %u straggler%s\n",
		    g.groupid, ms(first).c_str(), f.rank, fixed_host(f.host, sizeof(f.host)).c_str(),
		    num2str(g.bytes_first_done, 4, 1, true, unit::byte).c_str(),
		    per_s(g.bytes_first_done, first, unit::byte).c_str(), ms(last).c_str(), l.rank,
		    fixed_host(l.host, sizeof(l.host)).c_str(), num2str(g.bytes, 4, 1, true, unit::byte).c_str(),
		    per_s(g.bytes, last, unit::byte).c_str(), g.nr_stragglers, g.nr_stragglers == 1 ? "" : "s");
}

} // namespace

void write_normal_ranks(std::ostream &out, const results &r)
{
	if (!r.world)
		return;
	const res_world &w = *r.world;
	out << strf("\nRanks: %u on %u host%s, start skew %s (over every group start), first-I/O spread %s, "
		    "merge %s\n",
		    w.nranks, w.nhosts, w.nhosts == 1 ? "" : "s", ms(w.start_skew_ns).c_str(),
		    ms(w.first_io_spread_ns).c_str(), ms(w.merge_ns).c_str());
	for (uint32_t i = 0; i < w.nranks; i++)
		out << rank_line(w, w.ranks[i]);
	if (w.hosts) {
		out << "Hosts (each host's ranks together):\n";
		for (uint32_t i = 0; i < w.nhosts; i++)
			out << host_line(w.hosts[i]);
	}
	bool any = false;
	for (uint32_t g = 0; g < w.nr_groups; g++)
		if (w.groups[g].nranks) {
			if (!any)
				out << (w.straggler_pct > 0 ? strf("Groups over the ranks (from the group's first I/O; "
								   "stragglers: time per byte over %g%% above the "
								   "median rank's):\n",
								   w.straggler_pct)
							      : std::string("Groups over the ranks (from the group's first "
									    "I/O; stragglers not flagged):\n"));
			any = true;
			out << group_line(w, w.groups[g]);
		}
}

namespace {

// A rank's or a host's figures of job j; a host's add its bandwidth and IOPS
// over its window and the window's ends on rank 0's clock.
ojson rank_job_json(const results &r, uint32_t j, const res_rank_job &x, bool host)
{
	ojson o = ojson::object();
	o["job"] = j < r.nr_jobs ? r.jobs[j].job_id : j;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		ojson dd{ { "io_bytes", x.bytes[d] }, { "total_ios", x.ios[d] } };
		if (host) {
			dd["bw_bytes"] = x.runtime_ns ? (uint64_t)((double)x.bytes[d] * 1e9 / (double)x.runtime_ns) : 0;
			dd["iops"] = f6(x.runtime_ns ? (double)x.ios[d] * 1e9 / (double)x.runtime_ns : 0.0);
		}
		o[plan_ddir_name((plan_ddir)d)] = dd;
	}
	o["runtime_ns"] = x.runtime_ns;
	if (host) {
		o["first_io_ns"] = x.first_io_ns;
		o["end_ns"] = x.end_ns;
	}
	o["lat_ns"] = ojson{ { "N", x.lat_n },	      { "min", x.lat_min_ns },	{ "max", x.lat_max_ns },
			     { "mean", f6(x.lat_mean_ns) }, { "p50", x.lat_p50_ns }, { "p99", x.lat_p99_ns } };
	return o;
}

// A figure that may be infinite or unknown: JSON has no such number.
ojson finite(double v)
{
	return std::isfinite(v) ? ojson(f6(v)) : ojson(nullptr);
}

ojson group_json(const res_world &w, const res_world_group &g)
{
	ojson slower = ojson::array(), stragglers = ojson::array();
	for (uint32_t i = 0; i < w.nranks; i++) {
		double pct = g.slower_pct[i];
		slower.push_back(finite(pct));
		if (w.straggler_pct > 0 && pct > w.straggler_pct)
			stragglers.push_back(ojson{ { "rank", i },
						    { "host", fixed_host(w.ranks[i].host, sizeof(w.ranks[i].host)) },
						    { "slower_pct", finite(pct) } });
	}
	uint64_t first = g.first_done_ns - g.start_ns, last = g.last_done_ns - g.start_ns;
	auto bw = [](uint64_t bytes, uint64_t ns) { return ns ? (uint64_t)((double)bytes * 1e9 / (double)ns) : 0; };
	return ojson{ { "group", g.groupid },
		      { "nranks", g.nranks },
		      { "start_ns", g.start_ns },
		      { "first_done_ns", g.first_done_ns },
		      { "first_done_rank", g.first_done_rank },
		      { "first_done_io_bytes", g.bytes_first_done },
		      { "first_done_bw_bytes", bw(g.bytes_first_done, first) },
		      { "last_done_ns", g.last_done_ns },
		      { "last_done_rank", g.last_done_rank },
		      { "io_bytes", g.bytes },
		      { "last_done_bw_bytes", bw(g.bytes, last) },
		      { "slower_pct", slower },
		      { "stragglers", stragglers } };
}

} // namespace

ojson world_json(const results &r)
{
	if (!r.world)
		return nullptr;
	const res_world &w = *r.world;
	ojson groups = ojson::array();
	for (uint32_t g = 0; g < w.nr_groups; g++)
		if (w.groups[g].nranks)
			groups.push_back(group_json(w, w.groups[g]));
	return ojson{ { "nranks", w.nranks },
		      { "nhosts", w.nhosts },
		      { "start_skew_ns", w.start_skew_ns },
		      { "first_io_spread_ns", w.first_io_spread_ns },
		      { "merge_ns", w.merge_ns },
		      { "straggler_threshold_pct", f6(w.straggler_pct) },
		      { "groups", groups } };
}

uint32_t ranks_that_ran(const results &r, uint32_t index)
{
	if (!r.world || index >= r.nr_jobs)
		return 1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < r.world->nranks; i++)
		n += r.world->ranks[i].nr_jobs > index;
	return n ? n : 1;
}

uint32_t ranks_that_ran_job(const results &r, uint32_t job_id)
{
	uint32_t last = r.nr_jobs;
	for (uint32_t j = 0; j < r.nr_jobs; j++)
		if (r.jobs[j].job_id == job_id && !r.jobs[j].discarded)
			last = j;
	return ranks_that_ran(r, last);
}

ojson hosts_json(const results &r)
{
	ojson a = ojson::array();
	for (uint32_t i = 0; r.world && r.world->hosts && i < r.world->nhosts; i++) {
		const res_host &h = r.world->hosts[i];
		std::string name = fixed_host(h.host, sizeof(h.host));
		ojson ranks = ojson::array();
		for (uint32_t k = 0; k < r.world->nranks; k++)
			if (r.world->ranks[k].jobs &&  /* a rank with no result is in no host's sums */
			    fixed_host(r.world->ranks[k].host, sizeof(r.world->ranks[k].host)) == name)
				ranks.push_back(k);
		ojson jobs = ojson::array();
		for (uint32_t j = 0; j < h.nr_jobs; j++)
			jobs.push_back(rank_job_json(r, j, h.jobs[j], true));
		a.push_back(ojson{ { "host", name }, { "nranks", h.nranks }, { "ranks", ranks }, { "jobs", jobs } });
	}
	return a;
}

ojson ranks_json(const results &r)
{
	ojson a = ojson::array();
	if (!r.world)
		return a;
	for (uint32_t i = 0; i < r.world->nranks; i++) {
		const res_rank &k = r.world->ranks[i];
		ojson jobs = ojson::array();
		for (uint32_t j = 0; j < k.nr_jobs; j++)
			jobs.push_back(rank_job_json(r, j, k.jobs[j], false));
		a.push_back(ojson{ { "rank", k.rank },
				   { "host", std::string(k.host, strnlen(k.host, sizeof(k.host))) },
				   { "error", k.error },
				   { "clock_offset_ns", k.clock_offset_ns },
				   { "start_late_max_ns", k.start_late_max_ns },
				   { "jobs", jobs } });
	}
	return a;
}

} // namespace report

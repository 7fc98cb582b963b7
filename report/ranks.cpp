// report/ranks.cpp - the world of an mpirun run in normal output and JSON
// (ranks.hpp).
#include "report/ranks.hpp"

#include <algorithm>
#include <cstring>

#include "report/units.hpp"

namespace report {

namespace {

std::string ms(uint64_t ns)
{
	return strf("%.3fms", (double)ns / 1e6);
}

std::string rank_line(const res_rank &k)
{
	uint64_t bytes = 0, ios = 0, runtime = 0, p99 = 0, lat_max = 0;

	for (uint32_t j = 0; j < k.nr_jobs; j++) {
		for (int d = 0; d < PLAN_DDIR_NR; d++) {
			bytes += k.jobs[j].bytes[d];
			ios += k.jobs[j].ios[d];
		}
		runtime = std::max(runtime, k.jobs[j].runtime_ns);
		p99 = std::max(p99, k.jobs[j].lat_p99_ns);
		lat_max = std::max(lat_max, k.jobs[j].lat_max_ns);
	}
	return strf("  rank %u (%.*s): io=%s, ios=%llu, runtime=%s, lat p99=%lluus max=%lluus, "
		    "start +%s%s\n",
		    k.rank, (int)strnlen(k.host, sizeof(k.host)), k.host,
		    num2str(bytes, 4, 1, true, unit::byte).c_str(), (unsigned long long)ios,
		    ms(runtime).c_str(), (unsigned long long)(p99 / 1000),
		    (unsigned long long)(lat_max / 1000), ms(k.start_late_max_ns).c_str(),
		    k.error ? strf(", error %d (%s)", k.error, strerror(k.error)).c_str() : "");
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
		out << rank_line(w.ranks[i]);
}

ojson world_json(const results &r)
{
	if (!r.world)
		return nullptr;
	return ojson{ { "nranks", r.world->nranks },
		      { "nhosts", r.world->nhosts },
		      { "start_skew_ns", r.world->start_skew_ns },
		      { "first_io_spread_ns", r.world->first_io_spread_ns },
		      { "merge_ns", r.world->merge_ns } };
}

ojson ranks_json(const results &r)
{
	ojson a = ojson::array();
	if (!r.world)
		return a;
	for (uint32_t i = 0; i < r.world->nranks; i++) {
		const res_rank &k = r.world->ranks[i];
		ojson jobs = ojson::array();
		for (uint32_t j = 0; j < k.nr_jobs; j++) {
			const res_rank_job &x = k.jobs[j];
			ojson o = ojson::object();
			o["job"] = j < r.nr_jobs ? r.jobs[j].job_id : j;
			for (int d = 0; d < PLAN_DDIR_NR; d++)
				o[plan_ddir_name((plan_ddir)d)] = ojson{ { "io_bytes", x.bytes[d] }, { "total_ios", x.ios[d] } };
			o["runtime_ns"] = x.runtime_ns;
			o["lat_ns"] = ojson{ { "N", x.lat_n },	     { "min", x.lat_min_ns },
					     { "max", x.lat_max_ns }, { "mean", f6(x.lat_mean_ns) },
					     { "p50", x.lat_p50_ns }, { "p99", x.lat_p99_ns } };
			jobs.push_back(o);
		}
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

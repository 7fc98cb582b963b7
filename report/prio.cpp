// report/prio.cpp - latency per I/O priority in JSON and normal output (prio.hpp).
//
// fio 3.33 (stat.c) keeps these samples under "clat" names even when, with
// lat_percentiles, they are total latencies: the JSON object is then "lat_ns"
// and the lines say "lat prio"; a priority is shown as class/level.
#include "report/prio.hpp"

#include "report/fio/normal.hpp"
#include "report/units.hpp"

namespace report {

namespace {

const char *lat_kind(const plan_job *j)
{
	return j && j->lat_percentiles ? "lat" : "clat";
}

unsigned prio_class(uint32_t ioprio)
{
	return ioprio >> PLAN_IOPRIO_CLASS_SHIFT;
}

unsigned prio_level(uint32_t ioprio)
{
	return ioprio & 7u;
}

} // namespace

bool prios_shown(const res_ddir &dd)
{
	int with = 0;
	for (uint32_t i = 0; i < dd.nr_prios; i++)
		with += dd.prios[i].lat.n > 0;
	return with >= 2;
}

ojson prios_json(const res_ddir &dd, const plan_job *j, const std::vector<double> &pct, bool plus)
{
	bool percentiles = j && (j->clat_percentiles || j->lat_percentiles);
	std::string key = std::string(lat_kind(j)) + "_ns";
	ojson a = ojson::array();
	for (uint32_t i = 0; i < dd.nr_prios; i++) {
		const res_prio &p = dd.prios[i];
		if (!p.lat.n)
			continue;
		ojson o = ojson::object();
		o["prioclass"] = prio_class(p.ioprio);
		o["prio"] = prio_level(p.ioprio);
		o[key] = lat_object(p.lat, pct.data(), pct.size(), percentiles, plus);
		a.push_back(o);
	}
	return a;
}

std::string normal_prio_lat_lines(const res_ddir &dd, const plan_job *j)
{
	std::string s;
	if (!prios_shown(dd))
		return s;
	for (uint32_t i = 0; i < dd.nr_prios; i++) {
		const res_prio &p = dd.prios[i];
		if (p.lat.n)
			s += normal_lat_line(strf("%s prio %u/%u", lat_kind(j), prio_class(p.ioprio),
						  prio_level(p.ioprio)).c_str(),
					     p.lat);
	}
	return s;
}

std::string normal_prio_percentiles(const res_ddir &dd, const plan_job *j, const std::vector<double> &list,
				    int precision)
{
	std::string s;
	if (!j || !(j->clat_percentiles || j->lat_percentiles) || !prios_shown(dd))
		return s;
	uint64_t all = j->lat_percentiles ? dd.lat.n : dd.clat.n;
	for (uint32_t i = 0; i < dd.nr_prios; i++) {
		const res_prio &p = dd.prios[i];
		if (!p.lat.n)
			continue;
		std::string name = strf("%s prio %u/%u (%.2f%% of IOs)", lat_kind(j), prio_class(p.ioprio),
					prio_level(p.ioprio), all ? 100.0 * (double)p.lat.n / (double)all : 0.0);
		s += normal_percentiles(name.c_str(), p.lat, list, precision);
	}
	return s;
}

} // namespace report

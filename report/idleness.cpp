// report/idleness.cpp - the CPU idleness report (idleness.hpp), with fio's
// labels, number formats and key order so fio's readers find it.
#include "report/idleness.hpp"

#include "report/units.hpp"

namespace report {

void write_idleness(std::ostream &out, const res_idle &idle)
{
	if (idle.mode == RES_IDLE_NONE)
		return;
	out << strf("\nCPU idleness:\n  system: %3.2f%%\n", idle.system_pct);
	if (idle.mode == RES_IDLE_PERCPU) {
		out << "  percpu: ";
		for (uint32_t i = 0; i < idle.nr_cpus; i++)
			out << strf("%s%3.2f%%", i ? ", " : "", idle.cpus[i].pct);
		out << '\n';
	}
	out << strf("  unit work: mean=%3.2fus, stddev=%3.2f\n", idle.unit_mean_us, idle.unit_stddev_us);
}

ojson idleness_json(const res_idle &idle)
{
	ojson o = ojson::object();
	o["system"] = f6(idle.system_pct);
	if (idle.mode == RES_IDLE_PERCPU)
		for (uint32_t i = 0; i < idle.nr_cpus; i++)
			o[strf("cpu-%u", idle.cpus[i].id)] = f6(idle.cpus[i].pct);
	o["unit_mean"] = f6(idle.unit_mean_us);
	o["unit_stddev"] = f6(idle.unit_stddev_us);
	return o;
}

} // namespace report

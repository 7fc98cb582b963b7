// report/diskspd/diskspd_xml_profile.cpp - the <Profile> element of DISKSPD's XML
// document: the parameters of what ran (time span settings and one <Target>
// per file), read back from the plan rather than from the command line.
#include "report/diskspd/diskspd_xml.hpp"

namespace report::diskspd::xml {

namespace {

uint32_t write_pct(const plan_job &j)
{
	if (!plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE))
		return 0;
	return plan_rw_has_ddir(j.rw, PLAN_DDIR_READ) ? 100 - j.rwmixread_pct : 100;
}

void buffer_content(std::ostream &out, const plan_job &j)
{
	tag_open(out, 6, "WriteBufferContent");
	if (j.buffer_fill == PLAN_BUF_ZERO) {
		el(out, 7, "Pattern", "zero");
	} else if (j.buffer_fill == PLAN_BUF_RANDOM_ONCE) {
		el(out, 7, "Pattern", "random");
		tag_open(out, 7, "RandomDataSource");
		el(out, 8, "SizeInBytes", j.write_source_bytes);
		tag_close(out, 7, "RandomDataSource");
	} else {
		el(out, 7, "Pattern", "sequential");
	}
	tag_close(out, 6, "WriteBufferContent");
}

// -rd as stated: <Range IO="io%">span</Range> (percent, or bytes; 0: the rest).
void distribution(std::ostream &out, const options &o)
{
	const char *type = o.distribution_abs ? "Absolute" : "Percent";
	if (o.distribution.empty())
		return;
	tag_open(out, 6, "Distribution");
	tag_open(out, 7, type);
	for (const io_range &r : o.distribution)
		out << indent(8) << "<Range IO=\"" << r.io_pct << "\">" << r.span << "</Range>\n";
	tag_close(out, 7, type);
	tag_close(out, 6, "Distribution");
}

void access_pattern(std::ostream &out, const plan_job &j, uint64_t bs, const options &o)
{
	if (plan_rw_is_random(j.rw)) {
		uint64_t align = j.bs[PLAN_DDIR_READ].align_bytes ? j.bs[PLAN_DDIR_READ].align_bytes : bs;
		el(out, 6, "Random", align);
		uint32_t pct = j.percentage_random_pct[PLAN_DDIR_READ];
		if (pct > 0 && pct < 100)
			el(out, 6, "RandomRatio", pct);
		distribution(out, o);
	} else {
		el(out, 6, "StrideSize", j.sequential_stride_bytes ? j.sequential_stride_bytes : bs);
		el(out, 6, "InterlockedSequential", tf(j.interlocked));
	}
}

void target(std::ostream &out, const plan_job &j, const plan_file &f, const options &o)
{
	uint64_t bs = write_pct(j) == 100 ? j.bs[PLAN_DDIR_WRITE].min_bytes
					  : j.bs[PLAN_DDIR_READ].min_bytes;
	tag_open(out, 5, "Target");
	el(out, 6, "Path", esc(f.path ? f.path : ""));
	el(out, 6, "BlockSize", bs);
	el(out, 6, "BaseFileOffset", j.offset_bytes);
	el(out, 6, "SequentialScan", tf(j.fadvise_hint == PLAN_FADVISE_SEQUENTIAL));	// -fs
	el(out, 6, "RandomAccess", tf(j.fadvise_hint == PLAN_FADVISE_RANDOM));		// -fr
	el(out, 6, "TemporaryFile", "false");
	el(out, 6, "UseLargePages", "false");
	el(out, 6, "DisableOSCache", tf(j.direct));
	el(out, 6, "WriteThrough", tf(j.sync_mode != PLAN_SYNC_NONE));
	buffer_content(out, j);
	el(out, 6, "ParallelAsyncIO", "false");
	el(out, 6, "FileSize", f.size_bytes);
	access_pattern(out, j, bs, o);
	el(out, 6, "ThreadStride", j.offset_increment_bytes);
	el(out, 6, "MaxFileSize", max_file_bytes(j, f, o));
	el(out, 6, "RequestCount", j.iodepth);
	el(out, 6, "WriteRatio", write_pct(j));
	throughput_limit t = throughput_of(j);
	if (t.iops)
		out << indent(6) << "<Throughput unit=\"IOPS\">" << t.iops << "</Throughput>\n";
	else
		el(out, 6, "Throughput", t.bytes_per_s / 1000);
	el(out, 6, "ThreadsPerFile", o.total_threads ? 1 : j.nr_clones);	/* -F: DISKSPD's default */
	el(out, 6, "IOPriority", 3);
	el(out, 6, "Weight", 1);
	tag_close(out, 5, "Target");
}

void timespan_settings(std::ostream &out, const plan &p, const options &o)
{
	const plan_job *j0 = plan_job_at(&p, 0);
	el(out, 4, "CompletionRoutines", "false");
	el(out, 4, "MeasureLatency", tf(o.measure_latency));
	el(out, 4, "CalculateIopsStdDev", tf(o.iops_stddev));
	el(out, 4, "DisableAffinity", tf(o.disable_affinity));
	el(out, 4, "Duration", j0 ? j0->runtime_ns / 1000000000u : 0);
	el(out, 4, "Warmup", j0 ? j0->ramp_time_ns / 1000000000u : 0);
	el(out, 4, "Cooldown", j0 ? j0->cooldown_ns / 1000000000u : 0);
	el(out, 4, "ThreadCount", o.total_threads);
	el(out, 4, "RequestCount", 0);
	el(out, 4, "IoBucketDuration", o.iops_interval_ms);
	el(out, 4, "RandSeed", first_seed(p));
	if (!o.affinity.empty()) {
		tag_open(out, 4, "Affinity");
		for (uint32_t cpu : o.affinity)
			out << indent(5) << "<AffinityGroupAssignment Group=\"0\" Processor=\"" << cpu << "\"/>\n";
		tag_close(out, 4, "Affinity");
	}
}

} // namespace

void profile(std::ostream &out, const plan &p, const options &o)
{
	tag_open(out, 1, "Profile");
	el(out, 2, "Progress", 0);
	el(out, 2, "ResultFormat", "xml");
	el(out, 2, "Verbose", tf(o.verbose));
	tag_open(out, 2, "TimeSpans");
	tag_open(out, 3, "TimeSpan");
	timespan_settings(out, p, o);
	tag_open(out, 4, "Targets");
	for (uint32_t i = 0; i < p.nr_jobs; i++) {
		const plan_job &j = *plan_job_at(&p, i);
		if (!j.nr_clones)
			continue;
		for (uint32_t f = 0; f < j.clones[0].nr_files; f++)
			target(out, j, j.clones[0].files[f], o);
	}
	tag_close(out, 4, "Targets");
	tag_close(out, 3, "TimeSpan");
	tag_close(out, 2, "TimeSpans");
	tag_close(out, 1, "Profile");
}

} // namespace report::diskspd::xml

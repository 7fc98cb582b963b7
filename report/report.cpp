// report/report.cpp - the format table and report::write.
//
// Every output format is one row of formats[]: its --output-format name, its
// bit in options.formats and its writer.  parse_formats, the list of valid
// names in error messages and write() all read the table, so a new writer
// (diskspd, cdm) registers with one row (and one FORMAT_* bit in report.hpp).
// Rows are in fio's print order: terse, json/json+, normal.
#include "report/report.hpp"


#include "report/cdm.hpp"
#include "report/diskspd/diskspd.hpp"
#include "report/formats.hpp"
#include "report/html.hpp"
#include "report/quick.hpp"
#include "report/model.hpp"

namespace report {

namespace {

void terse(std::ostream &out, const model &m, const results &r, const plan &, const options &o)
{
	write_terse(out, m, r, version_string(o.who), o.terse_version);
}

// csv: terse lines under a header row naming each field.  Run as fio, csv is
// fio's terse line alone, as fio 3.33 prints it (a client parses it as fio's).
void csv(std::ostream &out, const model &m, const results &r, const plan &p, const options &o)
{
	if (o.who != personality::fio)
		out << terse_header(m, r, o.terse_version);
	terse(out, m, r, p, o);
}

void json(std::ostream &out, const model &m, const results &r, const plan &p, const options &o)
{
	write_json(out, m, r, p, false, version_string(o.who), o.saved_as);
}

void json_plus(std::ostream &out, const model &m, const results &r, const plan &p,
	       const options &o)
{
	write_json(out, m, r, p, true, version_string(o.who), o.saved_as);
}

void normal(std::ostream &out, const model &m, const results &r, const plan &p,
	    const options &o)
{
	write_normal(out, m, r, p, o);
}

void cdm(std::ostream &out, const model &, const results &r, const plan &p, const options &o)
{
	cdm_options co;
	co.profile = o.cdm_profile;
	co.target = o.cdm_target;
	co.admin = o.admin;
	write_cdm(out, r, p, co);
}

template <unsigned Bit>
void quick(std::ostream &out, const model &, const results &r, const plan &p, const options &)
{
	static const char *const names[] = {"winsat", "hdparm", "dd", "gnome-disks"};
	unsigned i = Bit == FORMAT_WINSAT ? 0 : Bit == FORMAT_HDPARM ? 1 : Bit == FORMAT_DD ? 2 : 3;
	write_quick(names[i], out, r, p);
}

// A job file's DISKSPD report: what a line's facts would say comes from the
// plan, IopsStdDev (-D) from the first job that asks for it (diskspd_iops_stddev=,
// which a line's job sets), over that job's iopsavgtime; latency (-L) unless
// every job leaves it out (diskspd_latency=0, a line's job without -L).
diskspd::options diskspd_job_options(const plan &p)
{
	diskspd::options o;
	o.command_line = "(job file)";
	o.measure_latency = p.nr_jobs == 0;
	for (uint32_t g = 0; g < p.nr_groups; g++)
		for (uint32_t i = 0; i < p.groups[g].nr_jobs; i++) {
			const plan_job &j = p.groups[g].jobs[i];
			o.measure_latency = o.measure_latency || !j.diskspd_no_latency;
			if (!j.diskspd_iops_stddev || o.iops_stddev)
				continue;
			o.iops_stddev = true;
			o.iops_interval_ms = (uint32_t)(j.iops_avg_time_ns / 1000000);
		}
	return o;
}

void diskspd_text(std::ostream &out, const model &, const results &r, const plan &p, const options &)
{
	diskspd::write_text(r, p, diskspd_job_options(p), out);
}

void diskspd_xml(std::ostream &out, const model &, const results &r, const plan &p, const options &)
{
	diskspd::write_xml(r, p, diskspd_job_options(p), out);
}

// The page draws from the JSON document (json+, for exact latency percentiles),
// so a run's page and `ioplan report RESULT.json` are the same page.
void html(std::ostream &out, const model &m, const results &r, const plan &p, const options &o)
{
	std::string err;
	write_html({ { "this run", json_document(m, r, p, true, version_string(o.who), o.saved_as), {}, {} } }, out, &err);
}

struct format_row {
	const char *name;
	unsigned bit;
	writer_fn write;
	unsigned unless = 0;	// skipped when any of these bits is also asked for
};

// Names sharing a bit are synonyms (fio: terse, minimal; csv adds a header row).
const format_row formats[] = {
	{ "terse", FORMAT_TERSE, terse, FORMAT_CSV },	// csv prints the same lines
	{ "minimal", FORMAT_TERSE, terse, FORMAT_CSV },
	{ "csv", FORMAT_CSV, csv },
	{ "json", FORMAT_JSON, json, FORMAT_JSON_PLUS },	// json+ is json with bins
	{ "json+", FORMAT_JSON_PLUS, json_plus },
	{ "normal", FORMAT_NORMAL, normal },
	{ "cdm", FORMAT_CDM, cdm },
	{ "winsat", FORMAT_WINSAT, quick<FORMAT_WINSAT> },
	{ "hdparm", FORMAT_HDPARM, quick<FORMAT_HDPARM> },
	{ "dd", FORMAT_DD, quick<FORMAT_DD> },
	{ "gnome-disks", FORMAT_GNOME_DISKS, quick<FORMAT_GNOME_DISKS> },
	{ "diskspd", FORMAT_DISKSPD, diskspd_text },
	{ "diskspd-xml", FORMAT_DISKSPD_XML, diskspd_xml },
	{ "html", FORMAT_HTML, html },
};

const format_row *find_format(const std::string &name)
{
	for (const format_row &f : formats)
		if (name == f.name)
			return &f;
	return nullptr;
}

} // namespace

std::string format_names()
{
	std::string s;
	for (const format_row &f : formats)
		s += (s.empty() ? "" : ", ") + std::string(f.name);
	return s;
}

bool parse_formats(const std::string &list, unsigned *formats_out, std::string *err)
{
	unsigned mask = 0;
	size_t start = 0;

	for (;;) {
		size_t comma = list.find(',', start);
		std::string name = list.substr(start, comma == std::string::npos ? std::string::npos
										  : comma - start);
		const format_row *f = find_format(name);
		if (!f) {
			/* The caller names the flag: the reason alone. */
			*err = (name.empty() ? "empty format name in '" + list + "'"
					     : "unknown format '" + name + "'") +
			       " (valid: " + format_names() + ")";
			return false;
		}
		mask |= f->bit;
		if (comma == std::string::npos)
			break;
		start = comma + 1;
	}
	*formats_out = mask;
	return true;
}

std::string version_string()
{
	return std::string("ioplan-") + IOPLAN_VERSION;
}

void write(const results &r, const plan &p, const options &o_in, std::ostream &out)
{
	model m = build_model(r, p);
	unsigned done = 0;
	options o = o_in;

	// fio prints normal output's opening before the run, so before a terse
	// line or a JSON document that comes with it (normal,terse).
	if (o.banner && (o.formats & FORMAT_NORMAL) && (o.formats & ~FORMAT_NORMAL)) {
		write_normal_opening(out, r, p, o);
		o.banner = false;
	}
	// What fio says as it reads the jobs comes first even without the banner to carry it.
	if (o.banner && !(o.formats & FORMAT_NORMAL))
		for (const std::string &s : o.said.before)
			out << s;
	// So do the files fio's setup runs past, on the stream it reports to (an --output file too).
	if (o.banner && o.who == personality::fio && !(o.formats & FORMAT_NORMAL))
		write_fio_ignored(out, r, p);
	// fio's notes (log_info, as its threads start) come first even without the normal output.
	if (o.banner && (o.notes_first || o.fio_output_file) && !(o.formats & FORMAT_NORMAL))
		write_fio_notes(out, r, p, o.fio_output_file);
	// fio's notes as it merges the groups come ahead of every format's report; the normal
	// output alone has them after its opening (write_normal).
	if (o.who == personality::fio && (o.formats & ~FORMAT_NORMAL)) {
		for (const std::string &s : m.fio_base_notes)
			out << s;
		m.fio_base_notes.clear();
	}
	for (const format_row &f : formats) {
		if (!(o.formats & f.bit) || (done & f.bit) || (o.formats & f.unless))
			continue;
		f.write(out, m, r, p, o);
		done |= f.bit;
	}
	out.flush();
}

} // namespace report

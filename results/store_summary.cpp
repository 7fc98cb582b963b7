// results/store_summary.cpp - the store's summary query (`ioplan results
// summary`): the rows of every run's figures, by a fact and with the run's
// workload (what its jobs ran, whatever the host names its targets: summary's
// rows apart), each checked as a run's load checks it, and the p99 of a run's
// clones merged from their buckets.  Apart from store.cpp, which opens, saves
// and loads runs.
//
// Each row summary takes is read once: one pass over the runs' kept
// checksums, one over the facts and one over the figures (whole tables, every
// run at once), then each clone's buckets by its figure, and every row is
// hashed as it is taken, so the checksum of the rows summary reads
// (store_checksum.hpp) is checked against the very values summed up.  It read
// the figures with their facts by a join, then every fact and figure row
// again and each clone's buckets a second time to check that checksum: 1.04 s
// for 100 000 one-job runs, and 3.2 s of CPU for 10 000 runs of which a third
// merge clones.  A pass that meets a corrupt page cannot say whose row it
// was: the runs are then read one by one, each failing alone.  The workload
// of a run saved before workload hashes is looked up from its plan's later
// runs after the reading, only when there is such a run.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "results/store.hpp"
#include "results/store_checksum.hpp"
#include "results/store_sql.hpp"

namespace resdb {

namespace {

// One figure row of a run, as summary takes it.
struct figure_row {
	int64_t id = 0;
	std::string job, ddir;
	double iops = 0, bw_bytes = 0, p99_ns = 0;	// p99 NaN: none to know
	std::string fault;	// a value no save writes, said: its run is damaged
};

// A run a summary covers: what its rows say, and the sum of their hashes.
struct run_reading {
	std::string kept;	// its summary checksum, checked against sum ('' none)
	std::string whole;	// else its whole checksum (schema 4), checked by whole_sums ('' none)
	uint64_t sum = 0;	// the hashes of its rows read so far (kept only)
	std::string group, plan, workload;	// workload: its fact ('' saved before workload hashes)
	bool interrupted = false, failed = false;
	std::vector<figure_row> figures;
	std::string fault;	// a corrupt page met reading it (one run at a time)
};

// A column's text, read once for the comparisons of a row (a NULL is no text).
struct column_text {
	column_text(sqlite3_stmt *q, int c)
		: t((const char *)sqlite3_column_text(q, c)), n((size_t)sqlite3_column_bytes(q, c)) {}
	bool is(const char *s, size_t len) const { return t && n == len && std::memcmp(t, s, len) == 0; }
	const char *t;
	size_t n;
};

} // namespace

// The rows of the runs a summary covers, as summary_rows returns them: read
// by whole-table passes (read_all) or one run at a time (read_each), then
// put in order, merged and checked (finish).
class summary_reader {
public:
	summary_reader(store &st, const std::string &by) : st_(st), by_(by) {}
	// Throws the damaged store_error of a corrupt page met on the way.
	void read_all(const std::vector<int64_t> &scope);
	void read_each(const std::vector<int64_t> &scope);
	// The rows of the runs that read, in run, job, direction order; the
	// damaged ones named in *damaged, in id order; the runs still to check
	// by their whole checksum (id -> the checksum) in *whole.
	void finish(std::vector<summary_row> &out, std::vector<std::pair<int64_t, std::string>> &damaged,
		    std::map<int64_t, std::string> &whole);

private:
	store &st_;
	const std::string &by_;
	std::vector<int64_t> ids_;	// the runs covered, in id order
	std::vector<run_reading> runs_;	// runs_[i] is ids_[i]'s
	size_t last_ = 0;		// where the last row's run was (a run's rows are mostly together)
	std::string buf_;		// row_hash's

	void start(const std::vector<int64_t> &scope);
	run_reading *find(int64_t id);
	std::string kept_sql(bool one_run) const;
	void take_kept(stmt &q, run_reading &r);
	void take_fact(stmt &q, run_reading &r);
	void take_figure(int64_t run, stmt &q, run_reading &r);
	bool finish_run(int64_t id, run_reading &r, stmt &buckets, std::vector<summary_row> &out,
			std::vector<std::pair<int64_t, std::string>> &damaged);
	double merged_p99(run_reading &r, const figure_row *first, const figure_row *last, stmt &buckets);
};

void summary_reader::start(const std::vector<int64_t> &scope)
{
	ids_ = scope;
	runs_.assign(ids_.size(), run_reading{});
	last_ = 0;
}

run_reading *summary_reader::find(int64_t id)
{
	if (last_ < ids_.size() && ids_[last_] == id)
		return &runs_[last_];
	auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
	if (it == ids_.end() || *it != id)
		return nullptr;
	last_ = (size_t)(it - ids_.begin());
	return &runs_[last_];
}

// The runs' kept checksums: none in a store of schema 2 or 3 read as it is,
// only the whole one in a store of schema 4 read as it is.
std::string summary_reader::kept_sql(bool one_run) const
{
	if (!st_.checksums_)
		return "";
	return std::string(st_.summary_sums_ ? "SELECT id, checksum, summary_checksum FROM runs"
					     : "SELECT id, checksum, '' FROM runs") +
	       (one_run ? " WHERE id = ?1" : "");
}

void summary_reader::take_kept(stmt &q, run_reading &r)
{
	r.kept = q.text(2);
	if (r.kept.empty())
		r.whole = q.text(1);
}

// A fact: the group (--by), the plan, the workload, interrupted=yes, failed.
void summary_reader::take_fact(stmt &q, run_reading &r)
{
	sqlite3_stmt *s = q.raw();
	if (!r.kept.empty())
		r.sum += summed::row_hash(s, summed::facts, buf_);
	column_text name(s, summed::fact_name);
	if (name.is(by_.data(), by_.size()))
		r.group = q.text(summed::fact_value);
	if (name.is("plan", 4))
		r.plan = q.text(summed::fact_value);
	else if (name.is("workload", 8))
		r.workload = q.text(summed::fact_value);
	else if (name.is("interrupted", 11))
		r.interrupted = column_text(s, summed::fact_value).is("yes", 3);
	else if (name.is("failed", 6))
		r.failed = true;
}

// A figure, checked as a run's load checks it (rates_fault, no negative or
// infinite value): a damaged run's iops of 1e300 was a p90 of the summary.
void summary_reader::take_figure(int64_t run, stmt &q, run_reading &r)
{
	if (!r.kept.empty())
		r.sum += summed::row_hash(q.raw(), summed::figures, buf_);
	figure_row f;
	f.id = sqlite3_column_int64(q.raw(), summed::fig_id);
	f.job = q.text(summed::fig_job);
	f.ddir = q.text(summed::fig_ddir);
	try {
		figure v;
		v.iops = f.iops = q.figure(summed::fig_iops);
		v.bw_bytes = f.bw_bytes = q.figure(summed::fig_bw_bytes);
		f.p99_ns = q.figure(summed::fig_p99_ns);
		if (!latency_recorded(f.p99_ns))
			f.p99_ns = NAN;	// none to know, as for clones without buckets
		v.io_bytes = q.count(summed::fig_io_bytes);
		v.ios = q.count(summed::fig_ios);
		v.runtime_s = q.figure(summed::fig_runtime_s);
		check_figure(run, f.job, f.ddir, v);
	} catch (const store_error &e) {
		if (!e.damaged)
			throw;
		f.fault = e.what();
	}
	r.figures.push_back(std::move(f));
}

void summary_reader::read_all(const std::vector<int64_t> &scope)
{
	start(scope);
	const char *what = "cannot read the results store";
	std::string kept = kept_sql(false);
	if (!kept.empty()) {
		stmt k(st_.db_, kept.c_str(), st_);
		st_.each_row(k, what, [&] {
			if (run_reading *r = find(sqlite3_column_int64(k.raw(), 0)))
				take_kept(k, *r);
		});
	}
	stmt f(st_.db_, summed::rows_sql(summed::facts, false).c_str(), st_);
	st_.each_row(f, what, [&] {
		if (run_reading *r = find(sqlite3_column_int64(f.raw(), 0)))
			take_fact(f, *r);
	});
	stmt g(st_.db_, summed::rows_sql(summed::figures, false).c_str(), st_);
	st_.each_row(g, what, [&] {
		int64_t run = sqlite3_column_int64(g.raw(), 0);
		if (run_reading *r = find(run))
			take_figure(run, g, *r);
	});
}

void summary_reader::read_each(const std::vector<int64_t> &scope)
{
	start(scope);
	const char *what = "cannot read the results store";
	std::string kept = kept_sql(true);
	stmt k(st_.db_, kept.empty() ? "SELECT 1" : kept.c_str(), st_);
	stmt f(st_.db_, summed::rows_sql(summed::facts, true).c_str(), st_);
	stmt g(st_.db_, summed::rows_sql(summed::figures, true).c_str(), st_);
	for (size_t i = 0; i < ids_.size(); i++) {
		int64_t id = ids_[i];
		run_reading &r = runs_[i];
		try {
			if (!kept.empty()) {
				k.reset();
				k.bind(1, id);
				st_.each_row(k, what, [&] { take_kept(k, r); });
			}
			f.reset();
			f.bind(1, id);
			st_.each_row(f, what, [&] { take_fact(f, r); });
			g.reset();
			g.bind(1, id);
			st_.each_row(g, what, [&] { take_figure(id, g, r); });
		} catch (const store_error &e) {
			if (!e.damaged)
				throw;
			r.fault = e.what();
		}
	}
}

// The p99 of a run's jobs that share a name (numjobs clones), as one job's:
// from their buckets merged, as fio's group_reporting computes it.  A p99 is
// not additive, and a max or a mean of the clones' p99s is not the run's.
// NaN when a clone kept no buckets (an fio json file without bins).  The
// buckets are hashed into the run's sum as they are merged.
double summary_reader::merged_p99(run_reading &r, const figure_row *first, const figure_row *last, stmt &buckets)
{
	std::vector<std::pair<uint64_t, uint64_t>> all;	// (lat_ns, count) of every clone
	double lo = INFINITY, hi = 0;
	bool none = false;
	for (const figure_row *c = first; c != last; c++) {
		uint64_t n = 0;
		buckets.reset();
		buckets.bind(1, c->id);
		st_.each_row(buckets, "cannot read the results store", [&] {
			if (!r.kept.empty())
				r.sum += summed::row_hash(buckets.raw(), summed::buckets, buf_);
			uint64_t lat = buckets.count(summed::bucket_lat_ns);
			uint64_t count = buckets.count(summed::bucket_count);
			all.emplace_back(lat, count);
			n += count;
		});
		none = none || n == 0;
		lo = std::min(lo, c->p99_ns);
		hi = std::max(hi, c->p99_ns);
	}
	if (none)
		return NAN;
	// Each clone's p99 was clamped to what it saw (fio clamps to [min, max]);
	// the mixture's lies between its parts', so their p99s bound it the same way.
	// (A latency in several clones' buckets is counted at its place once sorted,
	// as one bucket of their summed counts would be.)
	return percentile_from_buckets(all, 99, lo, hi);
}

// One run's rows, in job and direction order, its clones merged; false, and
// the run named in damaged, when a row or its checksum says it is damaged.
bool summary_reader::finish_run(int64_t id, run_reading &r, stmt &buckets, std::vector<summary_row> &out,
				std::vector<std::pair<int64_t, std::string>> &damaged)
{
	auto fail = [&](const std::string &why) {
		damaged.emplace_back(id, st_.named(why));
		return false;
	};
	if (!r.fault.empty())
		return fail(r.fault);
	std::vector<figure_row> &fs = r.figures;
	std::sort(fs.begin(), fs.end(), [](const figure_row &a, const figure_row &b) {
		int c = a.job.compare(b.job);
		if (c == 0)
			c = a.ddir.compare(b.ddir);
		return c != 0 ? c < 0 : a.id < b.id;
	});
	std::vector<summary_row> rows;
	for (size_t g = 0, e; g < fs.size(); g = e) {
		for (e = g + 1; e < fs.size() && fs[e].job == fs[g].job && fs[e].ddir == fs[g].ddir; e++)
			;
		summary_row row;
		row.run_id = id;
		row.group = r.group;
		row.job = fs[g].job;
		row.ddir = fs[g].ddir;
		row.plan = r.plan;
		row.workload = r.workload;
		row.interrupted = r.interrupted;
		row.failed = r.failed;
		row.p99_ns = fs[g].p99_ns;
		for (size_t c = g; c < e; c++) {
			if (!fs[c].fault.empty())
				return fail(fs[c].fault);
			row.iops += fs[c].iops;
			row.bw_bytes += fs[c].bw_bytes;
		}
		if (e - g > 1) {
			try {
				row.p99_ns = merged_p99(r, &fs[g], &fs[0] + e, buckets);
			} catch (const store_error &x) {
				if (!x.damaged)
					throw;
				return fail(x.what());
			}
		}
		rows.push_back(std::move(row));
	}
	if (!r.kept.empty()) {
		std::string now = summed::checksum_text(r.sum);
		if (now != r.kept)
			return fail(st_.checksum_fault(id, r.kept, now, true));
	}
	out.insert(out.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
	return true;
}

void summary_reader::finish(std::vector<summary_row> &out, std::vector<std::pair<int64_t, std::string>> &damaged,
			    std::map<int64_t, std::string> &whole)
{
	stmt buckets(st_.db_, summed::rows_sql(summed::buckets, true).c_str(), st_);
	for (size_t i = 0; i < ids_.size(); i++) {
		run_reading &r = runs_[i];
		if (finish_run(ids_[i], r, buckets, out, damaged) && !r.whole.empty())
			whole[ids_[i]] = r.whole;
		r = run_reading{};	// its rows are in out now
	}
}

std::vector<summary_row> store::summary_rows(const std::string &by, const std::string &filter_name,
					     const std::string &filter_value,
					     std::vector<std::pair<int64_t, std::string>> *damaged)
{
	read_snapshot one_state(db_);	// the figures summed and the checksums checked alike
	std::vector<int64_t> scope = runs_in_scope(filter_name, filter_value);
	summary_reader reader(*this, by);
	try {
		reader.read_all(scope);
	} catch (const store_error &e) {
		if (!e.damaged)
			throw;
		reader.read_each(scope);
	}
	std::vector<summary_row> out;
	std::map<int64_t, std::string> whole;
	reader.finish(out, *damaged, whole);
	std::map<std::string, std::set<std::string>> plans;
	bool plans_read = false;
	for (summary_row &row : out)
		resolve_workload(row, &plans, &plans_read);
	if (filter_name == "workload")	// the scope's test, on the facts the rows were read with
		out.erase(std::remove_if(out.begin(), out.end(),
					 [&](const summary_row &r) { return r.by_plan || r.workload != filter_value; }),
			  out.end());
	std::vector<std::pair<int64_t, std::string>> found = whole_sums(whole);
	if (found.empty())
		return out;
	std::set<int64_t> gone;
	for (const auto &d : found)
		gone.insert(d.first);
	damaged->insert(damaged->end(), found.begin(), found.end());
	std::sort(damaged->begin(), damaged->end(),
		  [](const std::pair<int64_t, std::string> &a, const std::pair<int64_t, std::string> &b) {
			  return a.first < b.first;
		  });
	out.erase(std::remove_if(out.begin(), out.end(), [&](const summary_row &r) { return gone.count(r.run_id) > 0; }),
		  out.end());
	return out;
}

// Every run a summary covers, with figures or not (all, or those with the
// filter's fact): only the runs with figure rows were checked, so a run whose
// figures were lost (a page of them damaged, rows deleted) was left out of
// the summary without a word, exit 0.  Its checksum now names it.  In id order.
std::vector<int64_t> store::runs_in_scope(const std::string &filter_name, const std::string &filter_value)
{
	if (filter_name == "workload") {	// the runs of that workload, and those of its plans saved before
		stmt w(db_, "SELECT r.id, COALESCE(p.value, ''), COALESCE(w.value, '') FROM runs r"
			    " LEFT JOIN facts p ON p.run_id = r.id AND p.name = 'plan'"
			    " LEFT JOIN facts w ON w.run_id = r.id AND w.name = 'workload'",
		       *this);
		std::map<std::string, std::set<std::string>> plans;
		bool plans_read = false;
		std::vector<int64_t> out;
		each_row(w, "cannot read the results store", [&] {
			summary_row row;
			row.plan = w.text(1);
			row.workload = w.text(2);
			resolve_workload(row, &plans, &plans_read);
			if (!row.by_plan && row.workload == filter_value)
				out.push_back(w.i64(0));
		});
		std::sort(out.begin(), out.end());
		return out;
	}
	stmt q(db_, filter_name.empty() ? "SELECT id FROM runs" : "SELECT run_id FROM facts WHERE name = ?1 AND value = ?2",
	       *this);
	if (!filter_name.empty())
		q.bind(1, filter_name).bind(2, filter_value);
	std::vector<int64_t> out;
	each_row(q, "cannot read the results store", [&] { out.push_back(q.i64(0)); });
	std::sort(out.begin(), out.end());	// the runs table's order already; the facts' by value
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

// Each plan hash and the workloads its runs were saved with: one, since the
// workload is the plan less its target names.  Read only when a run saved
// before workload hashes is summed up.
std::map<std::string, std::set<std::string>> store::workloads_of_plans()
{
	// CROSS JOIN keeps SQLite to this order, from the workload facts: from the
	// plans it looked each run up, 10 000 runs of a store saved before for none.
	stmt q(db_, "SELECT DISTINCT p.value, w.value FROM facts w CROSS JOIN facts p ON p.run_id = w.run_id"
		    " AND p.name = 'plan' WHERE w.name = 'workload'",
	       *this);
	std::map<std::string, std::set<std::string>> out;
	each_row(q, "cannot read the results store", [&] { out[q.text(0)].insert(q.text(1)); });
	return out;
}

// A row's workload: its run's fact; for a run saved before workload hashes,
// the workload the runs of its plan saved since have (the same plan is the
// same workload), so a store's history is not cut in two rows where ioplan
// was upgraded; else, with no such run (or runs of two workloads, which no
// save of one plan makes), its plan hash, by_plan.
void store::resolve_workload(summary_row &row, std::map<std::string, std::set<std::string>> *plans, bool *read)
{
	if (!row.workload.empty())
		return;
	if (!*read) {
		*plans = workloads_of_plans();
		*read = true;
	}
	auto it = plans->find(row.plan);
	if (it != plans->end() && it->second.size() == 1) {
		row.workload = *it->second.begin();
		return;
	}
	row.workload = row.plan;
	row.by_plan = true;
}

std::vector<std::string> store::fact_values(const std::string &name, const std::string &value, bool prefix)
{
	stmt q(db_, prefix ? "SELECT DISTINCT value FROM facts WHERE name = ?1 AND substr(value, 1, length(?2)) = ?2"
			     " ORDER BY value LIMIT 3"
			   : "SELECT DISTINCT value FROM facts WHERE name = ?1 AND value = ?2",
	       *this);
	q.bind(1, name).bind(2, value);
	std::vector<std::string> out;
	each_row(q, "cannot read the results store", [&] { out.push_back(q.text(0)); });
	return out;
}

} // namespace resdb

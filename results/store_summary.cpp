// results/store_summary.cpp - the store's summary query (`ioplan results
// summary`): the rows of every run's figures, by a fact and with the run's
// plan (the workload its jobs ran, summary's rows apart), each checked as a
// run's load checks it, and the p99 of a run's clones merged from their
// buckets.  Apart from store.cpp, which opens, saves and loads runs.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "results/store.hpp"
#include "results/store_sql.hpp"

namespace resdb {

std::vector<summary_row> store::summary_rows(const std::string &by, const std::string &filter_name,
					     const std::string &filter_value,
					     std::vector<std::pair<int64_t, std::string>> *damaged)
{
	std::string sql = "SELECT f.run_id, COALESCE(g.value, ''), f.job, f.ddir, f.iops, f.bw_bytes, f.p99_ns, f.id,"
			  " EXISTS(SELECT 1 FROM facts i WHERE i.run_id = f.run_id AND i.name = 'interrupted'"
			  " AND i.value = 'yes'),"
			  " EXISTS(SELECT 1 FROM facts x WHERE x.run_id = f.run_id AND x.name = 'failed'),"
			  " f.io_bytes, f.ios, f.runtime_s, COALESCE(p.value, '')"
			  " FROM figures f LEFT JOIN facts g ON g.run_id = f.run_id AND g.name = ?1"
			  " LEFT JOIN facts p ON p.run_id = f.run_id AND p.name = 'plan'";
	if (!filter_name.empty())
		sql += " JOIN facts w ON w.run_id = f.run_id AND w.name = ?2 AND w.value = ?3";
	sql += " ORDER BY f.run_id, f.job, f.ddir, f.id";
	read_snapshot one_state(db_);	// the figures summed and the checksums checked alike
	stmt q(db_, sql.c_str(), *this);
	q.bind(1, by);
	if (!filter_name.empty())
		q.bind(2, filter_name).bind(3, filter_value);
	std::vector<summary_row> out;
	std::vector<std::pair<int64_t, double>> clones;	// (figure id, p99) of out.back()'s figures
	auto same = [&](const summary_row &row) {
		return !out.empty() && out.back().run_id == row.run_id && out.back().job == row.job &&
		       out.back().ddir == row.ddir;
	};
	// The figures are checked as a run's load checks them (rates_fault, no
	// negative or infinite value): a damaged run's iops of 1e300 was a p90
	// of the summary.  Its rows are dropped and it is named instead.
	auto is_damaged = [&](int64_t run) { return !damaged->empty() && damaged->back().first == run; };
	auto take_damage = [&](int64_t run, const std::function<void()> &read) {
		try {
			read();
		} catch (const store_error &e) {
			if (!e.damaged)
				throw;
			damaged->emplace_back(run, named(e.what()));
		}
	};
	auto close_clones = [&] {
		if (clones.size() > 1 && !is_damaged(out.back().run_id))
			take_damage(out.back().run_id, [&] { out.back().p99_ns = merged_p99(clones); });
		clones.clear();
	};
	each_row(q, "cannot read the results store", [&] {
		int64_t run = q.i64(0);
		if (is_damaged(run))
			return;
		take_damage(run, [&] {
			summary_row row;
			row.run_id = run;
			row.group = q.text(1);
			row.job = q.text(2);
			row.ddir = q.text(3);
			row.plan = q.text(13);
			figure f;
			f.iops = row.iops = q.figure(4);
			f.bw_bytes = row.bw_bytes = q.figure(5);
			row.p99_ns = q.figure(6);
			if (!latency_recorded(row.p99_ns))
				row.p99_ns = NAN;	// none to know, as for clones without buckets
			row.interrupted = q.i64(8) != 0;
			row.failed = q.i64(9) != 0;
			f.io_bytes = q.count(10);
			f.ios = q.count(11);
			f.runtime_s = q.figure(12);
			check_figure(run, row.job, row.ddir, f);
			if (!same(row)) {
				close_clones();
				out.push_back(std::move(row));
			} else {
				out.back().iops += row.iops;
				out.back().bw_bytes += row.bw_bytes;
			}
			clones.emplace_back(q.i64(7), row.p99_ns);
		});
	});
	if (!out.empty())
		close_clones();
	verify_summed(runs_in_scope(filter_name, filter_value), damaged);
	std::set<int64_t> gone;
	for (const auto &d : *damaged)
		gone.insert(d.first);
	out.erase(std::remove_if(out.begin(), out.end(), [&](const summary_row &r) { return gone.count(r.run_id) > 0; }),
		  out.end());
	return out;
}

// Every run a summary covers, with figures or not (all, or those with the
// filter's fact): only the runs with figure rows were checked, so a run whose
// figures were lost (a page of them damaged, rows deleted) was left out of
// the summary without a word, exit 0.  Its checksum now names it.
std::set<int64_t> store::runs_in_scope(const std::string &filter_name, const std::string &filter_value)
{
	stmt q(db_, filter_name.empty() ? "SELECT id FROM runs" : "SELECT run_id FROM facts WHERE name = ?1 AND value = ?2",
	       *this);
	if (!filter_name.empty())
		q.bind(1, filter_name).bind(2, filter_value);
	std::set<int64_t> out;
	each_row(q, "cannot read the results store", [&] { out.insert(q.i64(0)); });
	return out;
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

// The p99 of a run's jobs that share a name (numjobs clones), as one job's:
// from their buckets merged, as fio's group_reporting computes it.  A p99 is
// not additive, and a max or a mean of the clones' p99s is not the run's.
// NaN when a clone kept no buckets (an fio json file without bins).
double store::merged_p99(const std::vector<std::pair<int64_t, double>> &clones)
{
	std::map<uint64_t, uint64_t> merged;
	double lo = INFINITY, hi = 0;
	stmt b(db_, "SELECT lat_ns, count FROM buckets WHERE figure_id = ?", *this);
	for (const auto &c : clones) {
		uint64_t n = 0;
		b.reset();
		b.bind(1, c.first);
		each_row(b, "cannot read the results store", [&] {
			merged[b.count(0)] += b.count(1);
			n += b.count(1);
		});
		if (n == 0)
			return NAN;
		lo = std::min(lo, c.second);
		hi = std::max(hi, c.second);
	}
	// Each clone's p99 was clamped to what it saw (fio clamps to [min, max]);
	// the mixture's lies between its parts', so their p99s bound it the same way.
	return percentile_from_buckets({ merged.begin(), merged.end() }, 99, lo, hi);
}

} // namespace resdb

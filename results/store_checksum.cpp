// results/store_checksum.cpp - each run's checksums in the store (store.hpp):
// computed from what a save has just written and kept in the runs row, then
// checked by every reader that takes the run's figures (show, compare,
// report, export, import, summary), so a bit flipped on disk or a row edited
// by hand after the save makes the run damaged instead of a measurement.
// Before them, a figure changed to another plausible number (a p99 of 428032
// edited to 428031) was read, compared and summed up as measured.
//
// A checksum is "xxh3:" and 16 hex digits: the sum (mod 2^64) of an XXH3 hash
// of each of a set of the run's rows, each row's columns written with their
// SQLite type.  A sum of row hashes is what one pass over a whole table can
// add up per run, in any order: `results summary` over 100 000 runs checks
// them all in a few table scans, where one lookup per run and table took
// seconds.  Two sums are kept:
//  - runs.checksum, of every row of the run in every table (the runs row but
//    for its checksums, its facts, warnings, figures, buckets, samples,
//    repeats, ranks and rank figures): what show, compare, report, export and
//    import read;
//  - runs.summary_checksum (schema 5), of the rows `results summary` reads:
//    the run's facts, its figures, and the buckets of the figures it merges
//    (a job's clones, whose p99 comes from their buckets merged).  With only
//    the whole sum, summary hashed every bucket and sample row of every run
//    to vouch for the few rows it read: 1.0 s of CPU for 10 000 one-job runs
//    of a disk's real buckets (about 480 a run), 0.08 s with this one.
// A run saved before checksums existed (schema version 3 or older) has '' for
// both and is not checked; one saved by schema 4 has only the whole sum, which
// summary checks instead.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <sqlite3.h>
#include <xxhash.h>

#include "results/store.hpp"
#include "results/store_sql.hpp"

namespace resdb {

namespace {

// One table's rows of a run: the expression that names their run, the
// columns hashed, where they come from (rows below a figure reach their run
// through it) and which of them count (nullptr: all), in a scan of every
// run and in a look at one (?1).
struct checked_table {
	const char *run, *columns, *from, *which_all, *which_one;
};

// A set of tables whose rows one checksum sums up.
struct checked_set {
	const checked_table *tables;
	size_t count;
	const char *column;	// the runs column that keeps its sum
};

const checked_table full_tables[] = {
	{ "id", "id, uuid, format, label, source, tool_version, saved_s, started_s, host, kernel, plan_hash,"
		" job_text, environment", "runs", nullptr, nullptr },
	{ "run_id", "run_id, name, value", "facts", nullptr, nullptr },
	{ "run_id", "run_id, seq, text", "warnings", nullptr, nullptr },
	{ "run_id", "id, run_id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops, lat_mean_ns,"
		    " p50_ns, p99_ns, p999_ns, interval_s", "figures", nullptr, nullptr },
	{ "f.run_id", "t.figure_id, t.lat_ns, t.count", "figures f JOIN buckets t ON t.figure_id = f.id", nullptr, nullptr },
	{ "f.run_id", "t.figure_id, t.seq, t.iops, t.bw_bytes", "figures f JOIN samples t ON t.figure_id = f.id", nullptr, nullptr },
	{ "f.run_id", "t.figure_id, t.seq, t.iops, t.bw_bytes", "figures f JOIN repeats t ON t.figure_id = f.id", nullptr, nullptr },
	{ "run_id", "run_id, rank, host, error, start_late_ns", "ranks", nullptr, nullptr },
	{ "run_id", "run_id, rank, job_index, job, ddir, io_bytes, ios, runtime_ns, lat_n, lat_mean_ns, lat_p50_ns,"
		    " lat_p99_ns, lat_max_ns", "rank_figures", nullptr, nullptr },
};
const checked_set full_set = { full_tables, sizeof full_tables / sizeof full_tables[0], "checksum" };

// What store_summary.cpp reads of a run: its facts (the group, the filter,
// interrupted, failed), its figures, and the buckets of each figure that
// shares its run, job and direction with another (the clones whose p99
// merged_p99 merges).  Not the runs row: summary names a damaged run by its
// label, but sums up none of it.  The clones are found once, as a list (a
// condition on each bucket row, SQLite's correlated subquery, took 5.5 s for
// 10 000 runs where the list takes 0.6 s).
#define CLONES "SELECT a.id FROM figures a JOIN figures b ON b.run_id = a.run_id AND b.job = a.job" \
	       " AND b.ddir = a.ddir AND b.id != a.id"
const checked_table summary_tables[] = {
	{ "run_id", "run_id, name, value", "facts", nullptr, nullptr },
	{ "run_id", "id, run_id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops, lat_mean_ns,"
		    " p50_ns, p99_ns, p999_ns, interval_s", "figures", nullptr, nullptr },
	{ "f.run_id", "t.figure_id, t.lat_ns, t.count", "figures f JOIN buckets t ON t.figure_id = f.id",
	  "f.id IN (" CLONES ")", "f.id IN (" CLONES " WHERE a.run_id = ?1)" },
};
#undef CLONES
const checked_set summary_set = { summary_tables, sizeof summary_tables / sizeof summary_tables[0],
				  "summary_checksum" };

const char checksum_tag[] = "xxh3:";

// The query of one table's rows: of one run (?1), or of every run.
std::string rows_sql(const checked_table &t, bool one_run)
{
	const char *which = one_run ? t.which_one : t.which_all;
	std::string where = which ? which : "";
	if (one_run)
		where += (where.empty() ? "" : " AND ") + std::string(t.run) + " = ?1";
	return std::string("SELECT ") + t.run + ", " + t.columns + " FROM " + t.from +
	       (where.empty() ? "" : " WHERE " + where);
}

// A row's hash: each column after the first (its run) as its type and value,
// seeded with its table's place, so equal rows of two tables differ.
uint64_t row_hash(sqlite3_stmt *q, size_t table, std::string &buf)
{
	buf.clear();
	int n = sqlite3_column_count(q);
	for (int c = 1; c < n; c++) {
		int type = sqlite3_column_type(q, c);
		buf.push_back((char)type);
		if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
			char b[8];
			if (type == SQLITE_INTEGER) {
				int64_t v = sqlite3_column_int64(q, c);
				std::memcpy(b, &v, 8);
			} else {
				double v = sqlite3_column_double(q, c);
				std::memcpy(b, &v, 8);
			}
			buf.append(b, 8);
		} else if (type != SQLITE_NULL) {
			const void *p = type == SQLITE_BLOB ? sqlite3_column_blob(q, c) : sqlite3_column_text(q, c);
			uint64_t len = (uint64_t)sqlite3_column_bytes(q, c);
			buf.append((const char *)&len, 8);
			buf.append((const char *)p, len);
		}
	}
	return XXH3_64bits_withSeed(buf.data(), buf.size(), table + 1);
}

std::string checksum_text(uint64_t sum)
{
	char hex[17];
	std::snprintf(hex, sizeof hex, "%016" PRIx64, sum);
	return checksum_tag + std::string(hex);
}

const checked_set &set_of(bool summed)
{
	return summed ? summary_set : full_set;
}

// Each run of kept's rows of set added up into its second, by one pass over
// each table.
void scan_set(sqlite3 *db, store &st, const checked_set &set,
	      std::unordered_map<int64_t, std::pair<std::string, uint64_t>> &kept,
	      const std::function<void(stmt &, const std::function<void()> &)> &each)
{
	std::string buf;
	for (size_t i = 0; i < set.count; i++) {
		stmt q(db, rows_sql(set.tables[i], false).c_str(), st);
		each(q, [&] {
			auto it = kept.find(sqlite3_column_int64(q.raw(), 0));
			if (it != kept.end())
				it->second.second += row_hash(q.raw(), i, buf);
		});
	}
}

} // namespace

std::string store::run_checksum(int64_t id, bool summed)
{
	const checked_set &set = set_of(summed);
	uint64_t sum = 0;
	std::string buf;
	for (size_t i = 0; i < set.count; i++) {
		stmt q(db_, rows_sql(set.tables[i], true).c_str(), *this);
		q.bind(1, id);
		each_row(q, "cannot read the results store", [&] { sum += row_hash(q.raw(), i, buf); });
	}
	return checksum_text(sum);
}

void store::seal(int64_t id)
{
	stmt u(db_, "UPDATE runs SET checksum = ?, summary_checksum = ? WHERE id = ?", *this);
	u.bind(1, run_checksum(id, false)).bind(2, run_checksum(id, true)).bind(3, id);
	put(u);
}

// What a reader says of a run whose rows are not those its save wrote.
std::string store::checksum_fault(int64_t id, const std::string &kept, const std::string &now, bool summed) const
{
	std::string which = summed ? "summary checksum" : "checksum";
	if (kept.compare(0, sizeof checksum_tag - 1, checksum_tag) != 0 || kept.size() != sizeof checksum_tag - 1 + 16)
		return "the results store is damaged: run " + std::to_string(id) + "'s " + which + " holds '" +
		       kept.substr(0, 40) + "', which no save writes";
	return "the results store is damaged: run " + std::to_string(id) + " no longer matches the checksum its save " +
	       "kept" + (summed ? " of the rows summary reads" : "") + " (" + kept + ", now " + now +
	       "): a value changed after it was saved (a bit flipped on disk, or an edit)";
}

void store::verify(int64_t id, const std::string &kept)
{
	if (kept.empty())	// saved before checksums
		return;
	std::string now = run_checksum(id, false);
	if (now != kept)
		throw store_error(checksum_fault(id, kept, now, false), false, true);
}

// The runs of todo whose rows do not give the checksums kept, by whole-table
// scans (one pass over each table adds up every run's rows): each run by its
// summary checksum, or by the whole one when it has none (saved by schema 4).
std::vector<std::pair<int64_t, std::string>> store::scan_sums(const std::set<int64_t> &todo)
{
	using sums = std::unordered_map<int64_t, std::pair<std::string, uint64_t>>;	// id -> (kept, sum now)
	sums by_set[2];	// [summed]
	stmt k(db_, summary_sums_ ? "SELECT id, checksum, summary_checksum FROM runs WHERE checksum != ''"
				    " OR summary_checksum != ''"
				  : "SELECT id, checksum, '' FROM runs WHERE checksum != ''",
	       *this);
	each_row(k, "cannot read the results store", [&] {
		if (!todo.count(k.i64(0)))
			return;
		std::string summed = k.text(2);
		if (summed.empty())
			by_set[0][k.i64(0)] = { k.text(1), 0 };
		else
			by_set[1][k.i64(0)] = { summed, 0 };
	});
	std::vector<std::pair<int64_t, std::string>> found;
	auto each = [&](stmt &q, const std::function<void()> &row) { each_row(q, "cannot read the results store", row); };
	for (int summed = 0; summed < 2; summed++) {
		if (by_set[summed].empty())
			continue;
		scan_set(db_, *this, set_of(summed), by_set[summed], each);
		for (const auto &r : by_set[summed])
			if (checksum_text(r.second.second) != r.second.first)
				found.emplace_back(r.first, named(checksum_fault(r.first, r.second.first,
										 checksum_text(r.second.second), summed)));
	}
	return found;
}

// The same, one run at a time: each run's damage (a corrupt page) its own.
std::vector<std::pair<int64_t, std::string>> store::each_sum(const std::set<int64_t> &todo)
{
	std::vector<std::pair<int64_t, std::string>> found;
	for (int64_t id : todo) {
		try {
			stmt q(db_, summary_sums_ ? "SELECT checksum, summary_checksum FROM runs WHERE id = ?"
						  : "SELECT checksum, '' FROM runs WHERE id = ?",
			       *this);
			q.bind(1, id);
			int rc = q.step();
			check(rc, "cannot read the results store");
			if (rc != SQLITE_ROW)
				continue;
			std::string summed = q.text(1);
			if (summed.empty()) {
				verify(id, q.text(0));
				continue;
			}
			std::string now = run_checksum(id, true);
			if (now != summed)
				throw store_error(checksum_fault(id, summed, now, true), false, true);
		} catch (const store_error &e) {
			if (!e.damaged)
				throw;
			found.emplace_back(id, named(e.what()));
		}
	}
	return found;
}

// The runs of `only` whose rows summary reads do not give their checksum are
// added to *damaged, in id order (a run already there is named for its first
// fault).  A scan that meets a corrupt page cannot say whose row it was: the
// runs are then checked one by one, each failing alone.
void store::verify_summed(const std::set<int64_t> &only, std::vector<std::pair<int64_t, std::string>> *damaged)
{
	if (!checksums_)
		return;
	std::set<int64_t> todo = only;
	for (const auto &d : *damaged)
		todo.erase(d.first);
	if (todo.empty())
		return;
	std::vector<std::pair<int64_t, std::string>> found;
	try {
		found = scan_sums(todo);
	} catch (const store_error &e) {
		if (!e.damaged)
			throw;
		found = each_sum(todo);
	}
	damaged->insert(damaged->end(), found.begin(), found.end());
	std::sort(damaged->begin(), damaged->end(),
		  [](const std::pair<int64_t, std::string> &a, const std::pair<int64_t, std::string> &b) {
			  return a.first < b.first;
		  });
}

} // namespace resdb

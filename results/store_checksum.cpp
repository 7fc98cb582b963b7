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
//    Summary adds it up itself as it reads those rows (store_summary.cpp,
//    through store_checksum.hpp's queries and hash), each row read once.
// A run saved before checksums existed (schema version 3 or older) has '' for
// both and is not checked; one saved by schema 4 has only the whole sum, which
// summary checks instead (whole_sums).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <sqlite3.h>
#include <xxhash.h>

#include "results/store.hpp"
#include "results/store_checksum.hpp"
#include "results/store_sql.hpp"

namespace resdb {

namespace {

// One table's rows of a run: the expression that names their run, the
// columns hashed, where they come from (rows below a figure reach their run
// through it) and which of them count in a look at one run, ?1 (nullptr: all;
// a scan of every run takes them all).
struct checked_table {
	const char *run, *columns, *from, *which_one;
};

// A set of tables whose rows one checksum sums up.
struct checked_set {
	const checked_table *tables;
	size_t count;
	const char *column;	// the runs column that keeps its sum
};

const checked_table full_tables[] = {
	{ "id", "id, uuid, format, label, source, tool_version, saved_s, started_s, host, kernel, plan_hash,"
		" job_text, environment", "runs", nullptr },
	{ "run_id", "run_id, name, value", "facts", nullptr },
	{ "run_id", "run_id, seq, text", "warnings", nullptr },
	{ "run_id", "id, run_id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops, lat_mean_ns,"
		    " p50_ns, p99_ns, p999_ns, interval_s", "figures", nullptr },
	{ "f.run_id", "t.figure_id, t.lat_ns, t.count", "figures f JOIN buckets t ON t.figure_id = f.id", nullptr },
	{ "f.run_id", "t.figure_id, t.seq, t.iops, t.bw_bytes", "figures f JOIN samples t ON t.figure_id = f.id", nullptr },
	{ "f.run_id", "t.figure_id, t.seq, t.iops, t.bw_bytes", "figures f JOIN repeats t ON t.figure_id = f.id", nullptr },
	{ "run_id", "run_id, rank, host, error, start_late_ns", "ranks", nullptr },
	{ "run_id", "run_id, rank, job_index, job, ddir, io_bytes, ios, runtime_ns, lat_n, lat_mean_ns, lat_p50_ns,"
		    " lat_p99_ns, lat_max_ns", "rank_figures", nullptr },
};
const checked_set full_set = { full_tables, sizeof full_tables / sizeof full_tables[0], "checksum" };

// What store_summary.cpp reads of a run: its facts (the group, the filter,
// interrupted, failed), its figures, and the buckets of each figure that
// shares its run, job and direction with another (the clones whose p99 it
// merges; it finds them among the figures it has read, as CLONES does here).
// Not the runs row: summary names a damaged run by its label, but sums up
// none of it.  In summed::table's order; the figures columns in
// summed::figure_column's.
#define CLONES "SELECT a.id FROM figures a JOIN figures b ON b.run_id = a.run_id AND b.job = a.job" \
	       " AND b.ddir = a.ddir AND b.id != a.id"
const checked_table summary_tables[] = {
	{ "run_id", "run_id, name, value", "facts", nullptr },
	{ "run_id", "id, run_id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops, lat_mean_ns,"
		    " p50_ns, p99_ns, p999_ns, interval_s", "figures", nullptr },
	{ "f.run_id", "t.figure_id, t.lat_ns, t.count", "figures f JOIN buckets t ON t.figure_id = f.id",
	  "f.id IN (" CLONES " WHERE a.run_id = ?1)" },
};
#undef CLONES
const checked_set summary_set = { summary_tables, sizeof summary_tables / sizeof summary_tables[0],
				  "summary_checksum" };

const char checksum_tag[] = "xxh3:";

// The query of one table's rows: of one run (?1), or of every run (all of them).
std::string rows_sql(const checked_table &t, bool one_run)
{
	if (!one_run)
		return std::string("SELECT ") + t.run + ", " + t.columns + " FROM " + t.from;
	return std::string("SELECT ") + t.run + ", " + t.columns + " FROM " + t.from + " WHERE " +
	       (t.which_one ? t.which_one + std::string(" AND ") : "") + t.run + " = ?1";
}

// A row's hash: each column after the first (its run) as its type and value,
// seeded with its table's place, so equal rows of two tables differ.
uint64_t row_hash(sqlite3_stmt *q, size_t table, std::string &buf)
{
	buf.clear();
	int n = sqlite3_column_count(q);
	for (int c = 1; c < n; c++) {
		// The column's value, read through once: each sqlite3_column_* call
		// checks the statement and its error state again, a quarter of the
		// cost of hashing a store's facts.  (Unprotected, as the connection
		// is one thread's: store.cpp opens it SQLITE_OPEN_NOMUTEX.)
		sqlite3_value *v = sqlite3_column_value(q, c);
		int type = sqlite3_value_type(v);
		buf.push_back((char)type);
		if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
			char b[8];
			if (type == SQLITE_INTEGER) {
				int64_t i = sqlite3_value_int64(v);
				std::memcpy(b, &i, 8);
			} else {
				double d = sqlite3_value_double(v);
				std::memcpy(b, &d, 8);
			}
			buf.append(b, 8);
		} else if (type != SQLITE_NULL) {
			const void *p = type == SQLITE_BLOB ? sqlite3_value_blob(v) : sqlite3_value_text(v);
			uint64_t len = (uint64_t)sqlite3_value_bytes(v);
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

std::string summed::rows_sql(table t, bool one_run)
{
	if (t == buckets)	// one clone's, by its figure
		return std::string("SELECT t.figure_id, ") + summary_tables[t].columns + " FROM buckets t WHERE t.figure_id = ?1";
	return resdb::rows_sql(summary_tables[t], one_run);
}

// A row's hash: each column after the first (its run) as its type and value,
// seeded with its table's place, so equal rows of two tables differ.
uint64_t summed::row_hash(sqlite3_stmt *q, table t, std::string &buf)
{
	return resdb::row_hash(q, (size_t)t, buf);
}

std::string summed::checksum_text(uint64_t sum)
{
	return resdb::checksum_text(sum);
}

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

// The runs of kept (id -> its whole checksum) whose rows no longer give it,
// each named, in id order: by whole-table scans (one pass over each table adds
// up every run's rows), or, when a scan meets a corrupt page, which cannot say
// whose row it was, one run at a time, each failing alone.  Summary checks so
// the runs saved by schema 4, which keep no checksum of the rows it reads.
std::vector<std::pair<int64_t, std::string>> store::whole_sums(const std::map<int64_t, std::string> &kept)
{
	std::vector<std::pair<int64_t, std::string>> found;
	if (kept.empty())
		return found;
	try {
		std::unordered_map<int64_t, std::pair<std::string, uint64_t>> sums;	// id -> (kept, sum now)
		for (const auto &k : kept)
			sums[k.first] = { k.second, 0 };
		auto each = [&](stmt &q, const std::function<void()> &row) {
			each_row(q, "cannot read the results store", row);
		};
		scan_set(db_, *this, full_set, sums, each);
		for (const auto &k : kept) {
			std::string now = checksum_text(sums[k.first].second);
			if (now != k.second)
				found.emplace_back(k.first, named(checksum_fault(k.first, k.second, now, false)));
		}
	} catch (const store_error &e) {
		if (!e.damaged)
			throw;
		found.clear();
		for (const auto &k : kept) {
			try {
				verify(k.first, k.second);
			} catch (const store_error &v) {
				if (!v.damaged)
					throw;
				found.emplace_back(k.first, named(v.what()));
			}
		}
	}
	return found;
}

} // namespace resdb

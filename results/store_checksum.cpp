// results/store_checksum.cpp - each run's checksum in the store (store.hpp):
// computed from what a save has just written and kept in runs.checksum, then
// checked by every reader that takes the run's figures (show, compare,
// report, export, import, summary), so a bit flipped on disk or a row edited
// by hand after the save makes the run damaged instead of a measurement.
// Before it, a figure changed to another plausible number (a p99 of 428032
// edited to 428031) was read, compared and summed up as measured.
//
// The checksum is "xxh3:" and 16 hex digits: the sum (mod 2^64) of an XXH3
// hash of every row of the run in every table (the runs row but for its
// checksum, its facts, warnings, figures, buckets, samples, repeats, ranks and
// rank figures), each row's columns written with their SQLite type.  A sum of
// row hashes is what one pass over a whole table can add up per run, in any
// order: `results summary` over 100 000 runs checks them all in a few table
// scans, where one lookup per run and table took seconds.  A run saved before
// checksums existed (schema version 3 or older) has '' and is not checked.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
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
// columns hashed, and where they come from (rows below a figure reach their
// run through it).
struct checked_table {
	const char *run, *columns, *from;
};

const checked_table checked_tables[] = {
	{ "id", "id, uuid, format, label, source, tool_version, saved_s, started_s, host, kernel, plan_hash,"
		" job_text, environment", "runs" },
	{ "run_id", "run_id, name, value", "facts" },
	{ "run_id", "run_id, seq, text", "warnings" },
	{ "run_id", "id, run_id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops, lat_mean_ns,"
		    " p50_ns, p99_ns, p999_ns, interval_s", "figures" },
	{ "f.run_id", "t.figure_id, t.lat_ns, t.count", "figures f JOIN buckets t ON t.figure_id = f.id" },
	{ "f.run_id", "t.figure_id, t.seq, t.iops, t.bw_bytes", "figures f JOIN samples t ON t.figure_id = f.id" },
	{ "f.run_id", "t.figure_id, t.seq, t.iops, t.bw_bytes", "figures f JOIN repeats t ON t.figure_id = f.id" },
	{ "run_id", "run_id, rank, host, error, start_late_ns", "ranks" },
	{ "run_id", "run_id, rank, job_index, job, ddir, io_bytes, ios, runtime_ns, lat_n, lat_mean_ns, lat_p50_ns,"
		    " lat_p99_ns, lat_max_ns", "rank_figures" },
};

const char checksum_tag[] = "xxh3:";

// The query of one table's rows: of one run (?1), or of every run.
std::string rows_sql(const checked_table &t, bool one_run)
{
	return std::string("SELECT ") + t.run + ", " + t.columns + " FROM " + t.from +
	       (one_run ? std::string(" WHERE ") + t.run + " = ?1" : "");
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

} // namespace

std::string store::run_checksum(int64_t id)
{
	uint64_t sum = 0;
	std::string buf;
	for (size_t i = 0; i < sizeof checked_tables / sizeof checked_tables[0]; i++) {
		stmt q(db_, rows_sql(checked_tables[i], true).c_str(), *this);
		q.bind(1, id);
		each_row(q, "cannot read the results store", [&] { sum += row_hash(q.raw(), i, buf); });
	}
	return checksum_text(sum);
}

void store::seal(int64_t id)
{
	stmt u(db_, "UPDATE runs SET checksum = ? WHERE id = ?", *this);
	u.bind(1, run_checksum(id)).bind(2, id);
	put(u);
}

// What a reader says of a run whose rows are not those its save wrote.
std::string store::checksum_fault(int64_t id, const std::string &kept, const std::string &now) const
{
	if (kept.compare(0, sizeof checksum_tag - 1, checksum_tag) != 0 || kept.size() != sizeof checksum_tag - 1 + 16)
		return "the results store is damaged: run " + std::to_string(id) + "'s checksum holds '" +
		       kept.substr(0, 40) + "', which no save writes";
	return "the results store is damaged: run " + std::to_string(id) + " no longer matches the checksum its save " +
	       "kept (" + kept + ", now " + now + "): a value changed after it was saved (a bit flipped on disk, " +
	       "or an edit)";
}

void store::verify(int64_t id, const std::string &kept)
{
	if (kept.empty())	// saved before checksums
		return;
	std::string now = run_checksum(id);
	if (now != kept)
		throw store_error(checksum_fault(id, kept, now), false, true);
}

// The runs of todo whose rows do not give the checksum kept, by whole-table
// scans (one pass over each table adds up every run's rows).
std::vector<std::pair<int64_t, std::string>> store::scan_sums(const std::set<int64_t> &todo)
{
	std::unordered_map<int64_t, std::pair<std::string, uint64_t>> kept;	// id -> (checksum, sum now)
	stmt k(db_, "SELECT id, checksum FROM runs WHERE checksum != ''", *this);
	each_row(k, "cannot read the results store", [&] {
		if (todo.count(k.i64(0)))
			kept[k.i64(0)] = { k.text(1), 0 };
	});
	std::vector<std::pair<int64_t, std::string>> found;
	if (kept.empty())
		return found;
	std::string buf;
	for (size_t i = 0; i < sizeof checked_tables / sizeof checked_tables[0]; i++) {
		stmt q(db_, rows_sql(checked_tables[i], false).c_str(), *this);
		each_row(q, "cannot read the results store", [&] {
			auto it = kept.find(sqlite3_column_int64(q.raw(), 0));
			if (it != kept.end())
				it->second.second += row_hash(q.raw(), i, buf);
		});
	}
	for (const auto &r : kept)
		if (checksum_text(r.second.second) != r.second.first)
			found.emplace_back(r.first,
					   named(checksum_fault(r.first, r.second.first, checksum_text(r.second.second))));
	return found;
}

// The same, one run at a time: each run's damage (a corrupt page) its own.
std::vector<std::pair<int64_t, std::string>> store::each_sum(const std::set<int64_t> &todo)
{
	std::vector<std::pair<int64_t, std::string>> found;
	for (int64_t id : todo) {
		try {
			stmt q(db_, "SELECT checksum FROM runs WHERE id = ?", *this);
			q.bind(1, id);
			int rc = q.step();
			check(rc, "cannot read the results store");
			if (rc == SQLITE_ROW)
				verify(id, q.text(0));
		} catch (const store_error &e) {
			if (!e.damaged)
				throw;
			found.emplace_back(id, named(e.what()));
		}
	}
	return found;
}

// The runs of `only` whose rows do not give their checksum are added to
// *damaged, in id order (a run already there is named for its first fault).
// A scan that meets a corrupt page cannot say whose row it was: the runs are
// then checked one by one, each failing alone.
void store::verify_all(const std::set<int64_t> &only, std::vector<std::pair<int64_t, std::string>> *damaged)
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

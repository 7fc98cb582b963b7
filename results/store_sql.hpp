// results/store_sql.hpp - the prepared-statement wrapper the store's files share.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include <sqlite3.h>

#include "results/store.hpp"

namespace resdb {

class store;

// How long a save waits for another process's transaction before it says "locked".
constexpr int busy_timeout_ms = 10000;

// The SELECTs of one read see one state of the store: a run is read by a
// dozen queries (its row, facts, figures, buckets ... and its checksum over
// them all), and a `results rm` or a save by another process between two of
// them gave a run without its figures, or one that no longer matched its
// checksum.  A deferred BEGIN takes its snapshot at the first SELECT (WAL);
// inside a transaction already open (a save's) it adds nothing.
class read_snapshot {
public:
	explicit read_snapshot(sqlite3 *db) : db_(db)
	{
		open_ = sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) == SQLITE_OK;
	}
	~read_snapshot()
	{
		if (open_)
			sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
	}
	read_snapshot(const read_snapshot &) = delete;
	read_snapshot &operator=(const read_snapshot &) = delete;

private:
	sqlite3 *db_;
	bool open_;
};

// A prepared statement, finalized when it goes out of scope.
class stmt {
public:
	// A statement that failed to prepare gives its error code at step().
	stmt(sqlite3 *db, const char *sql, store &) { prep_rc_ = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr); }
	~stmt() { sqlite3_finalize(st_); }
	stmt(const stmt &) = delete;
	stmt &operator=(const stmt &) = delete;
	bool ok() const { return st_ != nullptr; }
	stmt &bind(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); return *this; }
	stmt &bind(int i, double v) { sqlite3_bind_double(st_, i, v); return *this; }
	stmt &bind(int i, const std::string &v)
	{
		sqlite3_bind_text(st_, i, v.data(), (int)v.size(), SQLITE_TRANSIENT);
		return *this;
	}
	int step() { return st_ ? sqlite3_step(st_) : prep_rc_; }
	sqlite3_stmt *raw() { return st_; }
	void reset() { sqlite3_reset(st_); }
	// A number column that holds text or a blob (a store edited by hand) is
	// refused, not read as 0: a wrong number would look like a measured one.
	int64_t i64(int c) { return number(c), sqlite3_column_int64(st_, c); }
	double dbl(int c) { return number(c), sqlite3_column_double(st_, c); }
	// A count or a figure a save wrote: never negative, never infinite (a
	// NaN SQLite keeps as NULL, which the tables refuse).  A hand-edited -5
	// read as a p99, or a bucket's count of -7 read as 2^64 - 7, turned
	// compare's verdict and summary's percentiles without a word.
	uint64_t count(int c)
	{
		int64_t v = i64(c);
		if (v < 0)
			not_a_figure(c);
		return (uint64_t)v;
	}
	double figure(int c)
	{
		double v = dbl(c);
		if (!std::isfinite(v) || v < 0)
			not_a_figure(c);
		return v;
	}
	std::string text(int c)
	{
		const unsigned char *t = sqlite3_column_text(st_, c);
		return t ? std::string((const char *)t, (size_t)sqlite3_column_bytes(st_, c)) : "";
	}

private:
	void number(int c)
	{
		int t = sqlite3_column_type(st_, c);
		if (t == SQLITE_TEXT || t == SQLITE_BLOB)
			throw store_error(std::string("the results store is damaged: ") + sqlite3_column_name(st_, c) +
					  " holds '" + text(c).substr(0, 40) + "' where a number belongs",
					  false, true);
	}

	[[noreturn]] void not_a_figure(int c)
	{
		throw store_error(std::string("the results store is damaged: ") + sqlite3_column_name(st_, c) +
					  " holds " + text(c) + ", which no save writes (a figure is finite and not negative)",
				  false, true);
	}

	sqlite3_stmt *st_ = nullptr;
	int prep_rc_ = SQLITE_OK;
};


// A figure's direction and rates as a save writes them (store.cpp), else a
// damaged store; the load of a run and the summary's rows both ask it.
void check_figure(int64_t run, const std::string &job, const std::string &ddir, const figure &f);

} // namespace resdb

// results/store_schema.cpp - the results store's schema (store.hpp): the
// steps that made each version of it, how a file is known as a store (its
// tables and columns are those its version's steps make), and migrating an
// older store forward in one transaction.  Apart from store.cpp because none
// of it reads or writes a run.
#include <string>

#include <sqlite3.h>

#include "results/store.hpp"
#include "results/store_file.hpp"
#include "results/store_sql.hpp"

namespace resdb {

namespace {

// Step i takes a store from schema version i to i + 1.
const char *const migrations[] = {
	R"(CREATE TABLE runs(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, format INTEGER NOT NULL,
	     label TEXT NOT NULL, source TEXT NOT NULL, tool_version TEXT NOT NULL, saved_s INTEGER NOT NULL,
	     started_s INTEGER NOT NULL, host TEXT NOT NULL, kernel TEXT NOT NULL, plan_hash TEXT NOT NULL,
	     job_text TEXT NOT NULL, environment TEXT NOT NULL);
	   CREATE TABLE facts(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	     name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(run_id, name));
	   CREATE INDEX facts_by_name ON facts(name, value);
	   CREATE TABLE warnings(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	     seq INTEGER NOT NULL, text TEXT NOT NULL);
	   CREATE INDEX warnings_by_run ON warnings(run_id);
	   CREATE TABLE figures(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	     job_index INTEGER NOT NULL, job TEXT NOT NULL, ddir TEXT NOT NULL, plan TEXT NOT NULL,
	     io_bytes INTEGER NOT NULL, ios INTEGER NOT NULL, runtime_s REAL NOT NULL, bw_bytes REAL NOT NULL,
	     iops REAL NOT NULL, lat_mean_ns REAL NOT NULL, p50_ns REAL NOT NULL, p99_ns REAL NOT NULL,
	     p999_ns REAL NOT NULL, interval_s REAL NOT NULL);
	   CREATE INDEX figures_by_run ON figures(run_id);
	   CREATE TABLE buckets(figure_id INTEGER NOT NULL REFERENCES figures(id) ON DELETE CASCADE,
	     lat_ns INTEGER NOT NULL, count INTEGER NOT NULL);
	   CREATE INDEX buckets_by_figure ON buckets(figure_id);
	   CREATE TABLE samples(figure_id INTEGER NOT NULL REFERENCES figures(id) ON DELETE CASCADE,
	     seq INTEGER NOT NULL, iops REAL NOT NULL, bw_bytes REAL NOT NULL);
	   CREATE INDEX samples_by_figure ON samples(figure_id);
	   CREATE TABLE repeats(figure_id INTEGER NOT NULL REFERENCES figures(id) ON DELETE CASCADE,
	     seq INTEGER NOT NULL, iops REAL NOT NULL, bw_bytes REAL NOT NULL);
	   CREATE INDEX repeats_by_figure ON repeats(figure_id);)",
	// mpirun runs: each rank's host and its share of every job and direction.
	R"(CREATE TABLE ranks(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	     rank INTEGER NOT NULL, host TEXT NOT NULL, error INTEGER NOT NULL, start_late_ns INTEGER NOT NULL,
	     PRIMARY KEY(run_id, rank));
	   CREATE TABLE rank_figures(run_id INTEGER NOT NULL, rank INTEGER NOT NULL, job_index INTEGER NOT NULL,
	     job TEXT NOT NULL, ddir TEXT NOT NULL, io_bytes INTEGER NOT NULL, ios INTEGER NOT NULL,
	     runtime_ns INTEGER NOT NULL, lat_n INTEGER NOT NULL, lat_mean_ns REAL NOT NULL,
	     lat_p50_ns INTEGER NOT NULL, lat_p99_ns INTEGER NOT NULL, lat_max_ns INTEGER NOT NULL,
	     FOREIGN KEY(run_id, rank) REFERENCES ranks(run_id, rank) ON DELETE CASCADE);
	   CREATE INDEX rank_figures_by_rank ON rank_figures(run_id, rank);)",
	// Run ids are never handed out twice (AUTOINCREMENT): without it a new run
	// took the id of the newest one removed, and "run 7" named another run.
	// SQLite cannot add it to a table, so runs is copied into one that has it
	// (migrate() turns foreign keys off: dropping runs would cascade).
	R"(CREATE TABLE runs_v3(id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE,
	     format INTEGER NOT NULL, label TEXT NOT NULL, source TEXT NOT NULL, tool_version TEXT NOT NULL,
	     saved_s INTEGER NOT NULL, started_s INTEGER NOT NULL, host TEXT NOT NULL, kernel TEXT NOT NULL,
	     plan_hash TEXT NOT NULL, job_text TEXT NOT NULL, environment TEXT NOT NULL);
	   INSERT INTO runs_v3(id, uuid, format, label, source, tool_version, saved_s, started_s, host, kernel,
	     plan_hash, job_text, environment)
	     SELECT id, uuid, format, label, source, tool_version, saved_s, started_s, host, kernel, plan_hash,
	     job_text, environment FROM runs;
	   DROP TABLE runs;
	   ALTER TABLE runs_v3 RENAME TO runs;)",
	// Each run's checksum over its rows (store_checksum.cpp); '' for the runs
	// saved before, which are not checked.
	R"(ALTER TABLE runs ADD COLUMN checksum TEXT NOT NULL DEFAULT '';)",
	// Each run's checksum over the rows summary reads (store_checksum.cpp):
	// summary hashed every bucket and sample of every run to vouch for its
	// figures.  '' for the runs saved before, whose summary checks the whole
	// checksum instead.
	R"(ALTER TABLE runs ADD COLUMN summary_checksum TEXT NOT NULL DEFAULT '';)",
};
constexpr int nr_migrations = sizeof(migrations) / sizeof(migrations[0]);
static_assert(nr_migrations == schema_version, "one migration step per schema version");

// A store's version and its tables' columns in one statement, so one snapshot
// (a store being migrated is seen before or after, never half-way): the
// version's row first (its table NULL), then each table's columns in order.
const char *const shape_sql =
	"SELECT user_version, NULL, NULL, -1 FROM pragma_user_version UNION ALL "
	"SELECT 0, m.name, p.name, p.cid FROM sqlite_master m, pragma_table_info(m.name) p "
	"WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%' ORDER BY 2, 4";

// One row of shape_sql into "table(col,col);" form; the version's row names no table.
void add_shape_row(sqlite3_stmt *q, std::string *shape, std::string *table)
{
	const char *t = (const char *)sqlite3_column_text(q, 1), *c = (const char *)sqlite3_column_text(q, 2);
	if (!t)
		return;
	if (*table != t) {
		*shape += (table->empty() ? "" : ");") + std::string(t) + "(";
		*table = t;
	} else {
		*shape += ",";
	}
	*shape += c ? c : "";
}

// The tables and columns migrations[0 .. version) make, from a scratch store
// in memory, once per version: what a store at that version must hold.
const std::string &expected_shape(int version)
{
	static std::string shapes[schema_version + 1];
	static bool made[schema_version + 1];
	if (made[version])
		return shapes[version];
	sqlite3 *db = nullptr;
	sqlite3_stmt *q = nullptr;
	bool ok = sqlite3_open(":memory:", &db) == SQLITE_OK;
	for (int i = 0; ok && i < version; i++)
		ok = sqlite3_exec(db, migrations[i], nullptr, nullptr, nullptr) == SQLITE_OK;
	ok = ok && sqlite3_prepare_v2(db, shape_sql, -1, &q, nullptr) == SQLITE_OK;
	std::string shape, table;
	while (ok && sqlite3_step(q) == SQLITE_ROW)
		add_shape_row(q, &shape, &table);
	sqlite3_finalize(q);
	sqlite3_close(db);
	if (!ok)
		throw store_error("internal error: the results store's own schema could not be made in memory");
	shapes[version] = shape + (table.empty() ? "" : ")");
	made[version] = true;
	return shapes[version];
}

// The version whose tables and columns a store of version 0 has, or 0: a
// store copied by `sqlite3 STORE .dump | sqlite3 NEW` (SQLite's way to back a
// database up as text, or to move it) keeps every row but not its
// user_version, and was refused as "not an ioplan results store".  Versions 2
// and 3 have the same columns (3 only made runs.id AUTOINCREMENT): such a
// store is taken as 2, whose step to 3 rebuilds runs the same either way.
int version_of_shape(const std::string &shape)
{
	for (int v = 1; v <= schema_version; v++)
		if (shape == expected_shape(v))
			return v;
	return 0;
}

} // namespace

void store::migrate(mode m)
{
	int version = 0;
	std::string shape = read_shape(&version);
	int lost = version == 0 && !shape.empty() ? version_of_shape(shape) : 0;
	if (lost)
		version = lost;
	// A file at version 0 with tables, or whose tables are not those of its
	// version (another program's database that numbers its versions too), is
	// not ioplan's to write into, nor to delete runs from.
	if ((version == 0 && !shape.empty()) ||
	    (version > 0 && version <= schema_version && shape != expected_shape(version)))
		throw store_error(path_ + ": an SQLite database, but not an ioplan results store; left untouched");
	if (version == 0 && m != mode::write)
		throw store_error(path_ + ": an empty file, no results store yet (ioplan --save makes one); left untouched");
	if (version > schema_version)
		throw store_error(path_ + ": written by a newer ioplan (schema version " + std::to_string(version) +
				  ", this ioplan knows up to " + std::to_string(schema_version) + "); left untouched");
	if (version == schema_version) {
		if (lost && m != mode::read)	// a read writes nothing: it finds the version again each time
			exec("PRAGMA user_version=" + std::to_string(version));
		return;
	}
	if (cut_ && version >= read_compatible_from) {	// read as it is, as on read-only media
		read_as_it_is(version);
		return;
	}
	if (cut_)
		throw store_error(path_ + ": cannot read the results store: " + cut_short(path_) + "; a store of schema version " +
				  std::to_string(version) + " cut short is not migrated; left untouched", false, true);
	bool read_only = sqlite3_db_readonly(db_, "main") == 1 && !reopen_writable();
	if (read_only && m == mode::read && version >= read_compatible_from) {
		read_as_it_is(version);
		return;
	}
	if (read_only)
		throw store_error(path_ + ": schema version " + std::to_string(version) +
				  " needs migrating to " + std::to_string(schema_version) +
				  ", and the store cannot be written (read-only); left untouched");
	// Off for the steps (outside a transaction, where it can change): a step
	// that rebuilds a table drops it, which would delete every row hanging from it.
	exec("PRAGMA foreign_keys=OFF");
	exec("BEGIN IMMEDIATE");
	try {
		// Re-read under the write lock: another process may have migrated it meanwhile.
		int from;
		{	// finalized here: a table is dropped only with no statement running
			stmt again(db_, "PRAGMA user_version", *this);
			again.step();
			from = (int)again.i64(0);
		}
		if (from == 0)	// a store whose user_version was lost (version_of_shape)
			from = version;
		for (int i = from; i < schema_version; i++) {
			exec(migrations[i]);
			exec("PRAGMA user_version=" + std::to_string(i + 1));
		}
		check_foreign_keys();
		exec("COMMIT");
	} catch (...) {
		sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
		sqlite3_exec(db_, "PRAGMA foreign_keys=ON", nullptr, nullptr, nullptr);
		throw;
	}
	exec("PRAGMA foreign_keys=ON");
}

// A store of an older schema read without migrating checks the checksums its
// version keeps: none before 4, the whole run's at 4.
void store::read_as_it_is(int version)
{
	checksums_ = version >= 4;
	summary_sums_ = false;
}

// shape_sql's answer for this store, and its version in *version.
std::string store::read_shape(int *version)
{
	// finalized at return: a statement left open holds a read lock a writer would wait on forever
	stmt q(db_, shape_sql, *this);
	std::string shape, table;
	// The first statement of every open: a save or import refused here was
	// told "cannot read the results store: the store cannot be written".
	const char *what = reading_ ? "cannot read the results store" : "cannot use the results store";
	int rc = retry_busy([&] { q.reset(); return q.step(); });
	check(rc, what);
	*version = rc == SQLITE_ROW ? (int)q.i64(0) : 0;
	while ((rc = q.step()) == SQLITE_ROW)
		add_shape_row(q.raw(), &shape, &table);
	check(rc, what);
	return shape + (table.empty() ? "" : ")");
}

// What the steps left must hold together as before: a row pointing at no run
// means a step lost one, and the whole migration is rolled back.
void store::check_foreign_keys()
{
	stmt fk(db_, "PRAGMA foreign_key_check", *this);
	int rc = fk.step();
	check(rc, "cannot migrate the results store");
	if (rc == SQLITE_ROW)
		throw store_error(path_ + ": migrating the store would leave rows of " + fk.text(0) +
				  " without their run; left as it was");
}

// A store of an older schema, opened to be read, is migrated all the same
// (reading it as it is would need every older schema's queries): reopened
// for writing when its file allows it.
bool store::reopen_writable()
{
	sqlite3 *rw = nullptr;
	if (sqlite3_open_v2(path_.c_str(), &rw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, store_vfs()) != SQLITE_OK ||
	    sqlite3_db_readonly(rw, "main") == 1) {
		sqlite3_close(rw);
		return false;
	}
	sqlite3_close(db_);
	db_ = rw;
	wait_for_locks();
	configure();
	return true;
}

} // namespace resdb

// results/store.hpp - the results store: one SQLite file of runs (DESIGN.md "Results that last").
//
// Plain SQLite C API, no ORM.  The schema is versioned with PRAGMA
// user_version and migrated forward step by step when a store is opened (a
// read of an older store migrates it when its file can be written); a store
// written by a newer ioplan is refused, untouched.  WAL and
// a busy timeout let two runs save at once; each save is one transaction.
#pragma once

#include <cstdint>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "results/record.hpp"

struct sqlite3;

namespace resdb {
class stmt;
}

namespace resdb {

// Any failure of the store (locked, corrupt, read-only, newer, unknown run):
// what() is one line naming the store's path.
struct store_error : std::runtime_error {
	using std::runtime_error::runtime_error;
	store_error(const std::string &what, bool locked, bool bad = false)
		: std::runtime_error(what), busy(locked), damaged(bad) {}
	bool busy = false;	// another process held the store past the busy timeout: it may be free later
	// A run this ioplan cannot read (a corrupt page, a value no save writes, a run
	// format newer than its own): the runs elsewhere may still read.
	bool damaged = false;
};

// The schema this ioplan writes, and the run format inside it.
constexpr int schema_version = 5;
// The oldest schema this ioplan reads with its queries as they are: a store of
// it that cannot be written (read-only media) is read without migrating.
// (Version 3 only changed how run ids are handed out, version 4 added each
// run's checksum, which a store of 2 or 3 read as it is lacks: its runs are
// not checked; version 5 the checksum of the rows summary reads, which a store
// of 4 read as it is lacks: its summary checks each run's whole checksum.)
constexpr int read_compatible_from = 2;
constexpr int run_format = 1;

// $IOPLAN_RESULTS_DB, else $XDG_DATA_HOME/ioplan/results.db, else ~/.local/share/ioplan/results.db
// (~ is HOME, else the passwd entry's home; with neither it throws store_error).
std::string default_path();

// The name of the SQLite VFS the store is opened through (store_vfs.cpp: the
// default one, whose -shm regions get their disk blocks before SQLite writes
// them); nullptr, the default itself, when it could not be registered.
const char *store_vfs();

// Throws store_error when a store could not be made at path (which is not
// there): its directory is missing (only the per-user default location's is
// made: a path given by --results-db or IOPLAN_RESULTS_DB names a directory
// that must be there, or a mistyped one, or a mount point not mounted yet,
// would quietly get the results), or the nearest directory that is there
// cannot be written.  Makes nothing.
void check_makeable(const std::string &path);

// One line of `results list`.
struct run_row {
	int64_t id = 0;
	std::string uuid, label, source, host, plan_hash;
	std::string workload_hash;	// its fact workload ("" for a run saved before workload hashes)
	int64_t saved_s = 0, started_s = 0;
	size_t figures = 0;
	bool interrupted = false;	// its figures cover only what ran before a signal stopped it
	bool failed = false;		// a job ended with an error (the fact failed)
};

// The rows `results summary` groups: the run, its facts, one job name and direction's numbers
// (p99_ns NaN when it cannot be known).
struct summary_row {
	int64_t run_id = 0;
	std::string group, job, ddir;
	std::string plan;	// the run's plan hash (fact plan)
	// The run's workload, whatever the job's name or the host's target names: its
	// fact workload; for a run saved before workload hashes, the one the other runs
	// of its plan have (when they agree on one), else its plan hash, by_plan then.
	std::string workload;
	bool by_plan = false;
	double iops = 0, bw_bytes = 0, p99_ns = 0;
	bool interrupted = false;	// the run's fact interrupted=yes
	bool failed = false;		// the run has the fact failed: a job ended with an error
};

// Asked between the waits for another process's lock (up to busy_timeout_ms):
// true stops waiting, and the statement fails as locked.  The cli sets it to
// "a stop signal is pending", so a Ctrl-C during --save's wait is not held 10 s.
void set_wait_interrupted(bool (*interrupted)());

class store {
	struct inserts;	// the statements a save runs, prepared once per transaction (store.cpp)

public:
	// write makes the store if it is not there; update changes only one that is.
	enum class mode { read, write, update };
	store(const std::string &path, mode m);
	~store();
	store(const store &) = delete;
	store &operator=(const store &) = delete;

	const std::string &path() const { return path_; }

	// Saves a run in one transaction; returns its id.  A run whose uuid is
	// already stored is not saved twice: returns 0.
	int64_t save(const run_record &r);
	// Saves many in one transaction (all or nothing); returns how many were new.
	size_t save_all(const std::vector<run_record> &runs);

	// One transaction that takes its runs one at a time, so that an import of
	// many files is all or nothing without holding every run in memory (SQLite
	// spills what its cache cannot hold to the WAL).  Rolled back unless
	// commit() ends it.
	class batch {
	public:
		explicit batch(store &st);
		~batch();
		batch(const batch &) = delete;
		batch &operator=(const batch &) = delete;
		// Saves r unless its uuid is stored already (before the batch or in
		// it); true when it was saved.
		bool add(const run_record &r);
		void commit();

	private:
		void end();
		store &st_;
		inserts *ins_ = nullptr;
		bool open_ = false;
	};

	// The id of the run with this uuid, 0 for none.
	int64_t id_of_uuid(const std::string &uuid);
	// A run by id, by label (the latest with it) or by uuid prefix (six hex
	// digits or more); a prefix of several runs, or a label that starts
	// another run's uuid, is refused (store_error).
	int64_t find(const std::string &ref);
	run_record load(int64_t id);
	std::vector<run_row> list();
	void remove(int64_t id);
	std::vector<int64_t> ids();

	// The distinct values of the fact `name` that equal value (prefix false)
	// or start with it (true); up to three, enough to say a prefix is ambiguous.
	std::vector<std::string> fact_values(const std::string &name, const std::string &value, bool prefix);

	// One row per run, job name and direction (a run's clones of a job are
	// one value: IOPS and bandwidth summed, p99 from their merged buckets),
	// grouped by the fact `by` ("" = all in one group), filtered by a fact
	// value (name=value, or "" for none; a workload filter takes the runs whose
	// row's workload it is, those saved before workload hashes included), in
	// run id order (then job name, direction).  A run with a value no save
	// writes (a damaged store) has no rows: it is in *damaged, with why, in id
	// order.
	std::vector<summary_row> summary_rows(const std::string &by, const std::string &filter_name,
					      const std::string &filter_value,
					      std::vector<std::pair<int64_t, std::string>> *damaged);

private:
	std::vector<int64_t> uuid_prefixed(const std::string &ref);
	sqlite3 *db_ = nullptr;
	bool wrote_ = false;	// opened to write: it checkpoints as it closes
	bool reading_ = false;	// opened to read: a refusal is not about writing
	bool cut_ = false;	// a read of a store cut short (store_file.hpp's cut_short): read as far as it goes
	std::string path_;
	void exec(const std::string &sql);
	// Steps q to its end, row() at each row; an error ends it as what failed.
	void each_row(stmt &q, const char *what, const std::function<void()> &row);
	// Steps an insert and resets it for the next row's bindings.
	void put(stmt &ins);
	void check(int rc, const char *what);
	std::string unreadable() const;
	std::string unwritable() const;
	std::string io_failure(int rc) const;
	static void make_whole(const std::string &path);
	void configure();
	void migrate(mode m);
	void read_as_it_is(int version);
	std::string read_shape(int *version);
	void check_foreign_keys();
	bool reopen_writable();
	void set_wal();
	int retry_busy(const std::function<int()> &attempt);
	void wait_for_locks();
	static int busy_wait(void *self, int count);
	std::chrono::steady_clock::time_point busy_since_;
	bool wait_stopped_ = false;	// a signal, not the timeout, ended a wait for the lock
	int64_t stored_id(stmt &q, const std::string &uuid);
	int64_t insert_run(const run_record &r, inserts &ins);
	void insert_figure(int64_t run_id, const figure &f, inserts &ins);
	void insert_ranks(int64_t run_id, const std::vector<rank_record> &ranks, inserts &ins);
	void load_figures(run_record &r);
	void load_ranks(run_record &r);
	void load_series(const char *sql, int64_t fid, std::vector<double> &iops, std::vector<double> &bw);
	run_record load_run(int64_t id);
	std::string named(const std::string &what) const;
	// Each run's checksums (store_checksum.cpp): kept by a save, checked by a
	// read; summed: the one of the rows summary reads, else the whole run's.
	bool checksums_ = true;		// false: a store of schema 2 or 3 read as it is, without them
	bool summary_sums_ = true;	// false: a store of schema 4 read as it is, without summary_checksum
	std::string run_checksum(int64_t id, bool summed);
	void seal(int64_t id);
	void verify(int64_t id, const std::string &kept);
	std::vector<std::pair<int64_t, std::string>> whole_sums(const std::map<int64_t, std::string> &kept);
	std::string checksum_fault(int64_t id, const std::string &kept, const std::string &now, bool summed) const;
	std::vector<int64_t> runs_in_scope(const std::string &filter_name, const std::string &filter_value);
	std::map<std::string, std::set<std::string>> workloads_of_plans();
	void resolve_workload(summary_row &row, std::map<std::string, std::set<std::string>> *plans, bool *read);
	// Reads the rows of summary_rows (store_summary.cpp), checking their checksum as it goes.
	friend class summary_reader;
};

} // namespace resdb

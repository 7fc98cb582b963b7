// results/store.cpp - the SQLite results store (store.hpp).
//
// Tables: runs (one per run, with its environment as JSON), facts (name/value
// pairs runs are grouped by), figures (a job and direction's numbers), and
// below each figure its latency buckets, interval samples and repeat runs.
// Deleting a run deletes what hangs from it (foreign keys, ON DELETE CASCADE).
// The schema's versions and how a file is known as a store: store_schema.cpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>
#include <functional>
#include <ctime>
#include <random>
#include <set>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <sqlite3.h>

#include "results/store.hpp"
#include "results/store_file.hpp"
#include "results/store_sql.hpp"

namespace resdb {

static bool (*wait_interrupted)() = nullptr;	// set_wait_interrupted's, asked by busy_wait

void set_wait_interrupted(bool (*interrupted)())
{
	wait_interrupted = interrupted;
}

namespace {

const char *const uuid_sql = "SELECT id FROM runs WHERE uuid = ?";

std::string plan_json(const std::map<std::string, std::string> &plan)
{
	return nlohmann::json(plan).dump();
}

} // namespace

store::store(const std::string &path, mode m) : path_(path)
{
	struct stat st;
	bool exists = stat(path.c_str(), &st) == 0;
	if (m != mode::write && !exists)
		throw store_error(path + ": no results store here (ioplan --save makes one)");
	// A FIFO would hold a reader for ever, a device would get a journal beside it.
	if (exists && !S_ISREG(st.st_mode))
		throw store_error(path + ": not a regular file, so no results store; left untouched");
	// A save's first write would find it, after a run that cannot be had again.
	if (m == mode::write) {
		std::string in_the_way = side_file_in_the_way(path);
		// A store this user cannot write is said so once opened (unwritable()),
		// not as a -wal another user's read left.
		bool writable = !exists || access(path.c_str(), W_OK) == 0;
		if (in_the_way.empty() && writable)
			mend_own_side_files(path);
		if (in_the_way.empty() && writable)
			in_the_way = side_file_of_another(path);
		if (!in_the_way.empty())
			throw store_error(path + ": " + in_the_way);
		if (exists && st.st_size > 0)	// not a new store's schema being written (make_whole)
			check_room(path);
	}
	if (m == mode::write && !exists) {
		if (makes_its_directory(path))
			make_parent(path);
		check_makeable(path);
		make_whole(path);
	}
	int flags = m == mode::read ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	std::string target = m == mode::read ? read_target(path, &flags) : path;
	reading_ = m == mode::read;
	// A read-only connection makes the -wal and -shm files and cannot remove
	// them as it closes: every `results list` left both beside the store.  Where
	// the store and its directory can be written a read opens read-write and
	// writes nothing (query_only, once opened), so the last to close removes them.
	if (reading_ && target == path && access(path.c_str(), W_OK) == 0 && access(parent_of(path).c_str(), W_OK) == 0)
		flags = SQLITE_OPEN_READWRITE;
	// One thread uses a connection: SQLite's per-call mutex (a lock and an
	// unlock around every sqlite3_column_*) was an eighth of a summary's time.
	if (sqlite3_open_v2(target.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, store_vfs()) != SQLITE_OK) {
		std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
		sqlite3_close(db_);
		db_ = nullptr;
		throw store_error(path + ": cannot open the results store: " + msg);
	}
	wait_for_locks();
	try {
		// SQLite refuses a file shorter than its header's page count at the
		// first read; told to read it as far as it goes, the runs on the pages
		// left still come out (export, import), each run cut off named as
		// damaged.  Opened immutable (read_target): nothing is written to it.
		cut_ = reading_ && !cut_short(path).empty();
		if (cut_)
			exec("PRAGMA writable_schema=ON");
		configure();
		migrate(m);
		// SQLite opens a file it cannot write read-only without a word: a save
		// would fail at its first write, after a run that cannot be had again.
		if (m != mode::read && sqlite3_db_readonly(db_, "main") == 1)
			throw store_error(path + ": " + unwritable() + "; left untouched");
		if (m != mode::read)
			set_wal();
		else
			exec("PRAGMA query_only=ON");
		wrote_ = m != mode::read;
	} catch (...) {
		sqlite3_close(db_);
		db_ = nullptr;
		throw;
	}
}

// SQLite checkpoints at close only when no other process has the store
// open: a writer closing beside a reader (`results list`, an importer) left
// its runs in the WAL alone.  So each writer copies what it can into the
// store's file itself (PASSIVE: it never waits for a reader).
store::~store()
{
	if (wrote_)
		sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
	sqlite3_close(db_);
}

void store::check(int rc, const char *what)
{
	if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW)
		return;
	std::string why;
	switch (rc & 0xff) {
	case SQLITE_BUSY:	// another connection holds the lock, and the busy timeout ran out waiting
		why = wait_stopped_ ? std::string("the store is locked by another process (a signal stopped the wait)")
				    : "the store is locked by another process (waited " +
					      std::to_string(busy_timeout_ms / 1000) + " s)";
		break;
	case SQLITE_LOCKED:	// a conflict within this connection: no one to wait for, nothing a user did
		why = std::string("internal error: two of ioplan's own statements on the store conflict (") +
		      sqlite3_errmsg(db_) + "); no other process is involved, please report it";
		break;
	case SQLITE_NOTADB:
		why = "not an ioplan results store, or a corrupt one";
		break;
	case SQLITE_CORRUPT:	// a page SQLite found malformed: the runs on other pages may still read
		why = cut_short(path_);
		if (why.empty())
			why = "the store is damaged (SQLite found a corrupt page)";
		break;
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		why = reading_ ? unreadable() : unwritable();
		break;
	case SQLITE_FULL:
	case SQLITE_IOERR:
		why = io_failure(rc);
		break;
	default:
		why = sqlite3_errmsg(db_);
	}
	throw store_error(path_ + ": " + what + ": " + why, (rc & 0xff) == SQLITE_BUSY,
			  (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB);
}

// A full disk often reaches SQLite as a plain "disk I/O error" (the WAL index
// could not grow): the system's errno says which it was, and a full disk is
// not a failing one.
std::string store::io_failure(int rc) const
{
	int e = sqlite3_system_errno(db_);
	std::string sys = e ? std::string(" (") + std::strerror(e) + ")" : "";
	if ((rc & 0xff) == SQLITE_FULL || e == ENOSPC || e == EDQUOT)
		return "the disk is full" + sys;
	return sqlite3_errmsg(db_) + sys;
}

// Why a read was refused the file: a WAL store is read through its -shm,
// which a user who cannot write the directory cannot create.
std::string store::unreadable() const
{
	std::string in_the_way = side_file_in_the_way(path_);
	if (!in_the_way.empty())
		return in_the_way;
	struct stat st;
	std::string shm = path_ + "-shm", dir = path_.find('/') == std::string::npos ? "." : path_.substr(0, path_.rfind('/') + 1);
	if (stat(shm.c_str(), &st) == 0 || access(dir.c_str(), W_OK) == 0)
		return std::string("cannot open it: ") + sqlite3_errmsg(db_);
	return "SQLite reads a WAL store through " + shm + ", which does not exist and cannot be created (" +
	       std::strerror(errno) + " for " + dir + "); left untouched (read it as a user who can write there, "
	       "or a copy of it)";
}

// Why a write was refused: the file, or its directory, where SQLite makes
// the store's -wal and -shm files (a user who may write the file but not the
// directory was told only "read-only").
std::string store::unwritable() const
{
	std::string dir = parent_of(path_);
	if (access(path_.c_str(), W_OK) != 0)
		return std::string("the store cannot be written (") +
		       (errno == EROFS ? "read-only file system" : std::strerror(errno)) + ")";
	if (access(dir.c_str(), W_OK) != 0)
		return "the store cannot be written: its directory " + dir + " is not writable (" + std::strerror(errno) +
		       "), and SQLite makes the store's -wal and -shm files there";
	std::string in_the_way = side_file_in_the_way(path_);
	if (in_the_way.empty())
		in_the_way = side_file_of_another(path_);
	return in_the_way.empty() ? "the store cannot be written (read-only)" : in_the_way;
}

// Reads through a memory map: `results summary` over 100 000 runs made
// 19 000 pread calls, 0.5 s of a 1.3 s answer on a loaded machine.
void store::configure()
{
	exec("PRAGMA foreign_keys=ON");
	exec("PRAGMA mmap_size=268435456");
}

void store::exec(const std::string &sql)
{
	check(retry_busy([&] { return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr); }),
	      "cannot use the results store");
}

// A few statements (the first read of a store being created, switching it to
// WAL) get SQLITE_BUSY without SQLite's busy handler: they retry here, within
// the same patience as the rest.
int store::retry_busy(const std::function<int()> &attempt)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
	int rc = attempt();	// may itself wait in SQLite's busy handler: the deadline bounds both
	while ((rc & 0xff) == SQLITE_BUSY && std::chrono::steady_clock::now() < deadline && !wait_stopped_) {
		if (wait_interrupted && wait_interrupted()) {
			wait_stopped_ = true;
			break;
		}
		sqlite3_sleep(5);
		rc = attempt();
	}
	return rc;
}

// SQLite's busy handler: another process holds the lock.  Waits as SQLite's
// own busy_timeout would (short sleeps, then longer, up to busy_timeout_ms),
// but asks wait_interrupted() before each sleep.
int store::busy_wait(void *self, int count)
{
	auto *s = static_cast<store *>(self);
	auto now = std::chrono::steady_clock::now();

	if (count == 0)
		s->busy_since_ = now;
	if (s->wait_stopped_ || (wait_interrupted && wait_interrupted())) {
		s->wait_stopped_ = true;
		return 0;
	}
	if (now - s->busy_since_ >= std::chrono::milliseconds(busy_timeout_ms))
		return 0;
	sqlite3_sleep(count < 10 ? 1 + count * 2 : 25);
	return 1;
}

void store::wait_for_locks()
{
	sqlite3_busy_handler(db_, busy_wait, this);
}

// A save is one commit to the WAL, not synced (synchronous=NORMAL), and each
// writer checkpoints it into the store's one file as it closes (~store; the
// last process to close removes the WAL): a copy of that file is a copy of
// every run.  (Left in
// the WAL until it reached 1000 pages, a store's runs were in no file a user
// backs up, and an --output on the WAL's name took them all.)  A process that
// dies loses nothing committed; a power cut can lose the last runs saved, and
// leaves the store consistent.
void store::set_wal()
{
	exec("PRAGMA synchronous=NORMAL");
	stmt jm(db_, "PRAGMA journal_mode", *this);
	bool wal = retry_busy([&] { jm.reset(); return jm.step(); }) == SQLITE_ROW && jm.text(0) == "wal";
	jm.reset();	// an open statement is a transaction, and the mode changes only outside one
	if (wal)
		return;
	check(retry_busy([&] { return sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr); }),
	      "cannot use the results store");
}

void store::each_row(stmt &q, const char *what, const std::function<void()> &row)
{
	int rc;
	while ((rc = q.step()) == SQLITE_ROW)
		row();
	check(rc, what);
}

void store::put(stmt &ins)
{
	check(ins.step(), "cannot save the run");
	ins.reset();
}

int64_t store::id_of_uuid(const std::string &uuid)
{
	stmt q(db_, uuid_sql, *this);
	return stored_id(q, uuid);
}

int64_t store::stored_id(stmt &q, const std::string &uuid)
{
	q.bind(1, uuid);
	int rc = q.step();
	check(rc, "cannot read the results store");
	int64_t id = rc == SQLITE_ROW ? q.i64(0) : 0;
	q.reset();
	return id;
}

// The statements one save runs for every run, figure and row, prepared once
// per transaction: preparing them again for each figure was a tenth of an
// import's time.
struct store::inserts {
	stmt uuid, run, fact, warn, figure, bucket, sample, repeat, rank, rank_figure;
	inserts(sqlite3 *db, store &s)
		: uuid(db, uuid_sql, s),
		  run(db, "INSERT INTO runs(uuid, format, label, source, tool_version, saved_s, started_s, host, kernel,"
			  " plan_hash, job_text, environment) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", s),
		  fact(db, "INSERT INTO facts(run_id, name, value) VALUES(?,?,?)", s),
		  warn(db, "INSERT INTO warnings(run_id, seq, text) VALUES(?,?,?)", s),
		  figure(db, "INSERT INTO figures(run_id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes,"
			     " iops, lat_mean_ns, p50_ns, p99_ns, p999_ns, interval_s)"
			     " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", s),
		  bucket(db, "INSERT INTO buckets(figure_id, lat_ns, count) VALUES(?,?,?)", s),
		  sample(db, "INSERT INTO samples(figure_id, seq, iops, bw_bytes) VALUES(?,?,?,?)", s),
		  repeat(db, "INSERT INTO repeats(figure_id, seq, iops, bw_bytes) VALUES(?,?,?,?)", s),
		  rank(db, "INSERT INTO ranks(run_id, rank, host, error, start_late_ns) VALUES(?,?,?,?,?)", s),
		  rank_figure(db, "INSERT INTO rank_figures(run_id, rank, job_index, job, ddir, io_bytes, ios, runtime_ns,"
				  " lat_n, lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns)"
				  " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)", s)
	{
	}
};

int64_t store::insert_run(const run_record &r, inserts &ins)
{
	stmt &run = ins.run;
	run.bind(1, r.uuid).bind(2, (int64_t)run_format).bind(3, r.label).bind(4, r.source).bind(5, r.tool_version);
	run.bind(6, (int64_t)time(nullptr)).bind(7, r.started_s).bind(8, r.host).bind(9, r.kernel);
	run.bind(10, r.plan_hash).bind(11, r.job_text).bind(12, r.environment);
	put(run);
	int64_t id = sqlite3_last_insert_rowid(db_);
	for (const auto &kv : r.facts) {
		ins.fact.bind(1, id).bind(2, kv.first).bind(3, kv.second);
		put(ins.fact);
	}
	for (size_t i = 0; i < r.warnings.size(); i++) {
		ins.warn.bind(1, id).bind(2, (int64_t)i).bind(3, r.warnings[i]);
		put(ins.warn);
	}
	for (const figure &f : r.figures)
		insert_figure(id, f, ins);
	insert_ranks(id, r.ranks, ins);
	return id;
}

void store::insert_figure(int64_t run_id, const figure &f, inserts &ins)
{
	stmt &fig = ins.figure;
	fig.bind(1, run_id).bind(2, (int64_t)f.job_index).bind(3, f.job).bind(4, f.ddir).bind(5, plan_json(f.plan));
	fig.bind(6, (int64_t)f.io_bytes).bind(7, (int64_t)f.ios).bind(8, f.runtime_s).bind(9, f.bw_bytes);
	fig.bind(10, f.iops).bind(11, f.lat_mean_ns).bind(12, f.p50_ns).bind(13, f.p99_ns).bind(14, f.p999_ns);
	fig.bind(15, f.interval_s);
	put(fig);
	int64_t fid = sqlite3_last_insert_rowid(db_);
	for (const auto &bk : f.buckets) {
		ins.bucket.bind(1, fid).bind(2, (int64_t)bk.first).bind(3, (int64_t)bk.second);
		put(ins.bucket);
	}
	auto series = [&](stmt &s, const std::vector<double> &iops, const std::vector<double> &bw) {
		for (size_t i = 0; i < iops.size(); i++) {
			s.bind(1, fid).bind(2, (int64_t)i).bind(3, iops[i]).bind(4, i < bw.size() ? bw[i] : 0.0);
			put(s);
		}
	};
	series(ins.sample, f.iops_samples, f.bw_samples);
	series(ins.repeat, f.repeat_iops, f.repeat_bw);
}

void store::insert_ranks(int64_t run_id, const std::vector<rank_record> &ranks, inserts &ins)
{
	for (const rank_record &k : ranks) {
		ins.rank.bind(1, run_id).bind(2, (int64_t)k.rank).bind(3, k.host).bind(4, (int64_t)k.error);
		ins.rank.bind(5, (int64_t)k.start_late_ns);
		put(ins.rank);
		for (const rank_figure &f : k.figures) {
			stmt &fig = ins.rank_figure;
			fig.bind(1, run_id).bind(2, (int64_t)k.rank).bind(3, (int64_t)f.job_index).bind(4, f.job);
			fig.bind(5, f.ddir).bind(6, (int64_t)f.io_bytes).bind(7, (int64_t)f.ios);
			fig.bind(8, (int64_t)f.runtime_ns).bind(9, (int64_t)f.lat_n).bind(10, f.lat_mean_ns);
			fig.bind(11, (int64_t)f.lat_p50_ns).bind(12, (int64_t)f.lat_p99_ns).bind(13, (int64_t)f.lat_max_ns);
			put(fig);
		}
	}
}

int64_t store::save(const run_record &r)
{
	std::vector<run_record> one{ r };
	if (!save_all(one))
		return 0;
	return id_of_uuid(r.uuid);
}

size_t store::save_all(const std::vector<run_record> &runs)
{
	batch b(*this);
	size_t added = 0;
	for (const run_record &r : runs)
		added += b.add(r);
	b.commit();
	return added;
}

store::batch::batch(store &st) : st_(st)
{
	st_.exec("BEGIN IMMEDIATE");
	open_ = true;
	try {
		ins_ = new inserts(st_.db_, st_);
	} catch (...) {
		end();
		throw;
	}
}

store::batch::~batch()
{
	end();
}

// The statements finalized, then the transaction rolled back if still open
// (a run that failed to save, an exception on the way, a COMMIT refused).
void store::batch::end()
{
	delete ins_;
	ins_ = nullptr;
	if (open_)
		sqlite3_exec(st_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
	open_ = false;
}

bool store::batch::add(const run_record &r)
{
	if (st_.stored_id(ins_->uuid, r.uuid))
		return false;
	st_.seal(st_.insert_run(r, *ins_));
	return true;
}

void store::batch::commit()
{
	st_.exec("COMMIT");
	open_ = false;
	end();
}

// The runs whose uuid starts with ref (up to three: enough to say it is ambiguous).
std::vector<int64_t> store::uuid_prefixed(const std::string &ref)
{
	std::vector<int64_t> out;
	if (ref.size() < 6 || ref.find_first_not_of("0123456789abcdef") != std::string::npos)
		return out;
	stmt u(db_, "SELECT id FROM runs WHERE substr(uuid, 1, length(?1)) = ?1 ORDER BY id LIMIT 3", *this);
	u.bind(1, ref);
	each_row(u, "cannot read the results store", [&] { out.push_back(u.i64(0)); });
	return out;
}

// A run by id, label (the latest of that label) or uuid prefix.  A prefix of
// several runs' uuids named the first it met, and a label that was also the
// start of another run's uuid hid it: both are refused, naming the runs.
int64_t store::find(const std::string &ref)
{
	// "" was the label of every run saved without one: `results rm "$RUN"`
	// with RUN unset removed the latest of them, exit 0, without a word.
	if (ref.empty())
		throw store_error(path_ + ": an empty RUN names no run (give its id, label or uuid; ioplan results list "
					  "shows them)");
	bool digits = !ref.empty() && ref.find_first_not_of("0123456789") == std::string::npos;
	if (digits) {
		stmt q(db_, "SELECT id FROM runs WHERE id = ?", *this);
		q.bind(1, (int64_t)std::strtoll(ref.c_str(), nullptr, 10));
		if (q.step() == SQLITE_ROW)
			return q.i64(0);
	}
	stmt l(db_, "SELECT id FROM runs WHERE label = ? ORDER BY id DESC LIMIT 1", *this);
	l.bind(1, ref);
	int rc = l.step();
	check(rc, "cannot read the results store");
	int64_t labelled = rc == SQLITE_ROW ? l.i64(0) : 0;
	std::vector<int64_t> by_uuid = uuid_prefixed(ref);
	auto ids = [](const std::vector<int64_t> &v) {
		std::string s;
		for (size_t i = 0; i < v.size() && i < 2; i++)
			s += (i ? ", " : "") + std::to_string(v[i]);
		return s + (v.size() > 2 ? ", ..." : "");
	};
	if (labelled)
		by_uuid.erase(std::remove(by_uuid.begin(), by_uuid.end(), labelled), by_uuid.end());
	if (labelled && by_uuid.empty())
		return labelled;
	if (labelled)
		throw store_error(path_ + ": '" + ref + "' is run " + std::to_string(labelled) +
				  "'s label and the start of the uuid of run " + ids(by_uuid) + ": name the run by its id");
	if (by_uuid.size() == 1)
		return by_uuid[0];
	if (by_uuid.size() > 1)
		throw store_error(path_ + ": '" + ref + "' starts the uuids of runs " + ids(by_uuid) +
				  ": give more of the uuid, or the id");
	throw store_error(path_ + ": no run '" + ref + "' (by id, label or uuid; ioplan results list shows them)");
}

std::vector<int64_t> store::ids()
{
	std::vector<int64_t> out;
	stmt q(db_, "SELECT id FROM runs ORDER BY id", *this);
	each_row(q, "cannot read the results store", [&] { out.push_back(q.i64(0)); });
	return out;
}

std::vector<run_row> store::list()
{
	std::vector<run_row> out;
	stmt q(db_, "SELECT r.id, r.uuid, r.label, r.source, r.host, r.plan_hash, r.saved_s, r.started_s,"
		    " (SELECT count(*) FROM figures f WHERE f.run_id = r.id),"
		    " EXISTS(SELECT 1 FROM facts i WHERE i.run_id = r.id AND i.name = 'interrupted' AND i.value = 'yes'),"
		    " EXISTS(SELECT 1 FROM facts x WHERE x.run_id = r.id AND x.name = 'failed'),"
		    " COALESCE((SELECT w.value FROM facts w WHERE w.run_id = r.id AND w.name = 'workload'), '')"
		    " FROM runs r ORDER BY r.id",
	       *this);
	each_row(q, "cannot read the results store", [&] {
		run_row row;
		row.id = q.i64(0);
		row.uuid = q.text(1);
		row.label = q.text(2);
		row.source = q.text(3);
		row.host = q.text(4);
		row.plan_hash = q.text(5);
		row.saved_s = q.i64(6);
		row.started_s = q.i64(7);
		row.figures = (size_t)q.i64(8);
		row.interrupted = q.i64(9) != 0;
		row.failed = q.i64(10) != 0;
		row.workload_hash = q.text(11);
		out.push_back(row);
	});
	return out;
}

void store::remove(int64_t id)
{
	stmt d(db_, "DELETE FROM runs WHERE id = ?", *this);
	d.bind(1, id);
	check(d.step(), "cannot remove the run");
}

void store::load_series(const char *sql, int64_t fid, std::vector<double> &iops, std::vector<double> &bw)
{
	stmt q(db_, sql, *this);
	q.bind(1, fid);
	each_row(q, "cannot read the results store", [&] {
		iops.push_back(q.figure(0));
		bw.push_back(q.figure(1));
	});
}

// A damaged value's message names the store, as SQLite's errors do
// (check()): "the results store is damaged: ..." said nothing of which.
std::string store::named(const std::string &what) const
{
	return what.compare(0, path_.size() + 2, path_ + ": ") == 0 ? what : path_ + ": " + what;
}

run_record store::load(int64_t id)
{
	try {
		read_snapshot one_state(db_);
		return load_run(id);
	} catch (const store_error &e) {
		throw store_error(named(e.what()), e.busy, e.damaged);
	}
}

run_record store::load_run(int64_t id)
{
	std::string sql = std::string("SELECT uuid, format, label, source, tool_version, started_s, host, kernel,"
				      " plan_hash, job_text, environment, ") +
			  (checksums_ ? "checksum" : "''") + " FROM runs WHERE id = ?";
	stmt q(db_, sql.c_str(), *this);
	q.bind(1, id);
	int rc = q.step();
	check(rc, "cannot read the results store");
	// Every caller found the id in the runs table just before (find, ids):
	// not finding it again is a table whose pages disagree with each other (a
	// random-byte page made ids() list runs 98 and 67, and the "no run '67'"
	// of the second stopped an export of the run that still read), or a
	// `results rm` in between.  Either way the run is left out, not the rest.
	if (rc != SQLITE_ROW)
		throw store_error(path_ + ": run " + std::to_string(id) +
					  " was listed but cannot be found again (the store is damaged, or another "
					  "process removed the run)",
				  false, true);
	// One run a newer ioplan saved into a shared store is that run's to refuse:
	// an export or import leaves it out and carries the others (flagged as one
	// that cannot be read here).
	if (q.i64(1) > run_format)
		throw store_error(path_ + ": run " + std::to_string(id) + " was saved by a newer ioplan (run format " +
					  std::to_string(q.i64(1)) + ", this ioplan reads up to " +
					  std::to_string(run_format) + ")",
				  false, true);
	run_record r;
	r.id = id;
	r.uuid = q.text(0);
	r.label = q.text(2);
	r.source = q.text(3);
	r.tool_version = q.text(4);
	r.started_s = q.i64(5);
	r.host = q.text(6);
	r.kernel = q.text(7);
	r.plan_hash = q.text(8);
	r.job_text = q.text(9);
	r.environment = q.text(10);
	stmt fq(db_, "SELECT name, value FROM facts WHERE run_id = ?", *this);
	fq.bind(1, id);
	each_row(fq, "cannot read the results store", [&] { r.facts[fq.text(0)] = fq.text(1); });
	r.interrupted = r.facts.count("interrupted") && r.facts["interrupted"] == "yes";
	if (r.facts.count("workload"))
		r.workload_hash = r.facts["workload"];
	if (r.facts.count("failed"))
		r.failures = failures_of(r.facts["failed"]);
	stmt wq(db_, "SELECT text FROM warnings WHERE run_id = ? ORDER BY seq", *this);
	wq.bind(1, id);
	each_row(wq, "cannot read the results store", [&] { r.warnings.push_back(wq.text(0)); });
	std::string kept = q.text(11);
	load_figures(r);
	load_ranks(r);
	// After the values' own checks, whose faults say more: a checksum names
	// only that something changed.
	verify(id, kept);
	return r;
}

namespace {

// A figure's plan column: a JSON object of strings, as save wrote it; anything else is a damaged store.
std::map<std::string, std::string> plan_column(const std::string &text, int64_t run)
{
	nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
	bool ok = j.is_object();
	for (auto it = j.begin(); ok && it != j.end(); ++it)
		ok = it->is_string();
	if (!ok)
		throw store_error("the results store is damaged: a figure's plan of run " + std::to_string(run) +
					  " is not a JSON object of strings",
				  false, true);
	return j.get<std::map<std::string, std::string>>();
}

} // namespace

// A figure's direction and rates as a save writes them (job and ddir as the
// row has them: summary reads only some columns into f), else a damaged store.
void check_figure(int64_t run, const std::string &job, const std::string &ddir, const figure &f)
{
	std::string odd = is_ddir(ddir) ? rates_fault(f, f.runtime_s * 1000)
					: "'" + ddir.substr(0, 40) + "' is not read, write, trim or mixed";
	if (!odd.empty())
		throw store_error("the results store is damaged: run " + std::to_string(run) + "'s figure of job '" + job +
					  "' " + ddir + ": " + odd,
				  false, true);
}

void store::load_figures(run_record &r)
{
	stmt q(db_, "SELECT id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops, lat_mean_ns,"
		    " p50_ns, p99_ns, p999_ns, interval_s FROM figures WHERE run_id = ? ORDER BY id",
	       *this);
	q.bind(1, r.id);
	each_row(q, "cannot read the results store", [&] {
		figure f;
		int64_t fid = q.i64(0);
		f.job_index = (int)q.i64(1);
		f.job = q.text(2);
		f.ddir = q.text(3);
		f.plan = plan_column(q.text(4), r.id);
		f.io_bytes = q.count(5);
		f.ios = q.count(6);
		f.runtime_s = q.figure(7);
		f.bw_bytes = q.figure(8);
		f.iops = q.figure(9);
		f.lat_mean_ns = q.figure(10);
		f.p50_ns = q.figure(11);
		f.p99_ns = q.figure(12);
		f.p999_ns = q.figure(13);
		f.interval_s = q.figure(14);
		check_figure(r.id, f.job, f.ddir, f);
		stmt b(db_, "SELECT lat_ns, count FROM buckets WHERE figure_id = ? ORDER BY lat_ns", *this);
		b.bind(1, fid);
		each_row(b, "cannot read the results store",
			 [&] { f.buckets.emplace_back(b.count(0), b.count(1)); });
		load_series("SELECT iops, bw_bytes FROM samples WHERE figure_id = ? ORDER BY seq", fid, f.iops_samples,
			    f.bw_samples);
		load_series("SELECT iops, bw_bytes FROM repeats WHERE figure_id = ? ORDER BY seq", fid, f.repeat_iops,
			    f.repeat_bw);
		r.figures.push_back(std::move(f));
	});
}

void store::load_ranks(run_record &r)
{
	stmt q(db_, "SELECT rank, host, error, start_late_ns FROM ranks WHERE run_id = ? ORDER BY rank", *this);
	q.bind(1, r.id);
	each_row(q, "cannot read the results store", [&] {
		rank_record k;
		k.rank = (int)q.i64(0);
		k.host = q.text(1);
		k.error = (int)q.i64(2);
		k.start_late_ns = q.count(3);
		r.ranks.push_back(std::move(k));
	});
	stmt f(db_, "SELECT rank, job_index, job, ddir, io_bytes, ios, runtime_ns, lat_n, lat_mean_ns, lat_p50_ns,"
		    " lat_p99_ns, lat_max_ns FROM rank_figures WHERE run_id = ? ORDER BY rank, rowid",
	       *this);
	f.bind(1, r.id);
	size_t at = 0;	// both in rank order: each figure's rank is at or after the last one's
	each_row(f, "cannot read the results store", [&] {
		while (at < r.ranks.size() && r.ranks[at].rank != (int)f.i64(0))
			at++;
		if (at == r.ranks.size())
			return;
		rank_figure x;
		x.job_index = (int)f.i64(1);
		x.job = f.text(2);
		x.ddir = f.text(3);
		x.io_bytes = f.count(4);
		x.ios = f.count(5);
		x.runtime_ns = f.count(6);
		x.lat_n = f.count(7);
		x.lat_mean_ns = f.figure(8);
		x.lat_p50_ns = f.count(9);
		x.lat_p99_ns = f.count(10);
		x.lat_max_ns = f.count(11);
		r.ranks[at].figures.push_back(std::move(x));
	});
}

} // namespace resdb

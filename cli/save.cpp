// cli/save.cpp - --save: a run's results into the store (save.hpp).
//
// The run's json+ report is read back as a record (the same reader `results
// import` uses), so a saved run and an imported one are alike; a store that
// refuses it leaves the report in a file beside it rather than nowhere.
#include "cli/save.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/output.hpp"
#include "report/report.hpp"
#include "results/store.hpp"

namespace cli {

using ojson = nlohmann::ordered_json;

bool save_store_ok(const args &a)
{
	try {
		std::string path = a.results_db.empty() ? resdb::default_path() : a.results_db;
		struct stat st;
		// A store that is not there yet is made by the save, not here: a run the
		// preflight then refuses leaves nothing behind.
		if (stat(path.c_str(), &st) != 0 && errno == ENOENT)
			resdb::check_makeable(path);
		else
			resdb::store(path, resdb::store::mode::write);
		return true;
	} catch (const std::exception &e) {
		auto *locked = dynamic_cast<const resdb::store_error *>(&e);
		if (locked && locked->busy)
			return true; // another process's import or save: over long before this run is
		std::fprintf(stderr, "ioplan: error: --save: %s; nothing was run\n", e.what());
		return false;
	}
}

namespace {

// Writes text into a new file at path (never over one), whole or not at all.
bool write_new(const std::string &path, const std::string &text, int *err)
{
	int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		*err = errno;
		return false;
	}
	*err = write_whole(fd, text);
	if (close(fd) != 0 && !*err)
		*err = errno;	// NFS and friends report a lost write at close
	if (*err)
		unlink(path.c_str());
	return !*err;
}

// A run the store refused (corrupt, full, locked for too long, gone) is kept as its
// json+ report beside the store, else in the current directory, with the label and
// preset --save was given: `results import` stores it as that run once the store
// is mended.  An hour of measurement must not end as one error line.
std::string keep_unsaved(const std::string &report, const args &a, const std::string &db)
{
	ojson doc = ojson::parse(report, nullptr, false);
	std::string text = report, name, why, id = std::to_string(std::time(nullptr));
	if (doc.is_object() && doc["ioplan"].is_object()) {
		doc["ioplan"]["saved_as"] = { { "label", a.save_label }, { "preset", a.preset } };
		text = doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
		id = doc["ioplan"].value("uuid", id);
	}
	size_t slash = db.rfind('/');
	std::string base = slash == std::string::npos ? db : db.substr(slash + 1);
	std::string beside = slash == std::string::npos || db.substr(0, slash + 1) == "./" ? "" : db.substr(0, slash + 1);
	for (const std::string &dir : { beside, std::string() }) {
		name = dir + base + ".unsaved-" + id + ".json";
		int err = 0;
		if (write_new(name, text, &err))
			return "; its results are kept in " + name + ": `ioplan results import " + name +
			       (a.results_db.empty() ? "" : " --results-db=" + db) +
			       "` stores them once the store can take them";
		why += (why.empty() ? "" : ", ") + name + ": " + std::strerror(err);
		if (beside.empty())
			break;	/* the store is in the current directory: no second place */
	}
	return "; its results could not be kept either (" + why + ")";
}

} // namespace

bool save_run(const results &r, const plan &p, const args &a)
{
	report::options o;
	o.formats = report::FORMAT_JSON_PLUS;
	std::ostringstream text;
	report::write(r, p, o, text);
	std::string db = a.results_db.empty() ? resdb::default_path() : a.results_db;
	try {
		resdb::run_record rec = resdb::record_of(nlohmann::json::parse(text.str()));
		rec.label = a.save_label;
		rec.facts["label"] = a.save_label;
		rec.facts["preset"] = a.preset;
		int64_t id = resdb::store(db, resdb::store::mode::write).save(rec);
		if (rec.interrupted && id)
			std::fprintf(stderr, "ioplan: --save: saved as run %lld, marked interrupted (its figures cover "
					     "only what ran before the stop)\n", (long long)id);
		else if (!rec.failures.empty() && id)
			std::fprintf(stderr, "ioplan: --save: saved as run %lld, marked failed (%s)\n", (long long)id,
				     resdb::failure_text(rec.failures[0]).c_str());
		return true;
	} catch (const std::exception &e) {
		std::string kept = keep_unsaved(text.str(), a, db);
		std::fprintf(stderr, "ioplan: error: --save: the run was not saved: %s%s\n", e.what(), kept.c_str());
		return false;
	}
}

} // namespace cli

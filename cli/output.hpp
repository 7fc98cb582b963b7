// cli/output.hpp - everything ioplan writes as output goes through here, so no
// write error is dropped.
//
// Output (reports, --help, --showplan, `convert`, ...) is rendered into a
// string first and then written with write(2) until all of it is out, so a
// failure is seen with its errno, including at the end where stdio's buffered
// flush at exit would lose it.  A failure prints
//
//     ioplan: error: writing <what>: <strerror>
//
// and the caller exits 1.  An --output file is opened before the run (a bad
// path is exit 2 in the first second, before any I/O, not after an hour) but
// only replaced when the results are written, so a run that never starts
// leaves an earlier result file as it was; and the results' space is had
// first (fallocate, or zeros written past the end where there is none), so a
// full disk leaves it as it was too.
#pragma once

#include <cstdio>
#include <sys/types.h>
#include <functional>
#include <string>
#include <vector>

namespace cli {

// Writes all of text to fd: 0, or the errno of the write that failed (nothing printed).
int write_whole(int fd, const std::string &text);

// Writes all of text to fd; false after printing "writing <what>: <strerror>".
bool write_all(int fd, const std::string &text, const std::string &what);

// write_all to standard output.
bool write_stdout(const std::string &text, const std::string &what);

// What fn prints into a FILE *, as a string (for printers that take a FILE *).
std::string capture(const std::function<void(FILE *)> &fn);

// Whatever is still in stdio's or iostream's stdout buffers, flushed and
// checked; false after printing the error.  main() calls it last.
bool flush_stdout();

// A file a command reads, which none of its outputs may replace: a job file,
// an included one, a trace, the results store, a report's result files.
struct input_file {
	std::string path;
	std::string what; // "the job file job.fio being read"
	bool written = false; // the cli writes it too (the results store, --bandwidth-log's files)
};

// An --output=FILE, opened before the run and written after it.
class output_file {
public:
	output_file() = default;
	~output_file();
	output_file(const output_file &) = delete;
	output_file &operator=(const output_file &) = delete;

	// Opens (creating, not truncating) path for writing under the rule of
	// safety_open_output (how: SAFETY_OUT_*; 0 for a file the user named).
	// A FIFO with no reader yet is opened when the results are written
	// instead, so this never blocks.  False with the reason in *err.
	bool open(const std::string &path, std::string *err, unsigned how = 0);

	// Replaces the file's contents with text and closes it; false after
	// printing "writing <content> to <path>: <strerror>".  After append(),
	// text follows what was appended.  A file removed since open() (its
	// directory too) is made again by its name, the text alone in it.
	bool commit(const std::string &text, const std::string &content = "the results");

	// Reports written while the run goes on (--status-interval): the first
	// call replaces the file's contents, each one adds text at its end, each
	// only once its space is had (a full disk leaves whole reports).  A FIFO without
	// a reader yet keeps the text for commit().  False after printing the error.
	bool append(const std::string &text, const std::string &content);

	// The run never produced results: a file open() created is removed, an
	// existing one is left untouched.  The destructor does this unless
	// commit() was called.
	void abandon();

	// Whether other names this same regular file (device and inode), after open().
	bool is(const std::string &other) const;

	// The input this output would replace, or null; non-null also prints
	// "--output=PATH is WHAT: CONTENT would replace it" (the caller exits 2).
	const input_file *replaces(const std::vector<input_file> &inputs, const std::string &content) const;

	const std::string &path() const { return path_; }

private:
	std::string path_;
	int fd_ = -1;
	bool created_ = false;
	dev_t dev_ = 0;		// the file open() opened: only it is removed again (created_),
	ino_t ino_ = 0;		// or written once a reader comes (deferred_)
	void remove_created();
	bool reopen_if_removed(const std::string &content);
	bool open_deferred(const std::string &what);
	unsigned how_ = 0;	// SAFETY_OUT_*: a derived file is marked as ioplan's once written
	bool deferred_ = false;	// a FIFO without a reader at open()
	bool appended_ = false;	// truncated by append(): commit() adds to it
	std::string held_;	// appended while deferred_, for commit()
};

// Whether a and b name one regular file (device and inode); false when either
// is missing or not a regular file (/dev/null may be both input and output).
bool same_file(const std::string &a, const std::string &b);

// The input that path names, or null.
const input_file *input_named(const std::string &path, const std::vector<input_file> &inputs);

// One name for a file, whether it exists yet or not: its directory's real path
// and its own name, so a link, "..", or another working directory name the same
// file alike (the path as given when its directory cannot be resolved).
std::string resolved_name(const std::string &path);

// The results store at db and SQLite's files beside it (its WAL, shared
// memory, journal), which hold runs not yet in the store's own file.
std::vector<input_file> store_inputs(const std::string &db);

// The input an existing file at path is (device and inode), before any open,
// or null; non-null also prints as output_file::replaces.  Said before the
// open's own checks, which would refuse a results store only as an SQLite
// database, not as the store this command reads.
const input_file *names_input(const std::string &path, const std::vector<input_file> &inputs,
			      const std::string &content);

// text to --output=path, or to stdout when path is "" (--showplan, convert).
// Returns the exit code: 0, 1 a write failed, 2 path cannot be opened or is
// one of inputs (nothing is written then).  how: as output_file::open's
// (SAFETY_OUT_DERIVED for a name ioplan made up: only an empty file or
// ioplan's own is replaced, and the file written is marked as ioplan's).
int emit(const std::string &text, const std::string &content, const std::string &path,
	 const std::vector<input_file> &inputs = {}, unsigned how = 0);

// Whether path can be opened for writing (as output_file::open, with how,
// which leaves no file behind): for outputs another program writes (gnuplot's
// chart) or written later (its script).
bool check_writable(const std::string &path, std::string *err, unsigned how = 0);

} // namespace cli

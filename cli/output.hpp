// cli/output.hpp - the --output file: opened before the run, written after it.
//
// An --output file is opened before the run (a bad path is exit 2 in the first
// second, before any I/O, not after an hour) but only truncated when the
// results are written, so a run that never starts leaves an earlier result
// file as it was.  Writes are checked to the end, close(2) included; a failure
// prints
//
//     ioplan: error: writing <what>: <strerror>
//
// and the caller exits 1.
#pragma once

#include <string>

namespace cli {

// Writes all of text to fd; false after printing "writing <what>: <strerror>".
bool write_all(int fd, const std::string &text, const std::string &what);

// An --output=FILE, opened before the run and written after it.
class output_file {
public:
	output_file() = default;
	~output_file();
	output_file(const output_file &) = delete;
	output_file &operator=(const output_file &) = delete;

	// Opens (creating, not truncating) path for writing.  A FIFO with no
	// reader yet is opened when the results are written instead, so this
	// never blocks.  False with "cannot open for writing: <strerror>" in *err.
	bool open(const std::string &path, std::string *err);

	// Replaces the file's contents with text and closes it; false after
	// printing the error.
	bool commit(const std::string &text);

	// The run never produced results: a file open() created is removed, an
	// existing one is left untouched.  The destructor does this unless
	// commit() was called.
	void abandon();

	const std::string &path() const { return path_; }

private:
	std::string path_;
	int fd_ = -1;
	bool created_ = false;
	bool deferred_ = false;	// a FIFO without a reader at open()
};

// Whether path can be opened for writing (as output_file::open, which leaves
// no file behind): for outputs another program writes (gnuplot's chart).
bool check_writable(const std::string &path, std::string *err);

} // namespace cli

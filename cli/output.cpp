// cli/output.cpp - checked writes of everything ioplan outputs (output.hpp).
#include "cli/output.hpp"
#include "engine/safety/safety.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace cli {

namespace {

bool fail(const std::string &what, int err)
{
	std::fprintf(stderr, "ioplan: error: writing %s: %s\n", what.c_str(), std::strerror(err));
	return false;
}

// Without fallocate (ext2, an ext3 file, NFS before 4.2), the room is had by
// writing zeros past the file's end up to off + len, cut back off again when
// the disk is full: the text then only goes over blocks the file has.  (The
// first page of text over an older file, and the rest failing, left neither.)
int reserve_by_writing(int fd, off_t off, size_t len)
{
	static const char zeros[65536] = {};
	struct stat st;
	if (fstat(fd, &st) != 0)
		return 0; // the write says what is wrong
	off_t at = std::max(st.st_size, off), end = off + (off_t)len;
	while (at < end) {
		ssize_t n = pwrite(fd, zeros, (size_t)std::min<off_t>(end - at, sizeof(zeros)), at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : ENOSPC;
			(void)!ftruncate(fd, st.st_size);
			return err == ENOSPC || err == EDQUOT ? err : 0;
		}
		at += n;
	}
	return 0;
}

// Room for len bytes at off, had before anything is written: 0, or ENOSPC or
// EDQUOT.
int reserve(int fd, off_t off, size_t len)
{
	if (!len || fallocate(fd, FALLOC_FL_KEEP_SIZE, off, (off_t)len) == 0)
		return 0;
	if (errno == EOPNOTSUPP || errno == ENOSYS)
		return reserve_by_writing(fd, off, len);
	return errno == ENOSPC || errno == EDQUOT ? errno : 0;
}

// What has path's name now, for the error that leaves it alone.
std::string what_has(const std::string &path)
{
	struct stat st;
	char target[PATH_MAX];
	if (lstat(path.c_str(), &st) != 0)
		return "something";
	if (!S_ISLNK(st.st_mode))
		return S_ISREG(st.st_mode) ? "another file" : "something that is no regular file";
	ssize_t n = readlink(path.c_str(), target, sizeof(target) - 1);
	return n < 0 ? "a symbolic link" : "a symbolic link to " + std::string(target, (size_t)n);
}

} // namespace

int write_whole(int fd, const std::string &text)
{
	size_t off = 0;
	while (off < text.size()) {
		ssize_t n = ::write(fd, text.data() + off, text.size() - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO; // a 0-byte write of a non-empty buffer is an I/O error
		off += (size_t)n;
	}
	return 0;
}

bool write_all(int fd, const std::string &text, const std::string &what)
{
	int err = write_whole(fd, text);
	return err ? fail(what, err) : true;
}

bool write_stdout(const std::string &text, const std::string &what)
{
	return write_all(STDOUT_FILENO, text, what);
}

std::string capture(const std::function<void(FILE *)> &fn)
{
	char *buf = nullptr;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		throw std::bad_alloc();
	fn(f);
	std::fclose(f);
	std::string s(buf, len);
	std::free(buf);
	return s;
}

bool flush_stdout()
{
	std::cout.flush();
	errno = 0;
	if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good())
		return true;
	return fail("stdout", errno ? errno : EIO);
}

output_file::~output_file()
{
	abandon();
}

bool output_file::open(const std::string &path, std::string *err, unsigned how)
{
	path_ = path;
	how_ = how;
	struct stat st;
	bool existed = ::stat(path.c_str(), &st) == 0;
	char why[1024] = "";
	// O_NONBLOCK: a FIFO nobody reads yet would block the open (ENXIO instead).
	fd_ = safety_open_output(&safety_system, path.c_str(), O_NONBLOCK, how, why, sizeof(why));
	if (fd_ == -ENXIO) {
		deferred_ = true;
		dev_ = st.st_dev; // the FIFO (existed: -ENXIO opens nothing new)
		ino_ = st.st_ino;
		return true;
	}
	if (fd_ < 0) {
		*err = why;
		fd_ = -1;
		return false;
	}
	created_ = !existed && fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
	dev_ = st.st_dev;
	ino_ = st.st_ino;
	fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
	return true;
}

bool output_file::commit(const std::string &text, const std::string &content)
{
	const std::string what = content + " to " + path_;
	if (!deferred_ && !reopen_if_removed(content))
		return false;
	bool created = created_;
	created_ = false; // from here on the file is the user's result, whatever happens
	if (deferred_ && !open_deferred(what))
		return false;
	struct stat st;
	const std::string all = held_ + text;
	bool regular = fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
	// Replaced only now: until the results exist, an older file is kept, and
	// until their space is had (a full disk), too: it is written over, not
	// truncated first, and cut to the new length after.  After append(), the
	// space is had at the end, so the file holds whole reports only.
	int err = regular ? reserve(fd_, appended_ ? st.st_size : 0, all.size()) : 0;
	if (err) {
		std::fprintf(stderr, "ioplan: error: writing %s: %s (%s)\n", what.c_str(), std::strerror(err),
			     appended_ ? "the reports before it are kept" :
			     created   ? "no file is left" : "the older file is left as it was");
		::close(fd_);
		fd_ = -1;
		created_ = created;
		remove_created();
		return false;
	}
	regular = regular && !appended_;
	bool ok = write_all(fd_, all, what);
	if (ok && regular && ftruncate(fd_, (off_t)all.size()) != 0)
		ok = fail(what, errno);
	if (ok && (how_ & SAFETY_OUT_DERIVED))
		safety_mark_output(fd_); // ioplan's own: the next run may replace it
	int fd = fd_;
	fd_ = -1;
	if (::close(fd) != 0 && ok)
		ok = fail(what, errno); // NFS and full quotas report here
	return ok;
}

bool output_file::append(const std::string &text, const std::string &content)
{
	if (deferred_ || fd_ < 0) {
		held_ += text;
		return true;
	}
	const std::string what = content + " to " + path_;
	struct stat st;
	bool regular = fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
	// As commit(): the space first, so a full disk leaves the older file as it
	// was (the first report) or a stream of whole reports (the later ones).
	if (int err = regular ? reserve(fd_, appended_ ? st.st_size : 0, text.size()) : 0) {
		std::fprintf(stderr, "ioplan: error: writing %s: %s (%s)\n", what.c_str(), std::strerror(err),
			     appended_ ? "the reports before it are kept" : "the older file is left as it was");
		return false;
	}
	created_ = false; // it holds results from now on
	if (!appended_ && regular && lseek(fd_, 0, SEEK_SET) != 0)
		return fail(what, errno);
	if (!write_all(fd_, text, what))
		return false;
	if (!appended_ && regular && ftruncate(fd_, (off_t)text.size()) != 0)
		return fail(what, errno);
	appended_ = true;
	return true;
}

int emit(const std::string &text, const std::string &content, const std::string &path,
	 const std::vector<input_file> &inputs, unsigned how)
{
	if (path.empty())
		return write_stdout(text, content + " to stdout") ? 0 : 1;
	output_file out;
	std::string err;
	if (names_input(path, inputs, content))
		return 2;
	if (!out.open(path, &err, how)) {
		std::fprintf(stderr, "ioplan: error: --output=%s: %s\n", path.c_str(), err.c_str());
		return 2;
	}
	if (out.replaces(inputs, content))
		return 2; // out's destructor removes a file its open() created
	return out.commit(text, content) ? 0 : 1;
}

namespace {

// Only a regular file holds data an output would replace (/dev/null may be both).
bool same_regular(const struct stat &a, const std::string &b)
{
	struct stat st;
	return S_ISREG(a.st_mode) && stat(b.c_str(), &st) == 0 && a.st_dev == st.st_dev && a.st_ino == st.st_ino;
}

} // namespace

bool same_file(const std::string &a, const std::string &b)
{
	struct stat st;
	return stat(a.c_str(), &st) == 0 && same_regular(st, b);
}

const input_file *input_named(const std::string &path, const std::vector<input_file> &inputs)
{
	for (const input_file &in : inputs)
		if (same_file(path, in.path))
			return &in;
	return nullptr;
}

std::string resolved_name(const std::string &path)
{
	size_t slash = path.rfind('/');
	std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
	char real[PATH_MAX];
	if (!realpath(dir.c_str(), real))
		return path;
	return std::string(real) + "/" + path.substr(slash == std::string::npos ? 0 : slash + 1);
}

std::vector<input_file> store_inputs(const std::string &db)
{
	std::vector<input_file> in{ { db, "the results store " + db, true } };
	for (const char *side : { "-wal", "-shm", "-journal" })
		in.push_back({ db + side, "the results store's " + std::string(side + 1) + " file " + db + side, true });
	return in;
}

// "--output=PATH is WHAT: CONTENT would replace it".
static const input_file *said_replaced(const std::string &path, const input_file &in, const std::string &content)
{
	std::fprintf(stderr, "ioplan: error: --output=%s is %s: %s would replace it\n", path.c_str(), in.what.c_str(),
		     content.c_str());
	return &in;
}

const input_file *output_file::replaces(const std::vector<input_file> &inputs, const std::string &content) const
{
	for (const input_file &in : inputs)
		if (is(in.path))
			return said_replaced(path_, in, content);
	return nullptr;
}

const input_file *names_input(const std::string &path, const std::vector<input_file> &inputs,
			      const std::string &content)
{
	struct stat st;
	if (stat(path.c_str(), &st) != 0)
		return nullptr;
	for (const input_file &in : inputs)
		if (same_regular(st, in.path))
			return said_replaced(path, in, content);
	return nullptr;
}

bool output_file::is(const std::string &other) const
{
	struct stat mine;
	int ret = fd_ >= 0 ? fstat(fd_, &mine) : stat(path_.c_str(), &mine);
	return ret == 0 && same_regular(mine, other);
}

bool check_writable(const std::string &path, std::string *err, unsigned how)
{
	output_file probe;
	return probe.open(path, err, how); // and a file the probe created goes again
}

// The file open() opened, removed since (its directory too, or another file
// renamed over its name): the results written to it would go with it.  They
// go to a new file by that name, made now: whatever took the name during the
// run (a link to a user's file, a file of someone else's) is not written over
// (through such a link the results replaced a file nobody named).  When no
// new file can be made there, false after saying so (the caller puts them on
// stdout).
bool output_file::reopen_if_removed(const std::string &content)
{
	if (!safety_output_removed(fd_))
		return true;
	::close(fd_);
	appended_ = false; // what was appended went with the file
	created_ = false;  // and the file made, if open() made it
	char why[1024] = "";
	fd_ = safety_open_output(&safety_system, path_.c_str(), 0, how_ | SAFETY_OUT_NEW, why, sizeof(why));
	if (fd_ == -EEXIST) {
		std::fprintf(stderr, "ioplan: error: writing %s to %s: the file was removed during the run and %s "
				     "has its name now: it is not written over\n",
			     content.c_str(), path_.c_str(), what_has(path_).c_str());
		fd_ = -1;
		return false;
	}
	if (fd_ < 0) {
		std::fprintf(stderr, "ioplan: error: writing %s to %s: the file was removed during the run and cannot be made again: %s\n",
			     content.c_str(), path_.c_str(), why);
		fd_ = -1;
		return false;
	}
	created_ = true; // made here: a full disk below removes it again
	struct stat st;
	if (fstat(fd_, &st) == 0) {
		dev_ = st.st_dev;
		ino_ = st.st_ino;
	}
	std::fprintf(stderr, "ioplan: warning: %s was removed during the run: writing %s to a new file by that name\n",
		     path_.c_str(), content.c_str());
	return true;
}

// The FIFO open() found without a reader, opened now that the results exist
// (waiting for one): only that FIFO.  What was put in its place during the
// run is not written (through a link put there, the results replaced a user's
// file); the open itself creates and truncates nothing.
bool output_file::open_deferred(const std::string &what)
{
	char why[1024] = "";
	fd_ = safety_open_output(&safety_system, path_.c_str(), 0, how_ | SAFETY_OUT_EXISTING | SAFETY_OUT_WAIT_READER,
				 why, sizeof(why));
	if (fd_ < 0) {
		std::fprintf(stderr, "ioplan: error: writing %s: %s\n", what.c_str(), why);
		fd_ = -1;
		return false;
	}
	struct stat st;
	if (fstat(fd_, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_)
		return true;
	::close(fd_);
	fd_ = -1;
	std::fprintf(stderr, "ioplan: error: writing %s: the FIFO was replaced during the run and %s has its name "
			     "now: it is not written to\n", what.c_str(), what_has(path_).c_str());
	return false;
}

// Removed by identity: whatever was renamed over path_ since is someone else's.
void output_file::remove_created()
{
	if (created_)
		(void)safety_remove_made(path_.c_str(), dev_, ino_);
	created_ = false;
}

void output_file::abandon()
{
	if (fd_ >= 0)
		::close(fd_);
	fd_ = -1;
	remove_created();
}

} // namespace cli

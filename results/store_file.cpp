// results/store_file.cpp - where a results store's file lives and how it is
// made (store_file.hpp), apart from store.cpp, which reads and writes what is
// in it.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pwd.h>
#include <random>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sqlite3.h>

#include "results/store.hpp"
#include "results/store_file.hpp"
#include "results/store_sql.hpp"

namespace resdb {

// The directory path names (".": none named).
std::string parent_of(const std::string &path)
{
	size_t at = path.rfind('/');
	return at == std::string::npos ? "." : at == 0 ? "/" : path.substr(0, at);
}

// Creates the default store's directory (and its parents) for a first save.
void make_parent(const std::string &path)
{
	for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1))
		mkdir(path.substr(0, at).c_str(), 0755);
}

// path as the path of a file: URI ("?", "#" and "%" escaped; one leading slash,
// as "//x" would be read as a host).
std::string uri_of(const std::string &path)
{
	std::string out = "file:";
	size_t i = 0;
	while (path.size() > i + 1 && path[i] == '/' && path[i + 1] == '/')
		i++;
	for (; i < path.size(); i++) {
		unsigned char c = (unsigned char)path[i];
		char hex[4];
		std::snprintf(hex, sizeof(hex), "%%%02X", c);
		out += c == '?' || c == '#' || c == '%' || c < 0x20 ? std::string(hex) : std::string(1, (char)c);
	}
	return out;
}

// What a read opens.  A store cut short is opened immutable, and read as far
// as it goes (store.cpp).  SQLite reads a WAL store through its -shm file, which
// it creates beside the store: on a read-only file system it cannot, and
// every read failed as if it had meant to write.  There nobody can change
// the file either, so it is opened immutable (no -shm, no locks) - unless a
// -wal holds runs the file lacks, which only the -shm can read.
std::string read_target(const std::string &path, int *flags)
{
	struct statvfs vfs;
	struct stat st;
	if (!cut_short(path).empty()) {	// what is left of it is read, and nothing written to it
		*flags |= SQLITE_OPEN_URI;
		return uri_of(path) + "?immutable=1";
	}
	if (statvfs(path.c_str(), &vfs) != 0 || !(vfs.f_flag & ST_RDONLY))
		return path;
	bool wal = stat((path + "-wal").c_str(), &st) == 0 && st.st_size > 0;
	if (wal && stat((path + "-shm").c_str(), &st) != 0)
		throw store_error(path + ": cannot read the results store: its " + path +
				  "-wal holds runs not yet in the file, and SQLite reads them only through " + path +
				  "-shm, which cannot be created on a read-only file system; left untouched (copy the "
				  "store with its -wal where it can be written)");
	if (wal)
		return path;
	*flags |= SQLITE_OPEN_URI;
	return uri_of(path) + "?immutable=1";
}


// The per-user location: $XDG_DATA_HOME/ioplan/results.db, else ~/.local/share/ioplan/results.db.
static std::string user_path()
{
	const char *xdg = std::getenv("XDG_DATA_HOME");
	if (xdg && *xdg == '/')
		return std::string(xdg) + "/ioplan/results.db";
	const char *home = std::getenv("HOME");
	if (home && *home == '/')
		return std::string(home) + "/.local/share/ioplan/results.db";
	// No HOME (a service, a cron job's bare environment): the user's own home, as
	// XDG's users do; never a path under whatever directory the run started in.
	struct passwd pw, *found = nullptr;
	char buf[4096];
	if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &found) == 0 && found && found->pw_dir &&
	    found->pw_dir[0] == '/')
		return std::string(found->pw_dir) + "/.local/share/ioplan/results.db";
	throw store_error("no default results store: HOME is not set and user " + std::to_string(getuid()) +
			  " has no home directory; give --results-db=PATH or IOPLAN_RESULTS_DB");
}

std::string default_path()
{
	const char *env = std::getenv("IOPLAN_RESULTS_DB");
	return env && *env ? env : user_path();
}

// Only the per-user location gets its directory made (store.hpp: check_makeable says why).
bool makes_its_directory(const std::string &path)
{
	try {
		return path == user_path();
	} catch (const store_error &) {
		return false;
	}
}

// SQLite says only "unable to open database file" for a read-only file system
// or a directory it may not write: the nearest directory that is there says why.
void check_makeable(const std::string &path)
{
	std::string dir = parent_of(path);
	struct stat st;
	if (!makes_its_directory(path) && stat(dir.c_str(), &st) != 0) {
		int err = errno;
		throw store_error(path + ": cannot make the results store: " + dir + ": " + std::strerror(err) +
				  " (only the default store's directory is made; make it, or check the path)");
	}
	while (dir != "." && dir != "/" && stat(dir.c_str(), &st) != 0)
		dir = parent_of(dir);
	if (access(dir.c_str(), W_OK) != 0)
		throw store_error(path + ": cannot make the results store in " + dir + ": " + std::strerror(errno));
}

// What stands where SQLite keeps the store's side files: a directory or a
// symlink named PATH-wal, -shm or -journal makes it refuse the store with
// no more than "unable to open database file".  Empty when each is a plain
// file or missing.
std::string side_file_in_the_way(const std::string &path)
{
	for (const char *side : {"-wal", "-shm", "-journal"}) {
		struct stat st;
		std::string name = path + side;
		if (lstat(name.c_str(), &st) != 0 || S_ISREG(st.st_mode))
			continue;
		const char *kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISLNK(st.st_mode) ? "a symbolic link" :
				   "not a regular file";
		return name + " is " + kind + ", where SQLite keeps a file of the store's own; left untouched "
		       "(move it away)";
	}
	return "";
}

// A store its owner made read-only (chmod a-w, to keep it) and read: SQLite
// made its -wal and -shm with the store's mode, r--r--r--, and a read cannot
// remove them.  Once the owner made the store writable again, every --save
// was refused: "STORE-wal belongs to <the owner> and cannot be written by this
// user (another user's read ...)".
void mend_own_side_files(const std::string &path)
{
	struct stat store_st;
	if (stat(path.c_str(), &store_st) != 0)
		return;
	for (const char *side : {"-wal", "-shm"}) {
		struct stat st;
		std::string name = path + side;
		if (lstat(name.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    access(name.c_str(), W_OK) != 0)
			chmod(name.c_str(), (st.st_mode | (store_st.st_mode & 0666) | S_IWUSR) & 07777);
	}
}

// A -wal or -shm beside the store that this user cannot write: SQLite writes
// the store through both, and opened the store read-only without a word.  One
// made by another user's read (a store shared read-only in a directory all may
// write: SQLite makes both there for a reader too, with the store's mode) left
// its owner told only "read-only" of a store that was theirs.
std::string side_file_of_another(const std::string &path)
{
	for (const char *side : {"-wal", "-shm"}) {
		struct stat st;
		std::string name = path + side;
		if (stat(name.c_str(), &st) != 0 || access(name.c_str(), W_OK) == 0)
			continue;
		struct passwd pw, *found = nullptr;
		char buf[4096];
		std::string owner = getpwuid_r(st.st_uid, &pw, buf, sizeof(buf), &found) == 0 && found
					    ? std::string(found->pw_name)
					    : "uid " + std::to_string(st.st_uid);
		return "the store cannot be written: " + name + " belongs to " + owner +
		       " and cannot be written by this user (another user's read of the store leaves its -wal and "
		       "-shm files there); once nobody reads the store, its -wal and -shm can be removed";
	}
	return "";
}

// SQLite calls a file shorter than its header's page count a corrupt page
// (SQLITE_CORRUPT at the first read), the same as a damaged one: a store
// truncated by a copy cut short was "damaged (SQLite found a corrupt page)",
// with nothing to say what happened.  The header (SQLite's file format):
// the magic string, the page size at 16 (1 for 65536), the change counter
// at 24, the page count at 28 (valid where the counter equals the
// version-valid-for number at 92).
std::string cut_short(const std::string &path)
{
	struct stat st, wal;
	unsigned char h[100];
	FILE *f = std::fopen(path.c_str(), "rb");
	bool whole = f && std::fread(h, 1, sizeof h, f) == sizeof h && fstat(fileno(f), &st) == 0;
	if (f)
		std::fclose(f);
	if (!whole || std::memcmp(h, "SQLite format 3", 16) != 0 ||
	    (stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0))
		return "";
	auto be32 = [&](int at) {
		return (uint64_t)h[at] << 24 | (uint64_t)h[at + 1] << 16 | (uint64_t)h[at + 2] << 8 | h[at + 3];
	};
	uint64_t page = (uint64_t)h[16] << 8 | h[17], pages = be32(28);
	if (page == 1)
		page = 65536;
	if (page < 512 || (page & (page - 1)) || be32(24) != be32(92) || pages * page <= (uint64_t)st.st_size)
		return "";
	return "the store is cut short: the file holds " + std::to_string(st.st_size) + " bytes, where its header counts " +
	       std::to_string(pages) + " pages of " + std::to_string(page) + " (" + std::to_string(pages * page) +
	       " bytes): a copy or a transfer of it stopped before its end";
}

// A store on a file system with no block free for this user cannot take a
// run or an import.  Where no process had it open, making its -shm failed
// at the open; where another one held it open (its -shm and -wal there), the
// open went through, and a --save ran its job only to fail its save after
// it ("the disk is full", the run kept as an unsaved file).  A file system
// that counts no blocks at all (f_blocks 0: some FUSE ones) is not judged.
void check_room(const std::string &path)
{
	struct statvfs vfs;
	if (statvfs(parent_of(path).c_str(), &vfs) != 0 || vfs.f_blocks == 0)
		return;
	if ((geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail) == 0)
		throw store_error(path + ": cannot use the results store: the disk is full (" + std::strerror(ENOSPC) +
				  ")");	// as SQLite's ENOSPC is said (io_failure)
}

// A new, empty file under a name of the store's beside path, made by this
// process alone (O_EXCL), with the mode SQLite would give the store.
static std::string new_side_name(const std::string &path)
{
	std::random_device rd;
	for (int tries = 0; tries < 100; tries++) {
		char tail[24];
		std::snprintf(tail, sizeof(tail), ".making-%08x", (unsigned)rd());
		std::string name = path + tail;
		int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return name;
		}
		if (errno != EEXIST)
			throw store_error(path + ": cannot make the results store: " + std::strerror(errno));
	}
	throw store_error(path + ": cannot make the results store: no free name beside it");
}

static void remove_with_side_files(const std::string &name)
{
	for (const char *side : {"", "-wal", "-shm", "-journal"})
		unlink((name + side).c_str());
}

// A new store appears whole or not at all: its schema is written under a name
// of its own and linked into place.  Made in place, a disk that filled (or a
// stop) while SQLite wrote it left an empty file, which every later `results`
// command refused as "no results store yet".  The move never replaces a store
// another process made meanwhile: that one is used and this one dropped.
void store::make_whole(const std::string &path)
{
	std::string side = new_side_name(path);
	try {
		store made(side, mode::write);
	} catch (const store_error &e) {
		remove_with_side_files(side);
		std::string why = e.what();
		for (size_t at; (at = why.find(side)) != std::string::npos;)
			why.replace(at, side.size(), path);
		throw store_error(why + " (no store was left)", e.busy, e.damaged);
	}
	// NOREPLACE where the file system has it (FAT and exFAT have no hard links);
	// a link where it has not (NFS).
	int err = renameat2(AT_FDCWD, side.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0 ? 0 : errno;
	if (err == EINVAL || err == ENOSYS)
		err = link(side.c_str(), path.c_str()) == 0 ? 0 : errno;
	if (err == EEXIST)
		err = 0;
	remove_with_side_files(side);
	if (err)
		throw store_error(path + ": cannot make the results store: " + std::strerror(err));
}

} // namespace resdb

// results/store_file.hpp - where a results store's file lives and how it is
// made (store_file.cpp): its path and directory, the files SQLite keeps beside
// it, the room it needs, and a new store made whole.  Internal to results/:
// store.cpp's open asks these before SQLite does.
#pragma once

#include <string>

namespace resdb {

// The directory path names ("." when it names none).
std::string parent_of(const std::string &path);
// Whether path is the per-user default, the only store whose directory a first save makes.
bool makes_its_directory(const std::string &path);
// Creates the default store's directory (and its parents) for a first save.
void make_parent(const std::string &path);
// path as the path of a file: URI ("?", "#" and "%" escaped).
std::string uri_of(const std::string &path);
// What a read opens for path, and SQLite's flags for it (*flags): immutable
// on a read-only file system, where SQLite cannot make its -shm.
std::string read_target(const std::string &path, int *flags);
// Why a -wal, -shm or -journal beside path is in the way, or "".
std::string side_file_in_the_way(const std::string &path);
// Gives this user's own -wal and -shm beside path back the write permission a
// read of the store while it was read-only made them without (they take
// the store's mode), so a save can use them.  Harmless to a process that has
// them open: their mode is not what it reads or writes through.
void mend_own_side_files(const std::string &path);
// Why a -wal or -shm beside path, another user's, cannot be written, or "".
std::string side_file_of_another(const std::string &path);
// Why path's file is a store cut short (shorter than the pages its header
// counts: a copy or a transfer that stopped), or "".  Judged with no -wal
// beside it only: the WAL may hold a newer count.
std::string cut_short(const std::string &path);
// Throws store_error when path's file system has no block free.
void check_room(const std::string &path);

} // namespace resdb

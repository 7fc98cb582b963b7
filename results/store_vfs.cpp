// results/store_vfs.cpp - the VFS the store is opened through: SQLite's own
// (unix), with each region of the WAL index (the store's -shm file, shared by
// every process through mmap) given its disk blocks before SQLite writes it.
//
// Why: SQLite grows the -shm by writing the last byte of each 4 KiB page and
// then writes the rest through its mapping.  On a file system of 1 KiB or
// 2 KiB blocks (ext4 makes small ones so: a loop-mounted image) the other
// blocks of the page stay holes, and once the disk is full a store into one
// of them is a SIGBUS: `ioplan results import` died with "Bus error" (exit
// 135) on a full 3 MiB ext4, and with 8 to 10 KiB left every `results list`
// did too.  MADV_POPULATE_WRITE faults the region in writable without
// writing it (the file system gives each page all its blocks), and says
// EFAULT where that access would have been the SIGBUS: SQLITE_FULL, said
// as "the disk is full".  (Not fallocate() on a descriptor of our own:
// closing it would drop the process's fcntl locks on the -shm, SQLite's
// among them, and another process would take it for the first and
// truncate it under our mapping.)
//
// Everything else passes to the default VFS unchanged.
#include <cerrno>
#include <mutex>
#include <sys/mman.h>

#include <sqlite3.h>

#include "results/store.hpp"

namespace resdb {

namespace {

sqlite3_vfs *inner_vfs;
sqlite3_vfs shim_vfs;
sqlite3_io_methods shim_methods[3];	// for the default VFS's files of io_methods version 1, 2, 3

// Our file: the default VFS's file follows it in the same allocation.
struct shim_file {
	sqlite3_file base;
	sqlite3_file *real;
};

sqlite3_file *real_of(sqlite3_file *f)
{
	return reinterpret_cast<shim_file *>(f)->real;
}

// Gives a mapped region of the -shm its disk blocks: 0, or SQLITE_FULL when
// the file system has no room for them.  A kernel before 5.14 (EINVAL) is left
// to SQLite's own growing.
int allocate_region(void volatile *at, int len)
{
	while (madvise(const_cast<void *>(at), (size_t)len, MADV_POPULATE_WRITE) != 0) {
		if (errno == EINTR || errno == EAGAIN)
			continue;
		return errno == EFAULT ? SQLITE_FULL : SQLITE_OK;
	}
	return SQLITE_OK;
}

int shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **pp)
{
	sqlite3_file *r = real_of(f);
	int rc = r->pMethods->xShmMap(r, region, size, extend, pp);
	if (rc != SQLITE_OK || !*pp)
		return rc;
	rc = allocate_region(*pp, size);
	// SQLite keeps *pp (its page array) whatever the answer: left set, its close
	// wrote the region's header all the same, and met the hole.
	if (rc != SQLITE_OK)
		*pp = nullptr;
	return rc;
}

// The passes to the default VFS's file.
int x_close(sqlite3_file *f)
{
	sqlite3_file *r = real_of(f);
	int rc = r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
	f->pMethods = nullptr;
	return rc;
}
int x_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return real_of(f)->pMethods->xRead(real_of(f), b, n, o); }
int x_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
	return real_of(f)->pMethods->xWrite(real_of(f), b, n, o);
}
int x_truncate(sqlite3_file *f, sqlite3_int64 s) { return real_of(f)->pMethods->xTruncate(real_of(f), s); }
int x_sync(sqlite3_file *f, int fl) { return real_of(f)->pMethods->xSync(real_of(f), fl); }
int x_size(sqlite3_file *f, sqlite3_int64 *s) { return real_of(f)->pMethods->xFileSize(real_of(f), s); }
int x_lock(sqlite3_file *f, int l) { return real_of(f)->pMethods->xLock(real_of(f), l); }
int x_unlock(sqlite3_file *f, int l) { return real_of(f)->pMethods->xUnlock(real_of(f), l); }
int x_reserved(sqlite3_file *f, int *o) { return real_of(f)->pMethods->xCheckReservedLock(real_of(f), o); }
int x_control(sqlite3_file *f, int op, void *a) { return real_of(f)->pMethods->xFileControl(real_of(f), op, a); }
int x_sector(sqlite3_file *f) { return real_of(f)->pMethods->xSectorSize(real_of(f)); }
int x_device(sqlite3_file *f) { return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f)); }
int x_shm_lock(sqlite3_file *f, int o, int n, int fl) { return real_of(f)->pMethods->xShmLock(real_of(f), o, n, fl); }
void x_shm_barrier(sqlite3_file *f) { real_of(f)->pMethods->xShmBarrier(real_of(f)); }
int x_shm_unmap(sqlite3_file *f, int del) { return real_of(f)->pMethods->xShmUnmap(real_of(f), del); }
int x_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp) { return real_of(f)->pMethods->xFetch(real_of(f), o, n, pp); }
int x_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) { return real_of(f)->pMethods->xUnfetch(real_of(f), o, p); }

int x_open(sqlite3_vfs *, sqlite3_filename name, sqlite3_file *f, int flags, int *out_flags)
{
	auto *s = reinterpret_cast<shim_file *>(f);
	s->real = reinterpret_cast<sqlite3_file *>(s + 1);
	f->pMethods = nullptr;
	int rc = inner_vfs->xOpen(inner_vfs, name, s->real, flags, out_flags);
	if (rc != SQLITE_OK || !s->real->pMethods)
		return rc;
	// Ours of the same version: SQLite calls no method a version lacks.
	int v = s->real->pMethods->iVersion;
	f->pMethods = &shim_methods[v < 1 ? 0 : v > 3 ? 2 : v - 1];
	return SQLITE_OK;
}

void make_shim()
{
	inner_vfs = sqlite3_vfs_find(nullptr);
	if (!inner_vfs)
		return;
	for (int v = 1; v <= 3; v++)
		shim_methods[v - 1] = sqlite3_io_methods{ v,	    x_close,	 x_read,	 x_write,     x_truncate,
							  x_sync,   x_size,	 x_lock,	 x_unlock,    x_reserved,
							  x_control, x_sector,	 x_device,	 shm_map,     x_shm_lock,
							  x_shm_barrier, x_shm_unmap, x_fetch,	 x_unfetch };
	shim_vfs = *inner_vfs;
	shim_vfs.szOsFile = (int)sizeof(shim_file) + inner_vfs->szOsFile;
	shim_vfs.zName = "ioplan-store";
	shim_vfs.pNext = nullptr;
	shim_vfs.xOpen = x_open;
	if (sqlite3_vfs_register(&shim_vfs, 0) != SQLITE_OK)
		inner_vfs = nullptr;
}

} // namespace

const char *store_vfs()
{
	static std::once_flag once;
	std::call_once(once, make_shim);
	return inner_vfs ? shim_vfs.zName : nullptr;
}

} // namespace resdb

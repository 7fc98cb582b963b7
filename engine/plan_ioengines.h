/*
 * engine/plan_ioengines.h - the list of I/O engines: each engine's name and
 * one-line help, stated once.
 *
 * An engine is its own file under engine/ioengines/ (its ops, its private state,
 * its name as the token here) plus one line in this list.  Everything else that
 * names an engine is expanded from the list: the plan's enum and name table
 * (plan.h, plan.c), the parser's ioengine= choices and --enghelp (options.cpp),
 * the engine's extern and the registry (ioengine.h, ioengines.c), and the
 * engine's own options, which its file declares (plan_engopts.h).  Adding an
 * engine is its file and one line here.
 *
 * Why a list rather than engines registering themselves at start-up: the parser
 * may not reach into engine/ code (tests/check_layering.py), yet it must know
 * the names to parse ioengine=; an X-macro list with no code in it is plan
 * vocabulary both sides include.  The list's order is the order ioengine='s
 * choices are shown in (help, schema, man); psync stays first, the zero value
 * of an unset plan_job.
 *
 * X(token, ENUM_SUFFIX, help, opts): token names the ops (ioe_<token>) and is
 * the name ioengine= takes; ENUM_SUFFIX makes PLAN_IOENGINE_<ENUM_SUFFIX>; opts
 * names the options table the engine's file defines (plan_engopts_<opts>,
 * engine/plan_engopts.h), "none" when it brings none.  Engines of one file
 * (filestat and dirstat in fileops.c) share one table.
 */
#ifndef IOPLAN_ENGINE_PLAN_IOENGINES_H
#define IOPLAN_ENGINE_PLAN_IOENGINES_H

#define PLAN_IOENGINES(X) \
	X(psync, PSYNC, "pread/pwrite", none) \
	X(sync, SYNC, "read/write after lseek (skipped where the last I/O ended)", none) \
	X(null, NULL, "no data moves; measures the tool", none) \
	X(libaio, LIBAIO, "Linux native AIO", libaio) \
	X(io_uring, IO_URING, "io_uring (liburing)", io_uring) \
	X(pvsync, PVSYNC, "preadv/pwritev", none) \
	X(pvsync2, PVSYNC2, "preadv2/pwritev2 with RWF_* flags (hipri, uncached, nowait)", none) \
	X(vsync, VSYNC, "readv/writev after lseek; adjacent I/Os coalesce into one call", none) \
	X(posixaio, POSIXAIO, "POSIX aio_read/aio_write", none) \
	X(mmap, MMAP, "memcpy to and from a mapping of the file (thp)", mmap) \
	X(falloc, FALLOC, "fallocate per I/O (reads keep size, trims punch holes); no data moves", none) \
	X(ftruncate, FTRUNCATE, "ftruncate to each write's offset; no data moves", none) \
	X(net, NET, "send/recv over TCP, UDP or a unix socket (hostname, port, protocol, listen)", net) \
	X(netsplice, NETSPLICE, "net, with TCP data moved through a pipe by splice/vmsplice", net) \
	X(nbd, NBD, "an NBD server's export through libnbd (uri=)", nbd) \
	X(splice, SPLICE, "splice/vmsplice through a pipe between the file and the buffer", none) \
	X(filecreate, FILECREATE, "metadata: creates each file (open O_CREAT), timed; no data moves", none) \
	X(filestat, FILESTAT, "metadata: stats each file (stat_type), timed; no data moves", fileops) \
	X(filedelete, FILEDELETE, "metadata: unlinks each file, timed; no data moves", none) \
	X(dircreate, DIRCREATE, "metadata: makes each directory (mkdir), timed", none) \
	X(dirstat, DIRSTAT, "metadata: stats each directory (stat_type), timed", fileops) \
	X(dirdelete, DIRDELETE, "metadata: removes each directory (rmdir), timed", none) \
	X(cpuio, CPUIO, "burns CPU (cpuload, cpuchunks, cpumode) for the runtime; no I/O", cpuio) \
	X(exec, EXEC, "runs program= with arguments= for the runtime; no I/O", exec) \
	X(e4defrag, E4DEFRAG, "ext4: each write moves the block's extents from donorname= (EXT4_IOC_MOVE_EXT)", e4defrag)

#endif /* IOPLAN_ENGINE_PLAN_IOENGINES_H */

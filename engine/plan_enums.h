/*
 * engine/plan_enums.h - the plan's named values: directions, rw modes, the
 * choices of each option that takes a name (random_distribution, verify,
 * buffer fill, ...), as the plan (plan.h) holds them.
 *
 * Part of the plan contract, apart from its structures so either can be read
 * whole; included by plan.h, never alone.  The names the parser reads and the
 * reports print are in one table per enum (plan.c: plan_*_name).  Compiles as
 * C11 (-pedantic) and as C++17, as plan.h does.
 */
#ifndef IOPLAN_PLAN_ENUMS_H
#define IOPLAN_PLAN_ENUMS_H

#include "engine/plan_ioengines.h"

enum plan_ddir {
	PLAN_DDIR_READ = 0,
	PLAN_DDIR_WRITE = 1,
	PLAN_DDIR_TRIM = 2,
	PLAN_DDIR_NR = 3
};

/* rw= : which directions a job issues and whether offsets are random. */
enum plan_rw {
	PLAN_RW_READ = 0,
	PLAN_RW_WRITE,
	PLAN_RW_TRIM,
	PLAN_RW_RANDREAD,
	PLAN_RW_RANDWRITE,
	PLAN_RW_RANDTRIM,
	PLAN_RW_RW,		/* sequential mixed read/write (rw, readwrite) */
	PLAN_RW_RANDRW,
	PLAN_RW_TRIMWRITE,
	PLAN_RW_RANDTRIMWRITE
};

/* The engines, in the order of engine/plan_ioengines.h (their one list). */
#define PLAN_IOENGINE_ENUM(token, suffix, help, opts) PLAN_IOENGINE_##suffix,
enum plan_ioengine {
	PLAN_IOENGINES(PLAN_IOENGINE_ENUM)
	PLAN_IOENGINE_NR
};
#undef PLAN_IOENGINE_ENUM

/* protocol= of the net engines (engine/ioengines/net.c owns the option; the parser checks fio's rules by it). */
enum plan_net_proto {
	PLAN_NET_TCP = 0,
	PLAN_NET_TCPV6,
	PLAN_NET_UDP,
	PLAN_NET_UDPV6,
	PLAN_NET_UNIX			/* a SOCK_STREAM unix socket at hostname= */
};


enum plan_random_dist {
	PLAN_RAND_UNIFORM = 0,		/* random_distribution=random */
	PLAN_RAND_ZIPF,
	PLAN_RAND_PARETO,
	PLAN_RAND_NORMAL,
	PLAN_RAND_ZONED			/* zoned / zoned_abs: rand_zones[] (DISKSPD -rdpct, -rdabs) */
};

/*
 * How random_distribution=zoned/zoned_abs zones become ranges of offsets
 * (zoned_ranges=).  DISKSPD's -rdpct/-rdabs are the same idea as fio's zones,
 * but DISKSPD applies them to each target's region its own way (its "effective
 * distribution", engine/gen/diskspd_zones.h), and a DISKSPD command line must
 * put its I/O where DISKSPD would.
 */
enum plan_zone_rule {
	PLAN_ZONES_FIO = 0,		/* fio's: a zone is lastb * range_pct / 100 blocks, or range_bytes */
	PLAN_ZONES_DISKSPD_PCT,		/* DISKSPD -rdpct: bounds aligned down, the last to the aligned end */
	PLAN_ZONES_DISKSPD_ABS		/* DISKSPD -rdabs: range_bytes, trimmed at the region's end;
					 * a last range_bytes of 0 is the rest of the region */
};

enum plan_rate_process {
	PLAN_RATE_LINEAR = 0,
	PLAN_RATE_POISSON
};

/* sync= : how writes are made durable by open flags. */
enum plan_sync_mode {
	PLAN_SYNC_NONE = 0,
	PLAN_SYNC_SYNC,			/* O_SYNC */
	PLAN_SYNC_DSYNC			/* O_DSYNC */
};

enum plan_file_service {
	PLAN_FILE_SERVICE_ROUNDROBIN = 0,
	PLAN_FILE_SERVICE_SEQUENTIAL,
	PLAN_FILE_SERVICE_RANDOM,
	/* Skewed, as fio's: a file whose pass is done starts over instead of retiring. */
	PLAN_FILE_SERVICE_ZIPF,
	PLAN_FILE_SERVICE_PARETO,
	PLAN_FILE_SERVICE_NORMAL
};

/* fadvise_hint: the access-pattern advice given at each open (fio's, buffered or not). */
enum plan_fadvise {
	PLAN_FADVISE_NONE = 0,
	PLAN_FADVISE_BY_RW,		/* fadvise_hint=1: the parser resolves it from rw= */
	PLAN_FADVISE_SEQUENTIAL,
	PLAN_FADVISE_RANDOM
};

enum plan_fallocate {
	PLAN_FALLOCATE_NATIVE = 0,	/* try fallocate(), ignore EOPNOTSUPP */
	PLAN_FALLOCATE_NONE,
	PLAN_FALLOCATE_POSIX,
	PLAN_FALLOCATE_KEEP,
	PLAN_FALLOCATE_TRUNCATE		/* ftruncate to the size only: a sparse file */
};

/* What a write buffer holds; the file layout uses the same content. */
enum plan_buffer_fill {
	PLAN_BUF_RANDOM = 0,		/* random, cheaply varied per I/O (default) */
	PLAN_BUF_ZERO,			/* zero_buffers */
	PLAN_BUF_PATTERN,		/* buffer_pattern */
	PLAN_BUF_RANDOM_ONCE		/* one random source block reused (DISKSPD -Z<size>) */
};

/*
 * verify= methods, numbered as fio 3.33 numbers them: the number is written in
 * each block's header (verify_type), so a block names the method that wrote it.
 */
#define PLAN_VERIFY_OFFSET_FMTS 8	/* most %o in one verify_pattern */

enum plan_verify {
	PLAN_VERIFY_NONE = 0,
	PLAN_VERIFY_META = 1,		/* the header alone (fio's VERIFY_HDR_ONLY) */
	PLAN_VERIFY_MD5 = 2,
	PLAN_VERIFY_CRC64 = 3,
	PLAN_VERIFY_CRC32 = 4,
	PLAN_VERIFY_CRC32C = 5,
	PLAN_VERIFY_CRC32C_INTEL = 6,
	PLAN_VERIFY_CRC16 = 7,
	PLAN_VERIFY_CRC7 = 8,
	PLAN_VERIFY_SHA256 = 9,
	PLAN_VERIFY_SHA512 = 10,
	PLAN_VERIFY_SHA3_224 = 11,
	PLAN_VERIFY_SHA3_256 = 12,
	PLAN_VERIFY_SHA3_384 = 13,
	PLAN_VERIFY_SHA3_512 = 14,
	PLAN_VERIFY_XXHASH = 15,
	PLAN_VERIFY_SHA1 = 16,
	PLAN_VERIFY_PATTERN_HDR = 17,	/* header, then verify_pattern (verify_pattern without verify=) */
	PLAN_VERIFY_PATTERN = 18,	/* verify_pattern alone, no header (fio's PATTERN_NO_HDR) */
	PLAN_VERIFY_NULL = 19		/* read back, check nothing */
};

/* continue_on_error= as a mask of these bits. */
enum plan_coe_bits {
	PLAN_COE_READ = 1u << 0,
	PLAN_COE_WRITE = 1u << 1,
	PLAN_COE_VERIFY = 1u << 2,
	PLAN_COE_ALL = 0x7u
};

/* sync_file_range='s flags: the kernel's SYNC_FILE_RANGE_* values (fcntl.h). */
enum plan_sfr_bits {
	PLAN_SFR_WAIT_BEFORE = 1u << 0,
	PLAN_SFR_WRITE = 1u << 1,
	PLAN_SFR_WAIT_AFTER = 1u << 2
};

/* exit_what= : which jobs exitall and exitall_on_error stop. */
enum plan_exit_what {
	PLAN_EXIT_GROUP = 1u << 0,	/* the jobs of the group (fio's default) */
	PLAN_EXIT_STONEWALL = 1u << 1,	/* every job running now */
	PLAN_EXIT_ALL = 1u << 2		/* every job, running or not yet started */
};

/* numa_mem_policy= : where a job's threads allocate memory (set_mempolicy). */
enum plan_numa_mem {
	PLAN_NUMA_MEM_UNSET = 0,	/* leave the process's policy */
	PLAN_NUMA_MEM_DEFAULT,
	PLAN_NUMA_MEM_PREFER,
	PLAN_NUMA_MEM_BIND,
	PLAN_NUMA_MEM_INTERLEAVE,
	PLAN_NUMA_MEM_LOCAL
};

enum plan_repeat_aggregate {
	PLAN_AGG_MAX = 0,		/* CrystalDiskMark: best throughput, lowest latency */
	PLAN_AGG_MEDIAN,
	PLAN_AGG_MEAN,
	PLAN_AGG_MIN
};

#endif

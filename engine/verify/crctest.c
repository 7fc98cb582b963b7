/*
 * engine/verify/crctest.c - --crctest: the throughput of each verify= checksum.
 *
 * Measured as fio 3.33's `fio --crctest` measures it, so the two lists can be
 * read side by side: one 128 KiB buffer of random bytes digested 2048 times
 * (256 MiB) through the same code a verify job uses (checksum.c), timed on
 * CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/verify/checksum.h"
#include "engine/engine.h"

#define CRCTEST_CHUNK (128u * 1024u)
#define CRCTEST_ROUNDS 2048u

/* fio --crctest's order of its checksums. */
static const enum plan_verify crctest_kinds[] = {
	PLAN_VERIFY_MD5,      PLAN_VERIFY_CRC64,    PLAN_VERIFY_CRC32,    PLAN_VERIFY_CRC32C,
	PLAN_VERIFY_CRC16,    PLAN_VERIFY_CRC7,     PLAN_VERIFY_SHA1,     PLAN_VERIFY_SHA256,
	PLAN_VERIFY_SHA512,   PLAN_VERIFY_XXHASH,   PLAN_VERIFY_SHA3_224, PLAN_VERIFY_SHA3_256,
	PLAN_VERIFY_SHA3_384, PLAN_VERIFY_SHA3_512,
};

const char *eng_checksum_name(unsigned i)
{
	return i < sizeof(crctest_kinds) / sizeof(crctest_kinds[0]) ? plan_verify_name(crctest_kinds[i])
								    : NULL;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int kind_of(const char *name, enum plan_verify *kind)
{
	for (unsigned i = 0; eng_checksum_name(i); i++)
		if (!strcmp(name, eng_checksum_name(i))) {
			*kind = crctest_kinds[i];
			return 0;
		}
	return -EINVAL;
}

int eng_checksum_speed(const char *name, double *mib_per_s)
{
	uint8_t out[CSUM_AREA_MAX], *buf;
	struct csum_ctx *ctx;
	enum plan_verify kind;
	uint64_t start, x = 0x9e3779b97f4a7c15ull;
	int ret = kind_of(name, &kind);

	if (ret)
		return ret;
	ctx = calloc(1, sizeof(*ctx));
	buf = malloc(CRCTEST_CHUNK);
	if (!ctx || !buf || csum_init(ctx, kind)) {
		free(ctx);
		free(buf);
		return -ENOMEM;
	}
	for (size_t i = 0; i < CRCTEST_CHUNK; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift: incompressible bytes */
		buf[i] = (uint8_t)x;
	}
	start = mono_ns();
	for (unsigned r = 0; r < CRCTEST_ROUNDS && !ret; r++)
		ret = csum_compute(ctx, buf, CRCTEST_CHUNK, out);
	*mib_per_s = CRCTEST_ROUNDS * (CRCTEST_CHUNK / 1048576.0) /
		     ((double)(mono_ns() - start) / 1e9 + 1e-12);
	csum_release(ctx);
	free(ctx);
	free(buf);
	return ret;
}

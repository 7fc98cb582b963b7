/*
 * engine/verify/checksum.c - verify='s digests from Debian's libraries, stored as fio stores them.
 *
 * What fio 3.33 computes, checked against its crc/ sources on the same bytes:
 * - crc32c: Castagnoli, initial ~0 and no final inversion = ISA-L
 *   crc32_iscsi(buf, len, ~0).
 * - crc32: polynomial 0x04C11DB7 MSB-first, initial 0, no final xor = the
 *   inverse of ISA-L crc32_ieee seeded with ~0 (ISA-L inverts on the way in
 *   and out).
 * - crc64: polynomial 0x95AC9329AC4BC9B5 reflected (Jones), initial 0, no
 *   final xor = the inverse of ISA-L crc64_jones_refl seeded with ~0.
 * - xxhash: XXH32 with seed 1 (libxxhash).
 * - md5, sha3-*: the standard digests (libcrypto), in their usual byte order;
 *   sha1: fio keeps the five state words in host order, so each 32-bit word of
 *   the standard (big-endian) digest is stored byte-swapped.
 * - sha256 and sha512: fio 3.33's areas do not hold these digests.  Its sha256
 *   stores the low byte of each of the eight state words over the start of the
 *   last padded message block; its sha512 never finishes the hash and stores
 *   the unprocessed tail of the data, so a flipped byte anywhere before that
 *   tail goes unnoticed.  ioplan stores the real digest, then zeros to the end
 *   of the area, and checks the whole area: a flip anywhere is found, and fio
 *   and ioplan do not read each other's sha256/sha512 blocks.
 *
 * libcrypto is opened (dlopen) when a job first asks for one of its digests,
 * not linked: loading it cost every ioplan start about 3.8 ms of CPU (an
 * empty program linked with it: 6.6 ms against 2.8), and only verify= uses it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <isa-l/crc.h>
#include <isa-l/crc64.h>
#include <openssl/evp.h>
#include <xxhash.h>

#include "engine/verify/checksum.h"

enum csum_how { HOW_NONE, HOW_EVP, HOW_CRC32, HOW_CRC32C, HOW_CRC64, HOW_CRC16, HOW_CRC7, HOW_XXH32 };

struct csum_method {
	enum plan_verify kind;		/* its name: plan_verify_name() */
	enum csum_how how;
	const char *evp;		/* OpenSSL's name for HOW_EVP */
	uint32_t area;			/* fio's sizeof(struct vhdr_*) */
	uint32_t digest;
};

static const struct csum_method methods[] = {
	{ PLAN_VERIFY_NONE, HOW_NONE, NULL, 0, 0 },
	{ PLAN_VERIFY_META, HOW_NONE, NULL, 0, 0 },
	{ PLAN_VERIFY_MD5, HOW_EVP, "MD5", 16, 16 },
	{ PLAN_VERIFY_CRC64, HOW_CRC64, NULL, 8, 8 },
	{ PLAN_VERIFY_CRC32, HOW_CRC32, NULL, 4, 4 },
	{ PLAN_VERIFY_CRC32C, HOW_CRC32C, NULL, 4, 4 },
	{ PLAN_VERIFY_CRC32C_INTEL, HOW_CRC32C, NULL, 4, 4 },
	{ PLAN_VERIFY_CRC16, HOW_CRC16, NULL, 2, 2 },
	{ PLAN_VERIFY_CRC7, HOW_CRC7, NULL, 1, 1 },
	{ PLAN_VERIFY_SHA256, HOW_EVP, "SHA256", 64, 32 },
	{ PLAN_VERIFY_SHA512, HOW_EVP, "SHA512", 128, 64 },
	{ PLAN_VERIFY_SHA3_224, HOW_EVP, "SHA3-224", 28, 28 },
	{ PLAN_VERIFY_SHA3_256, HOW_EVP, "SHA3-256", 32, 32 },
	{ PLAN_VERIFY_SHA3_384, HOW_EVP, "SHA3-384", 48, 48 },
	{ PLAN_VERIFY_SHA3_512, HOW_EVP, "SHA3-512", 64, 64 },
	{ PLAN_VERIFY_XXHASH, HOW_XXH32, NULL, 4, 4 },
	{ PLAN_VERIFY_SHA1, HOW_EVP, "SHA1", 20, 20 },
	{ PLAN_VERIFY_PATTERN_HDR, HOW_NONE, NULL, 0, 0 },
	{ PLAN_VERIFY_PATTERN, HOW_NONE, NULL, 0, 0 },
	{ PLAN_VERIFY_NULL, HOW_NONE, NULL, 0, 0 },
};

/* The libcrypto calls this file makes, found in the library by name when it is opened. */
#define CRYPTO_LIB_SONAME "libcrypto.so.3"
#define CRYPTO_LIB_CALLS(X)                                                                    \
	X(EVP_MD_fetch) X(EVP_MD_free) X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestInit_ex2) \
	X(EVP_DigestUpdate) X(EVP_DigestFinal_ex)

static struct {
#define CRYPTO_LIB_PTR(f) __typeof__(f) *f;
	CRYPTO_LIB_CALLS(CRYPTO_LIB_PTR)
#undef CRYPTO_LIB_PTR
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static char lib_why[512];	/* why it could not be opened; empty once it was */

static void crypto_lib_open(void)
{
	void *h = dlopen(CRYPTO_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

	if (!h) {
		snprintf(lib_why, sizeof(lib_why), "%s", dlerror());
		return;
	}
	/* POSIX's way to a function pointer from dlsym: ISO C has no cast between the two. */
#define CRYPTO_LIB_SYM(f) \
	if (!missing && !(*(void **)&lib.f = dlsym(h, #f))) \
		missing = #f;
	CRYPTO_LIB_CALLS(CRYPTO_LIB_SYM)
#undef CRYPTO_LIB_SYM
	if (missing)
		snprintf(lib_why, sizeof(lib_why), "%s has no %s", CRYPTO_LIB_SONAME, missing);
	/* Kept open: the pointers above point into it for the rest of the process. */
}

const char *csum_library_problem(void)
{
	pthread_once(&lib_once, crypto_lib_open);
	return lib_why[0] ? lib_why : NULL;
}

static const struct csum_method *method(enum plan_verify kind)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (methods[i].kind == kind)
			return &methods[i];
	return &methods[0];
}

uint32_t csum_area(enum plan_verify kind)
{
	return method(kind)->area;
}

uint32_t csum_digest_len(enum plan_verify kind)
{
	return method(kind)->digest;
}

uint32_t csum_crc32c(const void *buf, size_t len)
{
	return crc32_iscsi((unsigned char *)buf, (int)len, ~0u);
}

int csum_init(struct csum_ctx *ctx, enum plan_verify kind)
{
	const struct csum_method *m = method(kind);

	memset(ctx, 0, sizeof(*ctx));
	ctx->kind = kind;
	if (m->how == HOW_NONE)
		return -EINVAL;
	crc16_crc7_tables(ctx->crc16_tab, ctx->crc7_tab);
	if (m->how != HOW_EVP)
		return 0;
	/* No digest by that name: OpenSSL's configuration (OPENSSL_CONF, else
	 * openssl.cnf) kept its providers from loading, not a lack of memory. */
	if (csum_library_problem())
		return -ENOPKG;
	ctx->md = lib.EVP_MD_fetch(NULL, m->evp, NULL);
	if (!ctx->md)
		return -ENOPKG;
	ctx->md_ctx = lib.EVP_MD_CTX_new();
	if (!ctx->md_ctx) {
		csum_release(ctx);
		return -ENOMEM;
	}
	return 0;
}

void csum_release(struct csum_ctx *ctx)
{
	if (ctx->md_ctx)
		lib.EVP_MD_CTX_free(ctx->md_ctx);
	if (ctx->md)
		lib.EVP_MD_free((EVP_MD *)ctx->md);
	ctx->md_ctx = NULL;
	ctx->md = NULL;
}

static int evp_digest(struct csum_ctx *ctx, const void *buf, size_t len, uint8_t *out)
{
	unsigned int n = 0;

	if (!lib.EVP_DigestInit_ex2(ctx->md_ctx, ctx->md, NULL) ||
	    !lib.EVP_DigestUpdate(ctx->md_ctx, buf, len) || !lib.EVP_DigestFinal_ex(ctx->md_ctx, out, &n))
		return -EIO;
	return 0;
}

/* fio's SHA-1 area holds its state words in host order (little-endian here). */
static void words_to_host(uint8_t *d, uint32_t len)
{
	for (uint32_t i = 0; i + 4 <= len; i += 4) {
		uint8_t t0 = d[i], t1 = d[i + 1];

		d[i] = d[i + 3];
		d[i + 1] = d[i + 2];
		d[i + 2] = t1;
		d[i + 3] = t0;
	}
}

int csum_compute(struct csum_ctx *ctx, const void *buf, size_t len, uint8_t *out)
{
	const struct csum_method *m = method(ctx->kind);
	uint64_t v = 0;

	memset(out, 0, m->area);
	switch (m->how) {
	case HOW_EVP: {
		int ret = evp_digest(ctx, buf, len, out);

		if (!ret && m->kind == PLAN_VERIFY_SHA1)
			words_to_host(out, m->digest);
		return ret;
	}
	case HOW_CRC32:
		v = ~crc32_ieee(~0u, buf, len);
		break;
	case HOW_CRC32C:
		v = csum_crc32c(buf, len);
		break;
	case HOW_CRC64:
		v = ~crc64_jones_refl(~0ull, buf, len);
		break;
	case HOW_CRC16:
		v = crc16_arc(ctx->crc16_tab, buf, len);
		break;
	case HOW_CRC7:
		v = crc7_mmc(ctx->crc7_tab, buf, len);
		break;
	case HOW_XXH32:
		v = XXH32(buf, len, 1);
		break;
	default:
		return 0;
	}
	memcpy(out, &v, m->digest);	/* fio stores the integer in host order: little-endian here */
	return 0;
}

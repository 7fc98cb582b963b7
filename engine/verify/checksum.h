/*
 * engine/verify/checksum.h - the checksums of verify=, each as fio 3.33 stores it in a block.
 *
 * One table names every method, how many bytes fio reserves for its digest
 * after the 40-byte block header (the "area"), and how the digest is made.
 * The digests come from Debian's libraries: OpenSSL's libcrypto (MD5, SHA-1,
 * SHA-2, SHA-3), ISA-L (CRC-32, CRC-32C, CRC-64) and libxxhash (XXH32); only
 * CRC-16 and CRC-7 are computed here (engine/verify/crc16_crc7.c says why).  A digest
 * is stored in the byte order fio stores it, so a block written by either tool
 * reads back clean with the other - except sha256 and sha512, whose fio 3.33
 * areas do not hold the digest (see checksum.c).
 */
#ifndef IOPLAN_ENGINE_CHECKSUM_H
#define IOPLAN_ENGINE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#include "engine/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CSUM_AREA_MAX 128u	/* sha512's area, the largest */

/* The per-worker state a digest needs (an OpenSSL context, the small CRC tables). */
struct csum_ctx {
	void *md_ctx;			/* EVP_MD_CTX, NULL until a hash method is used */
	const void *md;			/* the EVP_MD fetched once for the method */
	enum plan_verify kind;
	uint16_t crc16_tab[256];
	uint8_t crc7_tab[256];
};

/*
 * Sets up ctx for kind: 0, -EINVAL for a kind without a checksum, -ENOMEM, or
 * -ENOPKG when OpenSSL has no such digest (csum_library_problem() says why when
 * libcrypto itself could not be opened; else its configuration failed to load).
 */
int csum_init(struct csum_ctx *ctx, enum plan_verify kind);
void csum_release(struct csum_ctx *ctx);

/* Why libcrypto (opened on first use) cannot be used, or NULL: it is open. */
const char *csum_library_problem(void);

/* Bytes fio reserves after the header for kind's digest (0 for meta, pattern, null). */
uint32_t csum_area(enum plan_verify kind);

/* Bytes of that area the digest fills (the rest is written as zeros and checked). */
uint32_t csum_digest_len(enum plan_verify kind);

/*
 * Digest of len bytes into out[csum_area(kind)]: the digest in fio's byte
 * order, then zeros to the end of the area.  0 or -EIO when the library fails.
 */
int csum_compute(struct csum_ctx *ctx, const void *buf, size_t len, uint8_t *out);

/* fio's crc32c (initial value ~0, no final inversion), which also guards each header. */
uint32_t csum_crc32c(const void *buf, size_t len);

/* Hand-written (crc16_crc7.c): fio's CRC-16 (poly 0x8005, reflected) and CRC-7 (poly 0x09). */
void crc16_crc7_tables(uint16_t crc16_tab[256], uint8_t crc7_tab[256]);
uint16_t crc16_arc(const uint16_t tab[256], const void *buf, size_t len);
uint8_t crc7_mmc(const uint8_t tab[256], const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_CHECKSUM_H */

/*
 * engine/verify/crc16_crc7.c - CRC-16 and CRC-7 as fio 3.33's verify=crc16 and verify=crc7 define them.
 *
 * Hand-written because no Debian library computes these two: ISA-L has CRC-16
 * only with the T10-DIF polynomial (0x8BB7), zlib and OpenSSL have no 16- or
 * 7-bit CRC, and libcrc is not packaged.  fio's crc16 is CRC-16/ARC (polynomial
 * 0x8005 bit-reflected to 0xA001, initial value 0, no final xor: check value
 * 0xBB3D for "123456789"); its crc7 is CRC-7/MMC (polynomial 0x09, initial 0,
 * not reflected: check value 0x75).  Both are byte-at-a-time table CRCs; the
 * tables are built from the polynomials into the caller's context, so the
 * engine keeps no global state.
 */
#include "engine/verify/checksum.h"

#define CRC16_ARC_POLY 0xa001u	/* 0x8005 reflected */
#define CRC7_POLY_LEFT 0x12u	/* 0x09 aligned to the top of a byte: x^7 sits past bit 7 */

void crc16_crc7_tables(uint16_t crc16_tab[256], uint8_t crc7_tab[256])
{
	for (unsigned i = 0; i < 256; i++) {
		unsigned c16 = i, c7 = i;

		for (int k = 0; k < 8; k++) {
			c16 = c16 & 1u ? (c16 >> 1) ^ CRC16_ARC_POLY : c16 >> 1;
			c7 = c7 & 0x80u ? ((c7 << 1) ^ CRC7_POLY_LEFT) & 0xffu : (c7 << 1) & 0xffu;
		}
		crc16_tab[i] = (uint16_t)c16;
		crc7_tab[i] = (uint8_t)c7;	/* the 7-bit remainder, shifted left by one */
	}
}

uint16_t crc16_arc(const uint16_t tab[256], const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint16_t c = 0;

	while (len--)
		c = (uint16_t)((c >> 8) ^ tab[(c ^ *p++) & 0xffu]);
	return c;
}

uint8_t crc7_mmc(const uint8_t tab[256], const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint8_t c = 0;	/* kept shifted left by one, so a byte lines up with the table */

	while (len--)
		c = tab[c ^ *p++];
	return (uint8_t)(c >> 1);
}

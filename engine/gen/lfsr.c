/*
 * engine/gen/lfsr.c - fio's lfsr (lfsr.h).
 *
 * The taps are the published maximal-length XNOR register taps, one row per
 * width (3 to 63 bits), 1-based bit positions as tables give them.
 */
#include "engine/gen/lfsr.h"

#include <errno.h>

#define LFSR_TAPS_MAX 6

static const uint8_t lfsr_taps[64][LFSR_TAPS_MAX] = {
	[3] = {3, 2}, [4] = {4, 3}, [5] = {5, 3}, [6] = {6, 5}, [7] = {7, 6},
	[8] = {8, 6, 5, 4}, [9] = {9, 5}, [10] = {10, 7}, [11] = {11, 9},
	[12] = {12, 6, 4, 1}, [13] = {13, 4, 3, 1}, [14] = {14, 5, 3, 1},
	[15] = {15, 14}, [16] = {16, 15, 13, 4}, [17] = {17, 14}, [18] = {18, 11},
	[19] = {19, 6, 2, 1}, [20] = {20, 17}, [21] = {21, 19}, [22] = {22, 21},
	[23] = {23, 18}, [24] = {24, 23, 22, 17}, [25] = {25, 22},
	[26] = {26, 6, 2, 1}, [27] = {27, 5, 2, 1}, [28] = {28, 25}, [29] = {29, 27},
	[30] = {30, 6, 4, 1}, [31] = {31, 28}, [32] = {32, 31, 29, 1}, [33] = {33, 20},
	[34] = {34, 27, 2, 1}, [35] = {35, 33}, [36] = {36, 25},
	[37] = {37, 5, 4, 3, 2, 1}, [38] = {38, 6, 5, 1}, [39] = {39, 35},
	[40] = {40, 38, 21, 19}, [41] = {41, 38}, [42] = {42, 41, 20, 19},
	[43] = {43, 42, 38, 37}, [44] = {44, 43, 18, 17}, [45] = {45, 44, 42, 41},
	[46] = {46, 45, 26, 25}, [47] = {47, 42}, [48] = {48, 47, 21, 20},
	[49] = {49, 40}, [50] = {50, 49, 24, 23}, [51] = {51, 50, 36, 35},
	[52] = {52, 49}, [53] = {53, 52, 38, 37}, [54] = {54, 53, 18, 17},
	[55] = {55, 31}, [56] = {56, 55, 35, 34}, [57] = {57, 50}, [58] = {58, 39},
	[59] = {59, 58, 38, 37}, [60] = {60, 59}, [61] = {61, 60, 46, 45},
	[62] = {62, 61, 6, 5}, [63] = {63, 62},
};

int lfsr_init(struct lfsr *l, uint64_t nblocks, uint64_t seed)
{
	uint32_t width = 3;

	/* The all-ones state is the register's forbidden one: 2^width must exceed the count. */
	while (width < 64 && (1ull << width) <= nblocks)
		width++;
	if (!nblocks || width == 64)
		return -EINVAL;
	l->max = nblocks - 1;
	l->xormask = 0;
	for (uint32_t i = 0; i < LFSR_TAPS_MAX && lfsr_taps[width][i]; i++)
		l->xormask |= 1ull << (lfsr_taps[width][i] - 1);
	l->top = 1ull << (width - 1);
	l->twice = true;
	lfsr_reset(l, seed);
	/* From the forbidden state the register never moves: fio refuses the seed too. */
	return l->last == (l->top << 1) - 1 ? -EINVAL : 0;
}

void lfsr_reset(struct lfsr *l, uint64_t seed)
{
	l->given = 0;
	l->last = seed & ((l->top << 1) - 1);
}

static void lfsr_step(struct lfsr *l)
{
	uint64_t v = l->last;

	/* Shift in a one; an even register also flips its taps (XNOR feedback). */
	l->last = ((v >> 1) | l->top) ^ ((v & 1) ? 0 : l->xormask);
}

bool lfsr_next(struct lfsr *l, uint64_t *block)
{
	if (l->given++ > l->max)
		return false;
	do {
		lfsr_step(l);
		if (l->twice) {
			lfsr_step(l);
			l->twice = false;
		}
	} while (l->last > l->max);
	*block = l->last;
	return true;
}

/*
 * tests/engine/gen_paths.c - a generator driven both ways from C: the short way
 * gen_init chose for a plain random job, and the general way forced, over the
 * same job and seeds.  C because engine/gen/iogen.h is C11 (stdatomic.h) that
 * C++ cannot include; tests/engine/test_iogen.cpp calls in.
 */
#include <stdbool.h>
#include <stdint.h>

#include "engine/gen/iogen.h"

/*
 * Draws up to n I/Os (the mix decides each direction) from two generators over
 * a region of region_len bytes starting at 1 MiB, the second with the short way
 * turned off.  Returns the I/Os both drew before they ended together, or
 * -(1 + i) when they first disagree at I/O i; *fast says whether gen_init chose
 * the short way.  A setup failure returns INT64_MIN.
 */
int64_t t_gen_paths(const struct plan_job *j, const struct plan_clone *c, uint64_t region_len,
		    bool time_based, uint32_t n, bool *fast)
{
	struct gen a, b;
	uint64_t start = 1 << 20;
	int64_t out = 0;

	if (gen_init(&a, j, c, &start, &region_len, NULL, 1, NULL))
		return INT64_MIN;
	if (gen_init(&b, j, c, &start, &region_len, NULL, 1, NULL)) {
		gen_release(&a);
		return INT64_MIN;
	}
	*fast = a.fast;
	b.fast = false;
	gen_window(&a, time_based);
	gen_window(&b, time_based);
	for (uint32_t i = 0; i < n; i++, out++) {
		struct gen_io x = { 0 }, y = { 0 };
		bool more_a = gen_next(&a, &x), more_b = gen_next(&b, &y);

		if (more_a != more_b || x.offset != y.offset || x.len != y.len || x.ddir != y.ddir ||
		    x.file != y.file) {
			out = -(int64_t)i - 1;
			break;
		}
		if (!more_a)
			break;
	}
	gen_release(&a);
	gen_release(&b);
	return out;
}

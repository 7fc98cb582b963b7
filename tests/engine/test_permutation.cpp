// tests/engine/test_permutation.cpp - the random map's replacement (offsets.h):
// each pass visits every block of [0, n) exactly once, in the order the keyed
// bijection of [0, 2^k) walked and kept, whatever n is.  perm_next takes two
// candidates at once to keep its branch predictable; the order must not change.
#include <doctest/doctest.h>

#include <vector>

extern "C" {
#include "engine/gen/offsets.h"
#include "engine/gen/rng.h"
}

// The walk as written once: every counter value in turn, kept when inside.
static std::vector<uint64_t> walked_pass(const perm &p)
{
    std::vector<uint64_t> out;
    for (uint64_t i = 0; out.size() < p.n; i++) {
        uint64_t x = perm_mix(&p, i);
        if (x < p.n)
            out.push_back(x);
    }
    return out;
}

TEST_CASE("permutation: each pass is the walk's order, every block once, at any n")
{
    // Powers of two, just past one (half the counter outside), and between.
    for (uint64_t n : {1ull, 2ull, 3ull, 5ull, 64ull, 65ull, 1000ull, 4096ull, 4097ull, 100003ull}) {
        uint64_t rng = rng_seed(7, n);
        perm p;
        perm_init(&p, n, &rng);
        for (int pass = 0; pass < 3; pass++) {
            std::vector<uint64_t> want = walked_pass(p), got;
            std::vector<bool> seen(n);
            while (p.left)
                got.push_back(perm_next(&p));
            CAPTURE(n);
            CAPTURE(pass);
            REQUIRE(got == want);
            for (uint64_t b : got) {
                CHECK(!seen[b]);
                seen[b] = true;
            }
            CHECK(p.i <= p.mask + 1);   // never past the counter's range
            perm_new_pass(&p, &rng);
        }
    }
}

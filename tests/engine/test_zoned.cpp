// tests/engine/test_zoned.cpp - random_distribution=zoned / zoned_abs: the share
// of I/Os each zone gets, and that every pick stays inside its zone.
#include <doctest/doctest.h>

#include <cerrno>

extern "C" {
#include "engine/gen/offsets.h"
#include "engine/gen/rng.h"
}

TEST_CASE("zoned: 90% of the I/Os land in the first 10% of the blocks")
{
    plan_rand_zone z[2] = {{90, 10, 0}, {10, 90, 0}};
    dist d;
    REQUIRE(dist_init_zones(&d, 10000, 4096, z, 2) == 0);
    uint64_t rng = rng_seed(42, 1), hot = 0, n = 200000;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b = dist_next(&d, &rng);
        REQUIRE(b < 10000);
        hot += b < 1000;
    }
    CHECK((double)hot / (double)n == doctest::Approx(0.90).epsilon(0.01));
}

TEST_CASE("zoned_abs: zones in bytes; impossible zones are refused")
{
    plan_rand_zone z[2] = {{50, 0, 1 << 20}, {50, 0, 3 << 20}};
    dist d;
    REQUIRE(dist_init_zones(&d, 1024, 4096, z, 2) == 0); // 4 MiB of 4 KiB blocks
    uint64_t rng = rng_seed(7, 1), first = 0;
    for (int i = 0; i < 100000; i++)
        first += dist_next(&d, &rng) < 256;
    CHECK(first / 100000.0 == doctest::Approx(0.5).epsilon(0.02));
    plan_rand_zone too_big[1] = {{100, 0, 8 << 20}};
    CHECK(dist_init_zones(&d, 1024, 4096, too_big, 1) == -EINVAL);
    plan_rand_zone not_100[2] = {{50, 10, 0}, {40, 90, 0}};
    CHECK(dist_init_zones(&d, 1024, 4096, not_100, 2) == -EINVAL);
}

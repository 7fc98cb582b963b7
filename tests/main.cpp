// tests/main.cpp - the doctest runner for every unit test under tests/.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

// tests/engine/flip_byte.hpp - the verify tests' one way to corrupt a file:
// one byte at an offset XORed, so a checksum or pattern must catch it.
#ifndef IOPLAN_TESTS_ENGINE_FLIP_BYTE_HPP
#define IOPLAN_TESTS_ENGINE_FLIP_BYTE_HPP

#include <doctest/doctest.h>
#include <fcntl.h>
#include <string>
#include <unistd.h>

inline void flip_byte(const std::string &path, off_t at)
{
	int fd = open(path.c_str(), O_RDWR);
	REQUIRE(fd >= 0);
	unsigned char c = 0;
	REQUIRE(pread(fd, &c, 1, at) == 1);
	c ^= 0x5a;
	REQUIRE(pwrite(fd, &c, 1, at) == 1);
	close(fd);
}

#endif

// cli/main.cpp - ioplan's entry point: arguments -> parser -> engine -> report.
//
// The only code that calls every stage.  This first version knows only
// --version; the job language lands with the parser (issue 2).
#include <cstdio>
#include <cstring>

int main(int argc, char **argv)
{
	if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
		std::printf("ioplan-%s\n", IOPLAN_VERSION);
		return 0;
	}
	std::fprintf(stderr, "ioplan: error: no job language yet\n");
	return 2;
}

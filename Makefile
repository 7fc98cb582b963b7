# Makefile - builds ioplan, installs its build/test dependencies, runs every test.
#
# The two commands a newcomer needs (README.md):
#   make run    install missing packages (as root), build, run the default preset
#   make test   the same set-up, then every test
#
# Variants: `make test SANITIZE=address,undefined` or `SANITIZE=thread` build into
# build/<variant>/ and run the same suites against that binary.  Nothing here is
# specific to one machine: a clean Debian 12 clone needs only these targets.
# `make test` is what CI (.ci/run) runs: the release build; its unit tests and
# every e2e module in one pool (tests/e2e/run.py), the modules that drive the
# parsers, engines, verification, logs and replay (SANITIZE_E2E) against the
# engine built with ASan+UBSan (build/engine-sanitized, see below), and the
# engine's unit tests under ASan too; the generated-file and layering checks; a
# short fuzz of every reader.  `make test-full` adds the whole program built with
# ASan+UBSan running the whole suite (`make test-sanitize`): run it before a
# release and report.  `make suite` runs one build's suite alone (the release
# one, or SANITIZE=...'s), for a quick loop.  `make test-loaded` runs `make test`
# RUNS times (5) with every core kept busy (tests/loaded.sh).

CC  ?= gcc
CXX ?= g++
PREFIX ?= /usr/local
VERSION := 0.1.0

comma := ,
SANITIZE ?=
ifeq ($(SANITIZE),)
  VARIANT := release
  SANFLAGS :=
  # Line tables only: backtraces, perf and gdb's `bt` name functions and lines,
  # and the build takes 30% less time than with full -g (DEBUG=-g for that).
  DEBUG ?= -g1
  OPT := -O2 $(DEBUG)
else
  VARIANT := $(subst $(comma),-,$(SANITIZE))
  # A finding must fail the suite, not scroll past: UBSan recovers by default.
  SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
  OPT := -O1 -g
  # clang builds the instrumented variants in half g++'s time, which is what
  # lets CI run them inside its budget; CC=/CXX= on the command line still win.
  ifeq ($(origin CC),default)
    CC := clang
  endif
  ifeq ($(origin CXX),default)
    CXX := clang++
  endif
endif

# Sub-makes that build use every core unless -j was given.
NPROC := $(shell nproc 2>/dev/null || echo 2)
JOBS := $(if $(findstring -j,$(MAKEFLAGS)),,-j$(NPROC))

B := build/$(VARIANT)
T_IO_URING := build/fio-build/t/io_uring
BIN := $(if $(SANITIZE),$(B)/ioplan,ioplan)

WARN := -Wall -Wextra -Wshadow -Wno-unused-parameter -Werror
CPPFLAGS := -I. -D_GNU_SOURCE -DIOPLAN_VERSION='"$(VERSION)"' \
	-DIOPLAN_DATADIR='"$(PREFIX)/share/ioplan"' -DTOML_HEADER_ONLY=0 -DTOML_SHARED_LIB=1
CFLAGS := -std=c11 $(OPT) $(WARN) -MMD -MP $(SANFLAGS)
CXXFLAGS := -std=c++17 $(OPT) $(WARN) -MMD -MP $(SANFLAGS)
LDFLAGS := $(SANFLAGS)
LDLIBS := -ltomlplusplus -lyaml-cpp -luring -laio -lnettle -lisal -lxxhash -lnuma -lsqlite3 -lpthread -lm -lz

# The nbd engine is built where pkg-config finds libnbd; elsewhere nbd.c builds
# only a stub --enghelp lists as unavailable, instead of the build failing.  Not
# linked: nbd.c opens libnbd when a run first asks for the engine (why: its header).
HAVE_LIBNBD := $(shell pkg-config --exists libnbd 2>/dev/null && echo 1)
ifeq ($(HAVE_LIBNBD),1)
  CPPFLAGS += -DIOPLAN_HAVE_LIBNBD $(shell pkg-config --cflags libnbd)
endif

# Sources, by directory and one level of sub-folders; new files need no Makefile change.
# ENGINE_C: every C source, the engine's and the parser's trace readers (parser/iolog/).
ENGINE_C  := $(sort $(wildcard engine/*.c engine/*/*.c parser/*/*.c))
PARSER_CC := $(sort $(wildcard parser/*.cpp parser/*/*.cpp))
REPORT_CC := $(sort $(wildcard report/*.cpp report/*/*.cpp))
RESULTS_CC := $(sort $(wildcard results/*.cpp))
CLI_CC    := $(sort $(filter-out cli/main.cpp,$(wildcard cli/*.cpp cli/*/*.cpp)))
TEST_CC   := $(sort $(filter-out tests/fuzz/%,$(wildcard tests/*.cpp tests/*/*.cpp)))

LIB_OBJS := $(ENGINE_C:%.c=$(B)/%.o) $(PARSER_CC:%.cpp=$(B)/%.o) \
	$(REPORT_CC:%.cpp=$(B)/%.o) $(RESULTS_CC:%.cpp=$(B)/%.o) $(CLI_CC:%.cpp=$(B)/%.o)
TEST_OBJS := $(TEST_CC:%.cpp=$(B)/%.o)
# The unit tests' own C: drives engine internals whose headers C++ cannot include.
TEST_C    := $(sort $(wildcard tests/engine/*.c))
TEST_C_OBJS := $(TEST_C:%.c=$(B)/%.o)
LIB := $(B)/libioplan.a
UNIT := $(B)/unit_tests

# Debian packages the build and the tests need (see `make deps`).  Installed without
# their Recommends (blktrace's would pull in ffmpeg): what a test uses is listed here,
# e.g. fonts-liberation for gnuplot's PNG text, bsdextrautils for hexdump and time
# (GNU time: the benches read a child's peak RSS from it), valgrind for the instruction
# counts (a preflight test, the benches' per-I/O rows).
DEB_PACKAGES := g++ make pkg-config libtomlplusplus-dev libyaml-cpp-dev libaio-dev \
	liburing-dev tao-pegtl-dev doctest-dev nlohmann-json3-dev fio python3 \
	python3-jsonschema jq gnuplot-nox mandoc man-db fonts-liberation bsdextrautils e2fsprogs xfsprogs btrfs-progs bsdutils \
	clang libclang-rt-14-dev libnbd-dev nbdkit \
	zlib1g-dev python3-pandas python3-numpy \
	libssl-dev nettle-dev libisal-dev libxxhash-dev libnuma-dev blktrace \
	openmpi-bin libopenmpi-dev python3-scipy chromium python3-pil libsqlite3-dev time valgrind
PYTHON := /usr/bin/python3

.PHONY: fio-examples all deps run test test-full test-pool test-fuzz engine-sanitized test-loaded test-sanitize suite unit e2e check check-generated check-layering check-clang generate \
	golden-update bench bench-mpi bench-parse-growth fuzz install install-files install-links clean distclean

all: $(BIN)

$(BIN): $(B)/cli/main.o $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# ---- MPI module (cli/mpi/mpi_module.h says why a module) -------------------------
# Built with the system MPI's own compiler wrapper next to the binary, where
# cli/mpi/mpi.cpp looks for it under mpirun; without mpicc it is simply left out
# (ioplan then says so under mpirun and exits 2).  ioplan itself never links libmpi.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPI_MODULE := $(dir $(BIN))ioplan-mpi.so
ifneq ($(MPICC),)
all: $(MPI_MODULE)
endif
$(MPI_MODULE): cli/mpi/module.c cli/mpi/mpi_module.h
	$(MPICC) -I. -D_GNU_SOURCE -std=c11 $(OPT) $(WARN) -fPIC -shared -o $@ $<

# 64 oversubscribed ranks on the null engine: barrier skew and merge cost
# (README "Many hosts").  Slow and machine-bound: not part of `make test`.
bench-mpi: all
	IOPLAN_BIN=$(CURDIR)/$(BIN) $(PYTHON) bench/mpi_scale.py $(BENCH_ARGS)

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The per-I/O loop and the generator it calls: -O3 lets gcc inline the reap and
# the generator's short way into the loop, about 5% fewer instructions per null
# I/O (bench's null rows).  The rest stays at -O2, which builds faster.
ifeq ($(SANITIZE),)
$(B)/engine/worker/worker_io.o $(B)/engine/gen/iogen.o: CFLAGS += -O3
endif

$(B)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c -o $@ $<

# The reports, the results store and the command line: C++ that runs once a run
# or a report, never per I/O, at -O1.  Their 76 files took 198 s of CPU at -O2
# and 157 s at -O1 (2 cores, 116 s and 96 s of wall); make test builds them on
# every clean clone.  The parser, which big job files time (make bench), keeps -O2.
ifeq ($(SANITIZE),)
$(REPORT_CC:%.cpp=$(B)/%.o) $(RESULTS_CC:%.cpp=$(B)/%.o) $(CLI_CC:%.cpp=$(B)/%.o) $(B)/cli/main.o: CXXFLAGS += -O1
endif

# The unit tests' own C++ (doctest cases, template-heavy, run once) at -Og: a
# third of the release build's time went to them.  Their 74 objects and the link
# took 1 min 9 s at -Og against 1 min 28 s at -O2 (make -j2, 2 cores).  What they
# test, the engine, parser and reports in $(LIB), keeps the release flags.
ifeq ($(SANITIZE),)
$(TEST_OBJS): CXXFLAGS += -Og
endif

$(UNIT): $(TEST_OBJS) $(TEST_C_OBJS) $(LIB) $(B)/tests/contract/plan_c11.o
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The plan contract must stay plain C11: compiled -pedantic -Werror and linked
# into the C++17 unit tests, which call into it.
$(B)/tests/contract/plan_c11.o: tests/contract/plan_c11.c engine/plan.h engine/results.h
	@mkdir -p $(dir $@)
	$(CC) -I. -D_GNU_SOURCE -std=c11 -pedantic -Werror $(WARN) $(SANFLAGS) -c -o $@ $<

# ---- the engine instrumented, for make test ----------------------------------
# The C engine, where memory is managed by hand, built with ASan+UBSan and linked
# with the release build's C++ objects (parser, report, results, cli and the unit
# tests): an instrumented binary and unit tests for about 40 s of CPU, where a
# second whole build costs 8 minutes of a 2-core machine.  gcc, like the release
# objects, so one sanitizer runtime serves both.  The C++ side is instrumented by
# make fuzz (the readers) and make test-sanitize (everything).
CHK := build/engine-sanitized
CHK_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CHK_OBJS := $(ENGINE_C:%.c=$(CHK)/%.o)
CHK_BIN := $(CHK)/ioplan
CHK_UNIT := $(CHK)/unit_tests
CXX_LIB_OBJS := $(filter-out $(ENGINE_C:%.c=$(B)/%.o),$(LIB_OBJS))

$(CHK)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=c11 -O1 -g $(WARN) -MMD -MP $(CHK_FLAGS) -c -o $@ $<

$(CHK)/libioplan.a: $(CHK_OBJS) $(CXX_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(CHK_BIN): $(B)/cli/main.o $(CHK)/libioplan.a
	$(CXX) $(CHK_FLAGS) -o $@ $^ $(LDLIBS)

$(CHK_UNIT): $(TEST_OBJS) $(TEST_C:%.c=$(CHK)/%.o) $(CHK)/libioplan.a $(B)/tests/contract/plan_c11.o
	$(CXX) $(CHK_FLAGS) -o $@ $^ $(LDLIBS)

# Found next to the binary under mpirun, as the release one is.
$(CHK)/ioplan-mpi.so: $(MPI_MODULE)
	@mkdir -p $(dir $@)
	cp $< $@

engine-sanitized: $(CHK_BIN) $(CHK_UNIT) $(if $(MPICC),$(CHK)/ioplan-mpi.so)

# ---- set-up -----------------------------------------------------------------

# Installs what is missing with apt-get when root; a quick no-op when all is there.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "make deps: missing Debian packages:$$(echo $$missing | tr '\n' ' ')" >&2; \
		echo "make deps: run as root, or: sudo apt-get install -y $$(echo $$missing | tr '\n' ' ')" >&2; \
		exit 1; \
	fi; \
	echo "make deps: installing $$(echo $$missing | tr '\n' ' ')"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get install -y -q --no-install-recommends $$missing >/dev/null 2>&1 || \
		{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $$missing; }

# ---- run and test -------------------------------------------------------------

RUN_DIR ?= $(CURDIR)/build/scratch
run: deps
	@$(MAKE) --no-print-directory $(JOBS) all
	@mkdir -p $(RUN_DIR)
	./$(BIN) --preset=default --directory=$(RUN_DIR)
	@echo
	@echo "ioplan is built.  Run it from here as ./$(BIN) (./$(BIN) --presets, ./$(BIN) --help),"
	@echo "or put it on the PATH with: sudo make install   (PREFIX=$(PREFIX); then: ioplan --presets)"

# A smoke run of each reader (thousands of inputs each), built at -O0 (tests/fuzz/fuzz.mk);
# make fuzz runs a minute each at -O1.  4 s each, one per core at a time: make test's
# 15-minute budget on 2 cores had 11 s left at 5 s each, one at a time.
TEST_FUZZ_SECONDS ?= 4
TEST_SANITIZE ?= address,undefined
# The modules make test runs against the instrumented engine (and not the
# release binary): hostile input, every engine, verification, logs, replay,
# DISKSPD, failures.  The timing measurements, the fio differential corpus and
# the three job syntaxes run against the release binary, the build users run:
# test_parse_syntaxes only parses (317 --showplan and convert runs, none
# reaching the engine, and the C++ parser is not instrumented in this build;
# the fuzz stage is where it is), and run alone it took 41 s against the
# instrumented engine, 8 s against the release binary (ASan's start-up and
# leak check, 0.12 s a run).  So do test_bad_job_files (refused by the parser
# before the engine: 4.7 s of CPU instrumented, 1.0 s not) and
# test_report_json_text (the C++ JSON writer: 5.5 s against 3.9 s).
SANITIZE_E2E ?= test_bad_input.py test_verify_failures.py test_run_faults.py \
	test_report_output_faults.py test_verify.py test_iolog.py test_logs.py test_engines.py \
	test_engines_local.py test_engines_remote.py test_run.py test_diskspd.py
ifeq ($(SANITIZE),)
test: deps fio-examples
	@$(MAKE) --no-print-directory $(JOBS) all $(UNIT) engine-sanitized
	@$(MAKE) --no-print-directory test-pool check-layering check-generated check-clang
	@$(MAKE) --no-print-directory test-fuzz
else
test: suite
endif

# One pool: both unit-test binaries and every e2e module, the SANITIZE_E2E ones
# against the instrumented engine.  The instrumented unit binary leaves out the
# report tests (CHK_UNIT_TESTS): they drive the C++ writers, which this build does
# not instrument, over fixtures, and were 10 of its 26 s of CPU; the release
# binary runs them.
CHK_UNIT_TESTS ?= --source-file-exclude=*tests/report/*
test-pool:
	IOPLAN_BIN=$(CURDIR)/$(BIN) IOPLAN_VARIANT=$(VARIANT) $(PYTHON) tests/e2e/run.py -j $(E2E_JOBS) \
		--unit $(UNIT) --unit "$(CHK_UNIT) $(CHK_UNIT_TESTS)" --instrumented $(CHK_BIN) \
		--instrumented-modules "$(SANITIZE_E2E)" --durations build/e2e-durations.json

# make test's fuzz stage, after the pool: its output goes to a log, shown when it
# fails.  Beside the pool (make -j2) make test took 12 min 48 s to 13 min 43 s
# from a fresh clone, after it 13 min 8 s to 13 min 47 s: little gained.  The
# extra load failed 4 of 7 runs there, each on another test that held only on a
# less loaded machine (a thinktime bound, log_unix_epoch's base, the harness's
# kill, a bench SIGTERM wait, a nowait read of a cold file: all fixed since), and
# each fuzz target ran 3 to 13 times fewer inputs a second.  So it stays after.
test-fuzz:
	@mkdir -p build
	@if $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) FUZZ_OPT=-O0 FB=build/fuzz-smoke \
		>build/fuzz-test.log 2>&1; then \
		grep -E '^fuzz:|number_of_executed_units' build/fuzz-test.log; \
	else \
		tail -n 60 build/fuzz-test.log; \
		echo "make test: the fuzz stage failed; its whole output is in build/fuzz-test.log" >&2; \
		exit 1; \
	fi

# make test, then the whole program built with ASan+UBSan running the whole suite.
test-full: test
	@$(MAKE) --no-print-directory test-sanitize

# make test again and again (RUNS=5) with a busy process on every core: the
# suite must pass on a loaded machine, not only on an idle one.
RUNS ?= 5
test-loaded:
	@RUNS=$(RUNS) MAKE="$(MAKE)" sh tests/loaded.sh

# The whole suite on the whole program built instrumented (clang: half g++'s
# time); part of make test-full.
test-sanitize:
	@$(MAKE) --no-print-directory suite SANITIZE=$(TEST_SANITIZE)

suite: deps fio-examples
	@$(MAKE) --no-print-directory $(JOBS) all $(UNIT)
	@$(MAKE) --no-print-directory check

check: unit e2e check-layering check-generated check-clang

unit: $(UNIT)
	$(UNIT) --no-intro=true

# Three modules per core: a module mostly waits (timed runs, servers, devices).
# At two per core the pool left a quarter of 2 cores idle (870 s of CPU in
# 595 s).  From a fresh clone make test took 15 min 21 s at two per core, and
# 13 min 56 s at three with test_mpi's minute of waiting gone too (the pool
# 9 min 16 s, then 7 min 58 s; 2026-12-01).
E2E_JOBS ?= $(shell echo $$(( $(NPROC) * 3 )))
E2E_MODULES ?=
e2e: $(BIN)
	IOPLAN_BIN=$(CURDIR)/$(BIN) IOPLAN_VARIANT=$(VARIANT) $(PYTHON) tests/e2e/run.py -j $(E2E_JOBS) \
		--durations build/e2e-durations.json $(E2E_MODULES)

# Who may include what (docs/architecture.md, "Layering").
check-layering:
	@$(PYTHON) tests/check_layering.py

# The instrumented variants (SANITIZE=..., make test-sanitize) build with clang,
# whose -Werror warnings are not gcc's: a gcc-only construct (a flexible array
# member not at a struct's end) broke them unseen, as make test builds with gcc.
# Every C file is checked by clang here, about 8 s of CPU; the C++, which only
# fuzzing and the instrumented variants compile with clang, would take minutes.
check-clang:
	@echo "check-clang: $(words $(ENGINE_C)) C files"
	@printf '%s\n' $(ENGINE_C) | xargs -P $(NPROC) -n 20 clang $(CPPFLAGS) -std=c11 $(WARN) -fsyntax-only

# Generated files are committed; this fails when one is stale.
# Both build what they run on every CPU (from a clean tree, serially, the unit tests
# alone took minutes more).
check-generated:
	@$(MAKE) --no-print-directory $(JOBS) $(BIN) $(UNIT)
	@IOPLAN_BIN=$(CURDIR)/$(BIN) IOPLAN_UNIT=$(CURDIR)/$(UNIT) $(PYTHON) tests/generate.py --check

generate:
	@$(MAKE) --no-print-directory $(JOBS) $(BIN) $(UNIT)
	@IOPLAN_BIN=$(CURDIR)/$(BIN) IOPLAN_UNIT=$(CURDIR)/$(UNIT) $(PYTHON) tests/generate.py --write

# Rewrites the golden files (tests/golden/: report/, diskspd/, presets/) from what the code prints now:
# review the diff, then commit.  Unit-level goldens first, then any e2e ones.
golden-update: $(BIN) $(UNIT)
	IOPLAN_GOLDEN_UPDATE=1 $(UNIT) --no-intro=true --test-case='golden:*'
	@if ls tests/e2e/test_*golden*.py >/dev/null 2>&1; then \
		IOPLAN_BIN=$(CURDIR)/$(BIN) IOPLAN_GOLDEN_UPDATE=1 $(PYTHON) tests/e2e/run.py -k golden; fi

bench: deps $(T_IO_URING)
	@$(MAKE) --no-print-directory $(JOBS) all
	IOPLAN_BIN=$(CURDIR)/$(BIN) $(PYTHON) bench/bench.py $(BENCH_ARGS)

# The growth curve of --parse-only against fio (N job sections: time and peak RSS),
# as a table and the plot docs/parse-growth.svg drawn from it.
bench-parse-growth: deps
	@$(MAKE) --no-print-directory $(JOBS) all
	IOPLAN_BIN=$(CURDIR)/$(BIN) $(PYTHON) bench/parse_growth.py --data docs/parse-growth.tsv \
		--plot docs/parse-growth.svg $(BENCH_ARGS)

FUZZ_SECONDS ?= 60
fuzz: deps
	@$(MAKE) --no-print-directory $(JOBS) -f tests/fuzz/fuzz.mk FUZZ_SECONDS=$(FUZZ_SECONDS)

# install: the binary, the MPI module, the presets, the man pages and the docs under
# $(DESTDIR)$(PREFIX); ioplan finds its presets relative to its own path
# (PREFIX/bin -> PREFIX/share/ioplan/jobs), so a DESTDIR tree moved into place works.
# install-files does the copying alone (no build), for packaging and tests.
install: all
	@$(MAKE) --no-print-directory install-files

install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/ioplan/jobs \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/doc/ioplan/docs
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ioplan
	if [ -f $(MPI_MODULE) ]; then install -d $(DESTDIR)$(PREFIX)/lib/ioplan && \
		install -m 755 $(MPI_MODULE) $(DESTDIR)$(PREFIX)/lib/ioplan/ioplan-mpi.so; fi
	install -m 644 jobs/* $(DESTDIR)$(PREFIX)/share/ioplan/jobs/
	install -m 644 man/ioplan.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/ioplan-job.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 LICENSE README.md $(DESTDIR)$(PREFIX)/share/doc/ioplan/
	install -m 644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/ioplan/docs/

# Optional: `fio` and `diskspd` beside ioplan, so fio's clients and DISKSPD
# scripts run it.  A real fio (or diskspd) already there is left alone.
install-links:
	@cd $(DESTDIR)$(PREFIX)/bin && for n in fio diskspd; do \
		if [ -e $$n ] && [ "$$(readlink $$n)" != ioplan ]; then \
			echo "install-links: $(DESTDIR)$(PREFIX)/bin/$$n exists and is not ioplan: left alone" >&2; \
		else ln -sf ioplan $$n && echo "$(DESTDIR)$(PREFIX)/bin/$$n -> ioplan"; fi; done

clean:
	rm -rf build ioplan ioplan-mpi.so

-include $(shell find $(B) $(if $(SANITIZE),,$(CHK)) -name '*.d' 2>/dev/null)

# fio 3.33's own example job files (a test corpus for the INI reader and the engine
# tests) and its log tools tools/fiologparser.py and tools/hist/fiologparser_hist.py
# (tests/e2e/test_report_plot_logs.py and test_logs.py run them on ioplan's logs), fetched as
# Debian's source package through apt into build/; never committed.  The stamp names
# what is extracted, so a tree from before a file was added is extracted again.
FIO_SRC := build/fio-src
FIO_SRC_STAMP := $(FIO_SRC)/.extracted-examples-tools-hist
fio-examples: $(FIO_SRC_STAMP)
$(FIO_SRC_STAMP):
	@mkdir -p build/apt-src/lists/partial $(FIO_SRC)
	@echo 'deb-src http://deb.debian.org/debian bookworm main' > build/apt-src/sources.list
	@A="-o Dir::Etc::sourcelist=$(CURDIR)/build/apt-src/sources.list -o Dir::Etc::sourceparts=- \
	   -o Dir::State::Lists=$(CURDIR)/build/apt-src/lists -o APT::Sandbox::User=root"; \
	apt-get $$A update -qq && cd build/apt-src && apt-get $$A source --download-only -qq fio=3.33-3
	@tar -xzf build/apt-src/fio_3.33.orig.tar.gz -C $(FIO_SRC) --strip-components=1 fio-3.33/examples \
	   fio-3.33/tools/fiologparser.py fio-3.33/tools/hist/fiologparser_hist.py
	@ls $(FIO_SRC)/examples/*.fio | wc -l | xargs echo "fio-examples: job files:"
	@touch $@

# fio's t/io_uring, the device limit `make bench` compares ioplan's io_uring with, built
# from the same source package (configure without -march=native, then its one target).
# T_IO_URING is set near the top: bench: names it as a prerequisite, and a variable
# set below a rule's line is still empty there.
$(T_IO_URING): $(FIO_SRC_STAMP)
	@rm -rf build/fio-build && mkdir -p build/fio-build
	@tar -xzf build/apt-src/fio_3.33.orig.tar.gz -C build/fio-build --strip-components=1
	@cd build/fio-build && ./configure --disable-native >/dev/null && $(MAKE) --no-print-directory t/io_uring >/dev/null
	@echo "t/io_uring: built from fio 3.33's source"

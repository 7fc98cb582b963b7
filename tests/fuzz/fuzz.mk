# tests/fuzz/fuzz.mk - libFuzzer targets for the readers (job files, DISKSPD
# arguments, fio iologs and blktrace traces) and the text -> plan path.
#
#   make fuzz FUZZ_SECONDS=60       each target for that long, corpus from jobs/ and examples/
#
# Built with clang (-fsanitize=fuzzer,address,undefined) into build/fuzz/, apart
# from the gcc builds; a finding leaves its input in build/fuzz/findings/.

SHELL := /bin/bash
CXX := clang++
FUZZ_SECONDS ?= 60
# make test's smoke run builds at -O0 into its own folder (FUZZ_OPT=-O0
# FB=build/fuzz-smoke): 40 s instead of 57 on 2 cores, for about half the inputs
# a second; make fuzz, which runs a minute a target, keeps -O1.
FUZZ_OPT ?= -O1
FB ?= build/fuzz
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g $(FUZZ_OPT)
CPPFLAGS := -I. -D_GNU_SOURCE -DIOPLAN_VERSION='"0.1.0"' -DIOPLAN_DATADIR='"/usr/local/share/ioplan"' \
	-DTOML_HEADER_ONLY=0 -DTOML_SHARED_LIB=1
# The parser and its sub-folders, plus what its planning reaches in the engine: an
# engine's own options table lives in the engine's file (engine/plan_engopts.h),
# and those files call the child, mark, scratch, safety, target and blocking I/O code
# they run with (io_uring's and libaio's need their libraries too).
SRCS := $(wildcard parser/*.cpp parser/*/*.cpp) parser/iolog/iolog_read.c parser/iolog/iolog_merge.c \
	report/showplan.cpp engine/plan.c engine/plan_engopts.c \
	$(shell grep -l PLAN_ENGOPTS_DEFINE engine/ioengines/*.c) \
	engine/child.c engine/mark.c engine/scratch.c engine/safety/safety.c engine/safety/safety_output.c \
	engine/safety/guarded_open.c engine/safety/stale_temps.c engine/safety/sysview.c engine/procfs.c \
	engine/sync_io.c engine/target.c
OBJS := $(patsubst %,$(FB)/%.o,$(SRCS))
TARGETS := ini toml yaml diskspd plan iolog
BINS := $(TARGETS:%=$(FB)/fuzz_%)

.PHONY: all run $(TARGETS:%=run-%)
# The instrumented objects are intermediates of the targets; keep them so a second
# `make fuzz` (every `make test` runs one) relinks instead of recompiling.
.SECONDARY:
all: run

# -MMD: an object is rebuilt when a header it includes changes (a stale object with
# an older struct layout, linked with fresh ones, reads fields at the wrong offsets).
$(FB)/%.cpp.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) -std=c++17 -MMD -MP -fsanitize=fuzzer-no-link,address,undefined -g $(FUZZ_OPT) -c -o $@ $<

$(FB)/%.c.o: %.c
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) -std=c11 -MMD -MP -fsanitize=fuzzer-no-link,address,undefined -g $(FUZZ_OPT) -c -o $@ $<

$(FB)/fuzz_%: tests/fuzz/fuzz_%.cpp $(OBJS)
	$(CXX) $(CPPFLAGS) -std=c++17 -MMD -MP -MF $@.d $(FUZZ_FLAGS) -o $@ $(filter %.cpp %.o,$^) -ltomlplusplus -lyaml-cpp \
		-luring -laio

-include $(shell find $(FB) -name '*.d' 2>/dev/null)

# Seed corpora: every job file we ship, in the syntax each target reads.
$(FB)/corpus/%: $(BINS)
	@mkdir -p $@
	@case $* in \
	  ini|plan) cp jobs/*.fio examples/*.fio examples/*.ini examples/*.txt tests/errors/*.fio $@/ 2>/dev/null;; \
	  toml) cp jobs/*.toml examples/*.toml tests/errors/*.toml $@/ 2>/dev/null;; \
	  yaml) cp jobs/*.yaml examples/*.yaml tests/errors/*.yaml $@/ 2>/dev/null;; \
	  diskspd) printf -- '-b4K -c1G -r -o1 -t1 -Sh -n -D -L -W0 -d10 -w0 testfile.dat' > $@/a; \
	           printf -- '-c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh testfile.dat' > $@/b; \
	           printf -- '-b1024K -o8 -t1 -W0 -S -w0 -d5 -L -si -Z4K -rdpct10/90 x' > $@/c;; \
	  iolog) cp tests/fuzz/iolog_seeds/* $@/;; \
	esac; true

# The targets run side by side, as many at once as make's -j (each is one
# process on one core); each one's lines are printed together when it ends.
run: $(TARGETS:%=run-%)

$(TARGETS:%=run-%): run-%: $(FB)/fuzz_% $(FB)/corpus/%
	@mkdir -p $(FB)/findings
	@{ echo "fuzz: $* for $(FUZZ_SECONDS)s"; \
		$(FB)/fuzz_$* -entropic=0 -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix=$(FB)/findings/$*- -print_final_stats=1 $(FB)/corpus/$* 2>&1 | \
			grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|Done'; \
		rc=$${PIPESTATUS[0]}; } > $(FB)/run-$*.log; \
		cat $(FB)/run-$*.log; exit $$rc

# sandbox: an isolated Docker or Podman container to work in.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
CC ?= cc
WERROR ?= -Werror
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wformat=2 -Wvla $(WERROR)
INIH_CFLAGS := $(shell pkg-config --cflags inih 2>/dev/null)
INIH_LIBS := $(shell pkg-config --libs inih 2>/dev/null || echo -linih)
# The source, a folder a layer (src/README): src/LAYER/NAME.c and .h.
# A header is included by its name alone ("util.h"), from any folder:
# -iquote, not -I, so that src/wire/spawn.h cannot hide the system's
# <spawn.h>.
SRC_DIRS = $(patsubst %/,%,$(wildcard src/*/))
SRCS = $(wildcard src/*/*.c)
HDRS = $(wildcard src/*/*.h) inner/mux.h
LIB_SRCS = $(filter-out src/front/main.c,$(SRCS))
ifneq ($(wildcard src/*.c src/*.h),)
$(error $(wildcard src/*.c src/*.h): in no layer: git mv each into the folder of its layer (src/README))
endif

ALL_CFLAGS = -std=c17 -D_POSIX_C_SOURCE=200809L $(WARN) $(SRC_DIRS:%=-iquote %) \
	$(INIH_CFLAGS) $(CFLAGS)
LDLIBS = $(INIH_LIBS) -lm

# The objects by name: each src/LAYER/NAME.c as LAYER/NAME, and scripts
# from the generated build/gen/scripts.c.
OBJ_NAMES = $(SRCS:src/%.c=%) scripts relay_bin
LIB_OBJ_NAMES = $(LIB_SRCS:src/%.c=%) scripts relay_bin
UNIT_SRCS = $(wildcard tests/unit/test_*.c)

all: build/sandbox

# The container's shell scripts: src/wire/sh/NAME.sh, assembled by
# scripts/embed-sh (the #defines they use from the headers named) into
# the strings of build/gen/scripts.c, and build/gen/sh/NAME.sh for the
# checks. Its objects come from the rules for build/gen/%.c below.
SH_DIR = src/wire/sh
SH_SRCS = $(wildcard $(SH_DIR)/*.sh)
SH_HDRS = src/wire/scripts.h src/wire/proto.h

build/gen/scripts.c: scripts/embed-sh $(SH_SRCS) $(SH_HDRS)
	scripts/embed-sh $(SH_DIR) build/gen $(SH_HDRS)

# sandbox-relay, the one program of ours that runs inside a workspace
# (inner/README): static, libc only, so that the image needs nothing; in
# sandbox as bytes (scripts/embed-bin: build/gen/relay_bin.c, whose
# objects read the file with the assembler's .incbin).
build/inner/sandbox-relay: inner/relay.c inner/mux.h
	@mkdir -p $(@D)
	$(CC) -std=c17 $(WARN) -Os -static -s -o $@ $<

build/gen/relay_bin.c: scripts/embed-bin build/inner/sandbox-relay
	scripts/embed-bin RELAY build/inner/sandbox-relay $@

build/relay_bin.o build/asan/relay_bin.o build/fuzz/obj/relay_bin.o: build/inner/sandbox-relay

# Each object makes its own directory (build/LAYER/): build/ may be
# there already, made by embed-sh for build/gen, when the others are not.
build/%.o: src/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/%.o: build/gen/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/sandbox: $(OBJ_NAMES:%=build/%.o)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# The sanitizer build: the unit tests and one engine's CLI tests run on it.
build/asan/%.o: src/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -c -o $@ $<

build/asan/%.o: build/gen/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -c -o $@ $<

# The sanitizers' runtimes linked in where the compiler can (GCC's
# flags; clang's is -static-libsan): a dynamic libasan costs each start a
# quarter more CPU, and the CLI tests start this binary thousands of times.
ASAN_STATIC = $(shell printf 'int main(void){return 0;}' | $(CC) -fsanitize=address,undefined \
	-static-libasan -static-libubsan -x c -o /dev/null - 2>/dev/null && \
	echo -static-libasan -static-libubsan)

build/asan/sandbox: $(OBJ_NAMES:%=build/asan/%.o)
	$(CC) $(ALL_CFLAGS) -fsanitize=address,undefined $(ASAN_STATIC) -o $@ $^ $(LDLIBS)

build/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB_OBJ_NAMES:%=build/asan/%.o)
	@mkdir -p build/unit
	$(CC) $(ALL_CFLAGS) -O1 -fsanitize=address,undefined -Ibuild/gen -o $@ $< \
		$(LIB_OBJ_NAMES:%=build/asan/%.o) $(LDLIBS)

UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=build/unit/%)

# Fuzzing: each tests/fuzz/fuzz_NAME.c is a libFuzzer target, its seeds
# (and every crash it found) in tests/fuzz/corpus_NAME/. `make fuzz`
# builds them with clang; `make unit` replays every corpus through a
# gcc-built driver; `make fuzz-check` runs each briefly when clang can.
FUZZ_CC ?= clang
FUZZ_TIME ?= 10
# Warnings stay on, -Werror off: another compiler's new warning must not
# fail a check; UBSan's reports are crashes here, not messages.
FUZZ_CFLAGS = -std=c17 -D_POSIX_C_SOURCE=200809L $(filter-out -Werror,$(WARN)) \
	$(SRC_DIRS:%=-iquote %) $(INIH_CFLAGS) -g -O1 -fsanitize=address,undefined \
	-fno-sanitize-recover=all
FUZZ_SRCS = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES = $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
FUZZ_BINS = $(FUZZ_NAMES:%=build/fuzz/fuzz_%)
FUZZ_HDRS = $(wildcard tests/fuzz/*.h tests/unit/*.h) $(HDRS)
REPLAY_BINS = $(FUZZ_NAMES:%=build/replay/fuzz_%)

build/fuzz/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/obj/%.o: build/gen/%.c $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS) $(LIB_OBJ_NAMES:%=build/fuzz/obj/%.o)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(LIB_OBJ_NAMES:%=build/fuzz/obj/%.o) $(LDLIBS)

fuzz: $(FUZZ_BINS)

# Kept between builds: they are only intermediates of pattern rules.
.SECONDARY: $(LIB_OBJ_NAMES:%=build/fuzz/obj/%.o) $(LIB_OBJ_NAMES:%=build/asan/%.o)

# Skipped, with a note, where FUZZ_CC cannot build and run a fuzzer: no
# check fails for lack of clang. A crash found fails it.
fuzz-check:
	@mkdir -p build/fuzz
	@if $(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o build/fuzz/probe \
		tests/fuzz/probe.c >/dev/null 2>&1 && build/fuzz/probe -runs=1 >/dev/null 2>&1; then \
		$(MAKE) -j2 --no-print-directory fuzz && \
		tests/fuzz/run-fuzzers $(FUZZ_TIME) $(FUZZ_BINS); \
	else \
		echo "# fuzz-check skipped: $(FUZZ_CC) cannot build a libFuzzer target" \
			"(install clang; on Debian, libclang-rt-14-dev if it still fails)"; \
	fi

build/replay/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_HDRS) \
		$(LIB_OBJ_NAMES:%=build/asan/%.o)
	@mkdir -p build/replay
	$(CC) $(ALL_CFLAGS) -O1 -fsanitize=address,undefined -o $@ tests/fuzz/replay.c $< \
		$(LIB_OBJ_NAMES:%=build/asan/%.o) $(LDLIBS)

unit: $(UNIT_BINS) $(REPLAY_BINS)
	@tests/unit/run $(UNIT_BINS)
	@for n in $(FUZZ_NAMES); do \
		echo "# build/replay/fuzz_$$n tests/fuzz/corpus_$$n"; \
		UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
			build/replay/fuzz_$$n tests/fuzz/corpus_$$n || exit 1; \
	done

# From a fresh Debian 12 machine to a first workspace: the README's first
# command (sh scripts/first-run), here for those who have make already.
first-run:
	sh scripts/first-run

# Installs and starts what the tests need (engines, images) when missing.
setup:
	scripts/setup-test-env

# The machine first (setup installs what the build needs), then the
# builds two at a time, then the tests.
check-build: all build/asan/sandbox $(UNIT_BINS) $(REPLAY_BINS)

# The scripts as they are embedded, read by sh -n of dash, BusyBox and
# bash, and by shellcheck, less the warnings scripts/check-sh accepts.
check-sh: build/gen/scripts.c
	scripts/check-sh build/gen/sh

# Every include against the layers (src/README): none may climb a layer
# or close a cycle. Then the check's own test, on made-up trees. Cheap:
# check runs it before anything else.
check-layers:
	scripts/check-layers src
	tests/check-layers-test

check: check-layers setup
	$(MAKE) -j2 --no-print-directory check-build
	$(MAKE) check-sh unit fuzz-check
	tests/run-cli-tests

install: build/sandbox
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 build/sandbox $(DESTDIR)$(BINDIR)/sandbox
	install -m 644 man/sandbox.1 $(DESTDIR)$(MANDIR)/man1/sandbox.1
	install -m 644 man/sandbox.ini.5 $(DESTDIR)$(MANDIR)/man5/sandbox.ini.5

lint-man:
	mandoc -T lint -W warning man/sandbox.1 man/sandbox.ini.5

clean:
	rm -rf build

.PHONY: all unit fuzz fuzz-check first-run setup check check-build check-layers check-sh \
	install lint-man clean

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
ALL_CFLAGS = -std=c17 -D_POSIX_C_SOURCE=200809L $(WARN) $(INIH_CFLAGS) $(CFLAGS)
LDLIBS = $(INIH_LIBS) -lm

SRCS = $(wildcard src/*.c)
LIB_SRCS = $(filter-out src/main.c,$(SRCS))
UNIT_SRCS = $(wildcard tests/unit/test_*.c)

all: build/sandbox

build/%.o: src/%.c $(wildcard src/*.h) | build
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/sandbox: $(SRCS:src/%.c=build/%.o)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

build:
	mkdir -p build build/asan

# The sanitizer build: the unit tests and one engine's CLI tests run on it.
build/asan/%.o: src/%.c $(wildcard src/*.h) | build
	$(CC) $(ALL_CFLAGS) -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -c -o $@ $<

build/asan/sandbox: $(SRCS:src/%.c=build/asan/%.o)
	$(CC) $(ALL_CFLAGS) -fsanitize=address,undefined -o $@ $^ $(LDLIBS)

build/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB_SRCS:src/%.c=build/asan/%.o)
	@mkdir -p build/unit
	$(CC) $(ALL_CFLAGS) -O1 -fsanitize=address,undefined -Isrc -o $@ $< \
		$(LIB_SRCS:src/%.c=build/asan/%.o) $(LDLIBS)

UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=build/unit/%)

unit: $(UNIT_BINS)
	@for t in $(UNIT_BINS); do echo "# $$t"; $$t || exit 1; done

# Installs and starts what the tests need (engines, images) when missing.
setup:
	scripts/setup-test-env

check: setup all build/asan/sandbox unit
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

.PHONY: all unit setup check install lint-man clean

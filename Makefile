# mcpd -- the front door.
#
#   make run          install missing build dependencies, build, run the demo
#   make check        the same set-up, then every test: once as built, once
#                     more with AddressSanitizer and UndefinedBehaviorSanitizer
#   make check-quick  the working loop: the unit tests and the integration
#                     tests of the core (supervisor, router, bridge), as built
#   make check-stress make check with a busy loop on every core beside it
#   make deps         only install what the build needs (make deps-check: and
#                     the tests); no other target installs anything, so when
#                     something is missing `make` stops with configure's error
#   make install      install into PREFIX (default /usr/local; honours DESTDIR)
#                     make install PREFIX=$HOME/.local: for oneself, no root
#   make bench        benchmarks
#   make fuzz         build the fuzzers (clang, libFuzzer), run each FUZZ_SECONDS
#   make clean        remove the build directories
#
# Builds use every core and tests run side by side (TEST_JOBS at once; a
# test that needs the machine to itself says so and runs alone, see
# build-aux/test-timed).  JOBS=1 TEST_JOBS=1 does one thing at a time.
#
# The real build is autotools in $(BUILD); this file only prepares it.
#
# PREFIX: /usr/local, or /usr, keep the configuration in /etc and put the
# systemd units and the journal catalog where systemd reads them; any
# other prefix is private (configure.ac): everything goes below it, the
# example configuration in $(PREFIX)/etc/mcpd, the user units in
# $(PREFIX)/share/systemd/user, and no system units or catalog.  $(BUILD)
# is configured again when a PREFIX given (or, for make install, the
# default) is not the one it was configured for (build-aux/configure-build).

BUILD ?= build
ASAN_BUILD ?= build-asan
# Given on the command line or in the environment (not the default).
PREFIX_GIVEN := $(filter command line environment environment override,\
	$(origin PREFIX))
PREFIX ?= /usr/local
SYSCONFDIR ?= $(if $(filter /usr /usr/local,$(PREFIX:%/=%)),/etc,$(PREFIX:%/=%)/etc)
CONFIGURE_FLAGS ?=
SRCDIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_JOBS ?= $(shell echo $$(( $(JOBS) * 2 )))
# -j for the builds below, unless make was given one (its jobserver rules).
PAR = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))

.PHONY: all configured configured-install run check check-plain \
	check-sanitizers check-quick check-stress \
	check-build-plain check-build-sanitizers check-npm install bench chaos \
	fuzz clean \
	deps deps-check distclean

all: configured
	@$(MAKE) -C $(BUILD) $(PAR)

deps:
	@sh $(SRCDIR)/build-aux/install-deps build

deps-check:
	@sh $(SRCDIR)/build-aux/install-deps check

# Made here only when missing (a fresh clone): once a build directory is
# configured, its own Makefile runs autoconf, automake and configure again
# as configure.ac and Makefile.am change, keeping what configure was given.
$(SRCDIR)/configure:
	@command -v autoreconf >/dev/null 2>&1 || { echo "mcpd: autoreconf" \
	    "not found: install autoconf and automake ('make deps' installs" \
	    "what the build needs)" >&2; exit 1; }
	cd $(SRCDIR) && autoreconf -fi

CONFIGURE_BUILD = MCPD_PREFIX_GIVEN='$(PREFIX_GIVEN)' sh \
	$(SRCDIR)/build-aux/configure-build '$(BUILD)' '$(SRCDIR)' \
	'$(PREFIX:%/=%)' '$(SYSCONFDIR)'

$(BUILD)/Makefile: | $(SRCDIR)/configure
	@$(CONFIGURE_BUILD) given $(CONFIGURE_FLAGS)

# $(BUILD) configured, for PREFIX if one was given.
configured: $(BUILD)/Makefile
	@$(CONFIGURE_BUILD) given

# ...and for make install, for PREFIX given or not.
configured-install: $(BUILD)/Makefile
	@$(CONFIGURE_BUILD) always

run: deps
	@$(MAKE) --no-print-directory configured
	@$(MAKE) --no-print-directory -C $(BUILD) $(PAR) all
	@$(MAKE) --no-print-directory -C $(BUILD) run

# A build directory configured before check was installed (make run, then
# make check) has no unit tests: configure it again once check is there.
stale_without_check = if grep -qx 'have_check = no' $(1)/Makefile \
	    2>/dev/null && pkg-config --exists 'check >= 0.10'; then \
	rm -f $(1)/Makefile; fi

# Both trees are configured and built side by side first; then the two
# passes of tests, one after the other (side by side, the timing tests of
# one would feel the load of the other).
check: deps-check
	@$(call stale_without_check,$(BUILD)); \
	$(call stale_without_check,$(ASAN_BUILD))
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -j3 check-build-plain check-build-sanitizers \
	    check-npm && \
	echo "make check: both trees built in $$(( $$(date +%s) - start )) s" && \
	status=0 && \
	{ $(MAKE) --no-print-directory check-plain || status=1; } && \
	{ $(MAKE) --no-print-directory check-sanitizers || status=1; } && \
	echo "make check: $$(( $$(date +%s) - start )) s in all" && exit $$status

# The pinned npm packages of the interop tests, fetched while the trees
# build (the tests would each wait for the first to fetch them).
check-npm:
	@bash $(SRCDIR)/tests/interop/npm-deps.sh $(abspath $(BUILD)) >/dev/null

check-build-plain: configured
	@$(MAKE) -C $(BUILD) $(PAR) check-programs

check-build-sanitizers: $(ASAN_BUILD)/Makefile
	@$(MAKE) -C $(ASAN_BUILD) $(PAR) check-programs

check-plain: check-build-plain
	@start=$$(date +%s); status=0; \
	$(MAKE) -C $(BUILD) -j$(TEST_JOBS) check || status=$$?; \
	sh $(SRCDIR)/build-aux/summarize $(BUILD) $$start; exit $$status

# The working loop: unit tests and the core's integration tests, as built.
check-quick: check-build-plain
	@start=$$(date +%s); status=0; \
	$(MAKE) -C $(BUILD) -j$(TEST_JOBS) check-quick || status=$$?; \
	sh $(SRCDIR)/build-aux/summarize $(BUILD) $$start; exit $$status

# The suite on a machine that has no core to spare: timing bugs show.
check-stress:
	@sh $(SRCDIR)/build-aux/cpu-hog $(MAKE) --no-print-directory check

# The unit and integration suites again, built with ASan and UBSan; any
# report from any process (mcpd, mcpctl, the test servers) fails the run.
$(ASAN_BUILD)/Makefile: | $(SRCDIR)/configure
	mkdir -p $(ASAN_BUILD)
	cd $(ASAN_BUILD) && $(SRCDIR)/configure --enable-sanitizers \
	    CFLAGS="-O1 -g" $(CONFIGURE_FLAGS)

check-sanitizers: check-build-sanitizers
	@reports=$(abspath $(ASAN_BUILD))/sanitizer-reports; \
	rm -rf $$reports; mkdir -p $$reports; status=0; start=$$(date +%s); \
	ASAN_OPTIONS=log_path=$$reports/asan:detect_leaks=1 \
	UBSAN_OPTIONS=log_path=$$reports/ubsan:print_stacktrace=1 \
	    $(MAKE) -C $(ASAN_BUILD) -j$(TEST_JOBS) check || status=$$?; \
	sh $(SRCDIR)/build-aux/summarize $(ASAN_BUILD) $$start; \
	if [ -n "$$(ls -A $$reports)" ]; then \
		cat $$reports/*; \
		echo "sanitizer reports: $$(ls $$reports | wc -l) (see above)"; \
		status=1; \
	else \
		echo "sanitizer reports: 0"; \
	fi; exit $$status

install: configured-install
	@$(MAKE) --no-print-directory -C $(BUILD) installdirs-writable
	@$(MAKE) -C $(BUILD) $(PAR) all
	@$(MAKE) -C $(BUILD) $(PAR) install

bench: all
	@$(MAKE) -C $(BUILD) bench

# libFuzzer builds of tests/fuzz, each run for FUZZ_SECONDS; what they
# find is added to the committed corpus (tests/fuzz/README).
FUZZ_SECONDS ?= 600
fuzz: $(BUILD)/Makefile
	@BUILD='$(BUILD)' FUZZ_OUT='$(BUILD)/fuzz' sh $(SRCDIR)/tests/fuzz/build.sh
	@FUZZ_OUT='$(BUILD)/fuzz' sh $(SRCDIR)/tests/fuzz/run.sh $(FUZZ_SECONDS)

# The long chaos run: 10^6 requests while the server is killed every 2 s.
chaos: all
	@$(MAKE) -C $(BUILD) chaos

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)

distclean: clean
	cd $(SRCDIR) && rm -rf autom4te.cache aclocal.m4 configure config.h.in \
	    Makefile.in build-aux/compile build-aux/depcomp build-aux/install-sh \
	    build-aux/missing build-aux/test-driver build-aux/ar-lib

# mcpd -- the front door.
#
#   make run      install missing build dependencies, build, run the demo
#   make check    the same set-up, then every test
#   make install  install (honours DESTDIR and PREFIX)
#   make bench    benchmarks
#   make clean    remove the build directory
#
# The real build is autotools in $(BUILD); this file only prepares it.

BUILD ?= build
PREFIX ?= /usr/local
CONFIGURE_FLAGS ?=
SRCDIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

.PHONY: all run check install bench clean deps deps-check distclean

all: $(BUILD)/Makefile
	@$(MAKE) -C $(BUILD)

deps:
	@sh $(SRCDIR)/build-aux/install-deps build

deps-check:
	@sh $(SRCDIR)/build-aux/install-deps check

$(SRCDIR)/configure: $(SRCDIR)/configure.ac $(SRCDIR)/Makefile.am
	@$(MAKE) --no-print-directory deps
	cd $(SRCDIR) && autoreconf -fi

$(BUILD)/Makefile: $(SRCDIR)/configure
	@$(MAKE) --no-print-directory deps
	mkdir -p $(BUILD)
	cd $(BUILD) && $(SRCDIR)/configure --prefix=$(PREFIX) --sysconfdir=/etc $(CONFIGURE_FLAGS)

run: all
	@$(MAKE) --no-print-directory -C $(BUILD) run

check: deps-check $(BUILD)/Makefile
	@$(MAKE) -C $(BUILD)
	@status=0; $(MAKE) -C $(BUILD) check || status=$$?; \
	sh $(SRCDIR)/build-aux/summarize $(BUILD); exit $$status

install: all
	@$(MAKE) -C $(BUILD) install

bench: all
	@$(MAKE) -C $(BUILD) bench

clean:
	rm -rf $(BUILD)

distclean: clean
	cd $(SRCDIR) && rm -rf autom4te.cache aclocal.m4 configure config.h.in \
	    Makefile.in build-aux/compile build-aux/depcomp build-aux/install-sh \
	    build-aux/missing build-aux/test-driver build-aux/ar-lib

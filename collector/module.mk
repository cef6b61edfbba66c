# collector: libcgcollect (the hierarchical collector; libc only), cgrun,
# the toy interpreter example, the programs the collector tests run, and
# the collector benchmark.
#
# The collector is loaded into programs that are not built with sanitizers
# (LD_PRELOAD), so it never gets SANFLAGS; it is built -fPIC for both the
# shared and the static library.

CGC_SRCS    := collector/collect.c collector/collect_thread.c collector/collect_api.c \
               collector/collect_dump.c collector/collect_elf.c collector/collect_file.c \
               collector/collect_signal.c collector/collect_lines.c
CGC_OBJS    := $(CGC_SRCS:%.c=$(B)/%.o)
CGC_SO      := $(B)/lib/libcgcollect.so
CGC_A       := $(B)/lib/libcgcollect.a
# gcc would merge the hot path's two adjacent TLS stores into one vector
# store, which the next hook reads back as two loads (a store-forwarding
# stall).  clang accepts the flag too.
CGC_CFLAGS  := -std=c11 $(OPT) $(WARN) -fvisibility=hidden -fno-tree-slp-vectorize \
               -fno-stack-protector -D_GNU_SOURCE -Icollector $(CFLAGS)

$(CGC_OBJS): CFLAGS_ALL := $(CGC_CFLAGS)

# The preload alone interposes libc functions (_exit, exec*, sigaction,
# vfork, dlclose, swapcontext...): linked into a program statically they
# would clash with libc.a.
CGC_PRELOAD_OBJ := $(B)/collector/collect_preload.o
CGC_PRELOAD_OBJ += $(B)/collector/collect_sleep.o
$(CGC_PRELOAD_OBJ): CFLAGS_ALL := $(CGC_CFLAGS)

$(CGC_SO): $(CGC_OBJS) $(CGC_PRELOAD_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libcgcollect.so -Wl,--no-undefined $(LDFLAGS) -o $@ $^ -pthread

$(CGC_A): $(CGC_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/collector/cgrun.o: CFLAGS_ALL := $(CFLAGS_ALL) -Icollector

$(B)/bin/cgrun: $(B)/collector/cgrun.o
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^

ALL_TARGETS  += $(CGC_SO) $(CGC_A) $(B)/bin/cgrun
INSTALL_BINS += $(B)/bin/cgrun
INSTALL_EXTRA += install -m 755 $(CGC_SO) $(DESTDIR)$(LIBDIR)/ && \
	install -m 644 $(CGC_A) $(DESTDIR)$(LIBDIR)/ && \
	install -m 644 collector/cgcollect.h $(DESTDIR)$(INCLUDEDIR)/ && \
	$(call cg_pc,collector/cgcollect.pc.in,$(DESTDIR)$(PKGCONFIGDIR)/cgcollect.pc) ;
UNINSTALL_EXTRA += rm -f $(DESTDIR)$(LIBDIR)/libcgcollect.so $(DESTDIR)$(LIBDIR)/libcgcollect.a \
	$(DESTDIR)$(INCLUDEDIR)/cgcollect.h $(DESTDIR)$(PKGCONFIGDIR)/cgcollect.pc ;

# ---- the toy interpreter (uses the API; linked with the static collector) --
CGC_EXAMPLES := $(B)/examples/minilog

$(B)/examples/minilog: collector/examples/minilog.c collector/cgcollect.h $(CGC_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -std=c11 -O2 -g $(WARN) -D_GNU_SOURCE -Icollector -o $@ $< $(CGC_A) -pthread

ALL_TARGETS += $(patsubst collector/examples/%.c,$(B)/examples/%,$(wildcard collector/examples/minilog.c))

# ---- programs with known behaviour, for tests/collector-*.t ---------------
# Built -O0 so every call the source makes is a call; no sanitizers (they
# run under LD_PRELOAD of the collector).
CGC_TPROG_SRCS := $(sort $(wildcard testdata/collector/progs/*.c))
CGC_TPROGS     := $(CGC_TPROG_SRCS:testdata/collector/progs/%.c=$(B)/tests/collector/%)
CGC_TPROG_FLAGS := -std=c11 -O0 -g -finstrument-functions -D_GNU_SOURCE -pthread

$(B)/tests/collector/%: testdata/collector/progs/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CGC_TPROG_FLAGS) -o $@ $<

# The same calls program with the collector linked in statically.
$(B)/tests/collector/calls-static: testdata/collector/progs/calls.c $(CGC_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CGC_TPROG_FLAGS) -o $@ $< $(CGC_A)

# The control API test links the collector (it calls cgc_*).
$(B)/tests/collector/api: testdata/collector/progs/api.c collector/cgcollect.h $(CGC_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CGC_TPROG_FLAGS) -Icollector -o $@ $< $(CGC_A)

# An instrumented plugin that tests/collector-endings.t dlopens and dlcloses.
$(B)/tests/collector/libplugin.so: testdata/collector/plugin/plugin.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CGC_TPROG_FLAGS) -shared -fPIC -o $@ $<

CHECK_TARGETS += $(CGC_TPROGS) $(B)/tests/collector/calls-static $(B)/tests/collector/libplugin.so

# ---- benchmark -------------------------------------------------------------
bench-collector: $(CGC_SO) $(CGC_A)
	B=$(B) CC=$(CC) BASELINE=$(BASELINE) sh collector/bench/run.sh

BENCH_TARGETS += bench-collector
.PHONY: bench-collector

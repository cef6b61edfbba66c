# gmon: cgprof, the gprof-compatible front end.
# cgprof links the static library with --as-needed: it then loads only what
# gprof's job needs (libbfd), not libxml2 and its ICU dependency, which
# keeps its peak memory below gprof's even on small programs.
# Profiles of other formats go to cgprof-all (gmon/cgprof_views.h): the
# same program linked with the whole library.
CGPROF_OBJS := $(B)/gmon/cgprof.o $(B)/gmon/cgprof_handover.o $(B)/convert/gprof_view.o
$(B)/bin/cgprof: $(CGPROF_OBJS) $(LIB_STATIC)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(CGPROF_OBJS) $(LIB_STATIC) -Wl,--as-needed $(LIB_LIBS) -liberty
ALL_TARGETS  += $(B)/bin/cgprof
INSTALL_BINS += $(B)/bin/cgprof

# make bench (gprof part): bench/gprof/run.sh on 10k/20k/40k-function programs.
bench-gprof: $(B)/bin/cgprof
	CG_BUILD=$(CURDIR)/$(B) bench/gprof/run.sh
BENCH_TARGETS += bench-gprof
.PHONY: bench-gprof

# make bench (line part): gprof -l against cgprof -l on SQLite's amalgamation and others.
bench-lines: $(B)/bin/cgprof
	CG_BUILD=$(CURDIR)/$(B) bench/lines/run.sh
BENCH_TARGETS += bench-lines
.PHONY: bench-lines
# cgprof-all: cgprof for every format the library reads (cgprof hands
# non-gmon inputs over to it).
$(eval $(call cg_tool_link,cgprof-all,$(B)/gmon/cgprof.o $(B)/gmon/cgprof_views.o $(B)/convert/gprof_view.o $(B)/convert/max_memory.o))
$(B)/bin/cgprof-all: TOOL_LIBS += -liberty

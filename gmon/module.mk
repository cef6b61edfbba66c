# gmon: cgprof, the gprof-compatible front end.
CGPROF_OBJS := $(B)/gmon/cgprof.o
$(eval $(call cg_tool_link,cgprof,$(CGPROF_OBJS)))
# @FILE response files are expanded with libiberty's expandargv, as gprof does.
$(B)/bin/cgprof: TOOL_LIBS += -liberty

# make bench (gprof part): bench/gprof/run.sh on 10k/20k/40k-function programs.
bench-gprof: $(B)/bin/cgprof
	CG_BUILD=$(CURDIR)/$(B) bench/gprof/run.sh
BENCH_TARGETS += bench-gprof
.PHONY: bench-gprof

# convert/: cgconvert (any input to any output).
$(eval $(call cg_tool_link,cgconvert,$(B)/convert/cgconvert.o $(B)/convert/cgconvert_gprof.o $(B)/convert/gprof_view.o $(B)/convert/max_memory.o))
include convert/cgdiff.mk

# make bench (converter part): gmon -> Callgrind / XML on the 40k-function
# profile, against cgprof on the same input.
bench-convert: $(B)/bin/cgconvert $(B)/bin/cgprof
	CG_BUILD=$(CURDIR)/$(B) bench/convert/run.sh
BENCH_TARGETS += bench-convert
.PHONY: bench-convert

# make bench (pprof, perf script): reading and writing pprof against go tool
# pprof, reading perf script against perf script/perf report.
bench-pprof: $(B)/bin/cgconvert
	CG_BUILD=$(CURDIR)/$(B) bench/pprof/run.sh
BENCH_TARGETS += bench-pprof
.PHONY: bench-pprof

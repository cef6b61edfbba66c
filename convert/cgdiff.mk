# convert/cgdiff.mk — cgdiff (compare two profiles, gate CI); included by
# convert/module.mk.
$(eval $(call cg_tool_link,cgdiff,$(B)/convert/cgdiff.o $(B)/convert/max_memory.o))

# make bench: time cgdiff on two generated 40k-function profiles.
bench-diff: $(B)/bin/cgdiff $(LIB_SHARED)
	B=$(B) CC=$(CC) bash bench/diff/run.sh
BENCH_TARGETS += bench-diff
.PHONY: bench-diff

# make bench-diff-power: false alarms and detection of the repeated-run
# test on simulated timed runs (the figures in cgdiff(1), REPEATED RUNS).
bench-diff-power: $(LIB_SHARED)
	$(CC) -std=c11 -O2 -D_GNU_SOURCE -Ilibcallgraph/include -o $(B)/bench-diff-power \
		bench/diff/power.c -L$(B)/lib -Wl,-rpath,$(CURDIR)/$(B)/lib -lcallgraph -lm
	$(B)/bench-diff-power 10 100
	$(B)/bench-diff-power 15 100
BENCH_TARGETS += bench-diff-power
.PHONY: bench-diff-power

# convert/cgdiff.mk — cgdiff (compare two profiles, gate CI); included by
# convert/module.mk.
$(eval $(call cg_tool_link,cgdiff,$(B)/convert/cgdiff.o))

# make bench: time cgdiff on two generated 40k-function profiles.
bench-diff: $(B)/bin/cgdiff $(LIB_SHARED)
	B=$(B) CC=$(CC) bash bench/diff/run.sh
BENCH_TARGETS += bench-diff
.PHONY: bench-diff

# tests/module.mk — shared by everyone: generic rules only.
# tests/test_*.c -> $(B)/tests/test_*   (C unit tests printing TAP; run by a .t)
# tests/fuzz_*.c -> $(B)/tests/fuzz_*   (replay drivers: run each file of a corpus)
# Both link the static library so internals can be tested, and may include
# any folder's internal headers.
LIB_ALL_INC := $(call cg_inc,core symbols graph gprof diff formats/fprof) $(XML_CFLAGS)
$(B)/tests/%.o: MODULE_INC := $(LIB_ALL_INC)
TEST_SRCS   := $(sort $(wildcard tests/test_*.c))
FUZZ_SRCS   := $(sort $(wildcard tests/fuzz_*.c))
TEST_BINS   := $(TEST_SRCS:tests/%.c=$(B)/tests/%)
FUZZ_BINS   := $(FUZZ_SRCS:tests/%.c=$(B)/tests/%)

$(B)/tests/%: $(B)/tests/%.o $(LIB_STATIC)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIB_STATIC) $(LIB_LIBS) -lpthread

CHECK_TARGETS += $(TEST_BINS) $(FUZZ_BINS)

# make fuzz: libFuzzer builds of every fuzz target, FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
fuzz:
	@mkdir -p $(B)/fuzz
	@set -e; for src in $(FUZZ_SRCS); do \
	  name=$$(basename $$src .c); corpus=testdata/fuzz/$${name#fuzz_}; \
	  echo "== $$name ($(FUZZ_SECONDS)s, corpus $$corpus)"; \
	  $(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -DCG_FUZZ_LIBFUZZER -D_GNU_SOURCE \
	    -Ilibcallgraph/include $(LIB_ALL_INC) \
	    -o $(B)/fuzz/$$name $$src $(LIB_SRCS) $(LIB_LIBS) -lpthread; \
	  mkdir -p $(B)/fuzz/corpus-$$name; \
	  $(B)/fuzz/$$name -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	    $(B)/fuzz/corpus-$$name $$( [ -d $$corpus ] && echo $$corpus ) ; \
	done

# test_oom fails the library's allocations on purpose: its calls to the
# allocator go through the test's wrappers.
$(B)/tests/test_oom: private LDFLAGS_ALL += -Wl,--wrap=malloc -Wl,--wrap=calloc \
	-Wl,--wrap=realloc -Wl,--wrap=free

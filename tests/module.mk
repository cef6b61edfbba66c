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

# make fuzz: libFuzzer builds of every fuzz target, FUZZ_SECONDS each
# (CI runs it briefly: .ci/run).  The library is compiled once with the
# fuzzer's instrumentation and each target links it; a crash, a leak or a
# sanitizer report stops the run with a non-zero status (libFuzzer writes
# the input as crash-* in $(B)/fuzz/).
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-DCG_FUZZ_LIBFUZZER -D_GNU_SOURCE -Ilibcallgraph/include $(LIB_ALL_INC) \
	$(call cg_inc,formats) -DCG_VERSION_STRING=\"$(VERSION)\"
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(B)/fuzz/obj/%.o)
FUZZ_LIB     := $(B)/fuzz/libcallgraph-fuzz.a
FUZZ_EXES    := $(FUZZ_SRCS:tests/%.c=$(B)/fuzz/%)

$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^
$(B)/fuzz/fuzz_%: tests/fuzz_%.c $(FUZZ_LIB)
	$(if $(Q),@echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LIB_LIBS) -lpthread
-include $(FUZZ_LIB_OBJS:.o=.d)

fuzz: $(FUZZ_EXES)
	@set -e; for exe in $(FUZZ_EXES); do \
	  name=$$(basename $$exe); corpus=testdata/fuzz/$${name#fuzz_}; \
	  echo "== $$name ($(FUZZ_SECONDS)s, corpus $$corpus)"; \
	  mkdir -p $(B)/fuzz/corpus-$$name; \
	  (cd $(B)/fuzz && LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	    ./$$name -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	    -print_final_stats=1 corpus-$$name $$( [ -d $(CURDIR)/$$corpus ] && echo $(CURDIR)/$$corpus ) \
	    > $$name.log 2>&1) || { tail -n 40 $(B)/fuzz/$$name.log; \
	    echo "$$name: FAILED (input saved in $(B)/fuzz/, log $(B)/fuzz/$$name.log)"; exit 1; }; \
	  grep -E 'stat::number_of_executed_units|stat::new_units_added' $(B)/fuzz/$$name.log | tr '\n' ' '; echo; \
	done

# test_oom fails the library's allocations on purpose: its calls to the
# allocator go through the test's wrappers.
$(B)/tests/test_oom: private LDFLAGS_ALL += -Wl,--wrap=malloc -Wl,--wrap=calloc \
	-Wl,--wrap=realloc -Wl,--wrap=free

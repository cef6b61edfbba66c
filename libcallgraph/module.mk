# libcallgraph: every libcallgraph/*.c goes into the library.
LIB_SRCS    := $(sort $(wildcard libcallgraph/*.c))
LIB_OBJS    := $(LIB_SRCS:%.c=$(B)/%.o)
LIB_STATIC  := $(B)/lib/libcallgraph.a
LIB_SHARED  := $(B)/lib/libcallgraph.so.$(VERSION)
LIB_SONAME  := libcallgraph.so.$(SOVERSION)
LIB_CFLAGS  := -fvisibility=hidden -DCG_BUILDING_LIBRARY -DCG_VERSION_STRING=\"$(VERSION)\"

$(LIB_OBJS): CFLAGS_ALL += $(LIB_CFLAGS)

$(LIB_STATIC): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SHARED): $(LIB_OBJS) libcallgraph/libcallgraph.map
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=libcallgraph/libcallgraph.map \
	  -Wl,--no-undefined $(LDFLAGS_ALL) -o $@ $(LIB_OBJS) $(LIB_LIBS)
	$(Q)ln -sf $(notdir $@) $(B)/lib/$(LIB_SONAME)
	$(Q)ln -sf $(LIB_SONAME) $(B)/lib/libcallgraph.so

# Tools link the shared library and find it next to themselves (bin/../lib),
# both in the build tree and once installed.
TOOL_LDFLAGS := -L$(B)/lib -Wl,-rpath,'$$ORIGIN/../lib' $(LDFLAGS_ALL)
TOOL_LIBS    := -lcallgraph

ALL_TARGETS += $(LIB_STATIC) $(LIB_SHARED)

# cg_tool_link(name, objects): link a tool into $(B)/bin.
define cg_tool_link
$(B)/bin/$(1): $(2) $(LIB_SHARED)
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  LD      $$@")
	$$(Q)$$(CC) $$(TOOL_LDFLAGS) -o $$@ $(2) $$(TOOL_LIBS)
ALL_TARGETS  += $(B)/bin/$(1)
INSTALL_BINS += $(B)/bin/$(1)
endef

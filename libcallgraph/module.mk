# libcallgraph: the library, laid out along its data flow.
#
#   core/        model, arena, hash, errors, output files     (depends on nothing)
#   symbols/     object-file symbols, lines, demangling      (core; libbfd, libiberty)
#   graph/       SCC, propagation, arc costs, transparency   (core)
#   formats/*/   one folder per format family                (core, graph, symbols)
#   formats/registry.c  the only file that knows every format
#   gprof/       gprof's report engine                       (core, graph, symbols)
#   diff/        comparing two profiles                      (core, graph)
#
# Each folder's objects get the include paths of what they may use and no
# others, so an include against the flow fails to compile.  The public
# headers (libcallgraph/include) are visible everywhere.
LIB_DIR     := libcallgraph
LIB_SRCS    := $(sort $(wildcard $(LIB_DIR)/*/*.c $(LIB_DIR)/formats/*/*.c))
LIB_OBJS    := $(LIB_SRCS:%.c=$(B)/%.o)
LIB_STATIC  := $(B)/lib/libcallgraph.a
LIB_SHARED  := $(B)/lib/libcallgraph.so.$(VERSION)
LIB_SONAME  := libcallgraph.so.$(SOVERSION)
LIB_CFLAGS  := -fvisibility=hidden -DCG_BUILDING_LIBRARY -DCG_VERSION_STRING=\"$(VERSION)\"

# cg_module_includes(folder, granted folders): the include rule of a folder.
cg_inc = $(foreach d,$(1),-I$(LIB_DIR)/$(d))
$(B)/$(LIB_DIR)/core/%.o:      MODULE_INC := $(call cg_inc,core)
$(B)/$(LIB_DIR)/symbols/%.o:   MODULE_INC := $(call cg_inc,core symbols)
$(B)/$(LIB_DIR)/graph/%.o:     MODULE_INC := $(call cg_inc,core graph)
$(B)/$(LIB_DIR)/formats/%.o:   MODULE_INC := $(call cg_inc,core graph symbols formats)
$(B)/$(LIB_DIR)/gprof/%.o:     MODULE_INC := $(call cg_inc,core graph symbols gprof)
$(B)/$(LIB_DIR)/diff/%.o:      MODULE_INC := $(call cg_inc,core graph diff)
# Only the XML family and diff's XML writer use libxml2.
$(B)/$(LIB_DIR)/formats/xml/%.o: MODULE_INC += $(XML_CFLAGS)
$(B)/$(LIB_DIR)/diff/%.o:      MODULE_INC += $(XML_CFLAGS)

$(LIB_OBJS): CFLAGS_ALL += $(LIB_CFLAGS)

$(LIB_STATIC): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SHARED): $(LIB_OBJS) $(LIB_DIR)/libcallgraph.map
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=$(LIB_DIR)/libcallgraph.map \
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

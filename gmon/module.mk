# gmon: cgprof, the gprof-compatible front end.
CGPROF_OBJS := $(B)/gmon/cgprof.o
$(eval $(call cg_tool_link,cgprof,$(CGPROF_OBJS)))
# @FILE response files are expanded with libiberty's expandargv, as gprof does.
$(B)/bin/cgprof: TOOL_LIBS += -liberty

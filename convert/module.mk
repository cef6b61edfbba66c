# convert/: cgconvert (any input to any output).
$(eval $(call cg_tool_link,cgconvert,$(B)/convert/cgconvert.o))
include convert/cgdiff.mk

# convert/cgdiff.mk — cgdiff (compare two profiles, gate CI); included by
# convert/module.mk.
$(eval $(call cg_tool_link,cgdiff,$(B)/convert/cgdiff.o))

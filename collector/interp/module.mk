# collector/interp: the interpreter bindings of libcgcollect (Lua 5.4,
# Python 3, SWI-Prolog 9), cgrun's interpreter recognition, and the
# interpreter benchmark.  Each binding builds against the interpreter's
# Debian dev package and lands in $(B)/lib/cgcollect/LANG/, where cgrun
# looks for it (next to libcgcollect.so).  See docs/cgcollect-interp.7.
#
# The bindings link libcgcollect.so by soname with an rpath to it: under
# cgrun the preloaded copy is the one used (same soname), loaded by hand
# they still find it.

CGI_DIR     := $(B)/lib/cgcollect
CGI_CFLAGS  := -std=c11 $(OPT) $(WARN) -fPIC -fvisibility=hidden -D_GNU_SOURCE -Icollector $(CFLAGS)
CGI_LINK    := -shared $(LDFLAGS) -L$(B)/lib -Wl,-rpath,'$$ORIGIN/../..' -lcgcollect -Wl,-z,nodelete

# ---- cgrun: which interpreter is it, and how the binding gets in ----------
$(B)/collector/cgrun_lang.o: CFLAGS_ALL := $(CFLAGS_ALL) -Icollector
$(B)/bin/cgrun: $(B)/collector/cgrun_lang.o

# ---- Lua 5.4: a C module loaded through LUA_INIT_5_4 -------------------------
# No -llua: lua5.4 has the VM linked in and exports it to C modules.
LUA_CFLAGS  := $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
CGI_LUA     := $(CGI_DIR)/lua/cgcollect.so

$(CGI_LUA): collector/lua/cglua.c collector/cgcollect.h $(CGC_SO)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CGI_CFLAGS) $(LUA_CFLAGS) -o $@ $< $(CGI_LINK)

ALL_TARGETS += $(CGI_LUA)

# ---- Python 3: an extension module and a sitecustomize on PYTHONPATH --------
# Built for Debian's Python (PYTHON_INTERP), whichever python3 is first on
# PATH: the module only loads into the Python it was built for.
PYTHON_INTERP ?= /usr/bin/python3
PY_INCLUDE  := $(shell $(PYTHON_INTERP) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_SUFFIX   := $(shell $(PYTHON_INTERP) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
CGI_PY      := $(CGI_DIR)/python/_cgcollect$(PY_SUFFIX)
CGI_PYSITE  := $(CGI_DIR)/python/sitecustomize.py

$(CGI_PY): collector/python/cgpython.c collector/cgcollect.h $(CGC_SO)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CGI_CFLAGS) -I$(PY_INCLUDE) -o $@ $< $(CGI_LINK)

$(CGI_PYSITE): collector/python/sitecustomize.py
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

ALL_TARGETS += $(CGI_PY) $(CGI_PYSITE)

# ---- SWI-Prolog 9: a Prolog file loaded with -s, and its foreign library ----
# -isystem: SWI-Prolog.h has old-style declarations our warnings dislike.
SWIPL_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags swipl 2>/dev/null || echo -I/usr/lib/swi-prolog/include))
SWIPL_LIBS   := $(shell pkg-config --libs swipl 2>/dev/null || echo -lswipl)
CGI_PL       := $(CGI_DIR)/prolog/cgswipl.so
CGI_PLFILE   := $(CGI_DIR)/prolog/cgcollect.pl

$(CGI_PL): collector/prolog/cgswipl.c collector/cgcollect.h $(CGC_SO)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CGI_CFLAGS) $(SWIPL_CFLAGS) -o $@ $< $(CGI_LINK) $(SWIPL_LIBS)

$(CGI_PLFILE): collector/prolog/cgcollect.pl
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

ALL_TARGETS += $(CGI_PL) $(CGI_PLFILE)

# ---- benchmark: overhead per call against each interpreter's profiler -------
bench-interp: $(CGC_SO) $(B)/bin/cgrun $(CGI_LUA) $(CGI_PY) $(CGI_PYSITE) $(CGI_PL) $(CGI_PLFILE)
	B=$(B) sh collector/interp/bench.sh

BENCH_TARGETS += bench-interp
.PHONY: bench-interp

# ---- install: the bindings next to the collector library (cgrun looks for
# them in the directory libcgcollect.so is in); the man page goes with the
# others (docs/*.7).
INSTALL_EXTRA += install -d $(DESTDIR)$(LIBDIR)/cgcollect/lua $(DESTDIR)$(LIBDIR)/cgcollect/python \
	  $(DESTDIR)$(LIBDIR)/cgcollect/prolog && \
	install -m 755 $(CGI_LUA) $(DESTDIR)$(LIBDIR)/cgcollect/lua/ && \
	install -m 755 $(CGI_PY) $(DESTDIR)$(LIBDIR)/cgcollect/python/ && \
	install -m 644 $(CGI_PYSITE) $(DESTDIR)$(LIBDIR)/cgcollect/python/ && \
	install -m 755 $(CGI_PL) $(DESTDIR)$(LIBDIR)/cgcollect/prolog/ && \
	install -m 644 $(CGI_PLFILE) $(DESTDIR)$(LIBDIR)/cgcollect/prolog/ ;
UNINSTALL_EXTRA += rm -rf $(DESTDIR)$(LIBDIR)/cgcollect ;

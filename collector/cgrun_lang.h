/*
 * cgrun_lang.h — cgrun's support for interpreters (cgrun_lang.c): it
 * recognises Lua, Python and SWI-Prolog by the program's name (or
 * --lang) and arranges for the interpreter's binding to be loaded.
 */
#ifndef CGRUN_LANG_H
#define CGRUN_LANG_H

/* The --lang argument: 0 when it names a language we support (or is
 * "none" or "c"), -1 otherwise. */
int cgrun_lang_option(const char *arg);

/* Before the exec: when *argv (the program and its arguments) is an
 * interpreter we support (by --lang, else by the program's base name),
 * sets the environment, and may replace *argv, so that its binding is
 * loaded from next to `collector` (libcgcollect.so).  0, or -1 after
 * printing why. */
int cgrun_lang_prepare(const char *collector, char ***argv);

#endif

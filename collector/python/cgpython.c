/*
 * cgpython.c — the Python 3 binding of libcgcollect: the extension module
 * _cgcollect, whose start() installs a C profile function
 * (PyEval_SetProfile) that reports every Python and built-in call to the
 * collector through the interpreter API (cgcollect.h).  cgrun puts this
 * directory first on PYTHONPATH; its sitecustomize.py calls start().
 *
 * Functions are keyed as cProfile keys them, so our counts and its ncalls
 * are comparable one to one: a Python function by its code object (kept
 * alive, so the key is never reused), a built-in by its PyMethodDef.
 * Names: "module.qualname" for Python functions (module from the frame's
 * globals, with the code's file and first line), "module.name" for
 * built-in functions and "type.name" for built-in methods.
 *
 * Generators and coroutines: Python reports each resumption as a call and
 * each yield as a return.  The first call is a call here; a yield is an
 * exit, and the frame is remembered as suspended (frame -> node) until it
 * is resumed, which is a redo of its node.  So calls + redos of a
 * generator equal cProfile's ncalls.
 *
 * The shadow stack is per thread; threads started by the threading module
 * are profiled too (threading.setprofile installs a function that replaces
 * itself with ours on the thread's first event).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgcollect.h"

struct entry {
	cgc_node *resume;   /* the caller's node */
	int counted;        /* 0 for a C call we do not report (not a PyCFunction) */
};

struct pstack {
	struct entry *e;
	size_t n, cap;
	cgc_node *base;
};

static _Thread_local struct pstack tstack;

/* ---- pointer-keyed tables: functions, suspended generator frames ------- */

struct slot {
	const void *k;
	void *v;
};

struct table {
	struct slot *s;
	size_t cap, count, tomb;
};

#define TOMB ((const void *)1)

static size_t phash(const void *k, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)k * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 32) & (cap - 1);
}

static void *tget(struct table *t, const void *k)
{
	if (!t->cap)
		return NULL;
	for (size_t i = phash(k, t->cap); t->s[i].k; i = (i + 1) & (t->cap - 1))
		if (t->s[i].k == k)
			return t->s[i].v;
	return NULL;
}

static int tput(struct table *t, const void *k, void *v);

static int tgrow(struct table *t)
{
	struct table n = { calloc(t->cap ? t->cap * 2 : 256, sizeof(struct slot)),
			   t->cap ? t->cap * 2 : 256, 0, 0 };
	if (!n.s)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->s[i].k && t->s[i].k != TOMB)
			tput(&n, t->s[i].k, t->s[i].v);
	free(t->s);
	*t = n;
	return 0;
}

static int tput(struct table *t, const void *k, void *v)
{
	if ((t->count + t->tomb + 1) * 2 > t->cap && tgrow(t) != 0)
		return -1;
	size_t i = phash(k, t->cap);
	while (t->s[i].k && t->s[i].k != TOMB && t->s[i].k != k)
		i = (i + 1) & (t->cap - 1);
	if (t->s[i].k == TOMB)
		t->tomb--;
	if (t->s[i].k != k)
		t->count++;
	t->s[i].k = k;
	t->s[i].v = v;
	return 0;
}

static void tdel(struct table *t, const void *k)
{
	if (!t->cap)
		return;
	for (size_t i = phash(k, t->cap); t->s[i].k; i = (i + 1) & (t->cap - 1))
		if (t->s[i].k == k) {
			t->s[i].k = TOMB;
			t->count--;
			t->tomb++;
			return;
		}
}

/* The GIL serialises every access to these. */
static struct table funcs;      /* code object or PyMethodDef -> cgc_func */
static struct table suspended;  /* generator frame -> its node */
static int yield_op = -1;       /* YIELD_VALUE's opcode in this Python */

/* ---- naming ------------------------------------------------------------- */

static int is_noprofile(const char *name)
{
	const char *list = getenv("CGCOLLECT_NOPROFILE");
	size_t n = strlen(name);
	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);
		if (len == n && memcmp(name, list, len) == 0)
			return 1;
		list = comma ? comma + 1 : NULL;
	}
	return 0;
}

static cgc_func *reg(const char *name, const char *file, unsigned line)
{
	cgc_func *f = cgc_register(name, file, line);
	if (f && is_noprofile(name))
		cgc_noprofile(f);
	return f;
}

static cgc_func *python_func(PyFrameObject *frame, PyCodeObject *code)
{
	cgc_func *f = tget(&funcs, code);
	if (f)
		return f;
	const char *mod = "?";
	PyObject *globals = PyFrame_GetGlobals(frame);
	PyObject *m = globals ? PyDict_GetItemString(globals, "__name__") : NULL;
	if (m && PyUnicode_Check(m))
		mod = PyUnicode_AsUTF8(m);
	Py_XDECREF(globals);
	const char *qual = PyUnicode_AsUTF8(code->co_qualname);
	const char *file = PyUnicode_AsUTF8(code->co_filename);
	PyErr_Clear();
	char name[1024];
	snprintf(name, sizeof name, "%s.%s", mod ? mod : "?", qual ? qual : "?");
	f = reg(name, file, (unsigned)(code->co_firstlineno > 0 ? code->co_firstlineno : 0));
	if (f) {
		Py_INCREF(code);  /* so the key is never another code object */
		tput(&funcs, code, f);
	}
	return f;
}

static cgc_func *c_func(PyCFunctionObject *fn)
{
	cgc_func *f = tget(&funcs, fn->m_ml);
	if (f)
		return f;
	char name[1024];
	PyObject *self = fn->m_self;
	if (!self || PyModule_Check(self)) {
		const char *mod = fn->m_module && PyUnicode_Check(fn->m_module) ?
			PyUnicode_AsUTF8(fn->m_module) : NULL;
		if (!mod && self)
			mod = PyModule_GetName(self);
		snprintf(name, sizeof name, "%s.%s", mod ? mod : "builtins", fn->m_ml->ml_name);
	} else {
		PyTypeObject *type = PyType_Check(self) ? (PyTypeObject *)self : Py_TYPE(self);
		snprintf(name, sizeof name, "%s.%s", type->tp_name, fn->m_ml->ml_name);
	}
	PyErr_Clear();
	f = reg(name, NULL, 0);
	if (f)
		tput(&funcs, fn->m_ml, f);
	return f;
}

/* ---- the profile function ------------------------------------------------ */

static int push(cgc_node *resume, int counted)
{
	struct pstack *s = &tstack;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct entry *e = realloc(s->e, cap * sizeof *e);
		if (!e)
			return -1;
		s->e = e;
		s->cap = cap;
	}
	s->e[s->n++] = (struct entry){ resume, counted };
	return 0;
}

static void pop(void)
{
	struct pstack *s = &tstack;
	if (s->n == 0) {
		/* A frame that started before the profiler: its caller's
		 * context is the thread's base. */
		cgc_exit(s->base);
		return;
	}
	cgc_exit(s->e[--s->n].resume);
}

/* Was the frame's last instruction a yield (suspended), or is it done? */
static int yielded(PyFrameObject *frame, PyCodeObject *code)
{
	int lasti = PyFrame_GetLasti(frame);
	if (lasti < 0 || yield_op < 0)
		return 0;
	PyObject *bytes = PyCode_GetCode(code);
	int r = 0;
	if (bytes && PyBytes_Check(bytes) && lasti < PyBytes_GET_SIZE(bytes))
		r = (unsigned char)PyBytes_AS_STRING(bytes)[lasti] == yield_op;
	Py_XDECREF(bytes);
	return r;
}

#define GEN_FLAGS (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR)

/* The main thread waits for the main module (the script, -m module or -c
 * code: a "<module>" frame whose globals are __main__'s) and stops when it
 * returns, so the profile holds the program and not the interpreter's
 * start and shutdown: the part cProfile profiles too. */
static int waiting;
static PyFrameObject *main_frame;

static int is_main_module(PyFrameObject *frame)
{
	PyCodeObject *code = PyFrame_GetCode(frame);
	int r = PyUnicode_CompareWithASCIIString(code->co_name, "<module>") == 0;
	Py_DECREF(code);
	if (!r)
		return 0;
	PyObject *globals = PyFrame_GetGlobals(frame);
	PyObject *m = globals ? PyDict_GetItemString(globals, "__name__") : NULL;
	r = m && PyUnicode_Check(m) && PyUnicode_CompareWithASCIIString(m, "__main__") == 0;
	Py_XDECREF(globals);
	PyErr_Clear();
	return r;
}

static int profile(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
	(void)obj;
	if (waiting) {
		if (what != PyTrace_CALL || !is_main_module(frame))
			return 0;
		waiting = 0;
		main_frame = frame;
		tstack.n = 0;
		tstack.base = cgc_current();
	}
	if (what == PyTrace_RETURN && frame == main_frame && tstack.n == 1) {
		pop();
		main_frame = NULL;
		PyEval_SetProfile(NULL, NULL);
		return 0;
	}
	switch (what) {
	case PyTrace_CALL: {
		cgc_node *here = cgc_current();
		PyCodeObject *code = PyFrame_GetCode(frame);
		cgc_node *gen = (code->co_flags & GEN_FLAGS) ? tget(&suspended, frame) : NULL;
		if (gen) {
			tdel(&suspended, frame);
			cgc_redo(gen);
		} else {
			cgc_call(python_func(frame, code));
		}
		Py_DECREF(code);
		push(here, 1);
		break;
	}
	case PyTrace_RETURN: {
		PyCodeObject *code = PyFrame_GetCode(frame);
		if ((code->co_flags & GEN_FLAGS) && arg && yielded(frame, code))
			tput(&suspended, frame, cgc_current());
		Py_DECREF(code);
		pop();
		break;
	}
	case PyTrace_C_CALL: {
		cgc_node *here = cgc_current();
		int counted = PyCFunction_Check(arg);
		if (counted)
			cgc_call(c_func((PyCFunctionObject *)arg));
		push(here, counted);
		break;
	}
	case PyTrace_C_RETURN:
	case PyTrace_C_EXCEPTION:
		pop();
		break;
	}
	return 0;
}

/* ---- the module ------------------------------------------------------------- */

static void start_thread(void)
{
	tstack.n = 0;
	tstack.base = cgc_current();
	PyEval_SetProfile(profile, NULL);
}

static PyObject *mod_start(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	waiting = 1;
	start_thread();
	Py_RETURN_NONE;
}

/* threading.setprofile's function: on a new thread's first event it puts
 * our C profile function in its place (that event, the thread's bootstrap
 * starting, is not counted). */
static PyObject *mod_thread_start(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	start_thread();
	Py_RETURN_NONE;
}

static PyObject *mod_stop(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	PyEval_SetProfile(NULL, NULL);
	Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
	{ "start", mod_start, METH_NOARGS,
	  "Profile the main module of this thread, from its start to its end." },
	{ "stop", mod_stop, METH_NOARGS, "Stop profiling this thread." },
	{ "_thread_start", mod_thread_start, METH_VARARGS,
	  "For threading.setprofile: profile the new thread." },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_cgcollect",
	"The callgraph collector's Python binding (see cgcollect-interp(7)).", -1, methods,
	NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__cgcollect(void);

__attribute__((visibility("default"))) PyMODINIT_FUNC PyInit__cgcollect(void)
{
	/* The yield opcode is looked up, not hard-coded: it changes between
	 * Python versions. */
	PyObject *opcode = PyImport_ImportModule("opcode");
	PyObject *map = opcode ? PyObject_GetAttrString(opcode, "opmap") : NULL;
	PyObject *y = map ? PyDict_GetItemString(map, "YIELD_VALUE") : NULL;
	if (y)
		yield_op = (int)PyLong_AsLong(y);
	Py_XDECREF(map);
	Py_XDECREF(opcode);
	PyErr_Clear();
	return PyModule_Create(&module);
}

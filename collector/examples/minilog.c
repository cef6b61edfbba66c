/*
 * minilog.c — a tiny Prolog (pure Horn clauses, integers, lists, is/2 and
 * arithmetic comparison) that profiles itself with the libcgcollect API,
 * the way SWI-Prolog's profiler hooks its virtual machine:
 *
 *   call   cgc_call(pred)      when a goal of a user predicate starts;
 *   exit   cgc_exit(parent)    when its body succeeded (the continuation
 *                              runs in the caller's context);
 *   redo   cgc_redo(node)      when backtracking re-enters it after exit;
 *   fail   cgc_exit(parent)    when no clause is left.
 *
 * So the profile shows, per calling context, calls, redos and the time
 * (or call counts) spent in each predicate, and backtracking is real.
 *
 * Usage: minilog [-n NAME/ARITY]... FILE
 *   Runs every `?- Goal.` in FILE and prints how many solutions it has.
 *   -n makes a predicate transparent (noprofile); so does the directive
 *   `:- noprofile(Name/Arity).` in the file.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgcollect.h"

/* ---- terms ------------------------------------------------------------- */

enum kind { VAR, ATOM, INT, COMPOUND };

typedef struct term {
	enum kind kind;
	int arity;            /* COMPOUND */
	long value;           /* INT */
	const char *name;     /* ATOM, COMPOUND functor, VAR name */
	struct term *ref;     /* VAR: binding, NULL when free */
	struct term *args[];  /* COMPOUND */
} term;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("minilog: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(3);
}

static void *xalloc(size_t n)
{
	void *p = calloc(1, n);
	if (!p)
		die("out of memory");
	return p;
}

/* Names are interned so they compare by pointer. */
static const char *intern(const char *s, size_t len)
{
	static struct name { struct name *next; char s[]; } *names;
	for (struct name *n = names; n; n = n->next)
		if (strlen(n->s) == len && memcmp(n->s, s, len) == 0)
			return n->s;
	struct name *n = xalloc(sizeof *n + len + 1);
	memcpy(n->s, s, len);
	n->next = names;
	names = n;
	return n->s;
}

static term *mk(enum kind k, const char *name, int arity)
{
	term *t = xalloc(sizeof *t + (size_t)arity * sizeof(term *));
	t->kind = k;
	t->name = name;
	t->arity = arity;
	return t;
}

static term *mk_int(long v)
{
	term *t = mk(INT, NULL, 0);
	t->value = v;
	return t;
}

static term *deref(term *t)
{
	while (t->kind == VAR && t->ref)
		t = t->ref;
	return t;
}

/* ---- the trail ---------------------------------------------------------- */

static term **trail;
static size_t trail_len, trail_cap;

static void bind(term *v, term *t)
{
	if (trail_len == trail_cap) {
		trail_cap = trail_cap ? trail_cap * 2 : 1024;
		trail = realloc(trail, trail_cap * sizeof *trail);
		if (!trail)
			die("out of memory");
	}
	trail[trail_len++] = v;
	v->ref = t;
}

static void undo(size_t mark)
{
	while (trail_len > mark)
		trail[--trail_len]->ref = NULL;
}

static int unify(term *a, term *b)
{
	a = deref(a);
	b = deref(b);
	if (a == b)
		return 1;
	if (a->kind == VAR) {
		bind(a, b);
		return 1;
	}
	if (b->kind == VAR) {
		bind(b, a);
		return 1;
	}
	if (a->kind != b->kind)
		return 0;
	if (a->kind == INT)
		return a->value == b->value;
	if (a->name != b->name || a->arity != b->arity)
		return 0;
	for (int i = 0; i < a->arity; i++)
		if (!unify(a->args[i], b->args[i]))
			return 0;
	return 1;
}

/* ---- parsing -------------------------------------------------------------- */

static const char *src, *src_name;
static int src_line = 1;
static const char *varnames[64];
static term *varterms[64];
static int nvars;

static void skip_space(void)
{
	for (;;) {
		while (isspace((unsigned char)*src))
			if (*src++ == '\n')
				src_line++;
		if (*src != '%')
			return;
		while (*src && *src != '\n')
			src++;
	}
}

static int accept(const char *tok)
{
	skip_space();
	size_t n = strlen(tok);
	if (strncmp(src, tok, n) != 0)
		return 0;
	src += n;
	return 1;
}

static void expect(const char *tok)
{
	if (!accept(tok))
		die("%s:%d: expected '%s'", src_name, src_line, tok);
}

static term *parse_expr(int prec);

static term *parse_list(void)
{
	if (accept("]"))
		return mk(ATOM, intern("[]", 2), 0);
	term *items[256];
	int n = 0;
	do {
		if (n == 256)
			die("%s:%d: list too long", src_name, src_line);
		items[n++] = parse_expr(999);
	} while (accept(","));
	term *tail = accept("|") ? parse_expr(999) : mk(ATOM, intern("[]", 2), 0);
	expect("]");
	while (n-- > 0) {
		term *c = mk(COMPOUND, intern(".", 1), 2);
		c->args[0] = items[n];
		c->args[1] = tail;
		tail = c;
	}
	return tail;
}

static term *parse_primary(void)
{
	skip_space();
	if (accept("("))
	{
		term *t = parse_expr(1200);
		expect(")");
		return t;
	}
	if (accept("["))
		return parse_list();
	if (isdigit((unsigned char)*src)) {
		long v = strtol(src, (char **)&src, 10);
		return mk_int(v);
	}
	if (isalpha((unsigned char)*src) || *src == '_') {
		const char *s = src;
		while (isalnum((unsigned char)*src) || *src == '_')
			src++;
		const char *name = intern(s, (size_t)(src - s));
		if (isupper((unsigned char)*s) || *s == '_') {
			if (strcmp(name, "_") != 0)
				for (int i = 0; i < nvars; i++)
					if (varnames[i] == name)
						return varterms[i];
			term *v = mk(VAR, name, 0);
			if (nvars == 64)
				die("%s:%d: too many variables", src_name, src_line);
			varnames[nvars] = name;
			varterms[nvars++] = v;
			return v;
		}
		if (*src != '(')
			return mk(ATOM, name, 0);
		src++;
		term *args[16];
		int n = 0;
		do {
			if (n == 16)
				die("%s:%d: too many arguments", src_name, src_line);
			args[n++] = parse_expr(999);
		} while (accept(","));
		expect(")");
		term *t = mk(COMPOUND, name, n);
		memcpy(t->args, args, (size_t)n * sizeof *args);
		return t;
	}
	die("%s:%d: unexpected '%.10s'", src_name, src_line, src);
	return NULL;
}

/* Binary operators, longest spelling first; xfx at 700, yfx below. */
static const struct op { const char *tok; int prec; } ops[] = {
	{ "=:=", 700 }, { "=\\=", 700 }, { "=<", 700 }, { ">=", 700 }, { "is", 700 },
	{ "<", 700 }, { ">", 700 }, { "=", 700 },
	{ "+", 500 }, { "-", 500 }, { "*", 400 }, { "/", 400 }, { ",", 1000 },
};

static term *parse_expr(int prec)
{
	term *left = parse_primary();
	for (;;) {
		skip_space();
		const struct op *found = NULL;
		for (size_t i = 0; i < sizeof ops / sizeof ops[0] && !found; i++) {
			size_t n = strlen(ops[i].tok);
			if (ops[i].prec <= prec && strncmp(src, ops[i].tok, n) == 0 &&
			    !(isalpha((unsigned char)ops[i].tok[0]) && isalnum((unsigned char)src[n])))
				found = &ops[i];
		}
		if (!found)
			return left;
		src += strlen(found->tok);
		term *right = parse_expr(found->prec - 1);
		term *t = mk(COMPOUND, intern(found->tok, strlen(found->tok)), 2);
		t->args[0] = left;
		t->args[1] = right;
		left = t;
	}
}

/* ---- the database -------------------------------------------------------------- */

typedef struct clause {
	term *head, *body;  /* body NULL for a fact */
	int nvars;
	struct clause *next;
} clause;

typedef struct pred {
	const char *name;
	int arity;
	clause *clauses, **last;
	cgc_func *prof;
	int noprofile;
	struct pred *next;
} pred;

static pred *preds;

static pred *lookup(const char *name, int arity, int create)
{
	for (pred *p = preds; p; p = p->next)
		if (p->name == name && p->arity == arity)
			return p;
	if (!create)
		return NULL;
	pred *p = xalloc(sizeof *p);
	p->name = name;
	p->arity = arity;
	p->last = &p->clauses;
	p->next = preds;
	preds = p;
	return p;
}

static void set_noprofile(const char *spec)
{
	const char *slash = strrchr(spec, '/');
	if (!slash)
		die("noprofile: expected NAME/ARITY, not '%s'", spec);
	pred *p = lookup(intern(spec, (size_t)(slash - spec)), (int)strtol(slash + 1, NULL, 10), 1);
	p->noprofile = 1;
	if (p->prof)
		cgc_noprofile(p->prof);
}

/* Variables of a clause are numbered so it can be renamed per call. */
static term *number_vars(term *t)
{
	t = deref(t);
	if (t->kind == VAR) {
		for (int i = 0; i < nvars; i++)
			if (varterms[i] == t) {
				term *n = mk_int(i);
				n->kind = VAR;
				n->name = NULL;
				return n;
			}
	}
	if (t->kind != COMPOUND)
		return t;
	term *c = mk(COMPOUND, t->name, t->arity);
	for (int i = 0; i < t->arity; i++)
		c->args[i] = number_vars(t->args[i]);
	return c;
}

static term *rename_term(term *t, term **fresh)
{
	if (t->kind == VAR && !t->name)
		return fresh[t->value];
	if (t->kind != COMPOUND)
		return t;
	term *c = mk(COMPOUND, t->name, t->arity);
	for (int i = 0; i < t->arity; i++)
		c->args[i] = rename_term(t->args[i], fresh);
	return c;
}

/* ---- solving --------------------------------------------------------------------- */

/* A goal list cell.  An exit cell marks the end of a predicate's body: the
 * continuation after it runs in the caller's context. */
typedef struct goal {
	term *t;
	struct goal *next;
	cgc_node *exit_to;   /* exit cell: the caller's node */
	cgc_node *callee;    /* exit cell: the predicate's node, for redo */
	int is_exit;
} goal;

static long solutions;

static goal *cons(term *t, goal *next)
{
	goal *g = xalloc(sizeof *g);
	g->t = t;
	g->next = next;
	return g;
}

static goal *push_body(term *body, goal *next)
{
	body = deref(body);
	if (body->kind == COMPOUND && body->arity == 2 && strcmp(body->name, ",") == 0)
		return push_body(body->args[0], push_body(body->args[1], next));
	return cons(body, next);
}

static long eval(term *t)
{
	t = deref(t);
	if (t->kind == INT)
		return t->value;
	if (t->kind == COMPOUND && t->arity == 2) {
		long a = eval(t->args[0]), b = eval(t->args[1]);
		switch (t->name[0]) {
		case '+': return a + b;
		case '-': return a - b;
		case '*': return a * b;
		}
	}
	die("cannot evaluate a non-arithmetic term");
	return 0;
}

static int solve(goal *g);

/* Built-ins are deterministic and have no node: their time is their
 * caller's. */
static int builtin(term *t, goal *next, int *handled)
{
	*handled = 1;
	if (t->kind == ATOM && strcmp(t->name, "true") == 0)
		return solve(next);
	if (t->kind == ATOM && strcmp(t->name, "fail") == 0)
		return 0;
	if (t->kind != COMPOUND || t->arity != 2) {
		*handled = 0;
		return 0;
	}
	const char *op = t->name;
	size_t mark = trail_len;
	int ok;
	if (strcmp(op, "=") == 0)
		ok = unify(t->args[0], t->args[1]);
	else if (strcmp(op, "is") == 0)
		ok = unify(t->args[0], mk_int(eval(t->args[1])));
	else if (strcmp(op, "<") == 0)
		ok = eval(t->args[0]) < eval(t->args[1]);
	else if (strcmp(op, ">") == 0)
		ok = eval(t->args[0]) > eval(t->args[1]);
	else if (strcmp(op, "=<") == 0)
		ok = eval(t->args[0]) <= eval(t->args[1]);
	else if (strcmp(op, ">=") == 0)
		ok = eval(t->args[0]) >= eval(t->args[1]);
	else if (strcmp(op, "=:=") == 0)
		ok = eval(t->args[0]) == eval(t->args[1]);
	else if (strcmp(op, "=\\=") == 0)
		ok = eval(t->args[0]) != eval(t->args[1]);
	else {
		*handled = 0;
		return 0;
	}
	int r = ok && solve(next);
	undo(mark);
	return r;
}

/* Returns 1 to stop (never: we enumerate every solution), 0 when the goal
 * list has no more solutions. */
static int solve(goal *g)
{
	if (!g) {
		solutions++;
		return 0;  /* ask for the next solution: backtrack */
	}
	if (g->is_exit) {
		cgc_exit(g->exit_to);               /* exit port */
		int r = solve(g->next);
		cgc_redo(g->callee);                /* redo port: backtracking in */
		return r;
	}
	term *t = deref(g->t);
	int handled;
	int r = builtin(t, g->next, &handled);
	if (handled)
		return r;
	const char *name = t->kind == COMPOUND || t->kind == ATOM ? t->name : NULL;
	pred *p = name ? lookup(name, t->kind == COMPOUND ? t->arity : 0, 0) : NULL;
	if (!p)
		die("unknown procedure %s/%d", name ? name : "?", t->kind == COMPOUND ? t->arity : 0);
	cgc_node *parent = cgc_current();
	cgc_node *me = cgc_call(p->prof);       /* call port */
	for (clause *c = p->clauses; c && !r; c = c->next) {
		term *fresh[64];
		for (int i = 0; i < c->nvars; i++)
			fresh[i] = mk(VAR, "_", 0);
		size_t mark = trail_len;
		if (unify(rename_term(c->head, fresh), t)) {
			goal *done = cons(NULL, g->next);
			done->is_exit = 1;
			done->exit_to = parent;
			done->callee = p->noprofile ? NULL : me;
			r = solve(c->body ? push_body(rename_term(c->body, fresh), done) : done);
		}
		undo(mark);
	}
	cgc_exit(parent);                       /* fail port */
	return r;
}

/* ---- loading and running ---------------------------------------------------------- */

static void print_term(term *t, FILE *f)
{
	t = deref(t);
	switch (t->kind) {
	case VAR: fputs("_", f); break;
	case INT: fprintf(f, "%ld", t->value); break;
	case ATOM: fputs(t->name, f); break;
	case COMPOUND:
		fprintf(f, "%s(", t->name);
		for (int i = 0; i < t->arity; i++) {
			if (i)
				fputc(',', f);
			print_term(t->args[i], f);
		}
		fputc(')', f);
	}
}

static void load_and_run(const char *text, const char *name)
{
	src = text;
	src_name = name;
	for (;;) {
		skip_space();
		if (!*src)
			return;
		nvars = 0;
		int line = src_line;
		if (accept("?-")) {
			term *q = parse_expr(1200);
			expect(".");
			solutions = 0;
			size_t mark = trail_len;
			solve(push_body(q, NULL));
			undo(mark);
			print_term(q, stdout);
			printf(": %ld solution%s\n", solutions, solutions == 1 ? "" : "s");
			continue;
		}
		if (accept(":-")) {
			term *d = deref(parse_expr(1200));
			expect(".");
			if (d->kind == COMPOUND && strcmp(d->name, "noprofile") == 0 && d->arity == 1) {
				term *spec = deref(d->args[0]);
				char buf[256];
				if (spec->kind != COMPOUND || spec->arity != 2)
					die("%s:%d: noprofile(Name/Arity) expected", name, line);
				snprintf(buf, sizeof buf, "%s/%ld", deref(spec->args[0])->name,
					 eval(spec->args[1]));
				set_noprofile(buf);
			}
			continue;
		}
		term *head = deref(parse_expr(999)), *body = NULL;
		if (accept(":-"))
			body = parse_expr(1200);
		expect(".");
		if (head->kind != ATOM && head->kind != COMPOUND)
			die("%s:%d: a clause head must be an atom or a compound term", name, line);
		pred *p = lookup(head->name, head->kind == COMPOUND ? head->arity : 0, 1);
		if (!p->prof) {
			char label[256];
			snprintf(label, sizeof label, "%s/%d", p->name, p->arity);
			p->prof = cgc_register(label, name, (unsigned)line);
			if (p->noprofile)
				cgc_noprofile(p->prof);
		}
		clause *c = xalloc(sizeof *c);
		c->head = number_vars(head);
		c->body = body ? number_vars(body) : NULL;
		c->nvars = nvars;
		*p->last = c;
		p->last = &c->next;
	}
}

int main(int argc, char **argv)
{
	int i = 1;
	for (; i + 1 < argc && strcmp(argv[i], "-n") == 0; i += 2)
		set_noprofile(argv[i + 1]);
	if (i + 1 != argc) {
		fputs("usage: minilog [-n NAME/ARITY]... FILE\n", stderr);
		return 2;
	}
	FILE *f = fopen(argv[i], "rb");
	if (!f)
		die("%s: cannot open", argv[i]);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	load_and_run(text, argv[i]);
	return 0;
}

/*
 * gprof_order.c — gprof's suggested function order (-r): a list of
 * function names for the linker, most related functions next to each
 * other.  Replicates gprof 2.40's greedy placement step for step (the
 * sorts, the 90 %/99 % thresholds and its quirks), so the list is the
 * same.
 */
#include <stdlib.h>
#include <string.h>
#include "gprof_internal.h"

/* Objects are the symbols, then the symbol copies gprof's A/B specs
 * create (gp_fake_arc); arcs are those pseudo arcs (count 0, created
 * first), then the real arcs: real arc k is arc nfake + k. */
typedef struct orderer {
	gp_printer *pr;
	const cg_gprof_analysis *a;
	int graph_printed;
	uint8_t *sym_placed, *arc_placed;   /* by object, by arc */
	uint32_t *next, *prev;      /* function chains, by object */
	uint32_t *nuses;
	uint32_t *list;             /* scratch for a symbol's arc list */
	uint32_t *parent, *child;   /* by arc */
	uint64_t *count;
} orderer;

static int cmp_arc_count(const void *ctx, uint32_t l, uint32_t r)
{
	const orderer *o = ctx;
	uint64_t lc = o->count[l], rc = o->count[r];
	return lc > rc ? -1 : lc < rc;
}

static int cmp_fun_nuses(const void *ctx, uint32_t l, uint32_t r)
{
	const orderer *o = ctx;
	return o->nuses[l] > o->nuses[r] ? -1 : o->nuses[l] < o->nuses[r];
}

/* Printing the call graph sorts the lists of every printed entry in
 * place in gprof; -r, which comes after, sees them that way. */
static int entry_printed(const cg_gprof_analysis *a, uint32_t s)
{
	const gp_sym *sym = &a->syms[s];
	if (!a->opts.zero && sym->ncalls == 0 && sym->self_calls == 0 && sym->prop_self == 0
	    && sym->prop_child == 0)
		return 0;
	if (!sym->print_flag)
		return 0;
	return !(a->opts.line_mode && !(sym->flags & CG_FN_IS_FUNC));
}

static int arc_list(orderer *o, uint32_t s, int parents, uint32_t *n)
{
	const cg_gprof_analysis *a = o->a;
	const gp_sym *sym = &a->syms[s];
	const uint32_t *src = parents ? a->parent_lists + sym->first_parent
				      : a->child_lists + sym->first_child;
	*n = parents ? sym->nparents : sym->nchildren;
	if (o->graph_printed && entry_printed(a, s)) {
		if (cg_gp_sort_arc_list(o->pr, src, *n, !parents))
			return CG_ENOMEM;
		memcpy(o->list, o->pr->buf, *n * sizeof *o->list);
	} else {
		memcpy(o->list, src, *n * sizeof *o->list);
	}
	return 0;
}

static void emit(orderer *o, uint32_t s)
{
	const cg_gprof_analysis *a = o->a;
	uint32_t named = s < a->nsyms ? s : a->vobj_sym[s - a->nsyms];
	fprintf(o->pr->out, "%s\n", a->syms[named].name);
}

/* The end of s's chain: following next if s has one, else prev. */
static uint32_t chain_end(const orderer *o, uint32_t s, int *steps, int forward)
{
	int n = 0;
	const uint32_t *link = forward ? o->next : o->prev;
	while (link[s] != GP_NONE) {
		s = link[s];
		n++;
	}
	if (steps)
		*steps = n;
	return s;
}

static void place_arcs(orderer *o, const uint32_t *arcs, size_t count, int all,
		       uint32_t *unplaced, size_t *nunplaced)
{
	unsigned long long total = 0, seen = 0;
	if (!all)
		for (size_t i = 0; i < count; i++)
			total += o->count[arcs[i]];
	for (size_t i = 0; i < count; i++) {
		uint32_t k = arcs[i];
		seen += o->count[k];
		if (o->arc_placed[k])
			continue;
		uint32_t child = o->child[k], parent = o->parent[k];
		if ((!all && (double)seen / (double)total > 0.99)
		    || o->sym_placed[child] || o->sym_placed[parent]) {
			unplaced[(*nunplaced)++] = k;
			continue;
		}
		if (o->next[parent] != GP_NONE && o->prev[parent] != GP_NONE
		    && o->next[child] != GP_NONE && o->prev[child] != GP_NONE) {
			unplaced[(*nunplaced)++] = k;
			continue;
		}
		int nc, pc;
		if (o->next[parent] == GP_NONE && o->prev[parent] == GP_NONE) {
			uint32_t ne = chain_end(o, child, &nc, 1), pe = chain_end(o, child, &pc, 0);
			child = nc < pc ? ne : pe;
		} else if (o->next[child] == GP_NONE && o->prev[child] == GP_NONE) {
			uint32_t ne = chain_end(o, parent, &nc, 1), pe = chain_end(o, parent, &pc, 0);
			parent = pc < nc ? pe : ne;
		} else {
			unplaced[(*nunplaced)++] = k;
			continue;
		}
		/* never tie the two ends of one chain together */
		uint32_t s1 = chain_end(o, parent, NULL, o->next[parent] != GP_NONE);
		uint32_t s2 = chain_end(o, child, NULL, o->next[child] != GP_NONE);
		if (s1 == child && s2 == parent) {
			unplaced[(*nunplaced)++] = k;
			continue;
		}
		if (o->next[parent] != GP_NONE) {
			if (o->next[child] == GP_NONE) {
				o->prev[parent] = child;
				o->next[child] = parent;
				o->arc_placed[k] = 1;
			}
		} else if (o->prev[parent] != GP_NONE) {
			if (o->prev[child] == GP_NONE) {
				o->next[parent] = child;
				o->prev[child] = parent;
				o->arc_placed[k] = 1;
			}
		} else if (o->prev[child] != GP_NONE) {
			o->prev[parent] = child;
			o->next[child] = parent;
			o->arc_placed[k] = 1;
		} else {
			o->next[parent] = child;
			o->prev[child] = parent;
			o->arc_placed[k] = 1;
		}
	}
	/* the chains built so far, from their starts */
	for (size_t i = 0; i < count; i++) {
		uint32_t parent = o->parent[arcs[i]], child = o->child[arcs[i]];
		if (o->sym_placed[parent] || o->sym_placed[child])
			continue;
		if (o->next[parent] == GP_NONE && o->prev[parent] == GP_NONE)
			continue;
		for (uint32_t s = chain_end(o, parent, NULL, 0); s != GP_NONE; s = o->next[s]) {
			o->sym_placed[s] = 1;
			emit(o, s);
		}
	}
	if (!all)
		return;
	for (size_t i = 0; i < count; i++) {
		uint32_t parent = o->parent[arcs[i]], child = o->child[arcs[i]];
		if (o->sym_placed[parent] || o->sym_placed[child])
			continue;
		o->sym_placed[parent] = 1;
		emit(o, parent);
	}
}

static int order(orderer *o, uint32_t *mem, size_t narcs)
{
	const cg_gprof_analysis *a = o->a;
	uint32_t n = a->nsyms;
	uint32_t *used = mem, *unused = used + n, *scratch_syms = unused + n;
	uint32_t *arcs = scratch_syms + n;          /* narcs */
	/* gprof sizes these by the arc count and can overflow them: an arc
	 * may be listed twice (from both ends), and the last placement pass
	 * appends to the scratch list. */
	uint32_t *high = arcs + narcs;              /* 2 * narcs */
	uint32_t *scratch_arcs = high + 2 * narcs;  /* 5 * narcs */
	uint32_t *unplaced = scratch_arcs + 5 * narcs;  /* 3 * narcs */
	uint32_t nused = 0, nunused = 0;
	size_t nhigh = 0, nscratch = 0, nunplaced = 0, nall = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (a->syms[i].ncalls == 0) {
			unused[nunused++] = i;
			o->sym_placed[i] = 1;
		} else {
			used[nused++] = i;
		}
	}
	size_t nfake = a->nfake;
	for (size_t k = 0; k < nfake; k++) {
		o->parent[k] = n + a->fake[k].parent;
		o->child[k] = n + a->fake[k].child;
		o->count[k] = 0;
		arcs[nall++] = (uint32_t)k;
	}
	for (uint32_t k = 0; k < a->narcs; k++) {
		o->parent[nfake + k] = a->arcs[k].parent;
		o->child[nfake + k] = a->arcs[k].child;
		o->count[nfake + k] = a->arcs[k].count;
		if (a->arcs[k].parent != a->arcs[k].child)
			arcs[nall++] = (uint32_t)(nfake + k);
	}
	if (cg_gp_msort(arcs, nall, cmp_arc_count, o))
		return CG_ENOMEM;
	unsigned long long total = 0, seen = 0;
	for (size_t i = 0; i < nall; i++)
		total += o->count[arcs[i]];
	for (size_t i = 0; i < nall; i++) {
		seen += o->count[arcs[i]];
		if ((double)seen / (double)total > 0.90)
			break;
		o->nuses[o->child[arcs[i]]]++;
	}
	memcpy(scratch_syms, used, nused * sizeof *used);
	if (cg_gp_msort(scratch_syms, nused, cmp_fun_nuses, o))
		return CG_ENOMEM;

	/* Functions called from many places in the hottest arcs go first. */
	uint32_t last = 0;
	for (uint32_t i = 0; i < nused / 80; i++) {
		uint32_t s = scratch_syms[i];
		if (o->nuses[s] == 5)
			break;
		for (int parents = 0; parents < 2; parents++) {
			uint32_t len;
			if (arc_list(o, s, parents, &len))
				return CG_ENOMEM;
			for (uint32_t j = 0; j < len; j++) {
				uint32_t k = (uint32_t)nfake + o->list[j];
				if (o->parent[k] != o->child[k])
					scratch_arcs[nscratch++] = k;
				o->arc_placed[k] = 1;
			}
		}
		last = i;
		o->sym_placed[s] = 1;
	}
	for (size_t i = 0; i < nscratch; i++) {
		uint32_t pa = o->parent[scratch_arcs[i]], ch = o->child[scratch_arcs[i]];
		if (o->sym_placed[ch] && o->sym_placed[pa]) {
			high[nhigh++] = scratch_arcs[i];
			o->sym_placed[ch] = 0;
			o->sym_placed[pa] = 0;
		}
	}
	for (uint32_t i = 0; i < last; i++)   /* gprof stops one short */
		if (o->sym_placed[scratch_syms[i]])
			emit(o, scratch_syms[i]);
	if (cg_gp_msort(high, nhigh, cmp_arc_count, o))
		return CG_ENOMEM;
	place_arcs(o, high, nhigh, 1, unplaced, &nunplaced);
	place_arcs(o, arcs, nall, 0, unplaced, &nunplaced);
	place_arcs(o, unplaced, nunplaced, 1, scratch_arcs, &nscratch);
	for (uint32_t i = 0; i < nused; i++)
		if (!o->sym_placed[used[i]])
			emit(o, used[i]);
	for (uint32_t i = 0; i < nunused; i++)
		emit(o, unused[i]);
	return 0;
}

int cg_gp_print_function_order(gp_printer *pr, int graph_printed)
{
	const cg_gprof_analysis *a = pr->a;
	size_t n = (size_t)a->nsyms + a->nvobj + 1;
	size_t narcs = a->nfake + (size_t)a->narcs + 1;
	orderer o = { 0 };
	o.pr = pr;
	o.a = a;
	o.graph_printed = graph_printed;
	o.sym_placed = calloc(n, 1);
	o.arc_placed = calloc(narcs, 1);
	o.next = malloc(n * sizeof *o.next);
	o.prev = malloc(n * sizeof *o.prev);
	o.nuses = calloc(n, sizeof *o.nuses);
	o.list = malloc(((size_t)a->narcs + 1) * sizeof *o.list);
	o.parent = malloc(narcs * sizeof *o.parent);
	o.child = malloc(narcs * sizeof *o.child);
	o.count = malloc(narcs * sizeof *o.count);
	uint32_t *mem = malloc((3 * n + 11 * narcs) * sizeof *mem);
	int rc = CG_ENOMEM;
	if (o.sym_placed && o.arc_placed && o.next && o.prev && o.nuses && o.list && o.parent
	    && o.child && o.count && mem) {
		for (size_t i = 0; i < n; i++)
			o.next[i] = o.prev[i] = GP_NONE;
		rc = order(&o, mem, narcs);
	}
	free(o.sym_placed);
	free(o.arc_placed);
	free(o.next);
	free(o.prev);
	free(o.nuses);
	free(o.list);
	free(o.parent);
	free(o.child);
	free(o.count);
	free(mem);
	return rc;
}

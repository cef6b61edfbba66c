/*
 * gprof_exact.c — true attribution from the call tree instead of gprof's
 * proportional guess (cg_gprof_options.use_exact_inclusive).
 *
 * gprof charges a callee's time to its callers in proportion to call
 * counts, which is wrong whenever calls differ in cost.  When the input
 * knows better (arcs carrying exact inclusive costs, derived from a
 * calling-context tree), the call graph shows the real numbers:
 *  - an arc's total is its exact inclusive cost;
 *  - its self part is the callee's own cost spent below that caller,
 *    taken from the tree (every instance of the callee is charged to the
 *    caller of its outermost instance on the stack, so recursion is not
 *    counted twice); without a tree the total is split in the callee's
 *    self/children ratio;
 *  - a function's children time is its exact inclusive cost minus self.
 * Cycles keep gprof's figures; fractions (-n/-N) scale as in gprof.
 */
#include <stdlib.h>
#include "gprof_internal.h"

/* Per arc: the callee's self cost under that caller, from the tree. */
static int tree_arc_self(const cg_gprof_analysis *a, const uint32_t *arc_of_model,
			 double *arc_self, int *known)
{
	const cg_profile *p = a->profile;
	size_t nn = cg_profile_node_count(p, a->part);
	if (nn < 2)
		return 0;
	uint32_t *onstack = calloc(a->nfuncs + 1, sizeof *onstack);
	cg_nid *top = malloc((a->nfuncs + 1) * sizeof *top);
	if (!onstack || !top) {
		free(onstack);
		free(top);
		return CG_ENOMEM;
	}
	unsigned ev = a->opts.event;
	cg_nid n = cg_profile_node(p, a->part, 0)->first_child;
	while (n != CG_NO_NODE) {
		const cg_node *node = cg_profile_node(p, a->part, n);
		cg_fid f = node->func;
		if (f < a->nfuncs) {
			if (onstack[f]++ == 0)
				top[f] = n;
			const cg_node *outer = cg_profile_node(p, a->part, top[f]);
			if (outer->parent != 0 && outer->parent != CG_NO_NODE) {
				cg_fid pf = cg_profile_node(p, a->part, outer->parent)->func;
				long mi = pf < a->nfuncs ? cg_profile_find_arc(p, a->part, pf, f) : -1;
				if (mi >= 0 && arc_of_model[mi] != GP_NONE) {
					arc_self[arc_of_model[mi]] += (double)node->self[ev];
					known[arc_of_model[mi]] = 1;
				}
			}
		}
		if (node->first_child != CG_NO_NODE) {
			n = node->first_child;
			continue;
		}
		/* Leave finished nodes, then go to the next sibling. */
		while (n != CG_NO_NODE) {
			const cg_node *cur = cg_profile_node(p, a->part, n);
			if (cur->func < a->nfuncs)
				onstack[cur->func]--;
			if (cur->next_sibling != CG_NO_NODE) {
				n = cur->next_sibling;
				break;
			}
			n = cur->parent;
			if (n == 0)
				n = CG_NO_NODE;
		}
	}
	free(onstack);
	free(top);
	return 0;
}

int cg_gp_exact_inclusive(cg_gprof_analysis *a, const uint32_t *arc_of_model, cg_error *err)
{
	const cg_profile *p = a->profile;
	unsigned ev = a->opts.event;
	double *arc_self = calloc((size_t)a->narcs + 1, sizeof *arc_self);
	int *known = calloc((size_t)a->narcs + 1, sizeof *known);
	if (!arc_self || !known || tree_arc_self(a, arc_of_model, arc_self, known)) {
		free(arc_self);
		free(known);
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	}
	gp_sym *s = a->syms;
	for (uint32_t k = 0; k < a->narcs; k++) {
		gp_arc *arc = &a->arcs[k];
		if (!arc->inclusive || arc->parent == arc->child)
			continue;
		double total = (double)arc->inclusive[ev];
		double self;
		if (known[k]) {
			self = arc_self[k];
		} else {
			const gp_sym *c = &s[arc->child];
			double whole = c->time + c->child_time;
			self = whole > 0.0 ? total * (c->time / whole) : 0.0;
		}
		if (self > total)
			self = total;
		double fract = s[arc->parent].prop_fract;
		arc->time = self * fract;
		arc->child_time = (total - self) * fract;
	}
	for (uint32_t i = 0; i < a->nsyms; i++) {
		const cg_cost *incl = cg_profile_inclusive(p, a->part, s[i].fid);
		if (!incl)
			continue;
		double children = (double)incl[ev] - s[i].time;
		if (children < 0.0)
			children = 0.0;
		s[i].child_time = children;
		s[i].prop_child = children * s[i].prop_fract;
	}
	free(arc_self);
	free(known);
	return 0;
}

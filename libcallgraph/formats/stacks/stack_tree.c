/*
 * stack_tree.c — see stack_tree.h.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stack_tree.h"

#define ROOT_KEY(part) ((uint64_t)UINT32_MAX << 32 | (part))

static int new_node(struct cg_stack_tree *t, uint32_t parent, cg_fid f, uint64_t key,
		    uint32_t *out)
{
	if (t->count >= UINT32_MAX - 1)
		return CG_ENOMEM;
	if (t->count == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		uint32_t *pa = realloc(t->parent, cap * sizeof *pa);
		if (!pa)
			return CG_ENOMEM;
		t->parent = pa;
		cg_fid *fu = realloc(t->func, cap * sizeof *fu);
		if (!fu)
			return CG_ENOMEM;
		t->func = fu;
		t->cap = cap;
	}
	uint32_t n = (uint32_t)t->count;
	if (cg_hashmap_put(&t->children, key, n))
		return CG_ENOMEM;
	t->parent[n] = parent;
	t->func[n] = f;
	t->count++;
	*out = n;
	return 0;
}

int cg_stack_tree_root(struct cg_stack_tree *t, unsigned part, uint32_t *out)
{
	if (cg_hashmap_get(&t->children, ROOT_KEY(part), out))
		return 0;
	return new_node(t, UINT32_MAX, part, ROOT_KEY(part), out);
}

int cg_stack_tree_child(struct cg_stack_tree *t, uint32_t parent, cg_fid f, uint32_t *out)
{
	uint64_t key = (uint64_t)parent << 32 | f;
	if (cg_hashmap_get(&t->children, key, out))
		return 0;
	return new_node(t, parent, f, key, out);
}

int cg_stack_tree_add(struct cg_stack_tree *t, uint32_t node, unsigned e, int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	if (e >= CG_MAX_EVENTS || mag > CG_STACK_VALUE_LIMIT - t->magnitude[e])
		return CG_EFORMAT;
	t->magnitude[e] += mag;
	uint64_t key = (uint64_t)node << 6 | e;
	uint32_t i;
	if (cg_hashmap_get(&t->values, key, &i)) {
		t->vals[i] += v;
		return 0;
	}
	if (t->nvals >= UINT32_MAX - 1)
		return CG_ENOMEM;
	if (cg_array_grow((void **)&t->vals, &t->vcap, t->nvals + 1, sizeof *t->vals, 1024))
		return CG_ENOMEM;
	if (cg_hashmap_put(&t->values, key, (uint32_t)t->nvals))
		return CG_ENOMEM;
	t->vals[t->nvals++] = v;
	return 0;
}

int cg_stack_tree_emit(struct cg_stack_tree *t, cg_profile *p, cg_error *err)
{
	/* model node of each of ours; parents come before their children */
	cg_nid *map = malloc((t->count ? t->count : 1) * sizeof *map);
	unsigned *part = malloc((t->count ? t->count : 1) * sizeof *part);
	if (!map || !part) {
		free(map);
		free(part);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	size_t nev = cg_profile_event_count(p);
	int rc = 0;
	for (size_t n = 0; n < t->count && !rc; n++) {
		if (t->parent[n] == UINT32_MAX) {
			map[n] = 0;
			part[n] = t->func[n];
			continue;
		}
		part[n] = part[t->parent[n]];
		rc = cg_profile_node_child(p, part[n], map[t->parent[n]], t->func[n], &map[n]);
		if (rc)
			break;
		cg_node *node = cg_profile_node(p, part[n], map[n]);
		for (size_t e = 0; e < nev; e++) {
			uint32_t i;
			if (cg_hashmap_get(&t->values, (uint64_t)n << 6 | e, &i))
				node->self[e] += t->vals[i];
		}
	}
	free(map);
	free(part);
	if (rc)
		return cg_error_set(err, rc, "out of memory");
	return cg_profile_derive_from_tree(p, err);
}

void cg_stack_tree_release(struct cg_stack_tree *t)
{
	cg_hashmap_release(&t->children);
	cg_hashmap_release(&t->values);
	free(t->parent);
	free(t->func);
	free(t->vals);
	memset(t, 0, sizeof *t);
}

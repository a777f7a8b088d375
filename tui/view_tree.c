/* view_tree — flatten the tree into visible rows; expansion and selection by id. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "view_tree.h"

/* ---- idset ---------------------------------------------------------------- */

static size_t id_hash(uint64_t id, size_t mask)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & mask;
}

static int idset_grow(struct idset *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 64;
	uint64_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		uint64_t id = s->slot[i];
		size_t j;

		if (!id)
			continue;
		for (j = id_hash(id, ncap - 1); ns[j]; j = (j + 1) & (ncap - 1))
			;
		ns[j] = id;
	}
	free(s->slot);
	s->slot = ns;
	s->cap = ncap;
	return 0;
}

int idset_add(struct idset *s, uint64_t id)
{
	size_t j;

	if (!id) {
		s->has_zero = 1;
		return 0;
	}
	if ((s->n + 1) * 2 > s->cap && idset_grow(s) < 0)
		return -ENOMEM;
	for (j = id_hash(id, s->cap - 1); s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (s->slot[j] == id)
			return 0;
	s->slot[j] = id;
	s->n++;
	return 0;
}

int idset_has(const struct idset *s, uint64_t id)
{
	if (!id)
		return s->has_zero;
	if (!s->cap)
		return 0;
	for (size_t j = id_hash(id, s->cap - 1); s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (s->slot[j] == id)
			return 1;
	return 0;
}

void idset_del(struct idset *s, uint64_t id)
{
	size_t j, k, mask;

	if (!id) {
		s->has_zero = 0;
		return;
	}
	if (!s->cap)
		return;
	mask = s->cap - 1;
	for (j = id_hash(id, mask); s->slot[j]; j = (j + 1) & mask)
		if (s->slot[j] == id)
			break;
	if (!s->slot[j])
		return;
	s->slot[j] = 0;
	s->n--;
	/* re-insert the rest of the cluster (backward-shift deletion) */
	for (k = (j + 1) & mask; s->slot[k]; k = (k + 1) & mask) {
		uint64_t v = s->slot[k];
		size_t h;

		s->slot[k] = 0;
		for (h = id_hash(v, mask); s->slot[h]; h = (h + 1) & mask)
			;
		s->slot[h] = v;
	}
}

void idset_clear(struct idset *s)
{
	if (s->slot)
		memset(s->slot, 0, s->cap * sizeof(*s->slot));
	s->n = 0;
	s->has_zero = 0;
}

void idset_free(struct idset *s)
{
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

/* ---- view ------------------------------------------------------------------- */

/* The displayable nodes are copied, once per tree, into a compact array in
 * display order (pre-order of the sorted tree), each with the index past its
 * subtree.  Flattening, expanding a subtree and searching then scan that
 * array sequentially instead of chasing node pointers all over the heap:
 * the difference between ~20 ms and ~1 ms on a 50k-node tree. */

struct view_tree *view_tree_new(double threshold)
{
	struct view_tree *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->threshold = threshold < 0 ? 0 : threshold;
	v->height = 20;
	return v;
}

void view_tree_free(struct view_tree *v)
{
	if (!v)
		return;
	idset_free(&v->expanded);
	idset_free(&v->keep);
	free(v->rows);
	free(v->cont);
	free(v->vn);
	free(v);
}

static int passes_threshold(const struct view_tree *v, const struct tree_node *n)
{
	if (!n->parent || tree_node_sum(n) >= v->min_total)
		return 1;
	if (n->flags & (TREE_F_VERDICT | TREE_F_FOCUS))
		return 1;
	return v->calibrated && n->stat.significant;
}

static int passes(const struct view_tree *v, const struct tree_node *n)
{
	if (v->filter[0] && n->parent && !idset_has(&v->keep, n->id))
		return 0;
	return passes_threshold(v, n);
}

/* Marks the nodes the filter keeps; returns 1 when n's subtree has a match
 * (or n is under one), 0, or -ENOMEM. */
static int keep_walk(struct view_tree *v, const struct tree_node *n, int under)
{
	int m = n->parent && n->name && strcasestr(n->name, v->filter) != NULL;
	int any;

	if (m)
		v->nmatch++;
	m = m || under;
	any = m;
	for (unsigned i = 0; i < n->nchild; i++) {
		int r = keep_walk(v, n->child[i], m);

		if (r < 0)
			return r;
		any = any || r;
	}
	if (any && idset_add(&v->keep, n->id) < 0)
		return -ENOMEM;
	return any;
}

int view_tree_displayable(const struct view_tree *v, const struct tree_node *n)
{
	for (; n; n = n->parent)
		if (!passes(v, n))
			return 0;
	return 1;
}

static size_t count_hidden(const struct view_tree *v, const struct tree_node *n, int hidden)
{
	size_t c;

	hidden = hidden || !passes_threshold(v, n);
	c = hidden ? 1 : 0;
	for (unsigned i = 0; i < n->nchild; i++)
		c += count_hidden(v, n->child[i], hidden);
	return c;
}

#define VIEW_MAX_DEPTH 1024

static int vn_build(struct view_tree *v, struct tree_node *n, unsigned depth, int last,
		    uint32_t parent)
{
	uint32_t me;
	int lastvis = -1;

	if (v->nvn == v->vn_cap) {
		size_t nc = v->vn_cap ? v->vn_cap * 2 : 1024;
		struct view_node *nv = realloc(v->vn, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->vn = nv;
		v->vn_cap = nc;
	}
	me = (uint32_t)v->nvn++;
	v->vn[me].n = n;
	v->vn[me].parent = parent;
	v->vn[me].depth = (uint16_t)depth;
	v->vn[me].last = (uint8_t)last;
	v->vn[me].expanded = (uint8_t)idset_has(&v->expanded, n->id);
	for (unsigned i = n->nchild; i-- > 0;)
		if (passes(v, n->child[i])) {
			lastvis = (int)i;
			break;
		}
	v->vn[me].has_kids = lastvis >= 0 && depth + 1 < VIEW_MAX_DEPTH;
	if (v->vn[me].has_kids)
		for (int i = 0; i <= lastvis; i++)
			if (passes(v, n->child[i]) &&
			    vn_build(v, n->child[i], depth + 1, i == lastvis, me) < 0)
				return -ENOMEM;
	v->vn[me].end = (uint32_t)v->nvn;
	return 0;
}

static int expand_flagged(struct view_tree *v)
{
	for (size_t k = 0; k < v->nvn; k++) {
		struct view_node *x = &v->vn[k];

		if (x->has_kids && (!k || (x->n->flags & (TREE_F_VERDICT | TREE_F_FOCUS)))) {
			if (idset_add(&v->expanded, x->n->id) < 0)
				return -ENOMEM;
			x->expanded = 1;
		}
	}
	return 0;
}

int view_tree_set(struct view_tree *v, struct tree *t, int calibrated)
{
	v->t = t;
	v->calibrated = calibrated;
	v->nhidden = 0;
	v->min_total = 0;
	v->nvn = 0;
	if (t && t->root) {
		double m = v->threshold * (double)tree_node_sum(t->root);

		v->min_total = (uint64_t)m;
		if ((double)v->min_total < m)
			v->min_total++;
		v->nhidden = count_hidden(v, t->root, 0);
		idset_clear(&v->keep);
		v->nmatch = 0;
		if (v->filter[0] && keep_walk(v, t->root, 0) < 0)
			return -ENOMEM;
		if (!v->initialized) {
			if (idset_add(&v->expanded, t->root->id) < 0)
				return -ENOMEM;
			v->sel_id = t->root->id;
			v->initialized = 1;
		}
		if (vn_build(v, t->root, 0, 1, 0) < 0)
			return -ENOMEM;
		/* the first time a verdict path appears, open it */
		if (v->initialized < 2 && calibrated) {
			int found = 0;

			for (unsigned i = 0; i < t->root->nchild; i++)
				if (t->root->child[i]->flags & TREE_F_VERDICT)
					found = 1;
			if (found) {
				if (expand_flagged(v) < 0)
					return -ENOMEM;
				v->initialized = 2;
			}
		}
	}
	return view_tree_flatten(v);
}

static int push_row(struct view_tree *v, uint32_t k, const unsigned char *cont)
{
	const struct view_node *x = &v->vn[k];
	unsigned depth = x->depth;
	struct view_row *r;

	if (v->nrows == v->rows_cap) {
		size_t nc = v->rows_cap ? v->rows_cap * 2 : 256;
		struct view_row *nr = realloc(v->rows, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		v->rows = nr;
		v->rows_cap = nc;
	}
	if (v->ncont + depth > v->cont_cap) {
		size_t nc = v->cont_cap ? v->cont_cap * 2 : 4096;
		unsigned char *ncp;

		while (nc < v->ncont + depth)
			nc *= 2;
		ncp = realloc(v->cont, nc);
		if (!ncp)
			return -ENOMEM;
		v->cont = ncp;
		v->cont_cap = nc;
	}
	r = &v->rows[v->nrows++];
	r->n = x->n;
	r->vi = k;
	r->depth = x->depth;
	r->last = x->last;
	r->cont_off = (uint32_t)v->ncont;
	if (depth)
		memcpy(v->cont + v->ncont, cont, depth);
	v->ncont += depth;
	r->has_kids = x->has_kids;
	r->expanded = x->has_kids && x->expanded;
	return 0;
}

/* Rows for vn[from..to): expanded nodes show their subtree, collapsed ones
 * skip it.  cont holds the ancestors' continuation bits on entry. */
static int scan_range(struct view_tree *v, uint32_t from, uint32_t to, unsigned char *cont)
{
	uint32_t k = from;

	while (k < to) {
		const struct view_node *x = &v->vn[k];

		if (push_row(v, k, cont) < 0)
			return -ENOMEM;
		cont[x->depth] = !x->last;
		k = x->has_kids && x->expanded ? k + 1 : x->end;
	}
	return 0;
}

static void clamp_scroll(struct view_tree *v)
{
	size_t h = v->height ? v->height : 1;

	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + h)
		v->top = v->sel - h + 1;
	if (v->nrows > h && v->top > v->nrows - h)
		v->top = v->nrows - h;
	if (v->nrows <= h)
		v->top = 0;
}

int view_tree_flatten(struct view_tree *v)
{
	unsigned char cont[VIEW_MAX_DEPTH];
	size_t offset = v->sel >= v->top ? v->sel - v->top : 0;
	size_t i;

	v->nrows = 0;
	v->ncont = 0;
	if (!v->nvn) {
		v->sel = v->top = 0;
		return 0;
	}
	cont[0] = 0;
	if (scan_range(v, 0, (uint32_t)v->nvn, cont) < 0)
		return -ENOMEM;
	for (i = 0; i < v->nrows; i++)
		if (v->rows[i].n->id == v->sel_id)
			break;
	if (i == v->nrows) {
		i = v->sel < v->nrows ? v->sel : v->nrows - 1;
		v->sel_id = v->rows[i].n->id;
	}
	v->sel = i;
	v->top = v->sel >= offset ? v->sel - offset : 0;
	v->cont_at_flatten = v->ncont;
	clamp_scroll(v);
	return 0;
}

void view_tree_set_height(struct view_tree *v, unsigned height)
{
	v->height = height ? height : 1;
	clamp_scroll(v);
}

struct tree_node *view_tree_selected(const struct view_tree *v)
{
	return v->sel < v->nrows ? v->rows[v->sel].n : NULL;
}

void view_tree_move_to(struct view_tree *v, size_t row)
{
	if (!v->nrows)
		return;
	if (row >= v->nrows)
		row = v->nrows - 1;
	v->sel = row;
	v->sel_id = v->rows[row].n->id;
	clamp_scroll(v);
}

void view_tree_move(struct view_tree *v, long delta)
{
	long r = (long)v->sel + delta;

	if (r < 0)
		r = 0;
	view_tree_move_to(v, (size_t)r);
}

/* Collapsing or expanding one row splices its subtree out of or into the
 * row array: O(subtree), not O(visible tree).  The cont pool only grows
 * here; a full flatten compacts it. */
static void rows_collapse(struct view_tree *v, size_t i)
{
	size_t j = i + 1, k;

	while (j < v->nrows && v->rows[j].depth > v->rows[i].depth)
		j++;
	k = j - i - 1;
	memmove(&v->rows[i + 1], &v->rows[j], (v->nrows - j) * sizeof(*v->rows));
	v->nrows -= k;
	v->rows[i].expanded = 0;
	v->vn[v->rows[i].vi].expanded = 0;
	if (v->sel > i && v->sel < j)
		v->sel = i;
	else if (v->sel >= j)
		v->sel -= k;
	if (v->sel < v->nrows)
		v->sel_id = v->rows[v->sel].n->id;
	clamp_scroll(v);
}

static int rows_expand(struct view_tree *v, size_t i)
{
	unsigned char cont[VIEW_MAX_DEPTH];
	struct view_row *tmp;
	uint32_t vi = v->rows[i].vi;
	unsigned depth = v->rows[i].depth;
	size_t m = v->nrows, k;

	v->vn[vi].expanded = 1;
	if (!v->vn[vi].has_kids)
		return 0;
	memcpy(cont, v->cont + v->rows[i].cont_off, depth);
	cont[depth] = !v->rows[i].last;
	if (scan_range(v, vi + 1, v->vn[vi].end, cont) < 0) {
		v->nrows = m;
		return -ENOMEM;
	}
	k = v->nrows - m;
	tmp = malloc(k * sizeof(*tmp));
	if (!tmp) {
		v->nrows = m;
		return -ENOMEM;
	}
	memcpy(tmp, &v->rows[m], k * sizeof(*tmp));
	memmove(&v->rows[i + 1 + k], &v->rows[i + 1], (m - i - 1) * sizeof(*v->rows));
	memcpy(&v->rows[i + 1], tmp, k * sizeof(*tmp));
	free(tmp);
	v->rows[i].expanded = 1;
	if (v->sel > i)
		v->sel += k;
	clamp_scroll(v);
	/* splices leave dead prefixes in the pool: compact now and then */
	if (v->ncont > 3 * v->cont_at_flatten + (1u << 20))
		return view_tree_flatten(v);
	return 0;
}

int view_tree_toggle(struct view_tree *v)
{
	struct view_row *r = v->sel < v->nrows ? &v->rows[v->sel] : NULL;

	if (!r || !r->has_kids)
		return 0;
	if (r->expanded) {
		idset_del(&v->expanded, r->n->id);
		rows_collapse(v, v->sel);
		return 0;
	}
	if (idset_add(&v->expanded, r->n->id) < 0)
		return -ENOMEM;
	return rows_expand(v, v->sel);
}

int view_tree_expand(struct view_tree *v)
{
	struct view_row *r = v->sel < v->nrows ? &v->rows[v->sel] : NULL;

	if (!r || !r->has_kids)
		return 0;
	if (r->expanded) { /* already open: step into the first child */
		view_tree_move(v, 1);
		return 0;
	}
	if (idset_add(&v->expanded, r->n->id) < 0)
		return -ENOMEM;
	return rows_expand(v, v->sel);
}

int view_tree_collapse(struct view_tree *v)
{
	struct view_row *r = v->sel < v->nrows ? &v->rows[v->sel] : NULL;

	if (!r)
		return 0;
	if (r->expanded) {
		idset_del(&v->expanded, r->n->id);
		rows_collapse(v, v->sel);
		return 0;
	}
	if (r->n->parent) {
		uint64_t pid = r->n->parent->id;

		for (size_t i = v->sel; i-- > 0;)
			if (v->rows[i].n->id == pid) {
				view_tree_move_to(v, i);
				break;
			}
	}
	return 0;
}

int view_tree_expand_all(struct view_tree *v)
{
	for (size_t k = 0; k < v->nvn; k++)
		if (v->vn[k].has_kids) {
			if (idset_add(&v->expanded, v->vn[k].n->id) < 0)
				return -ENOMEM;
			v->vn[k].expanded = 1;
		}
	return view_tree_flatten(v);
}

int view_tree_collapse_all(struct view_tree *v)
{
	idset_clear(&v->expanded);
	for (size_t k = 0; k < v->nvn; k++)
		v->vn[k].expanded = 0;
	if (v->nvn) {
		if (idset_add(&v->expanded, v->vn[0].n->id) < 0)
			return -ENOMEM;
		v->vn[0].expanded = 1;
		/* keep the selection on the visible ancestor at depth 1 */
		for (struct tree_node *n = view_tree_selected(v); n; n = n->parent)
			if (n->parent && !n->parent->parent) {
				v->sel_id = n->id;
				break;
			}
	}
	return view_tree_flatten(v);
}

static int select_vi(struct view_tree *v, uint32_t k)
{
	int err;

	for (uint32_t p = k; p != 0;) {
		p = v->vn[p].parent;
		if (idset_add(&v->expanded, v->vn[p].n->id) < 0)
			return -ENOMEM;
		v->vn[p].expanded = 1;
	}
	v->sel_id = v->vn[k].n->id;
	err = view_tree_flatten(v);
	if (err)
		return err;
	/* put a freshly found node a few rows below the top, not at the edge */
	if (v->sel >= v->top + v->height || v->sel < v->top) {
		v->top = v->sel > v->height / 3 ? v->sel - v->height / 3 : 0;
		clamp_scroll(v);
	}
	return 0;
}

int view_tree_select_node(struct view_tree *v, struct tree_node *n)
{
	for (size_t k = 0; k < v->nvn; k++)
		if (v->vn[k].n == n)
			return select_vi(v, (uint32_t)k);
	return -ENOENT;
}

int view_tree_find(struct view_tree *v, int dir, int from_self,
		   view_tree_match_cb match, void *arg)
{
	size_t start = v->sel < v->nrows ? v->rows[v->sel].vi : 0, n = v->nvn;

	if (!n)
		return 0;
	for (size_t k = from_self ? 0 : 1, k0 = k; k < k0 + n; k++) {
		size_t off = k % n;
		size_t j = dir >= 0 ? (start + off) % n : (start + n - off) % n;

		if (match(v->vn[j].n, arg))
			return select_vi(v, (uint32_t)j) < 0 ? 0 : 1;
	}
	return 0;
}

int view_tree_match_name(const struct tree_node *n, void *query)
{
	const char *q = query;

	return q && *q && n->name && strcasestr(n->name, q) != NULL;
}

int view_tree_match_significant(const struct tree_node *n, void *arg)
{
	(void)arg;
	return n->parent && n->stat.significant;
}

int view_tree_refilter(struct view_tree *v, const char *filter, double threshold)
{
	snprintf(v->filter, sizeof(v->filter), "%s", filter ? filter : "");
	if (threshold >= 0)
		v->threshold = threshold;
	return view_tree_set(v, v->t, v->calibrated);
}

int view_tree_verdict_only(struct view_tree *v)
{
	const struct tree_node *end = v->nvn ? v->vn[0].n : NULL, *next;
	uint32_t deep = 0;

	/* the end of the verdict's path: from the root, the flagged child with
	 * the largest rise at every split (a verdict with branches flags several;
	 * verdict.path is the largest) */
	for (; end; end = next) {
		next = NULL;
		for (unsigned i = 0; i < end->nchild; i++) {
			const struct tree_node *c = end->child[i];

			if ((c->flags & TREE_F_VERDICT) && (!next || c->stat.rise > next->stat.rise))
				next = c;
		}
		if (!next)
			break;
	}
	for (size_t k = 1; k < v->nvn && end; k++)
		if (v->vn[k].n == end)
			deep = (uint32_t)k;
	if (!deep)
		return -ENOENT;
	idset_clear(&v->expanded);
	for (size_t k = 0; k < v->nvn; k++)
		v->vn[k].expanded = 0;
	return select_vi(v, deep);
}

size_t view_tree_path(const struct view_tree *v, char *buf, size_t len)
{
	const struct tree_node *sel = view_tree_selected(v), *chain[VIEW_MAX_DEPTH];
	size_t n = 0, at = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (; sel && sel->parent && n < VIEW_MAX_DEPTH; sel = sel->parent)
		chain[n++] = sel;
	while (n-- > 0) {
		int w = snprintf(buf + at, len - at, "%s%s", at ? ";" : "", chain[n]->name);

		if (w < 0 || (size_t)w >= len - at) {
			at = strlen(buf);
			break;
		}
		at += (size_t)w;
	}
	return at;
}

/* view_tree — flatten the tree into visible rows; expansion and selection by id. */
#include <ctype.h>
#include <errno.h>
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
	free(v->rows);
	free(v->cont);
	free(v->order);
	free(v);
}

static int passes(const struct view_tree *v, const struct tree_node *n)
{
	if (!n->parent || tree_node_sum(n) >= v->min_total)
		return 1;
	if (n->flags & (TREE_F_VERDICT | TREE_F_FOCUS))
		return 1;
	return v->calibrated && n->stat.significant;
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

	hidden = hidden || !passes(v, n);
	c = hidden ? 1 : 0;
	for (unsigned i = 0; i < n->nchild; i++)
		c += count_hidden(v, n->child[i], hidden);
	return c;
}

static int expand_flagged(struct view_tree *v, struct tree_node *n)
{
	if (!(n->flags & (TREE_F_VERDICT | TREE_F_FOCUS)) && n->parent)
		return 0;
	if (n->nchild && idset_add(&v->expanded, n->id) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < n->nchild; i++)
		if (expand_flagged(v, n->child[i]) < 0)
			return -ENOMEM;
	return 0;
}

int view_tree_set(struct view_tree *v, struct tree *t, int calibrated)
{
	int had_verdict = v->initialized > 1;

	v->t = t;
	v->calibrated = calibrated;
	v->order_valid = 0;
	v->nhidden = 0;
	v->min_total = 0;
	if (t && t->root) {
		double m = v->threshold * (double)tree_node_sum(t->root);

		v->min_total = (uint64_t)m;
		if ((double)v->min_total < m)
			v->min_total++;
		v->nhidden = count_hidden(v, t->root, 0);
		if (!v->initialized) {
			if (idset_add(&v->expanded, t->root->id) < 0)
				return -ENOMEM;
			v->sel_id = t->root->id;
			v->initialized = 1;
		}
		/* the first time a verdict path appears, open it */
		if (!had_verdict && calibrated) {
			int found = 0;

			for (unsigned i = 0; i < t->root->nchild; i++)
				if (t->root->child[i]->flags & TREE_F_VERDICT)
					found = 1;
			if (found) {
				if (expand_flagged(v, t->root) < 0)
					return -ENOMEM;
				v->initialized = 2;
			}
		}
	}
	return view_tree_flatten(v);
}

static int push_row(struct view_tree *v, struct tree_node *n, unsigned depth, int last,
		    const unsigned char *cont)
{
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
	r->n = n;
	r->depth = (uint16_t)(depth > 0xffff ? 0xffff : depth);
	r->last = (uint8_t)last;
	r->cont_off = (uint32_t)v->ncont;
	memcpy(v->cont + v->ncont, cont, depth);
	v->ncont += depth;
	r->has_kids = 0;
	r->expanded = 0;
	return 0;
}

#define VIEW_MAX_DEPTH 1024

static int flatten_node(struct view_tree *v, struct tree_node *n, unsigned depth, int last,
			unsigned char *cont)
{
	size_t me = v->nrows;
	int lastvis = -1, err;

	err = push_row(v, n, depth, last, cont);
	if (err)
		return err;
	for (unsigned i = n->nchild; i-- > 0;)
		if (passes(v, n->child[i])) {
			lastvis = (int)i;
			break;
		}
	if (lastvis < 0)
		return 0;
	v->rows[me].has_kids = 1;
	if (!idset_has(&v->expanded, n->id) || depth + 1 >= VIEW_MAX_DEPTH)
		return 0;
	v->rows[me].expanded = 1;
	/* cont[depth] says whether this node's own vertical line continues
	 * below it (it is not the last child), for its descendants' prefixes */
	cont[depth] = !last;
	for (int i = 0; i <= lastvis; i++) {
		struct tree_node *c = n->child[i];

		if (!passes(v, c))
			continue;
		err = flatten_node(v, c, depth + 1, i == lastvis, cont);
		if (err)
			return err;
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
	int err;

	v->nrows = 0;
	v->ncont = 0;
	if (!v->t || !v->t->root) {
		v->sel = v->top = 0;
		return 0;
	}
	cont[0] = 0;
	err = flatten_node(v, v->t->root, 0, 1, cont);
	if (err)
		return err;
	for (i = 0; i < v->nrows; i++)
		if (v->rows[i].n->id == v->sel_id)
			break;
	if (i == v->nrows) {
		i = v->sel < v->nrows ? v->sel : v->nrows - 1;
		v->sel_id = v->rows[i].n->id;
	}
	v->sel = i;
	v->top = v->sel >= offset ? v->sel - offset : 0;
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

int view_tree_toggle(struct view_tree *v)
{
	struct view_row *r = v->sel < v->nrows ? &v->rows[v->sel] : NULL;

	if (!r || !r->has_kids)
		return 0;
	if (r->expanded)
		idset_del(&v->expanded, r->n->id);
	else if (idset_add(&v->expanded, r->n->id) < 0)
		return -ENOMEM;
	return view_tree_flatten(v);
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
	return view_tree_flatten(v);
}

int view_tree_collapse(struct view_tree *v)
{
	struct view_row *r = v->sel < v->nrows ? &v->rows[v->sel] : NULL;

	if (!r)
		return 0;
	if (r->expanded) {
		idset_del(&v->expanded, r->n->id);
		return view_tree_flatten(v);
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

static int expand_all(struct view_tree *v, const struct tree_node *n)
{
	if (!n->nchild || !passes(v, n))
		return 0;
	if (idset_add(&v->expanded, n->id) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < n->nchild; i++)
		if (expand_all(v, n->child[i]) < 0)
			return -ENOMEM;
	return 0;
}

int view_tree_expand_all(struct view_tree *v)
{
	if (!v->t || !v->t->root)
		return 0;
	if (expand_all(v, v->t->root) < 0)
		return -ENOMEM;
	return view_tree_flatten(v);
}

int view_tree_collapse_all(struct view_tree *v)
{
	idset_clear(&v->expanded);
	if (v->t && v->t->root) {
		if (idset_add(&v->expanded, v->t->root->id) < 0)
			return -ENOMEM;
		/* keep the selection on the visible ancestor at depth 1 */
		for (struct tree_node *n = view_tree_selected(v); n; n = n->parent)
			if (n->parent && !n->parent->parent) {
				v->sel_id = n->id;
				break;
			}
	}
	return view_tree_flatten(v);
}

int view_tree_select_node(struct view_tree *v, struct tree_node *n)
{
	int err;

	if (!view_tree_displayable(v, n))
		return -ENOENT;
	for (struct tree_node *p = n->parent; p; p = p->parent)
		if (idset_add(&v->expanded, p->id) < 0)
			return -ENOMEM;
	v->sel_id = n->id;
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

static int build_order(struct view_tree *v, struct tree_node *n)
{
	if (!passes(v, n))
		return 0;
	if (v->norder == v->order_cap) {
		size_t nc = v->order_cap ? v->order_cap * 2 : 1024;
		struct tree_node **no = realloc(v->order, nc * sizeof(*no));

		if (!no)
			return -ENOMEM;
		v->order = no;
		v->order_cap = nc;
	}
	v->order[v->norder++] = n;
	for (unsigned i = 0; i < n->nchild; i++)
		if (build_order(v, n->child[i]) < 0)
			return -ENOMEM;
	return 0;
}

int view_tree_find(struct view_tree *v, int dir, int from_self,
		   view_tree_match_cb match, void *arg)
{
	struct tree_node *sel = view_tree_selected(v);
	size_t start = 0, i;

	if (!v->t || !v->t->root)
		return 0;
	if (!v->order_valid) {
		v->norder = 0;
		if (build_order(v, v->t->root) < 0)
			return -ENOMEM;
		v->order_valid = 1;
	}
	if (!v->norder)
		return 0;
	for (i = 0; sel && i < v->norder; i++)
		if (v->order[i] == sel) {
			start = i;
			break;
		}
	for (size_t k = from_self ? 0 : 1, k0 = k; k < k0 + v->norder; k++) {
		size_t off = k % v->norder;
		size_t j = dir >= 0 ? (start + off) % v->norder
				    : (start + v->norder - off) % v->norder;

		if (match(v->order[j], arg))
			return view_tree_select_node(v, v->order[j]) < 0 ? 0 : 1;
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

/* tree_walk — the calling-context tree ordered, walked and written out:
 * tree_sort, tree_walk, tree_path, and the JSON and folded-stack writers
 * (tree.h; the tree's building and storage are tree.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/tree.h"

static int tree_cmp_name(const struct tree_node *a, const struct tree_node *b)
{
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return (a->id > b->id) - (a->id < b->id);
}

static int tree_cmp_total(const void *x, const void *y)
{
	const struct tree_node *a = *(struct tree_node *const *)x;
	const struct tree_node *b = *(struct tree_node *const *)y;
	uint64_t sa = tree_node_sum(a), sb = tree_node_sum(b);

	if (sa != sb)
		return sa > sb ? -1 : 1;
	return tree_cmp_name(a, b);
}

static int tree_cmp_delta(const void *x, const void *y)
{
	const struct tree_node *a = *(struct tree_node *const *)x;
	const struct tree_node *b = *(struct tree_node *const *)y;
	double da = a->stat.delta < 0 ? -a->stat.delta : a->stat.delta;
	double db = b->stat.delta < 0 ? -b->stat.delta : b->stat.delta;

	if (da != db)
		return da > db ? -1 : 1;
	return tree_cmp_total(x, y);
}

static int tree_cmp_key(const void *x, const void *y, int self)
{
	const struct tree_node *a = *(struct tree_node *const *)x;
	const struct tree_node *b = *(struct tree_node *const *)y;
	uint64_t sa = self ? a->self[COND_REF] + a->self[COND_LOAD] : a->total[COND_LOAD];
	uint64_t sb = self ? b->self[COND_REF] + b->self[COND_LOAD] : b->total[COND_LOAD];

	if (sa != sb)
		return sa > sb ? -1 : 1;
	return tree_cmp_total(x, y);
}

static int tree_cmp_load(const void *x, const void *y)
{
	return tree_cmp_key(x, y, 0);
}

static int tree_cmp_self(const void *x, const void *y)
{
	return tree_cmp_key(x, y, 1);
}

static int tree_cmp_byname(const void *x, const void *y)
{
	return tree_cmp_name(*(struct tree_node *const *)x, *(struct tree_node *const *)y);
}

static void tree_sort_node(struct tree_node *n, int (*cmp)(const void *, const void *))
{
	if (n->nchild > 1)
		qsort(n->child, n->nchild, sizeof(*n->child), cmp);
	for (unsigned i = 0; i < n->nchild; i++)
		tree_sort_node(n->child[i], cmp);
}

void tree_sort(struct tree *t, enum tree_sort_key key)
{
	int (*cmp)(const void *, const void *) = tree_cmp_total;

	if (!t || !t->root)
		return;
	if (key == TREE_SORT_DELTA)
		cmp = tree_cmp_delta;
	else if (key == TREE_SORT_NAME)
		cmp = tree_cmp_byname;
	else if (key == TREE_SORT_LOAD)
		cmp = tree_cmp_load;
	else if (key == TREE_SORT_SELF)
		cmp = tree_cmp_self;
	tree_sort_node(t->root, cmp);
}

int tree_walk(struct tree_node *n, tree_walk_cb cb, void *arg)
{
	int r;

	if (!n)
		return 0;
	r = cb(n, arg);
	if (r)
		return r;
	for (unsigned i = 0; i < n->nchild; i++) {
		r = tree_walk(n->child[i], cb, arg);
		if (r)
			return r;
	}
	return 0;
}

unsigned tree_path(const struct tree_node *n, const char **out, unsigned max)
{
	unsigned depth;

	if (!n)
		return 0;
	depth = n->depth;
	for (const struct tree_node *m = n; m && m->parent; m = m->parent)
		if (m->depth - 1 < max)
			out[m->depth - 1] = m->name;
	return depth;
}

/* ---- output ---------------------------------------------------------------- */

static uint64_t tree_count(const uint64_t *v, enum cond c)
{
	return c == COND_N ? v[COND_REF] + v[COND_LOAD] : v[c];
}

static void tree_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

static void tree_json_node(const struct tree_node *n, enum cond c, FILE *out)
{
	int first = 1;

	fputs("{\"name\":", out);
	tree_json_str(out, n->name);
	fprintf(out, ",\"total\":%" PRIu64 ",\"self\":%" PRIu64 ",\"children\":[",
		tree_count(n->total, c), tree_count(n->self, c));
	for (unsigned i = 0; i < n->nchild; i++) {
		if (!tree_count(n->child[i]->total, c))
			continue;
		if (!first)
			fputc(',', out);
		first = 0;
		tree_json_node(n->child[i], c, out);
	}
	fputs("]}", out);
}

int tree_write_json(const struct tree *t, enum cond cond, FILE *out)
{
	if (!t || !out || (unsigned)cond > COND_N)
		return -EINVAL;
	tree_json_node(t->root, cond, out);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

static int tree_is_frame(const struct tree_node *n)
{
	return n->kind == TREE_FRAME || n->kind == TREE_EVENT;
}

static void tree_folded_line(const struct tree_node *n, uint64_t self, FILE *out)
{
	const struct tree_node *top = n;
	const char *names[256];
	unsigned k = 0;

	while (top->parent && tree_is_frame(top->parent))
		top = top->parent;
	for (const struct tree_node *m = n; k < 256; m = m->parent) {
		names[k++] = m->name;
		if (m == top)
			break;
	}
	while (k--) {
		fputs(names[k], out);
		fputc(k ? ';' : ' ', out);
	}
	fprintf(out, "%" PRIu64 "\n", self);
}

static void tree_folded_node(const struct tree_node *n, enum cond c, FILE *out)
{
	uint64_t self = tree_count(n->self, c);

	if (self && tree_is_frame(n))
		tree_folded_line(n, self, out);
	for (unsigned i = 0; i < n->nchild; i++)
		if (tree_count(n->child[i]->total, c))
			tree_folded_node(n->child[i], c, out);
}

int tree_write_folded(const struct tree *t, enum cond cond, FILE *out)
{
	if (!t || !out || (unsigned)cond > COND_N)
		return -EINVAL;
	tree_folded_node(t->root, cond, out);
	return ferror(out) ? -EIO : 0;
}

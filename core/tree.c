/* tree — the calling-context tree: nodes in chunks, found by a hash of
 * their path (the node id) in one open-addressing table. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"
#include "tree.h"

#pragma weak tree_annot_free

#define TREE_CHUNK_NODES 4096u
#define TREE_CHUNK_WINS  (64u * 1024u)

struct tree_chunk {
	struct tree_chunk *next;
	size_t used, cap;       /* in elements */
	union {
		struct tree_node nodes[1];
		uint64_t wins[1];
	} u;
};

struct tree_priv {
	struct strpool *names;
	struct tree_node **slots; /* by id; NULL: empty */
	size_t cap;               /* power of two */
	struct tree_chunk *nodes; /* node chunks */
	struct tree_chunk *wins;  /* win_total chunks */
};

static uint64_t tree_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static uint64_t tree_id_len(uint64_t parent_id, const char *name, size_t len)
{
	uint64_t h = strpool_hash(name, len);

	return tree_mix(h ^ (parent_id * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

uint64_t tree_id(uint64_t parent_id, const char *name)
{
	return tree_id_len(parent_id, name, strlen(name));
}

static struct tree_chunk *tree_chunk_new(size_t elem, size_t cap)
{
	struct tree_chunk *c = calloc(1, offsetof(struct tree_chunk, u) + elem * cap);

	if (c)
		c->cap = cap;
	return c;
}

static uint64_t *tree_wins_alloc(struct tree *t)
{
	struct tree_priv *pv = t->priv;
	size_t n = t->nwin ? t->nwin : 1;
	uint64_t *w;

	if (!pv->wins || pv->wins->cap - pv->wins->used < n) {
		size_t cap = n > TREE_CHUNK_WINS ? n : TREE_CHUNK_WINS;
		struct tree_chunk *c = tree_chunk_new(sizeof(uint64_t), cap);

		if (!c)
			return NULL;
		c->next = pv->wins;
		pv->wins = c;
	}
	w = &pv->wins->u.wins[pv->wins->used];
	pv->wins->used += n;
	return w;
}

static int tree_table_grow(struct tree_priv *pv)
{
	size_t ncap = pv->cap ? pv->cap * 2 : 4096;
	struct tree_node **ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < pv->cap; i++) {
		struct tree_node *n = pv->slots[i];
		size_t j;

		if (!n)
			continue;
		for (j = n->id & (ncap - 1); ns[j]; j = (j + 1) & (ncap - 1))
			;
		ns[j] = n;
	}
	free(pv->slots);
	pv->slots = ns;
	pv->cap = ncap;
	return 0;
}

/* Finds the child of parent whose interned name is name (id precomputed). */
static struct tree_node *tree_lookup(const struct tree_priv *pv, const struct tree_node *parent,
				     const char *name, uint64_t id)
{
	size_t mask = pv->cap - 1;

	for (size_t i = id & mask; pv->slots[i]; i = (i + 1) & mask) {
		struct tree_node *n = pv->slots[i];

		if (n->id == id && n->parent == parent && n->name == name)
			return n;
	}
	return NULL;
}

/* A new node; name must already be interned in the tree's pool. */
static struct tree_node *tree_node_new(struct tree *t, struct tree_node *parent,
				       const char *name, uint64_t id,
				       enum tree_node_kind kind)
{
	struct tree_priv *pv = t->priv;
	struct tree_node *n;
	size_t i, mask;

	if ((t->nnodes + 1) * 2 > pv->cap && tree_table_grow(pv) < 0)
		return NULL;
	if (parent && parent->nchild == parent->child_cap) {
		unsigned ncap = parent->child_cap ? parent->child_cap * 2 : 2;
		struct tree_node **nc = realloc(parent->child, ncap * sizeof(*nc));

		if (!nc)
			return NULL;
		parent->child = nc;
		parent->child_cap = ncap;
	}
	if (!pv->nodes || pv->nodes->used == pv->nodes->cap) {
		struct tree_chunk *c = tree_chunk_new(sizeof(struct tree_node), TREE_CHUNK_NODES);

		if (!c)
			return NULL;
		c->next = pv->nodes;
		pv->nodes = c;
	}
	n = &pv->nodes->u.nodes[pv->nodes->used];
	n->win_total = tree_wins_alloc(t);
	if (!n->win_total)
		return NULL;
	pv->nodes->used++;
	n->id = id;
	n->name = name;
	n->kind = kind;
	n->subsys = parent ? parent->subsys : SUBSYS_N;
	n->parent = parent;
	n->depth = parent ? parent->depth + 1 : 0;
	if (parent)
		parent->child[parent->nchild++] = n;
	mask = pv->cap - 1;
	for (i = id & mask; pv->slots[i]; i = (i + 1) & mask)
		;
	pv->slots[i] = n;
	t->nnodes++;
	return n;
}

/* Interns the tree's form of a frame name: compiler suffix dropped, a
 * trailing " [module]" kept. */
static const char *tree_name(struct strpool *sp, const char *name)
{
	size_t base = subsys_base_len(name);
	const char *mod;
	char buf[512];
	size_t ml;

	if (name[base] == '\0' || name[base] == ' ' || name[base] == '\t')
		return strpool_intern(sp, name);
	mod = strstr(name + base, " [");
	if (!mod)
		return strpool_intern_len(sp, name, base);
	ml = strlen(mod);
	if (base + ml >= sizeof(buf))
		return strpool_intern_len(sp, name, base);
	memcpy(buf, name, base);
	memcpy(buf + base, mod, ml + 1);
	return strpool_intern(sp, buf);
}

static struct tree_node *tree_get(struct tree *t, struct tree_node *parent,
				  const char *iname, enum tree_node_kind kind)
{
	uint64_t id = tree_id(parent ? parent->id : 0, iname);
	struct tree_node *n = tree_lookup(t->priv, parent, iname, id);

	return n ? n : tree_node_new(t, parent, iname, id, kind);
}

struct tree_node *tree_node_add(struct tree *t, struct tree_node *parent,
				const char *name, enum tree_node_kind kind)
{
	struct tree_node *n;
	const char *iname;

	if (!t || !parent || !name) {
		errno = EINVAL;
		return NULL;
	}
	iname = tree_name(t->priv->names, name);
	if (!iname)
		return NULL;
	n = tree_get(t, parent, iname, kind);
	if (!n)
		errno = ENOMEM;
	return n;
}

struct tree_node *tree_child(const struct tree *t, const struct tree_node *parent,
			     const char *name)
{
	size_t base;
	const char *iname;
	char buf[512];

	if (!t || !parent || !name)
		return NULL;
	base = subsys_base_len(name);
	if (name[base] == '\0' || name[base] == ' ' || name[base] == '\t' ||
	    !strstr(name + base, " [")) {
		if (name[base] == '\0' || name[base] == ' ' || name[base] == '\t')
			iname = strpool_find(t->priv->names, name, strlen(name));
		else
			iname = strpool_find(t->priv->names, name, base);
	} else {
		const char *mod = strstr(name + base, " [");
		size_t ml = strlen(mod);

		if (base + ml >= sizeof(buf))
			return NULL;
		memcpy(buf, name, base);
		memcpy(buf + base, mod, ml + 1);
		iname = strpool_find(t->priv->names, buf, base + ml);
	}
	if (!iname)
		return NULL;
	return tree_lookup(t->priv, parent, iname, tree_id(parent->id, iname));
}

struct tree_node *tree_find_id(const struct tree *t, uint64_t id)
{
	const struct tree_priv *pv;

	if (!t || !t->priv->cap)
		return NULL;
	pv = t->priv;
	for (size_t i = id & (pv->cap - 1); pv->slots[i]; i = (i + 1) & (pv->cap - 1))
		if (pv->slots[i]->id == id)
			return pv->slots[i];
	return NULL;
}

static int tree_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void tree_presence(struct tree_node *n)
{
	if (n->total[COND_REF] && !n->total[COND_LOAD])
		n->presence = TREE_VANISHED;
	else if (!n->total[COND_REF] && n->total[COND_LOAD])
		n->presence = TREE_NEW;
	else
		n->presence = TREE_BOTH;
}

static int tree_presence_cb(struct tree_node *n, void *arg)
{
	(void)arg;
	tree_presence(n);
	return 0;
}

/* Adds one stack's counts to n (ct per condition, w per window). */
static void tree_account(struct tree_node *n, const uint64_t *ct, const uint64_t *w,
			 unsigned nwin)
{
	n->total[COND_REF] += ct[COND_REF];
	n->total[COND_LOAD] += ct[COND_LOAD];
	for (unsigned i = 0; i < nwin; i++)
		n->win_total[i] += w[i];
}

struct tree *tree_build(const struct profile *p, const struct tree_opts *opts)
{
	struct tree *t = NULL;
	uint32_t *only = NULL;
	size_t nonly = 0;
	int err = -ENOMEM;
	const char *all;

	if (!p) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto fail;
	t->priv = calloc(1, sizeof(*t->priv));
	if (!t->priv)
		goto fail;
	t->priv->names = strpool_new();
	if (!t->priv->names)
		goto fail;
	t->nwin = p->nwin;
	if (p->nwin) {
		t->wins = malloc(p->nwin * sizeof(*t->wins));
		if (!t->wins)
			goto fail;
		memcpy(t->wins, p->wins, p->nwin * sizeof(*t->wins));
	}
	if (tree_table_grow(t->priv) < 0)
		goto fail;
	all = strpool_intern(t->priv->names, "all");
	if (!all)
		goto fail;
	t->root = tree_node_new(t, NULL, all, tree_id(0, all), TREE_ROOT);
	if (!t->root)
		goto fail;
	if (opts && opts->only_tgids) {
		nonly = opts->nonly;
		only = malloc((nonly ? nonly : 1) * sizeof(*only));
		if (!only)
			goto fail;
		memcpy(only, opts->only_tgids, nonly * sizeof(*only));
		qsort(only, nonly, sizeof(*only), tree_u32_cmp);
	}
	for (size_t si = 0; si < p->nstacks; si++) {
		const struct profile_stack *st = &p->stacks[si];
		uint64_t ct[COND_N] = { 0, 0 };
		struct tree_node *n;
		enum subsys s;

		if (!st->total)
			continue;
		if (only && !bsearch(&st->tgid, only, nonly, sizeof(*only), tree_u32_cmp))
			continue;
		for (unsigned w = 0; w < p->nwin; w++)
			if ((unsigned)p->wins[w].cond < COND_N)
				ct[p->wins[w].cond] += st->win[w];
		n = t->root;
		tree_account(n, ct, st->win, p->nwin);
		if (opts && opts->group == TREE_BY_PROCESS) {
			char buf[64];
			const char *pn;

			if (st->tgid)
				snprintf(buf, sizeof(buf), "%s [%" PRIu32 "]",
					 st->comm && st->comm[0] ? st->comm : "?", st->tgid);
			else
				snprintf(buf, sizeof(buf), "%s",
					 st->comm && st->comm[0] ? st->comm : "unknown");
			pn = strpool_intern(t->priv->names, buf);
			if (!pn || !(n = tree_get(t, n, pn, TREE_PROCESS)))
				goto fail;
			n->tgid = st->tgid;
			tree_account(n, ct, st->win, p->nwin);
		}
		s = subsys_classify(st->frames, st->nframes);
		{
			const char *sn = strpool_intern(t->priv->names, subsys_name(s));

			if (!sn || !(n = tree_get(t, n, sn, TREE_SUBSYS)))
				goto fail;
			n->subsys = s;
			tree_account(n, ct, st->win, p->nwin);
		}
		for (uint32_t f = 0; f < st->nframes; f++) {
			const char *fn = tree_name(t->priv->names, st->frames[f]);

			if (!fn || !(n = tree_get(t, n, fn, TREE_FRAME)))
				goto fail;
			tree_account(n, ct, st->win, p->nwin);
		}
		n->self[COND_REF] += ct[COND_REF];
		n->self[COND_LOAD] += ct[COND_LOAD];
	}
	tree_walk(t->root, tree_presence_cb, NULL);
	free(only);
	return t;
fail:
	free(only);
	tree_free(t);
	errno = -err;
	return NULL;
}

void tree_free(struct tree *t)
{
	struct tree_priv *pv;

	if (!t)
		return;
	pv = t->priv;
	if (pv) {
		while (pv->nodes) {
			struct tree_chunk *c = pv->nodes;

			for (size_t i = 0; i < c->used; i++) {
				free(c->u.nodes[i].child);
				if (c->u.nodes[i].annot && tree_annot_free)
					tree_annot_free(c->u.nodes[i].annot);
			}
			pv->nodes = c->next;
			free(c);
		}
		while (pv->wins) {
			struct tree_chunk *c = pv->wins;

			pv->wins = c->next;
			free(c);
		}
		free(pv->slots);
		strpool_free(pv->names);
		free(pv);
	}
	free(t->wins);
	free(t);
}

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

/* tree — the calling-context tree.
 *
 * Nodes (with their per-window totals right behind them) live in a bump
 * arena and are found by id — a hash of the parent's id and the name — in
 * one open-addressing table.  tree_build first maps every distinct frame
 * pointer of the profile to its tree name, name hash and subsystem once,
 * then merges the stacks in sorted order so that a stack reuses the nodes
 * of the prefix it shares with the one before and looks up only the rest.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"
#include "tree.h"
#include "tree_annot.h"

#define TREE_ARENA_CHUNK (1u << 20)

struct tree_arena {
	struct tree_arena *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

struct tree_slot {
	uint64_t id;
	struct tree_node *n;    /* NULL: empty */
};

struct tree_priv {
	struct strpool *names;
	struct tree_slot *slots;  /* by id */
	size_t cap;               /* power of two */
	struct tree_arena *arena; /* nodes and their win_total */
	struct tree_node **all;   /* every node, for tree_free */
	size_t nall, all_cap;
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

/* Id from the parent's id and the hash of the name (strpool_hash). */
static uint64_t tree_id_hash(uint64_t parent_id, uint64_t name_hash)
{
	return tree_mix(name_hash ^ (parent_id * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

uint64_t tree_id(uint64_t parent_id, const char *name)
{
	return tree_id_hash(parent_id, strpool_hash(name, strlen(name)));
}

static void *tree_arena_alloc(struct tree_priv *pv, size_t size)
{
	struct tree_arena *a = pv->arena;
	void *p;

	size = (size + 15) & ~(size_t)15;
	if (!a || a->cap - a->used < size) {
		size_t cap = size > TREE_ARENA_CHUNK ? size : TREE_ARENA_CHUNK;

		a = malloc(sizeof(*a) + cap);
		if (!a)
			return NULL;
		a->used = 0;
		a->cap = cap;
		a->next = pv->arena;
		pv->arena = a;
	}
	p = a->data + a->used;
	a->used += size;
	return p;
}

static int tree_table_grow(struct tree_priv *pv)
{
	size_t ncap = pv->cap ? pv->cap * 2 : 4096;
	struct tree_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < pv->cap; i++) {
		size_t j;

		if (!pv->slots[i].n)
			continue;
		for (j = pv->slots[i].id & (ncap - 1); ns[j].n; j = (j + 1) & (ncap - 1))
			;
		ns[j] = pv->slots[i];
	}
	free(pv->slots);
	pv->slots = ns;
	pv->cap = ncap;
	return 0;
}

/* The child of parent whose interned name is name (id precomputed). */
static struct tree_node *tree_lookup(const struct tree_priv *pv, const struct tree_node *parent,
				     const char *name, uint64_t id)
{
	size_t mask = pv->cap - 1;

	for (size_t i = id & mask; pv->slots[i].n; i = (i + 1) & mask) {
		const struct tree_slot *sl = &pv->slots[i];

		if (sl->id == id && sl->n->parent == parent && sl->n->name == name)
			return sl->n;
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
	if (pv->nall == pv->all_cap) {
		size_t ncap = pv->all_cap ? pv->all_cap * 2 : 1024;
		struct tree_node **na = realloc(pv->all, ncap * sizeof(*na));

		if (!na)
			return NULL;
		pv->all = na;
		pv->all_cap = ncap;
	}
	if (parent && parent->nchild == parent->child_cap) {
		unsigned ncap = parent->child_cap ? parent->child_cap * 2 : 2;
		struct tree_node **nc = realloc(parent->child, ncap * sizeof(*nc));

		if (!nc)
			return NULL;
		parent->child = nc;
		parent->child_cap = ncap;
	}
	n = tree_arena_alloc(pv, sizeof(*n) + t->nwin * sizeof(uint64_t));
	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n) + t->nwin * sizeof(uint64_t));
	n->win_total = (uint64_t *)(n + 1);
	n->id = id;
	n->name = name;
	n->kind = kind;
	n->subsys = parent ? parent->subsys : SUBSYS_N;
	n->parent = parent;
	n->depth = parent ? parent->depth + 1 : 0;
	if (parent)
		parent->child[parent->nchild++] = n;
	mask = pv->cap - 1;
	for (i = id & mask; pv->slots[i].n; i = (i + 1) & mask)
		;
	pv->slots[i].id = id;
	pv->slots[i].n = n;
	pv->all[pv->nall++] = n;
	t->nnodes++;
	return n;
}

/* The tree's form of a frame name: compiler suffix dropped, a trailing
 * " [module]" kept.  Writes it into buf (len bytes) unless it is name
 * itself or a prefix of it; returns its length and sets *out. */
static size_t tree_name_form(const char *name, char *buf, size_t len, const char **out)
{
	size_t base = subsys_base_len(name);
	const char *mod;
	size_t ml;

	*out = name;
	if (name[base] == '\0' || name[base] == ' ' || name[base] == '\t')
		return strlen(name);
	mod = strstr(name + base, " [");
	if (!mod)
		return base;
	ml = strlen(mod);
	if (base + ml >= len)
		return base;
	memcpy(buf, name, base);
	memcpy(buf + base, mod, ml + 1);
	*out = buf;
	return base + ml;
}

static const char *tree_name(struct strpool *sp, const char *name)
{
	char buf[512];
	const char *s;
	size_t l = tree_name_form(name, buf, sizeof(buf), &s);

	return strpool_intern_len(sp, s, l);
}

static struct tree_node *tree_get_hash(struct tree *t, struct tree_node *parent,
				       const char *iname, uint64_t name_hash,
				       enum tree_node_kind kind)
{
	uint64_t id = tree_id_hash(parent ? parent->id : 0, name_hash);
	struct tree_node *n = tree_lookup(t->priv, parent, iname, id);

	return n ? n : tree_node_new(t, parent, iname, id, kind);
}

static struct tree_node *tree_get(struct tree *t, struct tree_node *parent,
				  const char *iname, enum tree_node_kind kind)
{
	return tree_get_hash(t, parent, iname, strpool_hash(iname, strlen(iname)), kind);
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
	/* only kernel function names carry compiler suffixes */
	iname = kind == TREE_FRAME ? tree_name(t->priv->names, name)
				   : strpool_intern(t->priv->names, name);
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
	char buf[512];
	const char *s, *iname;
	size_t l;

	if (!t || !parent || !name)
		return NULL;
	/* the name as given first: process and event names may hold a '.' */
	l = strlen(name);
	iname = strpool_find(t->priv->names, name, l);
	if (iname) {
		struct tree_node *n = tree_lookup(t->priv, parent, iname,
						  tree_id_hash(parent->id, strpool_hash(iname, l)));
		if (n)
			return n;
	}
	l = tree_name_form(name, buf, sizeof(buf), &s);
	iname = strpool_find(t->priv->names, s, l);
	if (!iname)
		return NULL;
	return tree_lookup(t->priv, parent, iname, tree_id_hash(parent->id, strpool_hash(iname, l)));
}

struct tree_node *tree_find_id(const struct tree *t, uint64_t id)
{
	const struct tree_priv *pv;

	if (!t || !t->priv || !t->priv->cap)
		return NULL;
	pv = t->priv;
	for (size_t i = id & (pv->cap - 1); pv->slots[i].n; i = (i + 1) & (pv->cap - 1))
		if (pv->slots[i].id == id)
			return pv->slots[i].n;
	return NULL;
}

/* ---- tree_build -------------------------------------------------------------- */

/* What tree_build needs of one distinct frame name of the profile. */
struct tree_frame_info {
	const char *name;         /* interned in the tree */
	uint64_t hash;            /* strpool_hash of name */
	enum subsys subsys;       /* subsys_of_function */
};

/* Pointer -> index map (open addressing). */
struct tree_ptrmap {
	const void **keys;
	uint32_t *vals;
	size_t cap, n;
};

static int tree_ptrmap_init(struct tree_ptrmap *m, size_t want)
{
	for (m->cap = 1024; m->cap < want * 2; m->cap *= 2)
		;
	m->n = 0;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	return m->keys && m->vals ? 0 : -ENOMEM;
}

static void tree_ptrmap_fini(struct tree_ptrmap *m)
{
	free(m->keys);
	free(m->vals);
}

static size_t tree_ptr_slot(const struct tree_ptrmap *m, const void *k)
{
	size_t mask = m->cap - 1;
	size_t i = tree_mix((uint64_t)(uintptr_t)k) & mask;

	while (m->keys[i] && m->keys[i] != k)
		i = (i + 1) & mask;
	return i;
}

static int tree_ptrmap_grow(struct tree_ptrmap *m)
{
	struct tree_ptrmap nm;

	if (tree_ptrmap_init(&nm, m->cap) < 0) {
		tree_ptrmap_fini(&nm);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		j = tree_ptr_slot(&nm, m->keys[i]);
		nm.keys[j] = m->keys[i];
		nm.vals[j] = m->vals[i];
	}
	nm.n = m->n;
	tree_ptrmap_fini(m);
	*m = nm;
	return 0;
}

struct tree_builder {
	const struct profile *p;
	struct tree *t;
	const struct tree_opts *opts;
	struct tree_ptrmap fmap;          /* profile frame pointer -> finfo */
	struct tree_frame_info *finfo;
	size_t nfinfo, finfo_cap;
	struct tree_ptrmap pmap;          /* process name -> first-seen rank */
	uint32_t *fidx;                   /* frame infos of all kept stacks */
	size_t *off;                      /* per stack: offset into fidx */
	uint32_t *order;                  /* kept stacks, then sorted */
	size_t nkept;
	struct tree_node **pnode;         /* per stack: process node or NULL */
	uint32_t *prank;                  /* per stack: process rank */
	unsigned char *ssub;              /* per stack: subsystem */
};

static int tree_frame_index(struct tree_builder *b, const char *frame, uint32_t *out)
{
	size_t i;

	if ((b->fmap.n + 1) * 2 > b->fmap.cap && tree_ptrmap_grow(&b->fmap) < 0)
		return -ENOMEM;
	i = tree_ptr_slot(&b->fmap, frame);
	if (!b->fmap.keys[i]) {
		struct tree_frame_info *fi;

		if (b->nfinfo == b->finfo_cap) {
			size_t ncap = b->finfo_cap ? b->finfo_cap * 2 : 1024;
			struct tree_frame_info *nf = realloc(b->finfo, ncap * sizeof(*nf));

			if (!nf)
				return -ENOMEM;
			b->finfo = nf;
			b->finfo_cap = ncap;
		}
		fi = &b->finfo[b->nfinfo];
		fi->name = tree_name(b->t->priv->names, frame);
		if (!fi->name)
			return -ENOMEM;
		fi->hash = strpool_hash(fi->name, strlen(fi->name));
		fi->subsys = subsys_of_function(frame);
		b->fmap.keys[i] = frame;
		b->fmap.vals[i] = (uint32_t)b->nfinfo++;
		b->fmap.n++;
	}
	*out = b->fmap.vals[i];
	return 0;
}

/* subsys_classify over cached per-frame subsystems (same rules). */
static enum subsys tree_classify(const struct tree_builder *b, const uint32_t *fx, size_t n)
{
	enum subsys first = SUBSYS_N;
	int entry = 0;

	for (size_t i = 0; i < n; i++) {
		enum subsys s = b->finfo[fx[i]].subsys;

		if (s == SUBSYS_IRQ)
			return SUBSYS_IRQ;
		if (s == SUBSYS_SYSCALL)
			entry = 1;
		else if (s != SUBSYS_N && first == SUBSYS_N)
			first = s;
	}
	if (first != SUBSYS_N)
		return first;
	return entry ? SUBSYS_SYSCALL : SUBSYS_OTHER;
}

static int tree_process_node(struct tree_builder *b, const struct profile_stack *st,
			     struct tree_node **out, uint32_t *rank)
{
	char buf[128];
	const char *pn;
	size_t i;

	if (st->tgid)
		snprintf(buf, sizeof(buf), "%s [%" PRIu32 "]",
			 st->comm && st->comm[0] ? st->comm : "?", st->tgid);
	else
		snprintf(buf, sizeof(buf), "%s", st->comm && st->comm[0] ? st->comm : "unknown");
	pn = strpool_intern(b->t->priv->names, buf);
	if (!pn || !(*out = tree_get(b->t, b->t->root, pn, TREE_PROCESS)))
		return -ENOMEM;
	(*out)->tgid = st->tgid;
	if ((b->pmap.n + 1) * 2 > b->pmap.cap && tree_ptrmap_grow(&b->pmap) < 0)
		return -ENOMEM;
	i = tree_ptr_slot(&b->pmap, pn);
	if (!b->pmap.keys[i]) {
		b->pmap.keys[i] = pn;
		b->pmap.vals[i] = (uint32_t)b->pmap.n++;
	}
	*rank = b->pmap.vals[i];
	return 0;
}

static int tree_stack_cmp(const void *x, const void *y, void *arg)
{
	const struct tree_builder *b = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct profile_stack *si = &b->p->stacks[i], *sj = &b->p->stacks[j];
	const uint32_t *fi = b->fidx + b->off[i], *fj = b->fidx + b->off[j];
	uint32_t n = si->nframes < sj->nframes ? si->nframes : sj->nframes;

	if (b->prank[i] != b->prank[j])
		return b->prank[i] < b->prank[j] ? -1 : 1;
	if (b->ssub[i] != b->ssub[j])
		return b->ssub[i] < b->ssub[j] ? -1 : 1;
	for (uint32_t k = 0; k < n; k++)
		if (fi[k] != fj[k])
			return fi[k] < fj[k] ? -1 : 1;
	if (si->nframes != sj->nframes)
		return si->nframes < sj->nframes ? -1 : 1;
	return (i > j) - (i < j);
}

static int tree_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Maps frames, picks the stacks to keep, classifies and sorts them. */
static int tree_build_prepare(struct tree_builder *b)
{
	const struct profile *p = b->p;
	const struct tree_opts *o = b->opts;
	uint32_t *only = NULL;
	size_t nonly = 0, nfr = 0;
	int err = -ENOMEM;

	if (o && o->only_tgids) {
		nonly = o->nonly;
		only = malloc((nonly ? nonly : 1) * sizeof(*only));
		if (!only)
			goto out;
		memcpy(only, o->only_tgids, nonly * sizeof(*only));
		qsort(only, nonly, sizeof(*only), tree_u32_cmp);
	}
	for (size_t i = 0; i < p->nstacks; i++)
		nfr += p->stacks[i].nframes;
	b->fidx = malloc((nfr ? nfr : 1) * sizeof(*b->fidx));
	b->off = calloc(p->nstacks + 1, sizeof(*b->off));
	b->order = malloc((p->nstacks + 1) * sizeof(*b->order));
	b->pnode = calloc(p->nstacks + 1, sizeof(*b->pnode));
	b->prank = calloc(p->nstacks + 1, sizeof(*b->prank));
	b->ssub = calloc(p->nstacks + 1, 1);
	if (!b->fidx || !b->off || !b->order || !b->pnode || !b->prank || !b->ssub ||
	    tree_ptrmap_init(&b->fmap, 4096) < 0 || tree_ptrmap_init(&b->pmap, 64) < 0)
		goto out;
	nfr = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *st = &p->stacks[i];

		if (!st->total)
			continue;
		if (only && !bsearch(&st->tgid, only, nonly, sizeof(*only), tree_u32_cmp))
			continue;
		if (o && o->exclude_tgid && st->tgid == o->exclude_tgid)
			continue;
		b->off[i] = nfr;
		for (uint32_t f = 0; f < st->nframes; f++) {
			err = tree_frame_index(b, st->frames[f], &b->fidx[nfr + f]);
			if (err)
				goto out;
		}
		nfr += st->nframes;
		b->ssub[i] = (unsigned char)tree_classify(b, b->fidx + b->off[i], st->nframes);
		if (o && o->group == TREE_BY_PROCESS) {
			err = tree_process_node(b, st, &b->pnode[i], &b->prank[i]);
			if (err)
				goto out;
		}
		b->order[b->nkept++] = (uint32_t)i;
	}
	qsort_r(b->order, b->nkept, sizeof(*b->order), tree_stack_cmp, b);
	err = 0;
out:
	free(only);
	return err;
}

static void tree_account(struct tree_node *n, const uint64_t *ct, const uint64_t *w,
			 unsigned nwin)
{
	n->total[COND_REF] += ct[COND_REF];
	n->total[COND_LOAD] += ct[COND_LOAD];
	for (unsigned i = 0; i < nwin; i++)
		n->win_total[i] += w[i];
}

static int tree_build_merge(struct tree_builder *b)
{
	const struct profile *p = b->p;
	struct tree *t = b->t;
	struct tree_node **path = NULL, *psub = NULL;
	uint32_t maxf = 0;
	size_t prev = SIZE_MAX;
	int err = -ENOMEM;

	for (size_t k = 0; k < b->nkept; k++)
		if (p->stacks[b->order[k]].nframes > maxf)
			maxf = p->stacks[b->order[k]].nframes;
	path = malloc((maxf ? maxf : 1) * sizeof(*path));
	if (!path)
		goto out;
	for (size_t k = 0; k < b->nkept; k++) {
		size_t si = b->order[k];
		const struct profile_stack *st = &p->stacks[si];
		const uint32_t *fx = b->fidx + b->off[si];
		uint64_t ct[COND_N] = { 0, 0 };
		struct tree_node *n;
		uint32_t same = 0;
		int same_sub;

		for (unsigned w = 0; w < p->nwin; w++)
			if ((unsigned)p->wins[w].cond < COND_N)
				ct[p->wins[w].cond] += st->win[w];
		n = t->root;
		tree_account(n, ct, st->win, p->nwin);
		if (b->pnode[si]) {
			n = b->pnode[si];
			tree_account(n, ct, st->win, p->nwin);
		}
		same_sub = prev != SIZE_MAX && b->pnode[prev] == b->pnode[si] &&
			   b->ssub[prev] == b->ssub[si];
		if (same_sub) {
			const uint32_t *px = b->fidx + b->off[prev];
			uint32_t lim = p->stacks[prev].nframes < st->nframes ?
				       p->stacks[prev].nframes : st->nframes;

			n = psub;
			while (same < lim && px[same] == fx[same])
				same++;
		} else {
			const char *sn = strpool_intern(t->priv->names, subsys_name(b->ssub[si]));

			if (!sn || !(n = tree_get(t, n, sn, TREE_SUBSYS)))
				goto out;
			n->subsys = (enum subsys)b->ssub[si];
			psub = n;
		}
		tree_account(n, ct, st->win, p->nwin);
		for (uint32_t f = 0; f < st->nframes; f++) {
			if (f < same) {
				n = path[f];
			} else {
				const struct tree_frame_info *fi = &b->finfo[fx[f]];

				n = tree_get_hash(t, n, fi->name, fi->hash, TREE_FRAME);
				if (!n)
					goto out;
				path[f] = n;
			}
			tree_account(n, ct, st->win, p->nwin);
		}
		n->self[COND_REF] += ct[COND_REF];
		n->self[COND_LOAD] += ct[COND_LOAD];
		prev = si;
	}
	err = 0;
out:
	free(path);
	return err;
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

struct tree *tree_build(const struct profile *p, const struct tree_opts *opts)
{
	struct tree_builder b = { .p = p, .opts = opts, .prank = NULL };
	struct tree *t = NULL;
	const char *all;
	int err = -ENOMEM;

	if (!p) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto out;
	b.t = t;
	t->priv = calloc(1, sizeof(*t->priv));
	if (!t->priv)
		goto out;
	t->priv->names = strpool_new();
	if (!t->priv->names)
		goto out;
	t->nwin = p->nwin;
	if (p->nwin) {
		t->wins = malloc(p->nwin * sizeof(*t->wins));
		if (!t->wins)
			goto out;
		memcpy(t->wins, p->wins, p->nwin * sizeof(*t->wins));
	}
	if (tree_table_grow(t->priv) < 0)
		goto out;
	all = strpool_intern(t->priv->names, "all");
	if (!all)
		goto out;
	t->root = tree_node_new(t, NULL, all, tree_id(0, all), TREE_ROOT);
	if (!t->root)
		goto out;
	err = tree_build_prepare(&b);
	if (!err)
		err = tree_build_merge(&b);
	if (!err)
		for (size_t i = 0; i < t->priv->nall; i++)
			tree_presence(t->priv->all[i]);
out:
	tree_ptrmap_fini(&b.fmap);
	tree_ptrmap_fini(&b.pmap);
	free(b.finfo);
	free(b.fidx);
	free(b.off);
	free(b.order);
	free(b.pnode);
	free(b.prank);
	free(b.ssub);
	if (err) {
		tree_free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

void tree_free(struct tree *t)
{
	struct tree_priv *pv;

	if (!t)
		return;
	pv = t->priv;
	if (pv) {
		for (size_t i = 0; i < pv->nall; i++) {
			free(pv->all[i]->child);
			tree_annot_free(pv->all[i]->annot);
		}
		free(pv->all);
		while (pv->arena) {
			struct tree_arena *a = pv->arena;

			pv->arena = a->next;
			free(a);
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

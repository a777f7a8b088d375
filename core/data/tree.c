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

#include "base/vec.h"
#include "base/strpool.h"
#include "data/tree.h"
#include "data/tree_annot.h"

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
	if (vec_grow(&pv->all, &pv->all_cap, pv->nall + 1, sizeof(*pv->all)))
		return NULL;
	if (parent && vec_grow_u(&parent->child, &parent->child_cap, (size_t)parent->nchild + 1,
				 sizeof(*parent->child)))
		return NULL;
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
	struct tree_ptrmap cmap;          /* command name -> its processes (0: not
	                                   * grouped) */
	const char **scomm;               /* per stack: its command name (interned) */
	uint32_t *fidx;                   /* frame infos of all kept stacks */
	size_t *off;                      /* per stack: offset into fidx */
	uint32_t *order;                  /* kept stacks, then sorted */
	size_t nkept;
	struct tree_node **pnode;         /* per stack: process node or NULL */
	uint32_t *prank;                  /* per stack: process rank */
	unsigned char *ssub;              /* per stack: subsystem */
	unsigned char *stime;             /* per stack: TREE_TIME_* (0: none) */
	unsigned char *smark;             /* per stack: 1 when frames[0] is a marker */
	int timed;                        /* some stack carries a time marker */
};

static int tree_frame_index(struct tree_builder *b, const char *frame, uint32_t *out)
{
	size_t i;

	if ((b->fmap.n + 1) * 2 > b->fmap.cap && tree_ptrmap_grow(&b->fmap) < 0)
		return -ENOMEM;
	i = tree_ptr_slot(&b->fmap, frame);
	if (!b->fmap.keys[i]) {
		struct tree_frame_info *fi;

		if (vec_grow(&b->finfo, &b->finfo_cap, b->nfinfo + 1, sizeof(*b->finfo)))
			return -ENOMEM;
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

static const char *tree_comm_of(struct tree_builder *b, const struct profile_stack *st)
{
	const char *c = st->comm && st->comm[0] ? st->comm : st->tgid ? "?" : "unknown";

	return strpool_intern(b->t->priv->names, c);
}

static int tree_pair_cmp(const void *x, const void *y)
{
	const uintptr_t *a = x, *b = y;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

/* cmap: how many processes each command name of the kept stacks has.  A
 * name also seen without a tgid (imported stacks, the idle task) is not
 * grouped: its process node is named by the comm alone, as the group would
 * be. */
static int tree_count_commands(struct tree_builder *b)
{
	uintptr_t *pair = malloc((b->nkept ? b->nkept : 1) * 2 * sizeof(*pair));
	size_t np = 0;
	int err = -ENOMEM;

	if (!pair || tree_ptrmap_init(&b->cmap, 64) < 0)
		goto out;
	for (size_t k = 0; k < b->nkept; k++) {
		size_t si = b->order[k];

		pair[2 * np] = (uintptr_t)b->scomm[si];
		pair[2 * np + 1] = b->p->stacks[si].tgid;
		np++;
	}
	qsort(pair, np, 2 * sizeof(*pair), tree_pair_cmp);
	for (size_t i = 0; i < np;) {
		size_t j = i, slot;
		uint32_t n = 0;
		int untagged = 0;

		for (; j < np && pair[2 * j] == pair[2 * i]; j++) {
			if (!pair[2 * j + 1])
				untagged = 1;
			else if (j == i || pair[2 * j + 1] != pair[2 * j - 1])
				n++;
		}
		if ((b->cmap.n + 1) * 2 > b->cmap.cap && tree_ptrmap_grow(&b->cmap) < 0)
			goto out;
		slot = tree_ptr_slot(&b->cmap, (const void *)pair[2 * i]);
		b->cmap.keys[slot] = (const void *)pair[2 * i];
		b->cmap.vals[slot] = untagged ? 0 : n;
		b->cmap.n++;
		i = j;
	}
	err = 0;
out:
	free(pair);
	return err;
}

static int tree_process_node(struct tree_builder *b, size_t si)
{
	const struct profile_stack *st = &b->p->stacks[si];
	const char *comm = b->scomm[si], *pn;
	struct tree_node *parent = b->t->root, **out = &b->pnode[si];
	uint32_t nproc = b->cmap.vals[tree_ptr_slot(&b->cmap, comm)];
	char buf[128];
	size_t i;

	if (st->tgid && nproc >= 2) {
		/* a command of several processes: its group first (perf
		 * report --sort comm,pid) */
		parent = tree_get(b->t, b->t->root, comm, TREE_COMMAND);
		if (!parent)
			return -ENOMEM;
		parent->nproc = nproc;
	}
	if (st->tgid)
		snprintf(buf, sizeof(buf), "%s [%" PRIu32 "]", comm, st->tgid);
	else
		snprintf(buf, sizeof(buf), "%s", comm);
	pn = strpool_intern(b->t->priv->names, buf);
	if (!pn || !(*out = tree_get(b->t, parent, pn, TREE_PROCESS)))
		return -ENOMEM;
	(*out)->tgid = st->tgid;
	if (st->tgid && !(*out)->ident)
		(*out)->ident = tree_ident_of(b->t, st->tgid);
	if (st->tgid && !(*out)->kwork)
		(*out)->kwork = tree_kworker_of(b->t, st->tgid);
	if ((b->pmap.n + 1) * 2 > b->pmap.cap && tree_ptrmap_grow(&b->pmap) < 0)
		return -ENOMEM;
	/* ranked by the group when there is one: a group's processes sort together */
	i = tree_ptr_slot(&b->pmap, parent != b->t->root ? (const void *)parent : (const void *)pn);
	if (!b->pmap.keys[i]) {
		b->pmap.keys[i] = parent != b->t->root ? (const void *)parent : (const void *)pn;
		b->pmap.vals[i] = (uint32_t)b->pmap.n++;
	}
	b->prank[si] = b->pmap.vals[i];
	return 0;
}

/* Frames of stack i below its time marker (the marker is not a frame). */
static uint32_t tree_nframes(const struct tree_builder *b, size_t i)
{
	return b->p->stacks[i].nframes - b->smark[i];
}

static int tree_stack_cmp(const void *x, const void *y, void *arg)
{
	const struct tree_builder *b = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const uint32_t *fi = b->fidx + b->off[i], *fj = b->fidx + b->off[j];
	uint32_t ni = tree_nframes(b, i), nj = tree_nframes(b, j);
	uint32_t n = ni < nj ? ni : nj;

	if (b->prank[i] != b->prank[j])
		return b->prank[i] < b->prank[j] ? -1 : 1;
	if (b->pnode[i] != b->pnode[j])   /* processes of one group */
		return b->pnode[i]->tgid < b->pnode[j]->tgid ? -1 : 1;
	if (b->stime[i] != b->stime[j])
		return b->stime[i] < b->stime[j] ? -1 : 1;
	if (b->ssub[i] != b->ssub[j])
		return b->ssub[i] < b->ssub[j] ? -1 : 1;
	for (uint32_t k = 0; k < n; k++)
		if (fi[k] != fj[k])
			return fi[k] < fj[k] ? -1 : 1;
	if (ni != nj)
		return ni < nj ? -1 : 1;
	return (i > j) - (i < j);
}

static int tree_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

const char *const tree_time_marker[TREE_TIME_N] = { "", "[on-cpu]", "[blocked]", "[runnable]" };
const char *const tree_time_name[TREE_TIME_N] = { "", "on-cpu", "blocked", "runnable" };

/* The kind of time a stack's first frame marks (see tree.h), or 0. */
static int tree_time_of(const struct profile_stack *st)
{
	for (int k = 1; k < TREE_TIME_N; k++)
		if (st->nframes && !strcmp(st->frames[0], tree_time_marker[k]))
			return k;
	return 0;
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
	b->stime = calloc(p->nstacks + 1, 1);
	b->smark = calloc(p->nstacks + 1, 1);
	b->scomm = calloc(p->nstacks + 1, sizeof(*b->scomm));
	if (!b->scomm || !b->smark ||!b->fidx || !b->off || !b->order || !b->pnode || !b->prank || !b->ssub || !b->stime ||
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
		b->stime[i] = (unsigned char)tree_time_of(st);
		if (b->stime[i]) {
			b->timed = 1;
			b->smark[i] = 1;
			b->off[i]++; /* the marker is the TREE_TIME node, not a frame */
		}
		b->ssub[i] = (unsigned char)tree_classify(b, b->fidx + b->off[i],
							  st->nframes - (b->stime[i] ? 1 : 0));
		if (o && o->group == TREE_BY_PROCESS && !(b->scomm[i] = tree_comm_of(b, st))) {
			err = -ENOMEM;
			goto out;
		}
		b->order[b->nkept++] = (uint32_t)i;
	}
	err = tree_kworkers_build(b->t, p, b->order, b->nkept);
	if (err)
		goto out;
	if (o && o->group == TREE_BY_PROCESS) {
		err = tree_count_commands(b);
		for (size_t k = 0; !err && k < b->nkept; k++)
			err = tree_process_node(b, b->order[k]);
		if (err)
			goto out;
	}
	if (b->timed)
		for (size_t k = 0; k < b->nkept; k++)
			if (!b->stime[b->order[k]])
				b->stime[b->order[k]] = TREE_TIME_ONCPU;
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

/* Counts ct of process (tgid, comm) into n's list, moved to the front:
 * consecutive stacks are mostly one process's. */
static int tree_proc_account(struct tree *t, struct tree_node *n, uint32_t tgid,
			     const char *comm, const uint64_t *ct)
{
	struct tree_proc **pp = &n->procs, *e;

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->tgid == tgid && (*pp)->comm == comm)
			break;
	e = *pp;
	if (e) {
		*pp = e->next;
	} else {
		e = tree_arena_alloc(t->priv, sizeof(*e));
		if (!e)
			return -ENOMEM;
		memset(e, 0, sizeof(*e));
		e->tgid = tgid;
		e->comm = comm;
	}
	e->total[COND_REF] += ct[COND_REF];
	e->total[COND_LOAD] += ct[COND_LOAD];
	e->next = n->procs;
	n->procs = e;
	return 0;
}

static int tree_build_merge(struct tree_builder *b)
{
	const struct profile *p = b->p;
	struct tree *t = b->t;
	struct tree_node **path = NULL, *psub = NULL, *ptime = NULL;
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
		uint32_t nf = tree_nframes(b, si);
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
			if (n->parent->kind == TREE_COMMAND) {
				/* a group is the sum of its processes; its list says who */
				const char *comm = b->scomm[si];

				tree_account(n->parent, ct, st->win, p->nwin);
				if (tree_proc_account(t, n->parent, st->tgid, comm, ct) < 0)
					goto out;
			}
			tree_account(n, ct, st->win, p->nwin);
		}
		same_sub = prev != SIZE_MAX && b->pnode[prev] == b->pnode[si] &&
			   b->stime[prev] == b->stime[si] && b->ssub[prev] == b->ssub[si];
		if (same_sub) {
			const uint32_t *px = b->fidx + b->off[prev];
			uint32_t pn = tree_nframes(b, prev), lim = pn < nf ? pn : nf;

			if (ptime)
				tree_account(ptime, ct, st->win, p->nwin);
			n = psub;
			while (same < lim && px[same] == fx[same])
				same++;
		} else {
			const char *sn = strpool_intern(t->priv->names, subsys_name(b->ssub[si]));

			if (b->stime[si]) {
				const char *tn = strpool_intern(t->priv->names,
								tree_time_name[b->stime[si]]);

				if (!tn || !(n = tree_get(t, n, tn, TREE_TIME)))
					goto out;
				tree_account(n, ct, st->win, p->nwin);
			}
			ptime = b->stime[si] ? n : NULL;
			if (!sn || !(n = tree_get(t, n, sn, TREE_SUBSYS)))
				goto out;
			n->subsys = (enum subsys)b->ssub[si];
			psub = n;
		}
		tree_account(n, ct, st->win, p->nwin);
		for (uint32_t f = 0; f < nf; f++) {
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
		if (!b->pnode[si]) {
			/* who the samples are, on every node of the stack's path */
			const char *comm = strpool_intern(t->priv->names, st->comm ? st->comm : "");

			if (!comm)
				goto out;
			for (struct tree_node *x = n; x; x = x->parent)
				if (tree_proc_account(t, x, st->tgid, comm, ct) < 0)
					goto out;
		}
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
	t->diag = p->diag;
	if (p->nwin) {
		t->wins = malloc(p->nwin * sizeof(*t->wins));
		if (!t->wins)
			goto out;
		memcpy(t->wins, p->wins, p->nwin * sizeof(*t->wins));
	}
	if (tree_table_grow(t->priv) < 0)
		goto out;
	if (tree_idents_copy(t, p) < 0)
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
	tree_ptrmap_fini(&b.cmap);
	free(b.scomm);
	free(b.finfo);
	free(b.fidx);
	free(b.off);
	free(b.order);
	free(b.pnode);
	free(b.prank);
	free(b.ssub);
	free(b.stime);
	free(b.smark);
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
	free(t->phase_earlier);
	tree_idents_free(t);
	tree_kworkers_free(t);
	free(t);
}

const char *tree_node_unit(const struct tree_node *n)
{
	if (!n || !(n->flags & TREE_F_STEP))
		return NULL;
	return n->annot && n->annot->unit ? n->annot->unit : "events";
}

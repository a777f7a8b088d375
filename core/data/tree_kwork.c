/* tree_kwork — what the tree's kworkers ran: their work functions from
 * their sampled stacks (core/data/kwork.h) and from the workqueue tracepoint
 * (the profile's works), per process, by samples then executions. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/kwork.h"
#include "base/strpool.h"
#include "data/subsys.h"
#include "data/tree.h"
#include "base/vec.h"

struct tree_kwork_rec {
	uint32_t tgid;
	const char *func;          /* interned; NULL: not in a named work function */
	uint64_t total[COND_N];    /* samples (a stack's record) */
	uint64_t exec[COND_N];     /* executions (a tracepoint record) */
};

static int tree_kwork_rec_cmp(const void *a, const void *b)
{
	const struct tree_kwork_rec *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	/* interned: one pointer per name (the items are ordered after) */
	if (x->func != y->func)
		return (uintptr_t)x->func < (uintptr_t)y->func ? -1 : 1;
	return 0;
}

/* Most samples first, then most executions, then by name: the row shows
 * the first, so a function the stacks name wins over one only the
 * tracepoint counted. */
static int tree_work_cmp(const void *a, const void *b)
{
	const struct tree_work *x = a, *y = b;
	uint64_t sx = x->total[COND_REF] + x->total[COND_LOAD];
	uint64_t sy = y->total[COND_REF] + y->total[COND_LOAD];
	uint64_t ex = x->exec[COND_REF] + x->exec[COND_LOAD];
	uint64_t ey = y->exec[COND_REF] + y->exec[COND_LOAD];

	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (ex != ey)
		return ex > ey ? -1 : 1;
	return strcmp(x->func, y->func);
}

static void tree_kwork_sum(uint64_t *to, const uint64_t *from)
{
	for (int c = 0; c < COND_N; c++)
		to[c] += from[c];
}

static int tree_kworker_cmp(const void *a, const void *b)
{
	const struct tree_kworker *x = a, *y = b;

	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

const struct tree_kworker *tree_kworker_of(const struct tree *t, uint32_t tgid)
{
	struct tree_kworker key = { .tgid = tgid };

	if (!t || !t->nkworkers)
		return NULL;
	return bsearch(&key, t->kworkers, t->nkworkers, sizeof(key), tree_kworker_cmp);
}

/* The records, sorted and merged, into t's kworkers and their items. */
static int tree_kwork_fill(struct tree *t, struct tree_kwork_rec *r, size_t nr)
{
	size_t nk = 0, ni = 0, m = 0;

	qsort(r, nr, sizeof(*r), tree_kwork_rec_cmp);
	for (size_t i = 0; i < nr; i++) {
		if (m && !tree_kwork_rec_cmp(&r[m - 1], &r[i])) {
			tree_kwork_sum(r[m - 1].total, r[i].total);
			tree_kwork_sum(r[m - 1].exec, r[i].exec);
			continue;
		}
		r[m++] = r[i];
		nk += m == 1 || r[m - 2].tgid != r[m - 1].tgid;
		ni += r[m - 1].func != NULL;
	}
	t->kworkers = calloc(nk ? nk : 1, sizeof(*t->kworkers));
	t->kwork_items = calloc(ni ? ni : 1, sizeof(*t->kwork_items));
	if (!t->kworkers || !t->kwork_items)
		return -ENOMEM;
	ni = 0;
	for (size_t i = 0; i < m;) {
		struct tree_kworker *k = &t->kworkers[t->nkworkers++];
		struct tree_work *w = &t->kwork_items[ni];

		k->tgid = r[i].tgid;
		k->work = w;
		for (; i < m && r[i].tgid == k->tgid; i++) {
			tree_kwork_sum(k->total, r[i].total);
			tree_kwork_sum(k->exec, r[i].exec);
			if (!r[i].func)
				continue;
			w[k->nwork].func = r[i].func;
			memcpy(w[k->nwork].total, r[i].total, sizeof(r[i].total));
			memcpy(w[k->nwork].exec, r[i].exec, sizeof(r[i].exec));
			k->nwork++;
		}
		qsort(w, k->nwork, sizeof(*w), tree_work_cmp);
		ni += k->nwork;
	}
	return 0;
}

/* A free record at the end of *r (zeroed), or NULL. */
static struct tree_kwork_rec *tree_kwork_rec_new(struct tree_kwork_rec **r, size_t *nr,
						 size_t *cap)
{
	if (vec_grow(r, cap, *nr + 1, sizeof(**r)))
		return NULL;
	memset(&(*r)[*nr], 0, sizeof(**r));
	return &(*r)[(*nr)++];
}

static int tree_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Records of the executions p->works counts for the kworkers already in
 * r[0..*nr) (those with a kept stack), in the windows the tree has. */
static int tree_kwork_execs(struct tree *t, const struct profile *p, struct tree_kwork_rec **r,
			    size_t *nr, size_t *cap)
{
	uint32_t *pids;
	size_t np = 0, ns = *nr;
	int err = -ENOMEM;

	for (unsigned w = 0; w < p->nwin; w++)
		t->kwork_traced |= p->wins[w].works_traced;
	if (!p->nworks || !ns)
		return 0;
	pids = malloc(ns * sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	for (size_t i = 0; i < ns; i++)
		pids[i] = (*r)[i].tgid;
	qsort(pids, ns, sizeof(*pids), tree_u32_cmp);
	for (size_t i = 0; i < ns; i++)
		if (!np || pids[np - 1] != pids[i])
			pids[np++] = pids[i];
	for (size_t i = 0; i < p->nworks; i++) {
		const struct profile_work *e = &p->works[i];
		struct tree_kwork_rec *x;
		size_t len = subsys_base_len(e->func);

		if (!e->count || e->win >= p->nwin || (unsigned)p->wins[e->win].cond >= COND_N ||
		    !len || !bsearch(&e->pid, pids, np, sizeof(*pids), tree_u32_cmp))
			continue;
		if (!(x = tree_kwork_rec_new(r, nr, cap)))
			goto out;
		x->tgid = e->pid;
		x->exec[p->wins[e->win].cond] = e->count;
		if (!t->kwork_names && !(t->kwork_names = strpool_new()))
			goto out;
		if (!(x->func = strpool_intern_len(t->kwork_names, e->func, len)))
			goto out;
	}
	err = 0;
out:
	free(pids);
	return err;
}

int tree_kworkers_build(struct tree *t, const struct profile *p, const uint32_t *stacks,
			size_t n)
{
	struct tree_kwork_rec *r = NULL, *x;
	size_t nr = 0, cap = 0;
	int err = -ENOMEM;

	for (size_t k = 0; k < n; k++) {
		const struct profile_stack *st = &p->stacks[stacks[k]];
		const struct tree_ident *id;
		const char *f;
		size_t len = 0;

		/* the cheap test first: most stacks are no kworker's */
		if (!st->tgid || !st->comm || st->comm[0] != 'k')
			continue;
		id = tree_ident_of(t, st->tgid);
		if (!kwork_is_worker(st->comm, id ? id->kthread : -1))
			continue;
		if (!(x = tree_kwork_rec_new(&r, &nr, &cap)))
			goto out;
		x->tgid = st->tgid;
		for (unsigned w = 0; w < p->nwin; w++)
			if ((unsigned)p->wins[w].cond < COND_N)
				x->total[p->wins[w].cond] += st->win[w];
		f = kwork_func(st->frames, st->nframes, &len);
		if (f) {
			if (!t->kwork_names && !(t->kwork_names = strpool_new()))
				goto out;
			if (!(x->func = strpool_intern_len(t->kwork_names, f, len)))
				goto out;
		}
	}
	err = tree_kwork_execs(t, p, &r, &nr, &cap);
	if (!err)
		err = nr ? tree_kwork_fill(t, r, nr) : 0;
out:
	free(r);
	return err;
}

void tree_kworkers_free(struct tree *t)
{
	free(t->kworkers);
	free(t->kwork_items);
	strpool_free(t->kwork_names);
	t->kworkers = NULL;
	t->kwork_items = NULL;
	t->kwork_names = NULL;
	t->nkworkers = 0;
	t->kwork_traced = 0;
}

/* tree_ident — who the processes of a tree are and which are the diagnosed
 * work: the profile's identities and diagnosed set, as the tree keeps them. */
#include <errno.h>
#include <stdlib.h>

#include "base/strpool.h"
#include "data/tree.h"

static int tree_ident_cmp(const void *a, const void *b)
{
	const struct tree_ident *x = a, *y = b;

	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

const struct tree_ident *tree_ident_of(const struct tree *t, uint32_t tgid)
{
	struct tree_ident key = { .tgid = tgid };

	if (!t || !t->nidents)
		return NULL;
	return bsearch(&key, t->idents, t->nidents, sizeof(key), tree_ident_cmp);
}

int tree_idents_copy(struct tree *t, const struct profile *p)
{
	if (!p->nidents)
		return 0;
	t->idents = calloc(p->nidents, sizeof(*t->idents));
	t->ident_names = strpool_new();
	if (!t->idents || !t->ident_names)
		return -ENOMEM;
	for (size_t i = 0; i < p->nidents; i++) {
		const struct profile_ident *s = &p->idents[i];
		struct tree_ident *d = &t->idents[t->nidents];
		struct strpool *sp = t->ident_names;

		d->tgid = s->tgid;
		d->kthread = s->kthread;
		if (!(d->comm = strpool_intern(sp, s->comm ? s->comm : "")) ||
		    !(d->cmdline = strpool_intern(sp, s->cmdline ? s->cmdline : "")) ||
		    !(d->exe = strpool_intern(sp, s->exe ? s->exe : "")) ||
		    !(d->cgroup = strpool_intern(sp, s->cgroup ? s->cgroup : "")) ||
		    !(d->unit = strpool_intern(sp, s->unit ? s->unit : "")) ||
		    !(d->container = strpool_intern(sp, s->container ? s->container : "")) ||
		    !(d->role = strpool_intern(sp, s->role ? s->role : "")) ||
		    !(d->threads = strpool_intern(sp, s->threads ? s->threads : "")))
			return -ENOMEM;
		t->nidents++;
	}
	/* sorted for tree_ident_of (the profile keeps one per tgid) */
	qsort(t->idents, t->nidents, sizeof(*t->idents), tree_ident_cmp);
	return 0;
}

static int tree_diag_lists(const struct tree *t, uint32_t tgid)
{
	for (unsigned i = 0; i < t->diag.ntgids; i++)
		if (t->diag.tgids[i] == tgid)
			return 1;
	return 0;
}

int tree_is_diagnosed(const struct tree *t, uint32_t tgid)
{
	return !t->diag.known || t->diag.all || tree_diag_lists(t, tgid);
}

int tree_is_work_task(const struct tree *t, uint32_t tgid)
{
	if (t->diag.known && t->diag.all && t->diag.ntgids)
		return tree_diag_lists(t, tgid);
	return tree_is_diagnosed(t, tgid);
}

void tree_idents_free(struct tree *t)
{
	free(t->idents);
	strpool_free(t->ident_names);
	t->idents = NULL;
	t->ident_names = NULL;
	t->nidents = 0;
}

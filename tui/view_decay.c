/* view_decay — an exponentially decaying view of the live tree's counts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "view_decay.h"

struct view_decay_ent {
	uint64_t id;
	uint64_t raw_total[COND_N], raw_self[COND_N];   /* counted, at the last apply */
	double shown_total[COND_N], shown_self[COND_N]; /* decayed, at the last apply */
};

void view_decay_init(struct view_decay *d, double half_life_s)
{
	memset(d, 0, sizeof(*d));
	d->half_life_s = half_life_s;
	d->last_s = -1;
	d->root_ratio = 1;
}

void view_decay_free(struct view_decay *d)
{
	free(d->ent);
	d->ent = NULL;
	d->n = 0;
}

void view_decay_regroup(struct view_decay *d)
{
	d->regrouped = 1;
}

void view_decay_reset(struct view_decay *d)
{
	double h = d->half_life_s;

	view_decay_free(d);
	view_decay_init(d, h);
}

static int ent_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct view_decay_ent *)a)->id;
	uint64_t y = ((const struct view_decay_ent *)b)->id;

	return x < y ? -1 : x > y;
}

struct collect {
	struct view_decay_ent *ent;
	size_t n, cap;
};

static int collect_node(struct tree_node *n, void *arg)
{
	struct collect *c = arg;

	int err = vec_grow(&c->ent, &c->cap, c->n + 1, sizeof(*c->ent));

	if (err)
		return err;
	memset(&c->ent[c->n], 0, sizeof(c->ent[c->n]));
	c->ent[c->n].id = n->id;
	for (int k = 0; k < COND_N; k++) {
		c->ent[c->n].raw_total[k] = n->total[k];
		c->ent[c->n].raw_self[k] = n->self[k];
	}
	c->n++;
	return 0;
}

/* One count: the old shown value decayed by f plus what was gained since;
 * a count that fell was reset, and starts again from what it has. */
static double decay_one(double shown, uint64_t before, uint64_t now, double f)
{
	return now >= before ? shown * f + (double)(now - before) : (double)now;
}

static uint64_t as_count(double v)
{
	return v > 0 ? (uint64_t)llround(v) : 0;
}

static int write_node(struct tree_node *n, void *arg)
{
	const struct view_decay *d = arg;
	struct view_decay_ent key = { .id = n->id }, *e;

	e = bsearch(&key, d->ent, d->n, sizeof(*d->ent), ent_cmp);
	if (!e)
		return 0;
	for (int k = 0; k < COND_N; k++) {
		n->total[k] = as_count(e->shown_total[k]);
		n->self[k] = as_count(e->shown_self[k]);
	}
	return 0;
}

int view_decay_apply(struct view_decay *d, struct tree *t, double now_s)
{
	struct collect c = { 0 };
	double f = 1, ratio = d->regrouped ? d->root_ratio : 1;
	int err = 0;

	if (!t || !t->root)
		return 0;
	if (d->last_s >= 0 && now_s > d->last_s)
		f = exp2(-(now_s - d->last_s) / d->half_life_s);
	err = tree_walk(t->root, collect_node, &c);
	if (err)
		goto out;
	qsort(c.ent, c.n, sizeof(*c.ent), ent_cmp);
	for (size_t i = 0; i < c.n; i++) {
		struct view_decay_ent *e = &c.ent[i];
		const struct view_decay_ent *old = d->n ? bsearch(e, d->ent, d->n, sizeof(*d->ent),
								  ent_cmp) : NULL;

		for (int k = 0; k < COND_N; k++) {
			if (old && !d->regrouped) {
				e->shown_total[k] = decay_one(old->shown_total[k], old->raw_total[k],
							      e->raw_total[k], f);
				e->shown_self[k] = decay_one(old->shown_self[k], old->raw_self[k],
							     e->raw_self[k], f);
			} else {
				/* new to the view: a new path's samples are recent;
				 * after a regroup, all of them are as old as the root's */
				e->shown_total[k] = (double)e->raw_total[k] * ratio;
				e->shown_self[k] = (double)e->raw_self[k] * ratio;
			}
		}
	}
	free(d->ent);
	d->ent = c.ent;
	d->n = c.n;
	c.ent = NULL;
	d->last_s = now_s;
	d->regrouped = 0;
	{
		struct view_decay_ent key = { .id = t->root->id };
		const struct view_decay_ent *r = bsearch(&key, d->ent, d->n, sizeof(*d->ent),
							 ent_cmp);
		uint64_t raw = r ? r->raw_total[0] + r->raw_total[1] : 0;

		d->root_ratio = raw ? (r->shown_total[0] + r->shown_total[1]) / (double)raw : 1;
	}
	err = tree_walk(t->root, write_node, d);
out:
	free(c.ent);
	return err;
}

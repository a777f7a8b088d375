/* calib_annot — the calibration of step annotations and step nodes (see
 * calib.h, calib_annot_run): called by calib_run after its own pass.  It
 * calls nothing of calib.c (the tests are core/base/stats.c), so the
 * dependency runs one way: calib.c -> calib_annot.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calib.h"
#include "base/stats.h"
#include "base/vec.h"
#include "data/step_data.h"
#include "data/tree_annot.h"

static int calib_sign(double v)
{
	return (v > 0) - (v < 0);
}

/* Rates, Poisson test and pair signs of one annotation (q set later). */
void calib_annot_stats(struct tree_annot *a)
{
	double secs[COND_N] = { 0 };
	unsigned rw[64], lw[64], nr = 0, nl = 0;

	for (unsigned w = 0; w < a->nwin; w++) {
		if (!(a->secs[w] > 0))
			continue;
		secs[a->cond[w]] += a->secs[w];
		if (a->cond[w] == COND_REF && nr < 64)
			rw[nr++] = w;
		else if (a->cond[w] == COND_LOAD && nl < 64)
			lw[nl++] = w;
	}
	for (int c = 0; c < COND_N; c++)
		a->rate[c] = secs[c] > 0 ? a->total[c] / secs[c] : 0;
	a->delta = a->rate[COND_LOAD] - a->rate[COND_REF];
	a->ratio = a->rate[COND_REF] > 0 ? a->rate[COND_LOAD] / a->rate[COND_REF]
		   : a->rate[COND_LOAD] > 0 ? INFINITY : 1.0;
	a->p = stats_poisson_p(a->total[COND_REF], secs[COND_REF], a->total[COND_LOAD],
			       secs[COND_LOAD]);
	a->q = a->p;
	a->pairs = a->pairs_agree = 0;
	for (unsigned k = 0; k < nr && k < nl; k++) {
		double dd = a->win[lw[k]] / a->secs[lw[k]] - a->win[rw[k]] / a->secs[rw[k]];

		a->pairs++;
		if (calib_sign(dd) == calib_sign(a->delta))
			a->pairs_agree++;
	}
	if (a->has_lat) {
		for (int c = 0; c < COND_N; c++) {
			a->p50_ns[c] = step_data_hist_percentile(a->hist[c], 50);
			a->p99_ns[c] = step_data_hist_percentile(a->hist[c], 99);
		}
		a->lat_p = stats_mann_whitney_p(a->hist[COND_REF], a->hist[COND_LOAD],
						 KIND_HIST_BUCKETS, &a->lat_sign);
	}
}

struct calib_annots {
	struct tree_annot **v;
	struct tree_node **node;
	size_t n, cap;
};

static int calib_annot_collect(struct tree_node *n, void *arg)
{
	struct calib_annots *c = arg;

	for (struct tree_annot *a = n->annot; a; a = a->next) {
		if (c->n == c->cap) {
			size_t cap = c->cap;

			/* node follows v's capacity, so c->cap moves only when both grew */
			if (vec_grow(&c->v, &cap, c->n + 1, sizeof(*c->v)) ||
			    vec_resize(&c->node, cap, sizeof(*c->node)))
				return -ENOMEM;
			c->cap = cap;
		}
		c->v[c->n] = a;
		c->node[c->n++] = n;
	}
	return 0;
}

int calib_annot_run(struct tree *t, const struct calib_opts *o)
{
	struct calib_annots c = { 0 };
	double *p = NULL;
	size_t *ix = NULL;
	unsigned maxstep = 0;
	int err;

	/* o is the caller's, defaults filled in: calib_run, its only caller,
	 * has done that, and asking calib.c for them here would make the
	 * two files call each other */
	if (!t || !t->root || !o)
		return -EINVAL;
	err = tree_walk(t->root, calib_annot_collect, &c);
	if (err || !c.n)
		goto cleanup;
	p = malloc(c.n * sizeof(*p));
	ix = malloc(c.n * sizeof(*ix));
	if (!p || !ix) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < c.n; i++) {
		calib_annot_stats(c.v[i]);
		if (c.v[i]->step > maxstep)
			maxstep = c.v[i]->step;
	}
	/* Benjamini–Hochberg within each step's family */
	for (unsigned st = 0; st <= maxstep; st++) {
		size_t m = 0;

		for (size_t i = 0; i < c.n; i++) {
			struct tree_annot *a = c.v[i];

			if (a->step != st)
				continue;
			a->q = 1.0;
			if (a->total[COND_REF] + a->total[COND_LOAD] >= o->min_count) {
				p[m] = a->p;
				ix[m++] = i;
			}
		}
		err = stats_bh_adjust(p, p, m);
		if (err)
			goto cleanup;
		for (size_t k = 0; k < m; k++)
			c.v[ix[k]]->q = p[k];
	}
	for (size_t i = 0; i < c.n; i++) {
		struct tree_annot *a = c.v[i];

		a->significant = a->total[COND_REF] + a->total[COND_LOAD] >= o->min_count &&
				 a->delta != 0 && a->q <= o->alpha &&
				 !(a->pairs >= 2 && !((double)a->pairs_agree / a->pairs > o->min_agree));
		a->sign = a->significant ? calib_sign(a->delta) : 0;
		a->lat_significant = a->has_lat && a->lat_p <= o->alpha && a->lat_sign != 0;
	}
	/* node->stat of step nodes from their first annotation */
	for (size_t i = 0; i < c.n; i++) {
		struct tree_node *n = c.node[i];
		struct tree_annot *a = c.v[i];
		struct calib_stat *s = &n->stat;

		if (!(n->flags & TREE_F_STEP) || a != n->annot)
			continue;
		memset(s, 0, sizeof(*s));
		memcpy(s->rate, a->rate, sizeof(s->rate));
		s->delta = a->delta;
		s->ratio = a->ratio;
		s->p = a->p;
		s->q = a->q;
		s->pairs = a->pairs;
		s->pairs_agree = a->pairs_agree;
		s->significant = a->significant;
		s->sign = a->sign;
		if (a->total[COND_REF] + a->total[COND_LOAD] < o->min_count)
			s->why = "too few events to test";
		else if (a->delta == 0)
			s->why = "no change";
		else if (!(a->q <= o->alpha))
			s->why = "q above the FDR level";
		else if (!a->significant)
			s->why = "window pairs disagree in sign";
		else
			s->why = a->sign > 0 ? "significant increase (step events)"
					     : "significant decrease (step events)";
		if (n->parent && (n->parent->flags & TREE_F_STEP) && n->parent->stat.delta != 0)
			s->share_of_parent = s->delta / n->parent->stat.delta;
	}
cleanup:
	free(c.v);
	free(c.node);
	free(p);
	free(ix);
	return err;
}

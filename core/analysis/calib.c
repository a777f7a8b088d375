/* calib — reference calibration: rates, deltas and which deltas are real.
 *
 * The rate test is the conditional binomial test of two Poisson rates
 * (stats_poisson_p, core/base/stats.c), or with calib_opts.sequential the
 * anytime-valid one (core/base/seqtest.c).
 *
 * Multiple testing.  Benjamini–Hochberg over every node but the root whose
 * count (both conditions) reaches min_count.  Leaving out nodes that can
 * never be significant is valid "independent filtering": under H0 the
 * conditional test's p-value does not depend on n, and it keeps thousands of
 * one-sample leaves from diluting the family.  Those nodes get q = 1.  The
 * root is its own single test: q = p.
 *
 * Sign consistency.  Pair i is the i-th reference window with the i-th
 * loaded window; its delta is the node's rate difference in that pair.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "analysis/calib.h"
#include "base/numfmt.h"
#include "base/stats.h"
#include "base/seqtest.h"

void calib_opts_default(struct calib_opts *o)
{
	o->alpha = 0.05;
	o->freq_hz = 0;
	o->min_agree = 0.5;
	o->min_count = 5;
	o->sequential = 0;
}

/* ---- per node -------------------------------------------------------------- */

struct node_vec {
	struct tree_node **v;
	size_t n, cap;
};

static int node_vec_push(struct tree_node *node, void *arg)
{
	struct node_vec *nv = arg;

	if (vec_grow(&nv->v, &nv->cap, nv->n + 1, sizeof(*nv->v)))
		return -ENOMEM;
	nv->v[nv->n++] = node;
	return 0;
}

static int sign_of(double x)
{
	return (x > 0) - (x < 0);
}

int calib_run(struct tree *t, const struct calib_opts *o)
{
	struct calib_opts def;
	struct node_vec nv = { 0 };
	double secs[COND_N] = { 0 };
	unsigned *ref_w = NULL, *load_w = NULL, nref = 0, nload = 0, npairs;
	double *fp = NULL, *pair_secs = NULL;
	uint64_t *pair_n = NULL;
	struct seqtest *seq = NULL;
	size_t *fi = NULL, nf = 0, i;
	int err = 0;

	if (!t || !t->root)
		return -EINVAL;
	if (!o) {
		calib_opts_default(&def);
		o = &def;
	}
	ref_w = calloc(t->nwin + 1, sizeof(*ref_w));
	load_w = calloc(t->nwin + 1, sizeof(*load_w));
	if (!ref_w || !load_w) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (unsigned w = 0; w < t->nwin; w++) {
		const struct profile_window *pw = &t->wins[w];

		if (!(pw->secs > 0) || pw->cond >= COND_N)
			continue;
		secs[pw->cond] += pw->secs;
		if (pw->cond == COND_REF)
			ref_w[nref++] = w;
		else
			load_w[nload++] = w;
	}
	if (!(secs[COND_REF] > 0) || !(secs[COND_LOAD] > 0)) {
		err = -EINVAL;
		goto cleanup;
	}
	npairs = nref < nload ? nref : nload;
	if (o->sequential && npairs) {
		/* the per-pair exposures once; each node adds its counts */
		pair_secs = malloc(2 * npairs * sizeof(*pair_secs));
		pair_n = malloc(2 * npairs * sizeof(*pair_n));
		if (!pair_secs || !pair_n) {
			err = -ENOMEM;
			goto cleanup;
		}
		for (unsigned k = 0; k < npairs; k++) {
			pair_secs[k] = t->wins[ref_w[k]].secs;
			pair_secs[npairs + k] = t->wins[load_w[k]].secs;
		}
		seq = seqtest_new(pair_secs, pair_secs + npairs, npairs);
		if (!seq) {
			err = -errno;
			goto cleanup;
		}
	}

	err = tree_walk(t->root, node_vec_push, &nv);
	if (err)
		goto cleanup;
	fp = calloc(nv.n + 1, sizeof(*fp));
	fi = malloc((nv.n + 1) * sizeof(*fi));
	if (!fp || !fi) {
		err = -ENOMEM;
		goto cleanup;
	}

	for (i = 0; i < nv.n; i++) {
		struct tree_node *n = nv.v[i];
		struct calib_stat *s = &n->stat;
		uint64_t cnt = n->total[COND_REF] + n->total[COND_LOAD];
		int sg;

		if (n->flags & TREE_F_STEP)
			continue; /* other unit, own windows: tree_annot_calib */
		memset(s, 0, sizeof(*s));
		s->rate[COND_REF] = n->total[COND_REF] / secs[COND_REF];
		s->rate[COND_LOAD] = n->total[COND_LOAD] / secs[COND_LOAD];
		if (o->freq_hz > 0)
			for (int c = 0; c < COND_N; c++)
				s->cpu_ms[c] = s->rate[c] / o->freq_hz * 1000.0;
		s->delta = s->rate[COND_LOAD] - s->rate[COND_REF];
		if (s->rate[COND_REF] > 0)
			s->ratio = s->rate[COND_LOAD] / s->rate[COND_REF];
		else
			s->ratio = s->rate[COND_LOAD] > 0 ? INFINITY : 1.0;
		if (seq && n->win_total) {
			for (unsigned k = 0; k < npairs; k++) {
				pair_n[k] = n->win_total[ref_w[k]];
				pair_n[npairs + k] = n->win_total[load_w[k]];
			}
			s->p = seqtest_p_of(seqtest_log_e(seq, pair_n, pair_n + npairs, npairs));
			s->anytime = 1;
		} else {
			s->p = stats_poisson_p(n->total[COND_REF], secs[COND_REF],
					       n->total[COND_LOAD], secs[COND_LOAD]);
		}
		s->q = 1.0;
		sg = sign_of(s->delta);
		if (n->win_total) {
			for (unsigned k = 0; k < npairs; k++) {
				unsigned wr = ref_w[k], wl = load_w[k];
				double d = n->win_total[wl] / t->wins[wl].secs -
					   n->win_total[wr] / t->wins[wr].secs;

				s->pairs++;
				if (sign_of(d) == sg)
					s->pairs_agree++;
			}
		}
		{
			uint64_t sc = n->self[COND_REF] + n->self[COND_LOAD];
			double sd = n->self[COND_LOAD] / secs[COND_LOAD] -
				    n->self[COND_REF] / secs[COND_REF];

			/* a per-node test, not part of the family: it only adds
			 * a node's own time to rises its children already show */
			if (sc >= o->min_count && sd != 0 &&
			    stats_poisson_p(n->self[COND_REF], secs[COND_REF], n->self[COND_LOAD],
					    secs[COND_LOAD]) <= o->alpha)
				s->self_sign = sign_of(sd);
		}
		if (n == t->root)
			s->q = s->p;
		else if (cnt >= o->min_count) {
			fp[nf] = s->p;
			fi[nf++] = i;
		}
	}
	err = stats_bh_adjust(fp, fp, nf);
	if (err)
		goto cleanup;
	for (i = 0; i < nf; i++)
		nv.v[fi[i]]->stat.q = fp[i];

	for (i = 0; i < nv.n; i++) {
		struct tree_node *n = nv.v[i];
		struct calib_stat *s = &n->stat;
		uint64_t cnt = n->total[COND_REF] + n->total[COND_LOAD];

		if (n->flags & TREE_F_STEP)
			continue;
		if (cnt < o->min_count)
			s->why = "too few samples to test";
		else if (s->delta == 0)
			s->why = "no change";
		else if (!(s->q <= o->alpha))
			s->why = "q above the FDR level";
		else if (s->pairs >= 2 &&
			 !((double)s->pairs_agree / s->pairs > o->min_agree))
			s->why = "window pairs disagree in sign";
		else {
			s->significant = 1;
			s->sign = sign_of(s->delta);
			s->why = s->sign > 0 ? "significant increase" : "significant decrease";
		}
		if (!n->parent)
			s->share_of_parent = 1.0;
		else if (n->parent->stat.delta != 0)
			s->share_of_parent = s->delta / n->parent->stat.delta;
	}
	/* share_of_parent above read the parent's delta: pre-order walk, so the
	 * parent was filled in the first loop already */
	err = calib_annot_run(t, o);
	calib_masses(t);
cleanup:
	seqtest_free(seq);
	free(pair_secs);
	free(pair_n);
	free(nv.v);
	free(fp);
	free(fi);
	free(ref_w);
	free(load_w);
	return err;
}

/* ---- rises and falls apart ------------------------------------------------ */

static int calib_other_unit(const struct tree_node *parent, const struct tree_node *c)
{
	return (c->flags & TREE_F_STEP) && !(parent->flags & TREE_F_STEP);
}

/* post-order: children first */
static void calib_mass_node(struct tree_node *n, double secs_ref, double secs_load)
{
	const struct calib_stat *s = &n->stat;
	double up = 0, down = 0, self = 0;

	for (unsigned i = 0; i < n->nchild; i++) {
		struct tree_node *c = n->child[i];

		calib_mass_node(c, secs_ref, secs_load);
		if (calib_other_unit(n, c))
			continue;
		up += c->stat.rise;
		down += c->stat.fall;
	}
	if (!(n->flags & TREE_F_STEP))
		self = n->self[COND_LOAD] / secs_load - n->self[COND_REF] / secs_ref;
	/* the self test is per node, outside the FDR family: its time joins a
	 * rise (fall) only where one is established already, by the node's own
	 * test or its children's; alone it would let chance self counts, one
	 * node in twenty at alpha 0.05, make a rise out of no true delta */
	if (s->self_sign > 0 && self > 0 && (up > 0 || (s->significant && s->sign > 0)))
		up += self;
	if (s->self_sign < 0 && self < 0 && (down > 0 || (s->significant && s->sign < 0)))
		down += -self;
	n->stat.rise = fmax(s->significant && s->sign > 0 ? s->delta : 0, up);
	n->stat.fall = fmax(s->significant && s->sign < 0 ? -s->delta : 0, down);
}

void calib_masses(struct tree *t)
{
	double secs[COND_N] = { 0 };

	if (!t || !t->root)
		return;
	for (unsigned w = 0; w < t->nwin; w++)
		if (t->wins[w].secs > 0 && t->wins[w].cond < COND_N)
			secs[t->wins[w].cond] += t->wins[w].secs;
	if (!(secs[COND_REF] > 0) || !(secs[COND_LOAD] > 0))
		return;
	calib_mass_node(t->root, secs[COND_REF], secs[COND_LOAD]);
}

/* ---- words ----------------------------------------------------------------- */

char *calib_explain(const struct tree_node *n, char *buf, size_t len)
{
	const struct calib_stat *s = &n->stat;
	char ps[24], qs[24], ratio[32], cpu[48] = "";
	uint64_t cnt = n->total[COND_REF] + n->total[COND_LOAD];

	if (!len)
		return buf;
	numfmt_p(ps, sizeof(ps), "p", s->p, NUMFMT_P_WORDS1);
	numfmt_p(qs, sizeof(qs), "q", s->q, NUMFMT_P_WORDS1);
	if (isinf(s->ratio))
		snprintf(ratio, sizeof(ratio), "new when loaded");
	else if (s->rate[COND_LOAD] == 0 && s->rate[COND_REF] > 0)
		snprintf(ratio, sizeof(ratio), "vanished when loaded");
	else
		snprintf(ratio, sizeof(ratio), "x%.2f", s->ratio);
	if (s->cpu_ms[COND_LOAD] > 0 || s->cpu_ms[COND_REF] > 0)
		snprintf(cpu, sizeof(cpu), " = %+.1f CPU-ms/s",
			 s->cpu_ms[COND_LOAD] - s->cpu_ms[COND_REF]);
	snprintf(buf, len,
		 "%+.1f/s%s (ref %.1f/s, load %.1f/s, %s), n=%llu, %s %s "
		 "(%s), %u/%u pairs agree: %s",
		 s->delta, cpu, s->rate[COND_REF], s->rate[COND_LOAD], ratio,
		 (unsigned long long)cnt, ps, qs,
		 s->anytime ? "anytime-valid mixture test of two Poisson rates over the "
			      "window pairs, e-BH" :
			      "two-sided conditional binomial test of two Poisson rates, "
			      "Benjamini-Hochberg",
		 s->pairs_agree, s->pairs,
		 s->why ? s->why : "not calibrated");
	return buf;
}

struct sum_ent {
	int subsys;
	int time;   /* enum tree_time of the node's TREE_TIME level; NONE without one */
	double ref, load;
	int sig, any;
	double pct; /* INFINITY when new */
};

/* The kind of time a subsystem node is under: its TREE_TIME ancestor
 * (all -> [process] -> time -> subsystem), TREE_TIME_NONE without one. */
static int sum_time_of(const struct tree_node *n)
{
	for (const struct tree_node *x = n->parent; x; x = x->parent)
		if (x->kind == TREE_TIME) {
			for (int k = 1; k < TREE_TIME_N; k++)
				if (x->name && !strcmp(x->name, tree_time_name[k]))
					return k;
			return TREE_TIME_NONE;
		}
	return TREE_TIME_NONE;
}

/* One entry per (kind of time, subsystem): the header says the number of
 * the tree's node for it.  Summed over all such nodes, a wall-clock
 * tree's mm would add on-cpu mm and blocked mm into a figure no row shows
 * (issue 24 item 9: the header said mm +1514% beside the row's +1043%).
 * Only a grouping by process still sums (the processes' parts of one
 * node of the tree by subsystem). */
static int sum_collect(struct tree_node *n, void *arg)
{
	struct sum_ent (*e)[SUBSYS_N] = arg;

	if (n->kind == TREE_SUBSYS && n->subsys < SUBSYS_N) {
		struct sum_ent *x = &e[sum_time_of(n)][n->subsys];

		x->ref += n->stat.rate[COND_REF];
		x->load += n->stat.rate[COND_LOAD];
		x->any = 1;
		if (n->stat.significant)
			x->sig |= n->stat.sign > 0 ? 1 : 2;
	}
	return 0;
}

/* significant first, then by |delta| in samples per second (what costs
 * most first: irq +2201% at +7.3/s is not before mm +1200% at +654.6/s),
 * then table order */
static int sum_cmp(const void *a, const void *b)
{
	const struct sum_ent *x = a, *y = b;
	double ax = fabs(x->load - x->ref), ay = fabs(y->load - y->ref);

	if (!!x->sig != !!y->sig)
		return y->sig ? 1 : -1;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	if (x->subsys != y->subsys)
		return x->subsys - y->subsys;
	return x->time - y->time;
}

char *calib_summary(const struct tree *t, int utf8, char *buf, size_t len)
{
	struct sum_ent all[TREE_TIME_N][SUBSYS_N], e[TREE_TIME_N * SUBSYS_N];
	int no = 0;
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	memset(all, 0, sizeof(all));
	if (!t || !t->root)
		return buf;
	tree_walk(t->root, sum_collect, all);
	for (int k = 0; k < TREE_TIME_N; k++)
		for (int s = 0; s < SUBSYS_N; s++) {
			struct sum_ent x = all[k][s];
			double d = x.load - x.ref;

			if (!x.any || (x.ref == 0 && x.load == 0))
				continue;
			x.subsys = s;
			x.time = k;
			x.pct = x.ref > 0 ? d / x.ref * 100.0 : INFINITY;
			/* significant only when a node agrees with the sum's sign */
			x.sig = (d > 0 && (x.sig & 1)) || (d < 0 && (x.sig & 2));
			e[no++] = x;
		}
	qsort(e, no, sizeof(e[0]), sum_cmp);
	/* idle is not work: when the load runs, the CPUs idle less and idle
	 * falls (-100% on a busy host), which is not a cost of the load.  It
	 * is left out of the ranking and said last, as "idle time" */
	for (int i = 0; i < no; i++)
		if (e[i].subsys == SUBSYS_IDLE && i < no - 1) {
			struct sum_ent x = e[i];

			memmove(&e[i], &e[i + 1], (size_t)(no - 1 - i) * sizeof(e[0]));
			e[no - 1] = x;
			break;
		}
	for (int i = 0; i < no; i++) {
		const struct sum_ent *x = &e[i];
		int idle = x->subsys == SUBSYS_IDLE;
		char pct[32];
		int w;

		if (isinf(x->pct))
			snprintf(pct, sizeof(pct), "new");
		else if (x->pct < 0 && lround(x->pct) != 0)
			snprintf(pct, sizeof(pct), "%s%.0f%%", utf8 ? "\xe2\x88\x92" : "-",
				 -x->pct);
		else if (x->pct >= 9999.5)   /* as the tree's delta-% column says it */
			snprintf(pct, sizeof(pct), "x%.0f", x->load / x->ref);
		else
			snprintf(pct, sizeof(pct), "+%.0f%%", fabs(x->pct));
		char ent[80];

		/* on-CPU time is what a tree without time kinds shows: its
		 * subsystems keep their plain names; blocked and runnable say
		 * which node they are ("blocked mm") */
		w = snprintf(ent, sizeof(ent), "%s%s%s%s%s %s%s%s",
			     i ? (utf8 ? " \xc2\xb7 " : " | ") : "",
			     x->time > TREE_TIME_ONCPU ? tree_time_name[x->time] : "",
			     x->time > TREE_TIME_ONCPU ? " " : "",
			     subsys_name((enum subsys)x->subsys), idle ? " time" : "", pct,
			     x->sig ? "" : " (n.s.)", idle ? " (not ranked: not work)" : "");
		/* whole entries only: never cut a UTF-8 sequence */
		if (w < 0 || (size_t)w >= len - off)
			break;
		memcpy(buf + off, ent, (size_t)w + 1);
		off += (size_t)w;
	}
	return buf;
}

/* agent_llm_tree — the calibrated tree rendered for the prompt: ranked,
 * pruned to a budget (see agent_llm_render_tree in agent_llm.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_llm_int.h"
#include "analysis/calib.h"

struct rnode {
	const struct tree_node *n;
	size_t line_len;
	int sel;
	int prio;       /* 3: the path under study (always sent); 2: the descent's
	                 * other branches, 1: the path's siblings and children (sent
	                 * first, in that order); 0: the rest (mark_path) */
};

static int rnode_cmp_ptr(const void *a, const void *b)
{
	const struct tree_node *x = ((const struct rnode *)a)->n, *y = ((const struct rnode *)b)->n;

	return x < y ? -1 : x > y;
}

/* what a node moved by: its net delta, or the rise or fall below it */
static double rank_move(const struct tree_node *n)
{
	return fmax(fabs(n->stat.delta), fmax(n->stat.rise, n->stat.fall));
}

static int rnode_cmp_rank(const void *a, const void *b)
{
	const struct rnode *rx = *(const struct rnode *const *)a, *ry = *(const struct rnode *const *)b;
	const struct tree_node *x = rx->n, *y = ry->n;
	double dx = rank_move(x), dy = rank_move(y);
	int sx = x->stat.significant || x->stat.rise > 0, sy = y->stat.significant || y->stat.rise > 0;

	if (rx->prio != ry->prio)
		return ry->prio - rx->prio;
	if (sx != sy)
		return sy - sx;
	if (dx != dy)
		return dx < dy ? 1 : -1;
	if (tree_node_sum(x) != tree_node_sum(y))
		return tree_node_sum(x) < tree_node_sum(y) ? 1 : -1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static struct rnode *rnode_find(struct rnode *v, size_t n, const struct tree_node *node)
{
	struct rnode key = { .n = node };

	return bsearch(&key, v, n, sizeof(*v), rnode_cmp_ptr);
}

static void fmt_num(char *buf, size_t len, double x)
{
	if (isinf(x))
		snprintf(buf, len, "inf");
	else if (fabs(x) >= 100 || x == floor(x))
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.3g", x);
}

/* "  rise +120 fall -80" when the node's significant rise and fall (kept
 * apart, calib_masses) say more than its net delta: something rose below
 * it while something else fell */
static void mass_part(const struct calib_stat *s, char *buf, size_t len)
{
	char up[32], dn[32];

	buf[0] = 0;
	if (!(s->rise > 0 && s->fall > 0) &&
	    !(s->rise > 0 && fabs(s->rise - s->delta) > 0.05 * s->rise) &&
	    !(s->fall > 0 && fabs(s->fall + s->delta) > 0.05 * s->fall))
		return;
	fmt_num(up, sizeof(up), s->rise);
	fmt_num(dn, sizeof(dn), s->fall);
	snprintf(buf, len, "  rise +%s fall -%s", up, dn);
}

/* "  DISPLACED (noisy [123] -400)": most of the node's fall is the work of
 * a process that is not the diagnosed one (a background that lost CPU to
 * the load): reported, never the verdict */
static void displaced_part(const struct tree *t, const struct tree_node *n, char *buf,
			   size_t len)
{
	double secs[COND_N] = { 0 }, worst = 0;
	const struct tree_proc *w = NULL;

	buf[0] = 0;
	if (!t || !(n->stat.fall > 0))
		return;
	for (unsigned i = 0; i < t->nwin; i++)
		if (t->wins[i].secs > 0 && t->wins[i].cond < COND_N)
			secs[t->wins[i].cond] += t->wins[i].secs;
	if (!(secs[COND_REF] > 0) || !(secs[COND_LOAD] > 0))
		return;
	for (const struct tree_proc *e = n->procs; e; e = e->next) {
		double d = e->total[COND_LOAD] / secs[COND_LOAD] - e->total[COND_REF] / secs[COND_REF];

		if (!tree_is_diagnosed(t, e->tgid) && d < worst) {
			worst = d;
			w = e;
		}
	}
	if (w && -worst >= 0.5 * n->stat.fall) {
		char name[24];

		/* a comm comes from the kernel: printable ASCII only */
		snprintf(name, sizeof(name), "%s", w->comm ? w->comm : "?");
		for (char *c = name; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
		snprintf(buf, len, "  DISPLACED (%s [%u] %.0f: another process's work the load "
			 "took CPU from)", name, (unsigned)w->tgid, worst);
	}
}

static void node_line(const struct tree *t, const struct tree_node *n,
		      const struct tree_node *focus, char *buf, size_t len)
{
	const struct calib_stat *s = &n->stat;
	char r[32], l[32], d[32], x[32], m[96], dp[128];

	fmt_num(r, sizeof(r), s->rate[COND_REF]);
	fmt_num(l, sizeof(l), s->rate[COND_LOAD]);
	fmt_num(d, sizeof(d), s->delta);
	fmt_num(x, sizeof(x), s->ratio);
	mass_part(s, m, sizeof(m));
	displaced_part(t, n, dp, sizeof(dp));
	snprintf(buf, len, "%*s%s%s  ref %s  load %s  delta %s%s  x%s  q %.2g%s%s%s%s%s",
		 (int)n->depth * 2, "", n->kind == TREE_TIME ? "time: " :
		 n->kind == TREE_COMMAND ? "command (its processes summed): " : "",
		 n->name ? n->name : "?", r, l, s->delta > 0 ? "+" : "", d, x, s->q,
		 s->significant ? "  SIG" : "", m,
		 n->presence == TREE_NEW ? "  NEW" : n->presence == TREE_VANISHED ? "  GONE" : "",
		 dp, n == focus ? "  <- FOCUS (the person asked to look here)" : "");
}


static void collect(const struct tree_node *n, struct rnode *v, size_t *k, size_t max)
{
	if (*k >= max)
		return;
	v[(*k)++].n = n;
	for (unsigned i = 0; i < n->nchild; i++)
		collect(n->child[i], v, k, max);
}

static size_t count(const struct tree_node *n)
{
	size_t c = 1;

	for (unsigned i = 0; i < n->nchild; i++)
		c += count(n->child[i]);
	return c;
}

static void render(struct al_sbuf *b, const struct tree *t, const struct tree_node *n,
		   struct rnode *v, size_t nv, const struct tree_node *focus)
{
	char line[640];
	unsigned left = 0;

	for (unsigned i = 0; i < n->nchild; i++) {
		struct rnode *r = rnode_find(v, nv, n->child[i]);

		if (!r || !r->sel)
			left++;
	}
	node_line(t, n, focus, line, sizeof(line));
	if (left && left == n->nchild)
		al_sb_addf(b, "%s  (+%u children)\n", line, left);
	else if (left)
		al_sb_addf(b, "%s  (+%u more)\n", line, left);
	else
		al_sb_addf(b, "%s\n", line);
	for (unsigned i = 0; i < n->nchild; i++) {
		struct rnode *r = rnode_find(v, nv, n->child[i]);

		if (r && r->sel)
			render(b, t, n->child[i], v, nv, focus);
	}
}

/* The end of the main path from n down: through the children the descent
 * flagged (TREE_F_VERDICT), else, before it has flagged any, the
 * significant rises; the largest move at each split. */
static const struct tree_node *path_end(const struct tree_node *n, int flagged)
{
	for (;;) {
		const struct tree_node *best = NULL;

		for (unsigned i = 0; i < n->nchild; i++) {
			const struct tree_node *c = n->child[i];
			int on = flagged ? (c->flags & TREE_F_VERDICT) != 0
					 : c->stat.significant && c->stat.delta > 0;

			if (on && (!best || rank_move(c) > rank_move(best)))
				best = c;
		}
		if (!best)
			return n;
		n = best;
	}
}

static void mark_up(struct rnode *v, size_t n, const struct tree_node *x, int prio)
{
	for (const struct tree_node *p = x; p; p = p->parent) {
		struct rnode *r = rnode_find(v, n, p);

		if (r && r->prio < prio)
			r->prio = prio;
	}
}

/* The path under study, prio 3: the root, the focus the person asked for,
 * the node a proposal concerns (TREE_F_FOCUS) and the main path (path_end),
 * each with its ancestors.  Prio 2: the descent's other flagged branches
 * (a verdict over several).  Prio 1: the siblings of the path under study
 * and the children of its nodes.  The rest 0. */
static void mark_path(struct rnode *v, size_t n, const struct tree *t, const struct tree_node *focus)
{
	int flagged = 0;

	for (size_t i = 0; i < n; i++)
		flagged |= (v[i].n->flags & TREE_F_VERDICT) != 0;
	mark_up(v, n, path_end(t->root, flagged), 3);
	if (focus)
		mark_up(v, n, focus, 3);
	for (size_t i = 0; i < n; i++) {
		if (v[i].n->flags & TREE_F_FOCUS)
			mark_up(v, n, v[i].n, 3);
		else if (v[i].n->flags & TREE_F_VERDICT)
			mark_up(v, n, v[i].n, 2);
	}
	for (size_t i = 0; i < n; i++) {
		const struct tree_node *x = v[i].n;

		if (v[i].prio != 3)
			continue;
		for (unsigned c = 0; c < x->nchild; c++) {
			struct rnode *r = rnode_find(v, n, x->child[c]);

			if (r && !r->prio)
				r->prio = 1;
		}
	}
}

char *agent_llm_render_tree_fit(const struct tree *t, const struct tree_node *focus, size_t budget,
				struct agent_llm_tree_fit *fit)
{
	struct rnode *v = NULL, **rank = NULL;
	struct al_sbuf b = { 0 };
	size_t n, k = 0, used = 0, sent = 0, must = 0;
	char line[640];
	char *out = NULL;

	if (fit)
		memset(fit, 0, sizeof(*fit));
	if (!t || !t->root)
		return strdup("(no tree: nothing measured yet)\n");
	n = count(t->root);
	v = calloc(n, sizeof(*v));
	rank = calloc(n, sizeof(*rank));
	if (!v || !rank)
		goto out;
	collect(t->root, v, &k, n);
	for (size_t i = 0; i < n; i++) {
		node_line(t, v[i].n, focus, line, sizeof(line));
		v[i].line_len = strlen(line) + 16; /* room for "(+N more)" */
	}
	qsort(v, n, sizeof(*v), rnode_cmp_ptr);
	mark_path(v, n, t, focus);
	for (size_t i = 0; i < n; i++)
		rank[i] = &v[i];
	qsort(rank, n, sizeof(*rank), rnode_cmp_rank);
	/* the path under study always, whatever the budget */
	for (size_t i = 0; i < n && rank[i]->prio == 3; i++) {
		rank[i]->sel = 1;
		used += rank[i]->line_len;
		must++;
	}
	if (must < n)
		used += AL_PRUNED_LINE; /* the marker line, if it comes to that */
	/* then by rank, each node with its ancestors: what is left out is the
	 * lowest-ranked nodes, whole subtrees (a node never goes without its
	 * parent) */
	for (size_t i = must; i < n; i++) {
		size_t cost = 0;
		const struct tree_node *p;

		if (rank[i]->sel)
			continue;
		for (p = rank[i]->n; p; p = p->parent) {
			struct rnode *r = rnode_find(v, n, p);

			if (r && !r->sel)
				cost += r->line_len;
		}
		if (used + cost > budget)
			continue; /* a cheaper one further down may still fit */
		for (p = rank[i]->n; p; p = p->parent) {
			struct rnode *r = rnode_find(v, n, p);

			if (r)
				r->sel = 1;
		}
		used += cost;
	}
	for (size_t i = 0; i < n; i++)
		sent += v[i].sel != 0;
	render(&b, t, t->root, v, n, focus);
	if (sent < n)
		al_sb_addf(&b, "… %zu of %zu nodes pruned to fit the prompt budget (the least "
			   "significant, smallest-delta subtrees; \"+N more\" marks where)\n", n - sent, n);
	out = al_sb_take(&b);
	b.p = NULL;
	if (fit) {
		fit->nodes = n;
		fit->sent = sent;
		fit->must = must;
	}
out:
	if (!out && !errno)
		errno = ENOMEM;
	free(v);
	free(rank);
	return out;
}

char *agent_llm_render_tree(const struct tree *t, const struct tree_node *focus, size_t budget)
{
	return agent_llm_render_tree_fit(t, focus, budget ? budget : AL_DEFAULT_BUDGET, NULL);
}

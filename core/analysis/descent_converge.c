/* descent_converge — where a spread increase converges (issue 23, item 1).
 *
 * A calling-context tree splits a function's cost over its callers: a
 * Redis server's TCP send path is reached through write(2)
 * (sock_write_iter) and sendto(2), so no single branch of the tree is
 * large and the walk (core/analysis/descent.c) stops at a smaller but whole branch.
 * perf's callee view and a flame graph's merged frames sum the function
 * over its callers.  So does this: when the walk's answer is spread or
 * weak, every function below the start is summed over all its places
 * (the topmost occurrence on each path, so recursion is counted once;
 * within one kind of time, so on-CPU and blocked time are not mixed),
 * and the function with the largest sum that is reached from at least two
 * callers, each with a real part of it, becomes the verdict when it
 * carries more than the walk's answer and that answer does not already go
 * through it.  Below it the descent goes on in
 * the merged view: the child (summed over the function's places) that
 * explains at least `explain` of it, and so on.  The verdict path is the
 * real path of that merged chain's largest place; verdict.convergence
 * names the function, its sum and its callers.
 *
 * Entry and dispatch frames, grouping levels, skid frames and the
 * markers ("[...]") are not candidates: they converge trivially.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "analysis/calib.h"
#include "analysis/descent.h"
#include "base/numfmt.h"
#include "data/subsys.h"

#define CONV_CALLER_MIN 0.1      /* of the sum, for a caller to count */
#define CONV_TOTAL_MIN 0.15      /* of the start's rise, to be a verdict */
#define CONV_MAX_NODES 200000

struct conv_set {
	const struct tree_node **n;  /* occurrences (not owned) */
	unsigned nn, cap;
};

static int set_add(struct conv_set *s, const struct tree_node *n)
{
	if (vec_grow_u(&s->n, &s->cap, (size_t)s->nn + 1, sizeof(*s->n)))
		return -ENOMEM;
	s->n[s->nn++] = n;
	return 0;
}

static const struct tree_node *time_of(const struct tree_node *n)
{
	while (n && n->kind != TREE_TIME)
		n = n->parent;
	return n;
}

/* the same name above n, below start (recursion: counted once) */
static int repeated(const struct tree_node *n, const struct tree_node *start)
{
	for (const struct tree_node *a = n->parent; a && a != start; a = a->parent)
		if (a->kind == TREE_FRAME && !strcmp(a->name, n->name))
			return 1;
	return 0;
}

static int candidate(const struct tree_node *n)
{
	return n->kind == TREE_FRAME && n->name[0] != '[' && !descent_not_a_path(n) &&
	       !descent_is_unlock_skid(n) && !descent_is_irq_on(n) && n->stat.rise > 0;
}

static double self_rise(const struct tree_node *n, const double secs[COND_N])
{
	return n->self[COND_LOAD] / secs[COND_LOAD] - n->self[COND_REF] / secs[COND_REF] +
	       descent_irq_on_below(n, secs);
}

/* the rise of the unlock skid frames' self time in n's subtree: the time
 * with interrupts off charged where they come back on (finish_task_switch
 * below schedule).  The walk gives it to the caller's interrupts-off
 * section; summed over callers it would make any function every path
 * passes through (schedule, reached from a futex wait and from a
 * preemption on the return to user space) look like a convergence. */
static double skid_below(const struct tree_node *n, const double secs[COND_N])
{
	double s = descent_is_unlock_skid(n) ? fmax(0, self_rise(n, secs)) : 0;

	for (unsigned i = 0; i < n->nchild; i++)
		if (n->child[i]->stat.rise > 0)
			s += skid_below(n->child[i], secs);
	return s;
}

static int collect(const struct tree_node *n, const struct tree_node *start, struct conv_set *s)
{
	int err = 0;

	if (s->nn >= CONV_MAX_NODES)
		return 0;
	if (n != start && candidate(n) && !repeated(n, start))
		err = set_add(s, n);
	for (unsigned i = 0; i < n->nchild && !err; i++)
		if (n->child[i]->stat.rise > 0)
			err = collect(n->child[i], start, s);
	return err;
}

static int cmp_occ(const void *a, const void *b)
{
	const struct tree_node *x = *(const struct tree_node *const *)a;
	const struct tree_node *y = *(const struct tree_node *const *)b;
	const struct tree_node *tx = time_of(x), *ty = time_of(y);
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return (tx > ty) - (tx < ty);
}

static const char *caller_of(const struct tree_node *n)
{
	return n->parent ? n->parent->name : "?";
}

/* distinct callers of occurrences o[0..k) carrying at least min each */
static unsigned real_callers(const struct tree_node **o, unsigned k, double min)
{
	unsigned nc = 0;

	for (unsigned i = 0; i < k; i++) {
		double m = 0;
		int seen = 0;

		for (unsigned j = 0; j < i && !seen; j++)
			seen = !strcmp(caller_of(o[j]), caller_of(o[i]));
		if (seen)
			continue;
		for (unsigned j = i; j < k; j++)
			if (!strcmp(caller_of(o[j]), caller_of(o[i])))
				m += o[j]->stat.rise;
		if (m >= min)
			nc++;
	}
	return nc;
}

/* the children of every occurrence, merged by name: the largest group
 * into out (cleared first); its sum, 0 when none */
static double merged_child(const struct conv_set *at, struct conv_set *out)
{
	const char *best = NULL;
	double bm = 0;

	out->nn = 0;
	for (unsigned i = 0; i < at->nn; i++)
		for (unsigned c = 0; c < at->n[i]->nchild; c++) {
			const struct tree_node *x = at->n[i]->child[c];
			double m = 0;

			if (!(x->stat.rise > 0) || (x->flags & TREE_F_STEP))
				continue;
			for (unsigned j = 0; j < at->nn; j++)
				for (unsigned d = 0; d < at->n[j]->nchild; d++)
					if (!strcmp(at->n[j]->child[d]->name, x->name))
						m += fmax(0, at->n[j]->child[d]->stat.rise);
			if (m > bm) {
				bm = m;
				best = x->name;
			}
		}
	if (!best)
		return 0;
	for (unsigned i = 0; i < at->nn; i++)
		for (unsigned c = 0; c < at->n[i]->nchild; c++)
			if (!strcmp(at->n[i]->child[c]->name, best) &&
			    set_add(out, at->n[i]->child[c]))
				return -1;
	return bm;
}

/* the summary of a converged verdict; the walk's own is kept as a note */
static int conv_summary(struct verdict *v, double best, double total)
{
	char callers[320] = "", qs[24];
	size_t off = 0;
	char *old = v->summary;
	int err;

	for (unsigned i = 0; i < v->ncallers && i < 4; i++) {
		int w = snprintf(callers + off, sizeof(callers) - off, "%s%s %.0f%%", i ? ", " : "",
				 v->callers[i].name, v->callers[i].share * 100);

		if (w < 0 || (size_t)w >= sizeof(callers) - off)
			break;
		off += (size_t)w;
	}
	if (v->ncallers > 4 && off < sizeof(callers))
		snprintf(callers + off, sizeof(callers) - off, ", %u more", v->ncallers - 4);
	numfmt_p(qs, sizeof(qs), NULL, v->q, NUMFMT_P_WORDS);
	v->summary = NULL;
	if (asprintf(&v->summary,
		     "%s%s%s: the increase converges on %s: %+.1f/s summed over %u callers (%s), "
		     "%.0f%% of the increase; below it %s%s (%+.1f/s over all its places), q=%s, "
		     "%u/%u pairs agree; confidence %.2f",
		     strcmp(v->time, "on-cpu") ? v->time : "", strcmp(v->time, "on-cpu") ? ", " : "",
		     v->subsystem, v->convergence, best, v->ncallers, callers, best / total * 100,
		     strcmp(v->leaf, v->convergence) ? "... > " : "", v->leaf, v->rise, qs,
		     v->pairs_agree, v->pairs, v->confidence) < 0) {
		v->summary = old;
		return -ENOMEM;
	}
	err = old ? verdict_add_note(v, "the walk alone (each caller apart): %s", old) : 0;
	free(old);
	return err;
}

/* is a frame named name on n's path (n included)? */
static int on_path(const struct tree_node *n, const char *name)
{
	for (; n; n = n->parent)
		if (n->kind == TREE_FRAME && !strcmp(n->name, name))
			return 1;
	return 0;
}

int descent_converge(struct tree *t, const struct tree_node *start, double explain,
		     const struct tree_node *walk_stop, const double secs[COND_N],
		     struct verdict *v, struct descent_why *r)
{
	double walk_mass = walk_stop->stat.rise;
	struct conv_set all = { 0 }, at = { 0 }, next = { 0 };
	const struct tree_node *largest = NULL;
	double total = start->stat.rise, best = 0, raw = 0, sum;
	unsigned bi = 0, bk = 0;
	char *names[VERDICT_MAX_PATH];
	struct verdict_branch b;
	int err;

	(void)t;
	if (!(total > 0))
		return 0;
	err = collect(start, start, &all);
	if (err)
		goto out;
	if (!all.nn)
		goto out;
	qsort(all.n, all.nn, sizeof(*all.n), cmp_occ);
	for (unsigned i = 0, k; i < all.nn; i += k) {
		double m = 0;

		for (k = 0; i + k < all.nn && !cmp_occ(&all.n[i], &all.n[i + k]); k++)
			m += all.n[i + k]->stat.rise;
		if (k < 2 || m <= best)
			continue;
		if (real_callers(all.n + i, k, CONV_CALLER_MIN * m) < 2)
			continue;
		best = m;
		bi = i;
		bk = k;
	}
	/* what converges is the code's own time, not the skid below it: the
	 * largest sum (chosen as it is) without its skid must still carry
	 * more than the walk's answer, and a real part of the whole */
	for (unsigned j = 0; j < bk; j++)
		best -= skid_below(all.n[bi + j], secs);
	if (!bk || best <= walk_mass * 1.2 || best < CONV_TOTAL_MIN * total)
		goto out;
	/* the walk's answer already goes through it (and on below it): that
	 * answer stands, its branches name the rest */
	if (on_path(walk_stop, all.n[bi]->name))
		goto out;
	err = descent_line(r, "%s: %+.1f/s summed over its %u places (the callee view), "
			       "%.0f%% of the increase, more than the walk's answer (%+.1f/s) -> "
			       "the increase converges there", all.n[bi]->name, best, bk,
			       best / total * 100, walk_mass);
	if (err)
		goto out;
	for (unsigned i = 0; i < bk && !err; i++) {
		err = set_add(&at, all.n[bi + i]);
		raw += all.n[bi + i]->stat.rise;
	}
	/* the callers, for the verdict: one line each */
	for (unsigned i = 0; i < bk && !err; i++) {
		double m = 0;
		int seen = 0;

		for (unsigned j = 0; j < i && !seen; j++)
			seen = !strcmp(caller_of(at.n[j]), caller_of(at.n[i]));
		if (seen)
			continue;
		for (unsigned j = i; j < bk; j++)
			if (!strcmp(caller_of(at.n[j]), caller_of(at.n[i])))
				m += at.n[j]->stat.rise;
		err = verdict_caller_add(v, caller_of(at.n[i]), m, raw > 0 ? m / raw : 0);
	}
	if (err)
		goto out;
	free(v->convergence);
	v->convergence = strdup(all.n[bi]->name);
	v->convergence_rise = best;
	if (!v->convergence) {
		err = -ENOMEM;
		goto out;
	}
	/* below it, in the merged view */
	sum = best;
	for (;;) {
		double own = 0, m;

		for (unsigned i = 0; i < at.nn; i++)
			own += fmax(0, self_rise(at.n[i], secs));
		m = merged_child(&at, &next);
		if (m < 0) {
			err = -ENOMEM;
			goto out;
		}
		if (!(m > 0) || m < explain * sum || own >= m || !candidate(next.n[0]))
			break;
		err = descent_line(r, "%s -> %s: %.0f%% of it over all its places (%+.1f/s of %+.1f/s)",
				       at.n[0]->name, next.n[0]->name, m / sum * 100, m, sum);
		if (err)
			goto out;
		{
			struct conv_set x = at;

			at = next;
			next = x;
		}
		sum = m;
	}
	for (unsigned i = 0; i < at.nn; i++)
		if (!largest || at.n[i]->stat.rise > largest->stat.rise)
			largest = at.n[i];
	descent_mark_path((struct tree_node *)largest);
	descent_branch_of(largest, &b, names, VERDICT_MAX_PATH);
	for (unsigned i = 0; i < v->npath; i++)
		free(v->path[i]);
	v->npath = 0;
	for (unsigned i = 0; i < b.npath; i++) {
		v->path[i] = strdup(b.path[i]);
		if (!v->path[i]) {
			err = -ENOMEM;
			goto out;
		}
		v->npath++;
	}
	free(v->leaf);
	v->leaf = strdup(v->npath ? v->path[v->npath - 1] : largest->name);
	if (!v->leaf) {
		err = -ENOMEM;
		goto out;
	}
	snprintf(v->subsystem, sizeof(v->subsystem), "%s", b.subsystem);
	snprintf(v->time, sizeof(v->time), "%s", b.time);
	v->rise = sum;
	v->share_of_root = t->root->stat.rise > 0 ? sum / t->root->stat.rise : 0;
	v->rate_ref = largest->stat.rate[COND_REF];
	v->rate_load = largest->stat.rate[COND_LOAD];
	v->delta = largest->stat.delta;
	v->q = largest->stat.q;
	v->pairs = largest->stat.pairs;
	v->pairs_agree = largest->stat.pairs_agree;
	v->confidence = fmin(1.0, fmax(0.0, (1.0 - v->q) *
				       (v->pairs ? (double)v->pairs_agree / v->pairs : 1.0) *
				       fmin(1.0, best / total)));
	err = conv_summary(v, best, total);
	if (!err)
		err = descent_line(r, "verdict (converged): %s", v->summary);
	if (!err)
		err = 1; /* converged */
out:
	free(all.n);
	free(at.n);
	free(next.n);
	return err;
}

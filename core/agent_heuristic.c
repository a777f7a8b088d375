/* agent_heuristic — the built-in agent: tree-guided descent over the
 * calibrated tree, then (issue 4) a rule table that turns the verdict path
 * into the next instrumentation step.
 *
 * The descent (agent_descend) in words:
 *   - grouping levels (the root, process and subsystem nodes) are not code
 *     paths (a subsystem's children are unrelated entries: a fault, a
 *     syscall, a kthread): from them it enters the child with the largest
 *     significant increase, saying what share of the increases it holds and,
 *     when that is less than `explain`, how they spread;
 *   - from a frame it enters the child with the largest
 *     significant increase only when that child explains at least `explain`
 *     of the node's own increase; otherwise the delta spreads and it stops,
 *     naming the top children's shares;
 *   - a frame whose increase is mostly its own self time (at least `explain`
 *     of it, and more than any child's) is itself the hot spot: stop there;
 *   - sampling skid (no hardware PMU: cpu-clock cannot fire with interrupts
 *     off, so that time lands where they come back on) is treated honestly:
 *     the self time of an entry frame (exc_page_fault) is not attributed and
 *     the descent goes on through its children, judged against the rest of
 *     its delta; a child whose increase is mostly the self time of an unlock
 *     frame (_raw_spin_unlock_irqrestore, finish_task_switch) is not entered:
 *     the cost belongs to the caller's interrupts-off section, so the descent
 *     stops at the caller and says so.
 *   The hottest exact stack is never the answer by itself.
 *
 * Confidence of a verdict, from the node the descent stopped at:
 *     (1 - q) * agree * min(1, share)
 *   q      its Benjamini–Hochberg q-value,
 *   agree  pairs_agree / pairs (1 when there are no pairs),
 *   share  its delta / (the sum of the increases of the root's children
 *          - the skid self time left unattributed on the path).
 * The sum of the increases, not the root's net delta: in a system-wide
 * profile idle time falls as much as work rises when a load runs, so the
 * net delta says little.  The verdict's share_of_root is delta / that sum,
 * without the skid correction.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "agent_second.h"
#include "calib.h"
#include "step.h"

#define DESCEND_EXPLAIN_DEFAULT 0.5
#define DESCEND_NOTE_MAX 5

/* ---- names ------------------------------------------------------------------ */

/* name equals want once a compiler suffix (".isra.0", ".cold", ...) is cut */
static int name_is(const char *name, const char *want)
{
	size_t n = strcspn(name, ".");

	return strlen(want) == n && !strncmp(name, want, n);
}

static int name_has_prefix(const char *name, const char *prefix)
{
	return !strncmp(name, prefix, strlen(prefix));
}

enum skid_kind {
	SKID_ENTRY,   /* self time is entry cost with interrupts off: pass through */
	SKID_UNLOCK,  /* self time belongs to the caller's interrupts-off section */
};

static const struct skid {
	const char *name;
	enum skid_kind kind;
} skid_table[] = {
	{ "asm_exc_page_fault", SKID_ENTRY },
	{ "exc_page_fault", SKID_ENTRY },
	{ "_raw_spin_unlock_irqrestore", SKID_UNLOCK },
	{ "_raw_spin_unlock_irq", SKID_UNLOCK },
	{ "_raw_spin_unlock_bh", SKID_UNLOCK },
	{ "finish_task_switch", SKID_UNLOCK },
};

static const struct skid *skid_of(const struct tree_node *n)
{
	if (n->kind != TREE_FRAME)
		return NULL;
	for (size_t i = 0; i < sizeof(skid_table) / sizeof(skid_table[0]); i++)
		if (name_is(n->name, skid_table[i].name))
			return &skid_table[i];
	return NULL;
}

/* ---- numbers ---------------------------------------------------------------- */

struct descent {
	struct tree *t;
	double secs[COND_N];
	double explain;
	double root_denom;     /* what share_of_root divides by: the sum of
	                        * the increases of the root's children */
	double skid;           /* skid self time left unattributed on the path */
	struct verdict *v;
	struct agent_reply *r;
};

static double self_delta(const struct descent *d, const struct tree_node *n)
{
	if (n->flags & TREE_F_STEP)
		return 0; /* counted over the step's windows, not the tree's */
	return n->self[COND_LOAD] / d->secs[COND_LOAD] -
	       n->self[COND_REF] / d->secs[COND_REF];
}

static const char *fmt_q(char *b, size_t len, double q)
{
	if (q <= 1e-300)
		snprintf(b, len, "<1e-300");
	else if (q >= 0.01)
		snprintf(b, len, "%.2f", q);
	else
		snprintf(b, len, "%.0e", q);
	return b;
}

static int is_up(const struct tree_node *n)
{
	return n->stat.significant && n->stat.sign > 0 && n->stat.delta > 0;
}

/* levels that are not code paths: the root, processes, subsystems (whose
 * children are unrelated entry points: a fault, a syscall, a kthread) */
static int is_grouping(const struct tree_node *n)
{
	return n->kind == TREE_ROOT || n->kind == TREE_PROCESS || n->kind == TREE_SUBSYS;
}

/* A node a step added under a node of the calibration counts another unit
 * (events, not samples; core/step_merge.h): its delta is not comparable. */
static int other_unit(const struct tree_node *parent, const struct tree_node *c)
{
	return (c->flags & TREE_F_STEP) && !(parent->flags & TREE_F_STEP);
}

/* the sum of the children's increases (in the node's own unit) */
static double pos_children(const struct tree_node *n)
{
	double up = 0;

	for (unsigned i = 0; i < n->nchild; i++)
		if (!other_unit(n, n->child[i]))
			up += fmax(0.0, n->child[i]->stat.delta);
	return up;
}

/* The child with the largest significant increase in the parent's unit;
 * a step's event node only when no such child rises. */
static const struct tree_node *best_child(const struct tree_node *n)
{
	const struct tree_node *best = NULL;

	for (int pass = 0; pass < 2 && !best; pass++)
		for (unsigned i = 0; i < n->nchild; i++) {
			const struct tree_node *c = n->child[i];

			if (other_unit(n, c) != pass)
				continue;
			if (is_up(c) && (!best || c->stat.delta > best->stat.delta))
				best = c;
		}
	return best;
}

static int cmp_delta_desc(const void *a, const void *b)
{
	const struct tree_node *x = *(const struct tree_node *const *)a;
	const struct tree_node *y = *(const struct tree_node *const *)b;

	return (x->stat.delta < y->stat.delta) - (x->stat.delta > y->stat.delta);
}

/* "a 41%, b 30%, c 12%" — the top increasing children's shares of base */
/* What a child's share at n is taken of: n's delta (base), or the sum of
 * its children's increases when siblings that fell make that larger — a
 * child can rise more than its parent's net delta, and "180% of its
 * parent's delta" says nothing. */
static double increases_under(const struct tree_node *n, double base)
{
	double inc = 0;

	for (unsigned i = 0; i < n->nchild; i++)
		if (n->child[i]->stat.delta > 0 && !other_unit(n, n->child[i]))
			inc += n->child[i]->stat.delta;
	return inc > base ? inc : base;
}

static void top_shares(const struct tree_node *n, double base, char *buf, size_t len)
{
	const struct tree_node **v;
	unsigned nv = 0;
	size_t off = 0;

	buf[0] = 0;
	base = increases_under(n, base);
	v = malloc((n->nchild + 1) * sizeof(*v));
	if (!v)
		return;
	for (unsigned i = 0; i < n->nchild; i++)
		if (n->child[i]->stat.delta > 0 && !other_unit(n, n->child[i]))
			v[nv++] = n->child[i];
	qsort(v, nv, sizeof(*v), cmp_delta_desc);
	for (unsigned i = 0; i < nv && i < 4 && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s %.0f%%%s", i ? ", " : "",
				 v[i]->name, base > 0 ? v[i]->stat.delta / base * 100 : 0.0,
				 v[i]->stat.significant ? "" : " n.s.");
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (nv > 4 && off < len)
		snprintf(buf + off, len - off, ", %u more", nv - 4);
	free(v);
}

static void evidence(char *b, size_t len, const struct tree_node *n)
{
	char qs[24];

	snprintf(b, len, "q=%s, %u/%u pairs", fmt_q(qs, sizeof(qs), n->stat.q),
		 n->stat.pairs_agree, n->stat.pairs);
}

/* ---- notes when nothing is found ------------------------------------------ */

struct collect {
	const struct tree_node **v;
	size_t n, cap;
	int sign;
};

static int collect_top(struct tree_node *n, void *arg)
{
	struct collect *c = arg;
	const struct tree_node *p = n->parent;

	if (!p || !n->stat.significant || n->stat.sign != c->sign)
		return 0;
	/* the top of a chain only: its parent moved less or not significantly */
	if (p->parent && p->stat.significant && p->stat.sign == c->sign)
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		const struct tree_node **v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = n;
	return 0;
}

static int cmp_absdelta_desc(const void *a, const void *b)
{
	double x = fabs((*(const struct tree_node *const *)a)->stat.delta);
	double y = fabs((*(const struct tree_node *const *)b)->stat.delta);

	return (x < y) - (x > y);
}

static int note_moves(struct descent *d, struct tree_node *under, int sign)
{
	struct collect c = { .sign = sign };
	char ev[64];
	int err;

	err = tree_walk(under, collect_top, &c);
	if (err)
		goto cleanup;
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_absdelta_desc);
	for (size_t i = 0; i < c.n && i < DESCEND_NOTE_MAX; i++) {
		const struct tree_node *n = c.v[i];
		double ref = n->stat.rate[COND_REF];

		evidence(ev, sizeof(ev), n);
		if (ref > 0)
			err = verdict_add_note(d->v, "significant %s: %s %+.1f/s (%+.0f%%), %s",
					       sign > 0 ? "increase" : "decrease", n->name,
					       n->stat.delta, n->stat.delta / ref * 100, ev);
		else
			err = verdict_add_note(d->v, "significant %s: %s %+.1f/s (new), %s",
					       sign > 0 ? "increase" : "decrease", n->name,
					       n->stat.delta, ev);
		if (err)
			goto cleanup;
	}
	if (c.n > DESCEND_NOTE_MAX)
		err = verdict_add_note(d->v, "%zu more significant %s", c.n - DESCEND_NOTE_MAX,
				       sign > 0 ? "increases" : "decreases");
cleanup:
	free(c.v);
	return err;
}

/* ---- the verdict ------------------------------------------------------------ */

static int clear_verdict_flag(struct tree_node *n, void *arg)
{
	n->flags &= ~TREE_F_VERDICT;
	return 0;
}

static int verdict_not_found(struct descent *d, const struct tree_node *start)
{
	const struct tree_node *s = start;
	char qs[24];
	int err;

	d->v->found = 0;
	d->v->rate_ref = s->stat.rate[COND_REF];
	d->v->rate_load = s->stat.rate[COND_LOAD];
	d->v->delta = s->stat.delta;
	d->v->ratio = s->stat.ratio;
	d->v->q = s->stat.q;
	d->v->pairs = s->stat.pairs;
	d->v->pairs_agree = s->stat.pairs_agree;
	if (asprintf(&d->v->summary,
		     "no bottleneck found%s%s: %s %+.1f/s (ref %.1f/s, load %.1f/s), q=%s, "
		     "%u/%u pairs; no %s has a significant increase",
		     s->parent ? " under " : "", s->parent ? s->name : "",
		     s->parent ? "its delta" : "the root's delta", s->stat.delta,
		     s->stat.rate[COND_REF], s->stat.rate[COND_LOAD],
		     fmt_q(qs, sizeof(qs), s->stat.q), s->stat.pairs_agree,
		     s->stat.pairs, s->parent ? "child" : "subsystem") < 0) {
		d->v->summary = NULL;
		return -ENOMEM;
	}
	err = agent_reply_line(d->r, "%s", d->v->summary);
	if (!err)
		err = note_moves(d, (struct tree_node *)start, +1);
	if (!err)
		err = note_moves(d, (struct tree_node *)start, -1);
	return err;
}

static int verdict_found(struct descent *d, struct tree_node *stop)
{
	struct verdict *v = d->v;
	const struct tree_node *chain[VERDICT_MAX_PATH * 2 + 8];
	const struct tree_node *sub = NULL;
	unsigned nchain = 0;
	double agree, share;
	char qs[24], via[256] = "";
	int err = 0;

	for (const struct tree_node *n = stop; n && nchain < sizeof(chain) / sizeof(chain[0]);
	     n = n->parent)
		chain[nchain++] = n;
	/* root first */
	for (unsigned i = nchain; i-- > 0;) {
		const struct tree_node *n = chain[i];

		((struct tree_node *)n)->flags |= TREE_F_VERDICT;
		if (n->kind == TREE_SUBSYS)
			sub = n;
		if (n->kind == TREE_ROOT || n->kind == TREE_PROCESS || n->kind == TREE_SUBSYS)
			continue;
		if (v->npath == VERDICT_MAX_PATH)
			continue; /* keep the outermost VERDICT_MAX_PATH frames */
		v->path[v->npath] = strdup(n->name);
		if (!v->path[v->npath])
			return -ENOMEM;
		v->npath++;
	}
	v->found = 1;
	snprintf(v->subsystem, sizeof(v->subsystem), "%s",
		 sub ? sub->name : subsys_name(stop->subsys));
	v->leaf = strdup(v->npath ? v->path[v->npath - 1] : stop->name);
	if (!v->leaf)
		return -ENOMEM;
	v->rate_ref = stop->stat.rate[COND_REF];
	v->rate_load = stop->stat.rate[COND_LOAD];
	v->delta = stop->stat.delta;
	v->ratio = stop->stat.ratio;
	v->q = stop->stat.q;
	v->pairs = stop->stat.pairs;
	v->pairs_agree = stop->stat.pairs_agree;
	{
		/* the increases at the root count the verdict's top level at least
		 * at the leaf's rise: a leaf rises more than its subsystem's net
		 * delta when its siblings fall ("127% of the increase" otherwise) */
		double denom = d->root_denom;
		const struct tree_node *top = nchain >= 2 ? chain[nchain - 2] : NULL;

		if (top && stop->stat.delta > top->stat.delta)
			denom += stop->stat.delta - fmax(0.0, top->stat.delta);
		v->share_of_root = denom > 0 ? stop->stat.delta / denom : 0;
		agree = v->pairs ? (double)v->pairs_agree / v->pairs : 1.0;
		/* the skid left unattributed on the path is nobody's share */
		share = denom - d->skid > 0 ? stop->stat.delta / (denom - d->skid) : 0;
	}
	share = fmin(1.0, fmax(0.0, share));
	v->confidence = fmin(1.0, fmax(0.0, (1.0 - v->q) * agree * share));
	if (v->npath >= 2)
		snprintf(via, sizeof(via), "%s%s > ", v->npath > 2 ? "... > " : "",
			 v->path[v->npath - 2]);
	if (asprintf(&v->summary,
		     "%s: %s%s: %+.1f/s (ref %.1f/s, load %.1f/s), q=%s, %u/%u pairs agree, "
		     "%.0f%% of the increase; confidence %.2f",
		     v->subsystem, via, v->npath ? v->leaf : "(no single path below it)", v->delta, v->rate_ref, v->rate_load,
		     fmt_q(qs, sizeof(qs), v->q), v->pairs_agree, v->pairs,
		     v->share_of_root * 100, v->confidence) < 0) {
		v->summary = NULL;
		err = -ENOMEM;
	}
	return err;
}

/* ---- the descent ------------------------------------------------------------ */

int agent_descend(struct tree *t, const struct tree_node *start, double explain,
		  struct verdict *v, struct agent_reply *r)
{
	struct descent d = { .t = t, .v = v, .r = r };
	struct tree_node *cur;
	char ev[64], spread[512];
	int err = 0;

	if (!t || !t->root || !v)
		return -EINVAL;
	verdict_clear(v);
	d.explain = explain > 0 && explain <= 1 ? explain : DESCEND_EXPLAIN_DEFAULT;
	for (unsigned w = 0; w < t->nwin; w++)
		if (t->wins[w].secs > 0 && t->wins[w].cond < COND_N)
			d.secs[t->wins[w].cond] += t->wins[w].secs;
	if (!(d.secs[COND_REF] > 0) || !(d.secs[COND_LOAD] > 0))
		return -EINVAL;
	tree_walk(t->root, clear_verdict_flag, NULL);
	/* the sum of the increases, not the net root delta: when a load runs,
	 * idle time falls as much as work rises, so the net delta of a
	 * system-wide profile says little */
	d.root_denom = pos_children(t->root);

	cur = (struct tree_node *)(start ? start : t->root);
	for (;;) {
		const struct tree_node *best = best_child(cur);
		double D = cur->stat.delta, S, base, share, up;
		const struct skid *sk;

		if (is_grouping(cur) || (cur == start && !is_up(cur))) {
			/* not a code path, or a focus that did not itself rise */
			if (!best && cur == (start ? start : t->root))
				return verdict_not_found(&d, cur);
			if (!best) {
				top_shares(cur, D, spread, sizeof(spread));
				err = agent_reply_line(r, "%s: no child rises significantly%s%s%s -> stop here",
						       cur->name, spread[0] ? " (" : "", spread,
						       spread[0] ? ")" : "");
				if (err)
					return err;
				break;
			}
			evidence(ev, sizeof(ev), best);
			up = pos_children(cur);
			share = up > 0 ? best->stat.delta / up : 0;
			err = agent_reply_line(r, "%s: %+.1f/s, %.0f%% of the increases at %s%s (%+.1f/s; net %+.1f/s), %s -> descend%s",
					       best->name, best->stat.delta, share * 100,
					       cur->parent ? "" : "the ", cur->parent ? cur->name : "root",
					       up, D, ev,
					       share < d.explain ? " (the largest of several increases)" : "");
			if (!err && share < d.explain) {
				top_shares(cur, up, spread, sizeof(spread));
				err = agent_reply_line(r, "%s: increases spread over unrelated entries (%s); "
						       "following the largest, the confidence says how much it explains",
						       cur->parent ? cur->name : "the root", spread);
			}
			if (err)
				return err;
			cur = (struct tree_node *)best;
			continue;
		}

		S = self_delta(&d, cur);
		sk = skid_of(cur);
		base = D;
		if (sk && sk->kind == SKID_ENTRY && S > 0) {
			base = D - S;
			d.skid += S;
			err = agent_reply_line(r, "%s: self %+.1f/s (%.0f%% of its delta) is sampling skid "
					       "(interrupts off on entry), not attributed; judging children against the other %+.1f/s",
					       cur->name, S, D > 0 ? S / D * 100 : 0.0, base);
			if (!err)
				err = verdict_add_note(v, "%s self time %+.1f/s is sampling skid (interrupts off on entry), not attributed",
						       cur->name, S);
			if (err)
				return err;
			if (!(base > 0)) {
				err = agent_reply_line(r, "%s: its increase is all skid self time -> stop here", cur->name);
				if (err)
					return err;
				break;
			}
		}
		if (!sk && cur->nchild && S > 0 && D > 0 &&
		    S >= d.explain * D &&
		    (!best || other_unit(cur, best) || S >= best->stat.delta)) {
			err = agent_reply_line(r, "%s: self %+.1f/s is %.0f%% of its %+.1f/s -> the function itself is the hot spot, stop here",
					       cur->name, S, S / D * 100, D);
			if (err)
				return err;
			break;
		}
		if (!best) {
			if (!cur->nchild)
				err = agent_reply_line(r, "%s: a leaf (its own time, %+.1f/s) -> stop here",
						       cur->name, S);
			else {
				top_shares(cur, base, spread, sizeof(spread));
				err = agent_reply_line(r, "%s: no child rises significantly%s%s%s -> stop here",
						       cur->name, spread[0] ? " (" : "", spread,
						       spread[0] ? ")" : "");
			}
			if (err)
				return err;
			break;
		}
		up = increases_under(cur, base);
		share = up > 0 ? best->stat.delta / up : 0;
		if (other_unit(cur, best)) {
			evidence(ev, sizeof(ev), best);
			err = agent_reply_line(r, "%s -> %s: no child of %s rises in samples; the step's "
					       "events rise %+.1f/s there (ref %.1f/s, load %.1f/s), %s",
					       cur->name, best->name, cur->name, best->stat.delta,
					       best->stat.rate[COND_REF], best->stat.rate[COND_LOAD], ev);
			if (err)
				return err;
			cur = (struct tree_node *)best;
			continue;
		}
		{
			const struct skid *bs = skid_of(best);
			double bself = self_delta(&d, best);

			if (bs && bs->kind == SKID_UNLOCK && bself >= d.explain * best->stat.delta) {
				err = agent_reply_line(r, "%s: %.0f%% of the delta lands in %s, whose self time is "
						       "sampling skid (interrupts off until it) -> the cost is %s's "
						       "interrupts-off section, stop here",
						       cur->name, share * 100, best->name, cur->name);
				if (!err)
					err = verdict_add_note(v, "%s %+.1f/s under %s is sampling skid: the time with interrupts off is charged where they come back on",
							       best->name, best->stat.delta, cur->name);
				if (err)
					return err;
				break;
			}
		}
		if (share >= d.explain) {
			evidence(ev, sizeof(ev), best);
			if (up > base)
				err = agent_reply_line(r, "%s -> %s: %.0f%% of the increases under its parent "
						       "(%+.1f/s of %+.1f/s; net %+.1f/s), %s", cur->name,
						       best->name, share * 100, best->stat.delta, up, base, ev);
			else
				err = agent_reply_line(r, "%s -> %s: %.0f%% of its parent's delta (%+.1f/s of %+.1f/s), %s",
						       cur->name, best->name, share * 100, best->stat.delta,
						       base, ev);
			if (err)
				return err;
			cur = (struct tree_node *)best;
			continue;
		}
		top_shares(cur, base, spread, sizeof(spread));
		err = agent_reply_line(r, "%s: children spread (%s) -> stop here", cur->name, spread);
		if (err)
			return err;
		break;
	}
	err = verdict_found(&d, cur);
	if (!err)
		err = agent_reply_line(r, "verdict: %s", v->summary);
	return err;
}

/* ---- rules: from the verdict to the next step (issue 4) ------------------- */

/* RULE TABLE (issue 4 item 9).  Each rule: a predicate over the verdict
 * path and the increased frames, and a proposal builder.  At each turn the
 * first matching rule that has not proposed yet builds a step (core/step)
 * and the turn returns AGENT_REPLY_PROPOSAL, with the interim verdict in the
 * reply as well; when no rule is left, or the step budget is spent, or the
 * person said "stop", the turn returns the verdict.  The step is checked for
 * its required fields here; validation against this kernel (caps) is the
 * caller's, before the person is asked.  To add a rule: a frame list, a
 * when_ predicate, a row in heur_rules. */

struct rule_in {
	const struct tree *t;
	const struct verdict *v;
};

struct heur_rule {
	const char *name;
	int (*when)(const struct rule_in *in);
	int (*propose)(const struct heur_rule *rule, const struct rule_in *in,
		       struct agent_reply *out);
	const char *kind;    /* core/step kind */
	const char *target;  /* tracepoint(s) or function, or NULL */
	const char *begin, *end; /* tracepoint_latency pairs */
	const char *why;
	const char *expect;
};

static int path_has(const struct verdict *v, const char *const *names)
{
	for (unsigned i = 0; i < v->npath; i++)
		for (const char *const *n = names; *n; n++)
			if (name_has_prefix(v->path[i], *n))
				return 1;
	return 0;
}

struct up_find {
	const char *const *names;
};

static int up_find_cb(struct tree_node *n, void *arg)
{
	const struct up_find *f = arg;

	if (!is_up(n))
		return 0;
	for (const char *const *p = f->names; *p; p++)
		if (name_has_prefix(n->name, *p))
			return 1;
	return 0;
}

/* on the verdict path, or anywhere among the significant increases */
static int frames_in_delta(const struct rule_in *in, const char *const *names)
{
	struct up_find f = { names };

	return path_has(in->v, names) ||
	       tree_walk(in->t->root, up_find_cb, &f) == 1;
}

static int in_subsys(const struct rule_in *in, const char *s)
{
	return !strcmp(in->v->subsystem, s);
}

static const char *const fr_compaction[] = { "compact_", "try_to_compact_pages",
	"__alloc_pages_direct_compact", "kcompactd", "isolate_migratepages", NULL };
static const char *const fr_reclaim[] = { "__alloc_pages_direct_reclaim",
	"try_to_free_pages", "do_try_to_free_pages", "shrink_node", "shrink_lruvec", NULL };
static const char *const fr_thp[] = { "do_huge_pmd_", "__do_huge_pmd_",
	"vma_alloc_anon_folio_pmd", "khugepaged", "collapse_huge_page", NULL };
static const char *const fr_fault[] = { "exc_page_fault", "do_user_addr_fault",
	"handle_mm_fault", "__handle_mm_fault", NULL };
static const char *const fr_lock[] = { "native_queued_spin_lock_slowpath",
	"queued_spin_lock_slowpath", "__mutex_lock", "rwsem_down_", "osq_lock", NULL };
static const char *const fr_futex[] = { "futex_", "__x64_sys_futex", "do_futex", NULL };
static const char *const fr_block[] = { "submit_bio", "blk_mq_", "vp_notify", NULL };

static int when_compaction(const struct rule_in *in)
{
	return frames_in_delta(in, fr_compaction);
}

static int when_reclaim(const struct rule_in *in)
{
	return frames_in_delta(in, fr_reclaim);
}

static int when_thp(const struct rule_in *in)
{
	return in_subsys(in, "mm") && path_has(in->v, fr_thp);
}

static int when_page_faults(const struct rule_in *in)
{
	return in_subsys(in, "mm") && path_has(in->v, fr_fault);
}

static int when_lock(const struct rule_in *in)
{
	return path_has(in->v, fr_lock);
}

static int when_sched(const struct rule_in *in)
{
	return in_subsys(in, "sched") || path_has(in->v, fr_futex);
}

static int when_block(const struct rule_in *in)
{
	return in_subsys(in, "block") || path_has(in->v, fr_block);
}

#define RULE_DURATION_S "5"

static int rule_propose(const struct heur_rule *rule, const struct rule_in *in,
			struct agent_reply *out)
{
	struct step_error se = { 0 };
	struct step *st = step_new();
	char rationale[512];
	int err;

	if (!st)
		return -errno;
	snprintf(rationale, sizeof(rationale), "%s (verdict so far: %s > %s, %+.1f/s)",
		 rule->why, in->v->subsystem, in->v->leaf ? in->v->leaf : "?", in->v->delta);
	err = step_set_field(st, "kind", rule->kind, &se);
	if (!err && rule->target)
		err = step_set_field(st, "target", rule->target, &se);
	if (!err && rule->begin)
		err = step_set_field(st, "begin", rule->begin, &se);
	if (!err && rule->end)
		err = step_set_field(st, "end", rule->end, &se);
	if (!err)
		err = step_set_field(st, "duration_s", RULE_DURATION_S, &se);
	if (!err)
		err = step_set_field(st, "rationale", rationale, &se);
	if (!err && rule->expect)
		err = step_set_field(st, "expect", rule->expect, &se);
	if (!err)
		err = step_check_required(st, &se);
	if (err) {
		/* a broken row of the table: say so rather than propose it */
		agent_reply_line(out, "rule %s cannot build its step: %s: %s", rule->name,
				 se.field, se.msg);
		step_free(st);
		return err;
	}
	out->step = st;
	out->kind = AGENT_REPLY_PROPOSAL;
	return 0;
}

/* Order matters: the most specific first. */
static const struct heur_rule heur_rules[] = {
	{ "compaction", when_compaction, rule_propose, "tracepoint_latency", NULL,
	  "compaction:mm_compaction_begin", "compaction:mm_compaction_end",
	  "compaction frames in the delta: how long does compaction take in each condition",
	  "compaction latency (p99) grows when loaded" },
	{ "direct_reclaim", when_reclaim, rule_propose, "tracepoint_latency", NULL,
	  "vmscan:mm_vmscan_direct_reclaim_begin", "vmscan:mm_vmscan_direct_reclaim_end",
	  "direct reclaim frames in the delta: how long do allocations stall in reclaim",
	  "more and longer direct reclaim stalls when loaded" },
	{ "thp_faults", when_thp, rule_propose, "counts", "huge_memory:*", NULL, NULL,
	  "huge page frames on the path: which THP events grow",
	  "huge_memory event rates grow when loaded" },
	{ "page_faults", when_page_faults, rule_propose, "tracepoint_stacks",
	  "exceptions:page_fault_user", NULL, NULL,
	  "an mm delta through the page-fault path: count faults per kernel stack",
	  "user page faults grow when loaded, on the verdict path" },
	{ "lock_contention", when_lock, rule_propose, "tracepoint_latency", NULL,
	  "lock:contention_begin", "lock:contention_end",
	  "lock slow paths on the path: how long is the lock contended",
	  "longer lock contention when loaded" },
	{ "sched_offcpu", when_sched, rule_propose, "offcpu", NULL, NULL, NULL,
	  "a sched or futex delta: where do threads block, and who wakes them",
	  "more blocked time on the verdict path when loaded" },
	{ "block_latency", when_block, rule_propose, "tracepoint_latency", NULL,
	  "block:block_rq_issue", "block:block_rq_complete",
	  "block I/O on the path: request latency in each condition",
	  "block request latency grows when loaded" },
};

#define HEUR_NRULES (sizeof(heur_rules) / sizeof(heur_rules[0]))
_Static_assert(HEUR_NRULES <= 32, "rule bitmask");

/* ---- the agent ---------------------------------------------------------------- */

struct heur {
	uint64_t focus_id;     /* 0: none */
	char *focus_name;      /* NULL: none */
	int stopped;
	uint32_t used;         /* rules that proposed already, bit per row */
	char **why;            /* the last turn's lines */
	unsigned nwhy;
	/* the second opinion (core/agent_second.c) */
	int second;            /* a veto or an `r` asks for the next-best step */
	int gave_verdict;      /* the last turn ended in a verdict, no proposal */
	uint32_t alt_used;     /* catalog entries proposed already */
	char *veto_reason;     /* the last veto's reason; NULL: none */
	char veto_kind[32];    /* the vetoed step's kind; "": none */
};

static void heur_why_clear(struct heur *h)
{
	for (unsigned i = 0; i < h->nwhy; i++)
		free(h->why[i]);
	free(h->why);
	h->why = NULL;
	h->nwhy = 0;
}

static int heur_why_keep(struct heur *h, const struct agent_reply *r)
{
	heur_why_clear(h);
	if (!r->nlines)
		return 0;
	h->why = calloc(r->nlines, sizeof(*h->why));
	if (!h->why)
		return -ENOMEM;
	for (unsigned i = 0; i < r->nlines; i++) {
		h->why[i] = strdup(r->lines[i]);
		if (!h->why[i])
			return -ENOMEM;
		h->nwhy++;
	}
	return 0;
}

struct name_find {
	const char *name;
	const struct tree_node *best;
};

static int name_find_cb(struct tree_node *n, void *arg)
{
	struct name_find *f = arg;

	if (n->parent && name_is(n->name, f->name) &&
	    (!f->best || fabs(n->stat.delta) > fabs(f->best->stat.delta)))
		f->best = n;
	return 0;
}

static const struct tree_node *heur_focus(const struct heur *h, const struct agent_ctx *ctx)
{
	struct name_find f = { 0 };

	if (ctx->focus)
		return ctx->focus;
	if (h->focus_id) {
		const struct tree_node *n = tree_find_id(ctx->tree, h->focus_id);

		if (n)
			return n;
	}
	if (!h->focus_name)
		return NULL;
	f.name = h->focus_name;
	tree_walk(ctx->tree->root, name_find_cb, &f);
	return f.best;
}

/* the deepest node marked TREE_F_VERDICT, or NULL */
static const struct tree_node *verdict_node(const struct tree *t)
{
	const struct tree_node *n = t->root;

	if (!n || !(n->flags & TREE_F_VERDICT))
		return NULL;
	for (;;) {
		const struct tree_node *next = NULL;

		for (unsigned i = 0; i < n->nchild && !next; i++)
			if (n->child[i]->flags & TREE_F_VERDICT)
				next = n->child[i];
		if (!next)
			return n;
		n = next;
	}
}

static int heur_turn(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out)
{
	struct heur *h = a->priv;
	const struct tree_node *focus;
	int err;

	memset(out, 0, sizeof(*out));
	if (!ctx || !ctx->tree)
		return -EINVAL;
	focus = heur_focus(h, ctx);
	if (!focus && (h->focus_id || h->focus_name)) {
		err = agent_reply_line(out, "focus %s is not in this tree: descending from the root",
				       h->focus_name ? h->focus_name : "node");
		if (err)
			goto cleanup;
	}
	out->kind = AGENT_REPLY_VERDICT;
	/* the descent marks the verdict path on the tree the caller shows */
	err = agent_descend((struct tree *)ctx->tree, focus, DESCEND_EXPLAIN_DEFAULT,
			    &out->verdict, out);
	if (err)
		goto cleanup;
	/* the node the reply concerns: the person's focus, else where the
	 * descent stopped */
	out->focus = focus ? focus : verdict_node(ctx->tree);
	if (out->verdict.found && !h->stopped && ctx->step_index < ctx->step_max) {
		struct rule_in in = { ctx->tree, &out->verdict };

		for (size_t i = 0; i < HEUR_NRULES; i++) {
			const struct heur_rule *rule = &heur_rules[i];
			char desc[256];

			if (!rule->when(&in))
				continue;
			if (h->used & (1u << i)) {
				err = agent_reply_line(out, "rule %s matches again; its step was proposed already",
						       rule->name);
				if (err)
					goto cleanup;
				continue;
			}
			err = rule->propose(rule, &in, out);
			if (err == -EINVAL) { /* said why in a line; try the next rule */
				h->used |= 1u << i;
				err = 0;
				continue;
			}
			if (err)
				goto cleanup;
			h->used |= 1u << i;
			err = agent_reply_line(out, "rule %s: %s -> propose %s", rule->name, rule->why,
					       step_describe(out->step, desc, sizeof(desc)));
			if (err)
				goto cleanup;
			break;
		}
	}
	/* a second opinion: asked for after a veto or an `r` on a verdict */
	if (!err && out->kind == AGENT_REPLY_VERDICT && out->verdict.found && !h->stopped &&
	    ctx->step_index < ctx->step_max && (h->second || h->gave_verdict)) {
		err = agent_second_propose(&out->verdict, h->veto_reason,
					   h->veto_kind[0] ? h->veto_kind : NULL, &h->alt_used, out);
		if (err)
			goto cleanup;
	}
	h->second = 0;
	h->gave_verdict = out->kind == AGENT_REPLY_VERDICT;
	if (out->kind == AGENT_REPLY_PROPOSAL) {
		free(h->veto_reason);
		h->veto_reason = NULL;
		h->veto_kind[0] = 0;
	}
	if (out->verdict.found && ctx->step_index >= ctx->step_max && ctx->step_max) {
		err = agent_reply_line(out, "the step budget (%u) is spent: the verdict stands",
				       ctx->step_max);
		if (err)
			goto cleanup;
	}
	err = heur_why_keep(h, out);
cleanup:
	return err;
}

static char *heur_join_why(const struct heur *h)
{
	size_t len = 1;
	char *s;

	if (!h->nwhy)
		return strdup("no decision yet: nothing has been descended");
	for (unsigned i = 0; i < h->nwhy; i++)
		len += strlen(h->why[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = 0;
	for (unsigned i = 0; i < h->nwhy; i++) {
		strcat(s, h->why[i]);
		if (i + 1 < h->nwhy)
			strcat(s, "\n");
	}
	return s;
}

static int heur_set_focus_name(struct heur *h, const char *name)
{
	char *dup = NULL;

	if (name && *name) {
		dup = strdup(name);
		if (!dup)
			return -ENOMEM;
	}
	free(h->focus_name);
	h->focus_name = dup;
	h->focus_id = 0;
	return 0;
}

static int heur_text(struct agent_reply *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int heur_text(struct agent_reply *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	out->kind = AGENT_REPLY_TEXT;
	va_start(ap, fmt);
	n = vasprintf(&out->text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		out->text = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int heur_focus_text(struct agent_reply *out, const char *name)
{
	if (name && *name)
		return heur_text(out, "focus on %s: the next turn descends from there", name);
	return heur_text(out, "focus cleared: the next turn descends from the root");
}

static int heur_tell(struct agent *a, const struct agent_event *ev, struct agent_reply *out)
{
	struct heur *h = a->priv;
	char word[64];
	const char *s, *rest;
	size_t n;
	int err = 0;

	if (!ev)
		return -EINVAL;
	switch (ev->kind) {
	case AGENT_EV_FOCUS:
		err = heur_set_focus_name(h, ev->node ? ev->node->name : ev->text);
		if (err)
			return err;
		if (ev->node)
			h->focus_id = ev->node->id;
		return out ? heur_focus_text(out, h->focus_name) : 0;
	case AGENT_EV_SAY:
		break;
	case AGENT_EV_VETOED:
		/* the next turn gives a second opinion, steered by the reason */
		h->second = 1;
		free(h->veto_reason);
		h->veto_reason = ev->text && *ev->text ? strdup(ev->text) : NULL;
		snprintf(h->veto_kind, sizeof(h->veto_kind), "%s",
			 ev->step && step_kind_name(ev->step->kind) ? step_kind_name(ev->step->kind) : "");
		return 0;
	default:
		return 0; /* accepted / edited / vetoed / results: nothing to answer yet */
	}
	s = ev->text ? ev->text : "";
	while (isspace((unsigned char)*s))
		s++;
	n = strcspn(s, " \t\n");
	snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) - 1 ? n : sizeof(word) - 1), s);
	for (char *p = word; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	rest = s + n;
	while (isspace((unsigned char)*rest))
		rest++;
	if (!strcmp(word, "why") || !strcmp(word, "why?")) {
		if (!out)
			return 0;
		out->kind = AGENT_REPLY_TEXT;
		out->text = heur_join_why(h);
		return out->text ? 0 : -ENOMEM;
	}
	if (!strcmp(word, "stop")) {
		h->stopped = 1;
		return out ? heur_text(out, "stopping: no more steps; the next turn gives the verdict "
				       "from the tree as measured") : 0;
	}
	if (!strcmp(word, "focus")) {
		char name[256];

		snprintf(name, sizeof(name), "%s", rest);
		name[strcspn(name, " \t\n")] = 0;
		err = heur_set_focus_name(h, name);
		if (err || !out)
			return err;
		return heur_focus_text(out, name);
	}
	if (!out)
		return 0;
	return heur_text(out, "the heuristic agent understands: \"why\" (its last decisions), "
			 "\"stop\" (no more steps), \"focus NAME\" (descend from a node); "
			 "free questions need an LLM agent (--agent llm)");
}

static void heur_free(struct agent *a)
{
	struct heur *h;

	if (!a)
		return;
	h = a->priv;
	if (h) {
		heur_why_clear(h);
		free(h->focus_name);
		free(h->veto_reason);
		free(h);
	}
	free(a);
}

static const struct agent_ops heur_ops = {
	.name = "heuristic",
	.turn = heur_turn,
	.tell = heur_tell,
	.free = heur_free,
};

struct agent *agent_heuristic_new(void)
{
	struct agent *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->priv = calloc(1, sizeof(struct heur));
	if (!a->priv) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	a->ops = &heur_ops;
	return a;
}

/* descent_paths — what the descent writes besides the walk: the paths it
 * names (a stop's frames, time and subsystem; summaries) and the notes of a
 * verdict that found nothing (core/analysis/descent.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "analysis/descent.h"
#include "base/numfmt.h"
#include "data/subsys.h"

#define DESCEND_NOTE_MAX 5

static void evidence(char *b, size_t len, const struct tree_node *n)
{
	char qs[24];

	snprintf(b, len, "q=%s, %u/%u pairs", numfmt_p(qs, sizeof(qs), NULL, n->stat.q, NUMFMT_P_WORDS),
		 n->stat.pairs_agree, n->stat.pairs);
}

/* frames of n's path, root first, the time level and the subsystem of the
 * deepest classified frame; b->path points into names (max entries) */
void descent_branch_of(const struct tree_node *n, struct verdict_branch *b, char **names,
		      unsigned max)
{
	const struct tree_node *chain[VERDICT_MAX_PATH * 2 + 8];
	const struct tree_node *sub = NULL, *time = NULL;
	enum subsys deep = SUBSYS_N, waited = SUBSYS_N;
	int in_sched = 0, switch_only = 0;
	unsigned nchain = 0;

	memset(b, 0, sizeof(*b));
	for (const struct tree_node *x = n; x && nchain < sizeof(chain) / sizeof(chain[0]);
	     x = x->parent)
		chain[nchain++] = x;
	for (unsigned i = nchain; i-- > 0;) {
		const struct tree_node *x = chain[i];

		if (x->kind == TREE_SUBSYS)
			sub = x;
		if (x->kind == TREE_TIME)
			time = x;
		if (x->kind != TREE_FRAME && x->kind != TREE_EVENT)
			continue;
		if (x->kind == TREE_FRAME) {
			enum subsys s = subsys_of_function(x->name);

			if (s != SUBSYS_N && s != SUBSYS_SYSCALL)
				deep = s;
			/* where it waited: above the first scheduler frame */
			if (s == SUBSYS_SCHED && !in_sched)
				switch_only = descent_is_wait_entry(x->name);
			else if (in_sched && s != SUBSYS_N && s != SUBSYS_SCHED)
				switch_only = 0;
			if (s == SUBSYS_SCHED)
				in_sched = 1;
			if (!in_sched && s != SUBSYS_N && s != SUBSYS_SYSCALL && s != SUBSYS_SCHED &&
			    s != SUBSYS_IRQ)
				waited = s;
		}
		if (b->npath < max)
			names[b->npath++] = (char *)x->name;
	}
	b->path = names;
	/* blocked and runnable time is where it waited; so is on-CPU time
	 * spent in the switch of a wait (futex_wait > schedule > __schedule:
	 * the futex wait's cost, not the scheduler's own work) */
	if (((time && (!strcmp(time->name, "blocked") || !strcmp(time->name, "runnable"))) ||
	     switch_only) && waited != SUBSYS_N)
		deep = waited;
	snprintf(b->subsystem, sizeof(b->subsystem), "%s",
		 deep != SUBSYS_N ? subsys_name(deep) : sub ? sub->name : subsys_name(n->subsys));
	snprintf(b->time, sizeof(b->time), "%s", time ? time->name : "on-cpu");
	b->delta = n->stat.delta;
}

#define WOKEN_BY "[woken by "

struct waker_pick {
	const struct tree_node *best;
};

static int waker_better(const struct tree_node *x, const struct tree_node *y)
{
	if (x->stat.rise != y->stat.rise)
		return x->stat.rise > y->stat.rise;
	return x->total[COND_LOAD] > y->total[COND_LOAD];
}

static int waker_visit(struct tree_node *x, void *arg)
{
	struct waker_pick *w = arg;

	if (x->kind == TREE_FRAME && (!strncmp(x->name, WOKEN_BY, strlen(WOKEN_BY)) ||
				      !strcmp(x->name, "[no wakeup seen]")) &&
	    (!w->best || waker_better(x, w->best)))
		w->best = x;
	return 0;
}

void descent_waker_of(const struct tree_node *n, char *who, size_t wlen, char *cls,
		      size_t clen)
{
	struct waker_pick w = { 0 };
	const char *s;
	size_t len;

	who[0] = cls[0] = 0;
	if (!n)
		return;
	tree_walk((struct tree_node *)n, waker_visit, &w);
	if (!w.best)
		return;
	s = w.best->name;
	if (!strcmp(s, "[no wakeup seen]")) {
		snprintf(who, wlen, "none seen");
		snprintf(cls, clen, "none");
		return;
	}
	s += strlen(WOKEN_BY);
	len = strlen(s);
	if (len && s[len - 1] == ']')
		len--;
	snprintf(who, wlen, "%.*s", (int)len, s);
	snprintf(cls, clen, "%.*s", (int)strcspn(who, " "), who);
}

void descent_mark_path(struct tree_node *n)
{
	for (; n; n = n->parent)
		n->flags |= TREE_F_VERDICT;
}

/* "mm: ... > do_wp_page" for summaries */
void descent_short_path(const struct verdict_branch *b, const char *fallback, char *buf,
		       size_t len)
{
	const char *tprefix = strcmp(b->time, "on-cpu") ? b->time : NULL;

	if (!b->npath)
		snprintf(buf, len, "%s%s%s: %s", tprefix ? tprefix : "", tprefix ? ", " : "",
			 b->subsystem, fallback);
	else if (b->npath == 1)
		snprintf(buf, len, "%s%s%s: %s", tprefix ? tprefix : "", tprefix ? ", " : "",
			 b->subsystem, b->path[0]);
	else
		snprintf(buf, len, "%s%s%s: %s%s > %s", tprefix ? tprefix : "", tprefix ? ", " : "",
			 b->subsystem, b->npath > 2 ? "... > " : "", b->path[b->npath - 2],
			 b->path[b->npath - 1]);
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
	if (vec_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	c->v[c->n++] = n;
	return 0;
}

static int cmp_absdelta_desc(const void *a, const void *b)
{
	double x = fabs((*(const struct tree_node *const *)a)->stat.delta);
	double y = fabs((*(const struct tree_node *const *)b)->stat.delta);

	return (x < y) - (x > y);
}

int descent_note_moves(struct verdict *v, struct tree_node *under, int sign)
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
			err = verdict_add_note(v, "significant %s: %s %+.1f/s (%+.0f%%), %s",
					       sign > 0 ? "increase" : "decrease", n->name,
					       n->stat.delta, n->stat.delta / ref * 100, ev);
		else
			err = verdict_add_note(v, "significant %s: %s %+.1f/s (new), %s",
					       sign > 0 ? "increase" : "decrease", n->name,
					       n->stat.delta, ev);
		if (err)
			goto cleanup;
	}
	if (c.n > DESCEND_NOTE_MAX)
		err = verdict_add_note(v, "%zu more significant %s", c.n - DESCEND_NOTE_MAX,
				       sign > 0 ? "increases" : "decreases");
cleanup:
	free(c.v);
	return err;
}


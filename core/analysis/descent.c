/* descent — tree-guided descent over the calibrated tree, on increases.
 *
 * Every node carries its significant rise and fall apart (calib_masses:
 * stat.rise, stat.fall).  The descent follows the rise, not the net delta,
 * so a path that rises under a parent whose other paths fall (a victim
 * whose on-CPU time falls while one new path rises; a load displacing a
 * busy background under the same syscall parent) is found.  In words:
 *   - grouping levels (the root, process, time and subsystem nodes) and
 *     dispatch frames (syscall and exception entry: entry_SYSCALL_64,
 *     do_syscall_64, __x64_sys_* without a subsystem of their own; kthread
 *     plumbing) are not code paths: their children are unrelated entries.
 *     No branch ends at a syscall or exception entry frame (descent_is_entry:
 *     the generic ones, not __x64_sys_getpid that names its syscall, and
 *     asm_exc_page_fault, exc_page_fault): their own time is the crossing's
 *     and skid, not attributed; where the walk would stop at one, its rise
 *     goes to its children by their net deltas, none significant alone, a
 *     branch each with the entry frame's evidence (entry_end), or, with
 *     nothing rising below, it is no branch, said in a note.
 *     From them the descent follows each of the entries that carry a real
 *     part of the rise there (at least DESCEND_BRANCH_LOCAL of it, and
 *     DESCEND_BRANCH_MIN of the start's rise; at most VERDICT_MAX_BRANCH in
 *     all), each to its own depth: a spread verdict (verdict.branches).
 *     With one such entry only, it enters the child with the largest rise,
 *     saying what share of the rises there it holds and, when that is less
 *     than `explain`, how they spread;
 *   - from a frame it enters the child with the largest rise only when
 *     that child explains at least `explain` of the node's own rise;
 *     otherwise the rise spreads below a real function and it stops there,
 *     naming the top children's shares (that function's cost is spread
 *     over its callees);
 *   - a frame whose rise is mostly its own self time (at least `explain`
 *     of it, and more than any child's) is itself the hot spot: stop there;
 *   - sampling skid (no hardware PMU: cpu-clock cannot fire with interrupts
 *     off, so that time lands where they come back on) is treated honestly:
 *     the self time of an entry frame (exc_page_fault) is not attributed and
 *     the descent goes on through its children, judged against the rest of
 *     its rise; a child whose rise is mostly the self time of an unlock
 *     frame (_raw_spin_unlock_irqrestore, finish_task_switch) is not entered:
 *     the cost belongs to the caller's interrupts-off section, so the descent
 *     stops at the caller and says so.
 *   The hottest exact stack is never the answer by itself.
 *   Which frames are levels, dispatch, entry or skid is decided by name in
 *   core/analysis/descent_frame.c.
 *
 * Falls are walked the same way by the fall mass (quietly, idle left out:
 * idle falls by what any load takes) and reported apart: verdict.falls for
 * the diagnosed work (something vanished; the finding when nothing rises),
 * verdict.displaced for other processes' work that the load displaced
 * (tree_node_procs says who fell; core/data/tree.h says which processes are the
 * diagnosed ones).  Displaced work is never the verdict.
 *
 * Confidence of a verdict, from the node the descent stopped at (the
 * largest branch of a spread verdict):
 *     (1 - q) * agree * min(1, share)
 *   q      its Benjamini–Hochberg q-value,
 *   agree  pairs_agree / pairs (1 when there are no pairs),
 *   share  its rise (all branches' rises for a spread verdict) / (the rise
 *          at the root - the skid self time left unattributed on the path).
 * The rise at the root, not its net delta: in a system-wide profile idle
 * time falls as much as work rises when a load runs, so the net delta says
 * little.  The verdict's share_of_root is its rise / the root's, without
 * the skid correction.
 *
 * verdict.subsystem is the subsystem of the deepest classified frame of the
 * verdict path (where the cost lies: a TCP send through write(2) is net);
 * of blocked or runnable time, where it waited (above the scheduler's
 * frames: mm for the page cache, locking for an rwsem), with the waker of
 * blocked time apart in verdict.waker and verdict.waker_class;
 * verdict.time the TREE_TIME level above it ("on-cpu" without one).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calib.h"
#include "analysis/descent.h"
#include "base/numfmt.h"
#include "base/stats.h"
#include "data/subsys.h"


#define DESCEND_BRANCH_LOCAL 0.1  /* of the rise at a hub, to be a branch */
#define DESCEND_BRANCH_MIN 0.05   /* and of the start's rise */
#define DESCEND_STOP_MIN 0.025    /* what a branch must still carry where it
                                   * ends: half of what makes one, so a branch
                                   * entered near DESCEND_BRANCH_MIN that sets
                                   * entry time aside on the way is kept
                                   * (fork's copy_page_range, 5-6% of a
                                   * fork/exec loop's rise) */

/* ---- numbers ---------------------------------------------------------------- */

struct stop {
	struct tree_node *n;
	double skid;           /* skid self time left unattributed on its path */
	double mass;           /* the rise (fall) it carries: n's own, or its part
	                        * of an entry frame's (entry_end) */
	const struct tree_node *ev; /* whose test established it: n, or that
	                        * entry frame */
};

struct descent {
	struct tree *t;
	const struct tree_node *start;
	double secs[COND_N];
	double explain;
	int sign;              /* +1: walking rises, -1: falls */
	double total;          /* the mass at the root: what shares divide by */
	double start_mass;     /* the mass at the start: what makes a branch */
	struct stop stops[VERDICT_MAX_BRANCH];
	unsigned nstops;
	struct verdict *v;
	struct descent_why *r; /* NULL: quiet */
};

static double mass(const struct descent *d, const struct tree_node *n)
{
	return d->sign > 0 ? n->stat.rise : n->stat.fall;
}

/* moves significantly in the walk's direction by its own delta */
static int moving(const struct descent *d, const struct tree_node *n)
{
	return n->stat.significant && n->stat.sign == d->sign && n->stat.delta * d->sign > 0;
}

/* self delta, in the walk's direction (positive: it moved that way) */
static double self_delta(const struct descent *d, const struct tree_node *n)
{
	if (n->flags & TREE_F_STEP)
		return 0; /* counted over the step's windows, not the tree's */
	return d->sign * (n->self[COND_LOAD] / d->secs[COND_LOAD] -
			  n->self[COND_REF] / d->secs[COND_REF] +
			  descent_irq_on_below(n, d->secs));
}

/* A node a step added under a node of the calibration counts another unit
 * (events, not samples; core/analysis/step_merge.h): its delta is not comparable. */
static int other_unit(const struct tree_node *parent, const struct tree_node *c)
{
	return (c->flags & TREE_F_STEP) && !(parent->flags & TREE_F_STEP);
}

/* the sum of the children's masses (in the node's own unit) */
static double children_mass(const struct descent *d, const struct tree_node *n)
{
	double m = 0;

	for (unsigned i = 0; i < n->nchild; i++)
		if (!other_unit(n, n->child[i]) && !descent_is_irq_on(n->child[i]))
			m += mass(d, n->child[i]);
	return m;
}

/* idle, or a grouping level (the idle task's process, by process) holding
 * nothing but idle */
static int idle_only(const struct tree_node *c)
{
	if (c->kind == TREE_SUBSYS)
		return c->subsys == SUBSYS_IDLE;
	if ((c->kind != TREE_PROCESS && c->kind != TREE_COMMAND && c->kind != TREE_TIME) ||
	    !c->nchild)
		return 0;
	for (unsigned i = 0; i < c->nchild; i++)
		if (!idle_only(c->child[i]))
			return 0;
	return 1;
}

/* idle is never a finding: its falls are what any load takes from it, and
 * its rises say the reference was busier than the loaded windows (a
 * reference saved on a busy machine, a light -p PID), not where the load
 * spends its time */
static int skipped(const struct descent *d, const struct tree_node *c)
{
	(void)d;
	return idle_only(c) || descent_is_irq_on(c);
}

/* The child with the largest mass in the parent's unit; a step's event
 * node (moving by its own delta) only when no such child carries any. */
static struct tree_node *best_child(const struct descent *d, const struct tree_node *n)
{
	struct tree_node *best = NULL;

	for (unsigned i = 0; i < n->nchild; i++) {
		struct tree_node *c = n->child[i];

		if (other_unit(n, c) || skipped(d, c) || !(mass(d, c) > 0))
			continue;
		if (!best || mass(d, c) > mass(d, best))
			best = c;
	}
	for (unsigned i = 0; i < n->nchild && !best; i++) {
		struct tree_node *c = n->child[i];

		if (other_unit(n, c) && moving(d, c))
			best = c;
	}
	return best;
}

static int cmp_mass_desc(const void *a, const void *b, void *arg)
{
	const struct descent *d = arg;
	double x = mass(d, *(const struct tree_node *const *)a);
	double y = mass(d, *(const struct tree_node *const *)b);

	return (x < y) - (x > y);
}

/* the same-unit children with a mass, largest first; *nv of them (caller
 * frees), NULL on ENOMEM */
static struct tree_node **ranked(const struct descent *d, const struct tree_node *n,
				 unsigned *nv)
{
	struct tree_node **v = malloc((n->nchild + 1) * sizeof(*v));

	*nv = 0;
	if (!v)
		return NULL;
	for (unsigned i = 0; i < n->nchild; i++)
		if (!other_unit(n, n->child[i]) && !skipped(d, n->child[i]) &&
		    mass(d, n->child[i]) > 0)
			v[(*nv)++] = n->child[i];
	qsort_r(v, *nv, sizeof(*v), cmp_mass_desc, (void *)d);
	return v;
}

/* "a 41%, b 30%, c 12%" — the top children's shares of base, by mass;
 * children with a positive net delta but no significant mass as "n.s." */
static void top_shares(const struct descent *d, const struct tree_node *n, double base,
		       char *buf, size_t len)
{
	struct tree_node **v;
	unsigned nv = 0, ns = 0;
	size_t off = 0;

	buf[0] = 0;
	v = ranked(d, n, &nv);
	if (!v)
		return;
	for (unsigned i = 0; i < nv && i < 4 && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s %.0f%%", i ? ", " : "", v[i]->name,
				 base > 0 ? mass(d, v[i]) / base * 100 : 0.0);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (nv > 4 && off < len) {
		int w = snprintf(buf + off, len - off, ", %u more", nv - 4);

		if (w > 0)
			off += (size_t)w;
	}
	/* rises too small to be significant on their own */
	for (unsigned i = 0; i < n->nchild; i++) {
		const struct tree_node *c = n->child[i];

		if (!other_unit(n, c) && !(mass(d, c) > 0) && c->stat.delta * d->sign > 0)
			v[ns++] = (struct tree_node *)c;
	}
	if (!nv && ns) {
		/* nothing significant: the net deltas, as the old rule did */
		for (unsigned i = 0; i + 1 < ns; i++)
			for (unsigned j = i + 1; j < ns; j++)
				if (fabs(v[j]->stat.delta) > fabs(v[i]->stat.delta)) {
					struct tree_node *x = v[i];

					v[i] = v[j];
					v[j] = x;
				}
		for (unsigned i = 0; i < ns && i < 4 && off < len; i++) {
			int w = snprintf(buf + off, len - off, "%s%s %.0f%% n.s.", i ? ", " : "",
					 v[i]->name, base > 0 ? fabs(v[i]->stat.delta) / base * 100 : 0.0);
			if (w < 0)
				break;
			off += (size_t)w;
		}
	}
	free(v);
}

static void evidence(char *b, size_t len, const struct tree_node *n)
{
	char qs[24];

	snprintf(b, len, "q=%s, %u/%u pairs", numfmt_p(qs, sizeof(qs), NULL, n->stat.q, NUMFMT_P_WORDS),
		 n->stat.pairs_agree, n->stat.pairs);
}

/* "+120.0/s" or, when the net delta differs, "+120.0/s (net -3.2/s)" */
static void fmt_mass(const struct descent *d, const struct tree_node *n, char *b, size_t len)
{
	double m = d->sign * mass(d, n);
	char ms[32], net[32];

	if (fabs(n->stat.delta - m) > 0.05 * fabs(m) + 0.05)
		snprintf(b, len, "%s (net %s)", numfmt_rate(ms, sizeof(ms), m),
			 numfmt_rate(net, sizeof(net), n->stat.delta));
	else
		numfmt_rate(b, len, m);
}

/* ---- the walk ----------------------------------------------------------------- */

static int add_stop(struct descent *d, struct tree_node *n, double skid)
{
	for (unsigned i = 0; i < d->nstops; i++)
		if (d->stops[i].n == n)
			return 0;
	if (d->nstops < VERDICT_MAX_BRANCH)
		d->stops[d->nstops++] = (struct stop){ n, skid, mass(d, n), n };
	return 0;
}

/* a stop carrying part m of the rise established at ev (entry_end) */
static int add_part(struct descent *d, struct tree_node *n, double skid, double m,
		    const struct tree_node *ev)
{
	for (unsigned i = 0; i < d->nstops; i++)
		if (d->stops[i].n == n) {
			d->stops[i].mass += m;
			return 0;
		}
	if (d->nstops < VERDICT_MAX_BRANCH)
		d->stops[d->nstops++] = (struct stop){ n, skid, m, ev };
	return 0;
}

/* net delta in the walk's direction */
static double net(const struct descent *d, const struct tree_node *n)
{
	return d->sign * n->stat.delta;
}

/* From c down by net deltas (none of them significant alone): into the
 * child with the largest, while it holds `explain` of the positive ones
 * there, always through an entry frame.  The node to stop at, or NULL
 * when the way ends at an entry frame with nothing rising below it. */
static struct tree_node *thin_walk(const struct descent *d, struct tree_node *c)
{
	for (;;) {
		struct tree_node *best = NULL;
		double up = 0;

		for (unsigned i = 0; i < c->nchild; i++) {
			struct tree_node *x = c->child[i];

			if (other_unit(c, x) || skipped(d, x) || !(net(d, x) > 0))
				continue;
			up += net(d, x);
			if (!best || net(d, x) > net(d, best))
				best = x;
		}
		if (!best)
			return descent_is_entry(c) ? NULL : c;
		if (!descent_is_entry(c) && net(d, best) < d->explain * up)
			return c;
		c = best;
	}
}

/* The walk would stop at the entry frame cur, which names no code path.
 * Its rise (established there) goes to the children that carry it, none
 * significant alone: each of those with DESCEND_BRANCH_LOCAL of their
 * positive net deltas (at most room) is a branch, walked by net deltas
 * (thin_walk), with cur's rise M (less its own time: skid, the crossing)
 * shared out by those deltas, never more than they add up to.  Nothing below
 * rises: the rise is the crossing's own time, a note and no branch. */
static int entry_end(struct descent *d, struct tree_node *cur, double M, double skid,
		     unsigned room)
{
	struct descent_why *r = d->r;
	struct tree_node *v[VERDICT_MAX_BRANCH];
	double up = 0, carried = 0;
	unsigned nv = 0;
	char spread[512] = "", qs[24];
	size_t off = 0;
	int err = 0;

	for (unsigned i = 0; i < cur->nchild; i++)
		if (!other_unit(cur, cur->child[i]) && !skipped(d, cur->child[i]) &&
		    net(d, cur->child[i]) > 0)
			up += net(d, cur->child[i]);
	/* the largest first: a pass per place (room is at most VERDICT_MAX_BRANCH) */
	while (up > 0 && nv < (room ? room : 1) && nv < VERDICT_MAX_BRANCH) {
		struct tree_node *top = NULL;

		for (unsigned i = 0; i < cur->nchild; i++) {
			struct tree_node *x = cur->child[i];
			int taken = 0;

			for (unsigned j = 0; j < nv; j++)
				taken |= v[j] == x;
			if (taken || other_unit(cur, x) || skipped(d, x) ||
			    net(d, x) < DESCEND_BRANCH_LOCAL * up)
				continue;
			if (!top || net(d, x) > net(d, top))
				top = x;
		}
		if (!top)
			break;
		v[nv++] = top;
	}
	for (unsigned i = 0; i < nv; i++) {
		int w = snprintf(spread + off, sizeof(spread) - off, "%s%s %.0f%%", i ? ", " : "",
				 v[i]->name, net(d, v[i]) / up * 100);

		if (w < 0 || (size_t)w >= sizeof(spread) - off)
			break;
		off += (size_t)w;
	}
	M = fmin(M, up);
	if (!nv || !(M > 0)) {
		err = descent_line(r, "%s: an entry frame and no code path below it rises: "
				       "its %+.1f/s is the crossing's own time, not a branch",
				       cur->name, d->sign * mass(d, cur));
		if (!err && d->sign > 0)
			err = verdict_add_note(d->v, "%s %+.1f/s is syscall or exception entry and "
					       "exit time with no code path below it rising: not a branch",
					       cur->name, mass(d, cur));
		return err;
	}
	err = descent_line(r, "%s: an entry frame, no code path; its %+.1f/s (q=%s) spreads "
			       "over its entries, none significant alone (%s): %s by their net deltas",
			       cur->name, d->sign * M, numfmt_p(qs, sizeof(qs), NULL, cur->stat.q, NUMFMT_P_WORDS),
			       spread, nv > 1 ? "a branch each" : "following");
	if (!err && d->sign > 0)
		err = verdict_add_note(d->v, "the rise at %s (%+.1f/s, q=%s) is shared out by net deltas "
				       "over %s, none significant alone", cur->name, M,
				       numfmt_p(qs, sizeof(qs), NULL, cur->stat.q, NUMFMT_P_WORDS), spread);
	for (unsigned i = 0; i < nv && !err; i++) {
		struct tree_node *stop = thin_walk(d, v[i]);
		double m = M * net(d, v[i]) / up;

		if (!stop)
			continue;
		carried += m;
		err = descent_line(r, "branch %s: %s > ... > %s, %.0f%% of %s's rise by net delta "
				       "(%+.1f/s) -> stop here", v[i]->name, v[i]->name, stop->name,
				       net(d, v[i]) / up * 100, cur->name, d->sign * m);
		if (!err)
			err = add_part(d, stop, skid, m, cur);
	}
	if (!err && !(carried > 0))
		err = descent_line(r, "%s: every way below it ends at an entry frame: not a branch",
				       cur->name);
	return err;
}

/* At a hub cur (a grouping level or a dispatch frame) whose largest child
 * is best: a branch each for the children that carry a real part of the
 * rise there (*done: the walk ends, its branches walked), or on into best
 * alone (*done 0). */
static int walk(struct descent *d, struct tree_node *cur, double skid, unsigned room);

static int hub_step(struct descent *d, struct tree_node *cur, struct tree_node *best,
		    double skid, unsigned room, int *done)
{
	struct descent_why *r = d->r;
	char ev[64], spread[512], ms[64];
	struct tree_node **v;
	unsigned nv = 0, nb = 0;
	double carried = 0, D = cur->stat.delta, up, share;
	int err = 0;

	*done = 0;
	up = children_mass(d, cur);
	share = up > 0 ? mass(d, best) / up : 0;
	v = ranked(d, cur, &nv);
	if (!v)
		return -ENOMEM;
	/* the branches that carry the rise: every entry holding a
	 * real part of it here, even beside a dominant one */
	while (nb < nv && nb < room && mass(d, v[nb]) >= DESCEND_BRANCH_LOCAL * up &&
	       mass(d, v[nb]) >= DESCEND_BRANCH_MIN * d->start_mass) {
		carried += mass(d, v[nb]);
		nb++;
	}
	if (nb >= 2) {
		top_shares(d, cur, up, spread, sizeof(spread));
		err = descent_line(r, "%s: increases spread over unrelated entries (%s); "
				       "descending each of the %u branches that carry "
				       "%.0f%% of them", cur->parent ? cur->name : "the root",
				       spread, nb, up > 0 ? carried / up * 100 : 0.0);
		for (unsigned i = 0; i < nb && !err; i++) {
			/* the larger branches first take what room is
			 * left, one stop kept for each branch after */
			unsigned pending = nb - i - 1, used = d->nstops + pending;
			unsigned share_room = VERDICT_MAX_BRANCH > used ?
					      VERDICT_MAX_BRANCH - used : 1;

			evidence(ev, sizeof(ev), v[i]);
			fmt_mass(d, v[i], ms, sizeof(ms));
			err = descent_line(r, "branch %u: %s: %s, %.0f%% of the increases at %s, %s",
					       i + 1, v[i]->name, ms,
					       up > 0 ? mass(d, v[i]) / up * 100 : 0.0,
					       cur->parent ? cur->name : "the root", ev);
			if (!err)
				err = walk(d, v[i], skid, share_room);
		}
		free(v);
		*done = 1;
		return err;
	}
	free(v);
	evidence(ev, sizeof(ev), best);
	fmt_mass(d, best, ms, sizeof(ms));
	err = descent_line(r, "%s: %s, %.0f%% of the increases at %s%s (%+.1f/s; net %+.1f/s), %s -> descend%s",
			       best->name, ms, share * 100,
			       cur->parent ? "" : "the ", cur->parent ? cur->name : "root",
			       up, D, ev,
			       share < d->explain ? " (the largest of several increases)" : "");
	if (!err && share < d->explain) {
		top_shares(d, cur, up, spread, sizeof(spread));
		err = descent_line(r, "%s: increases spread over unrelated entries (%s); "
				       "following the largest, the confidence says how much it explains",
				       cur->parent ? cur->name : "the root", spread);
	}
	return err;
}

/* From cur in the walk's direction to its stop(s).  room: how many stops
 * this walk may still add (its branches share them). */
static int walk(struct descent *d, struct tree_node *cur, double skid, unsigned room)
{
	struct descent_why *r = d->r;
	char ev[64], spread[512];
	int err = 0;

	for (;;) {
		struct tree_node *best = best_child(d, cur);
		double D = cur->stat.delta, M = mass(d, cur), S, base, share;
		enum descent_skid sk;
		int hub = descent_is_grouping(cur) || (cur == d->start && !moving(d, cur));

		S = self_delta(d, cur);
		if (!hub && descent_is_dispatch(cur)) {
			/* an entry frame whose own time is the rise is its hot spot
			 * (a syscall that does nothing but enter and leave) */
			double Sx = (moving(d, cur) || cur->stat.self_sign == d->sign) ? fmax(0, S) : 0;

			if (descent_is_entry(cur)) {
				/* generic entry and exit: its own time is the
				 * crossing's (and the skid of interrupts off until
				 * it), no code path; what rises is below it */
				if (Sx > 0) {
					skid += Sx;
					err = descent_line(r, "%s: self %+.1f/s is entry and exit time "
							       "(no code path), not attributed", cur->name, S);
					if (err)
						return err;
				}
				if (!best)
					return entry_end(d, cur, fmax(0, M - Sx), skid, room);
			} else if (cur->nchild && Sx > 0 && Sx >= d->explain * M &&
				   (!best || Sx >= mass(d, best))) {
				err = descent_line(r, "%s: self %+.1f/s is %.0f%% of its %+.1f/s -> "
						       "the function itself is the hot spot, stop here",
						       cur->name, S, S / M * 100, M);
				if (err)
					return err;
				return add_stop(d, cur, skid);
			}
			hub = best && !other_unit(cur, best);
		}
		if (hub) {
			int done;

			if (!best) {
				if (cur == d->start)
					return 0; /* nothing: the caller says so */
				top_shares(d, cur, M, spread, sizeof(spread));
				err = descent_line(r, "%s: no child rises significantly%s%s%s -> stop here",
						       cur->name, spread[0] ? " (" : "", spread,
						       spread[0] ? ")" : "");
				if (err)
					return err;
				return add_stop(d, cur, skid);
			}
			err = hub_step(d, cur, best, skid, room, &done);
			if (err || done)
				return err;
			cur = best;
			continue;
		}

		sk = descent_skid_of(cur);
		base = M;
		if (sk == DESCENT_SKID_ENTRY && S > 0) {
			base = fmax(M - S, children_mass(d, cur));
			skid += S;
			err = descent_line(r, "%s: self %+.1f/s (%.0f%% of its delta) is sampling skid "
					       "(interrupts off on entry), not attributed; judging children against the other %+.1f/s",
					       cur->name, S, M > 0 ? S / M * 100 : 0.0, base);
			if (!err && d->sign > 0)
				err = verdict_add_note(d->v, "%s self time %+.1f/s is sampling skid (interrupts off on entry), not attributed",
						       cur->name, S);
			if (err)
				return err;
			if (!(base > 0) || !best)
				return entry_end(d, cur, base, skid, room);
		}
		{
			double Sx = (moving(d, cur) || cur->stat.self_sign == d->sign) ? fmax(0, S) : 0;

			if (sk == DESCENT_SKID_NONE && cur->nchild && Sx > 0 && Sx >= d->explain * base &&
			    (!best || other_unit(cur, best) || Sx >= mass(d, best))) {
				err = descent_line(r, "%s: self %+.1f/s is %.0f%% of its %+.1f/s -> the function itself is the hot spot, stop here",
						       cur->name, S, S / base * 100, base);
				if (err)
					return err;
				return add_stop(d, cur, skid);
			}
		}
		if (!best && descent_is_entry(cur))
			return entry_end(d, cur, M, skid, room);
		if (!best) {
			if (!cur->nchild)
				err = descent_line(r, "%s: a leaf (its own time, %+.1f/s) -> stop here",
						       cur->name, S);
			else {
				top_shares(d, cur, base, spread, sizeof(spread));
				err = descent_line(r, "%s: no child rises significantly%s%s%s -> stop here",
						       cur->name, spread[0] ? " (" : "", spread,
						       spread[0] ? ")" : "");
			}
			if (err)
				return err;
			return add_stop(d, cur, skid);
		}
		share = base > 0 ? mass(d, best) / base : 0;
		if (other_unit(cur, best)) {
			evidence(ev, sizeof(ev), best);
			err = descent_line(r, "%s -> %s: no child of %s rises in samples; the step's "
					       "events rise %+.1f/s there (ref %.1f/s, load %.1f/s), %s",
					       cur->name, best->name, cur->name, best->stat.delta,
					       best->stat.rate[COND_REF], best->stat.rate[COND_LOAD], ev);
			if (err)
				return err;
			cur = best;
			continue;
		}
		{
			double bself = self_delta(d, best);

			if (descent_is_unlock_skid(best) && bself >= d->explain * mass(d, best)) {
				err = descent_line(r, "%s: %.0f%% of the delta lands in %s, whose self time is "
						       "sampling skid (interrupts off until it) -> the cost is %s's "
						       "interrupts-off section, stop here",
						       cur->name, share * 100, best->name, cur->name);
				if (!err && d->sign > 0)
					err = verdict_add_note(d->v, "%s %+.1f/s under %s is sampling skid: the time with interrupts off is charged where they come back on",
							       best->name, best->stat.delta, cur->name);
				if (err)
					return err;
				return add_stop(d, cur, skid);
			}
		}
		if (share >= d->explain) {
			evidence(ev, sizeof(ev), best);
			if (fabs(mass(d, best) - d->sign * best->stat.delta) > 0.05 * mass(d, best) + 0.05 ||
			    fabs(base - d->sign * D) > 0.05 * base + 0.05)
				err = descent_line(r, "%s -> %s: %.0f%% of its parent's rise (%+.1f/s of %+.1f/s; "
						       "net %+.1f/s of %+.1f/s), %s",
						       cur->name, best->name, share * 100, mass(d, best), base,
						       best->stat.delta, D, ev);
			else
				err = descent_line(r, "%s -> %s: %.0f%% of its parent's delta (%+.1f/s of %+.1f/s), %s",
						       cur->name, best->name, share * 100, best->stat.delta,
						       base, ev);
			if (err)
				return err;
			cur = best;
			continue;
		}
		if (descent_is_entry(cur)) {
			/* no code path here: its children are the branches */
			int done;

			err = hub_step(d, cur, best, skid, room, &done);
			if (err || done)
				return err;
			cur = best;
			continue;
		}
		top_shares(d, cur, base, spread, sizeof(spread));
		err = descent_line(r, "%s: children spread (%s) -> stop here", cur->name, spread);
		if (err)
			return err;
		return add_stop(d, cur, skid);
	}
}

/* ---- the verdict ------------------------------------------------------------ */

static int clear_verdict_flag(struct tree_node *n, void *arg)
{
	(void)arg;
	n->flags &= ~TREE_F_VERDICT;
	return 0;
}

static int verdict_found(struct descent *d)
{
	struct verdict *v = d->v;
	struct stop *st = &d->stops[0];
	const struct tree_node *stop;
	struct verdict_branch b;
	char *names[VERDICT_MAX_PATH];
	double agree, share, carried = 0;
	char qs[24], via[256] = "", sp[320];
	int err = 0;

	/* the stops are in the walk's order, the larger branch first at every
	 * split: stops[0] is where always following the largest leads (the
	 * path), not the stop with the largest rise (a shallow stop of a small
	 * branch can hold more than a deep one of the largest) */
	stop = st->n;
	for (unsigned i = 0; i < d->nstops; i++) {
		descent_mark_path(d->stops[i].n);
		carried += d->stops[i].mass;
	}
	descent_branch_of(stop, &b, names, VERDICT_MAX_PATH);
	for (unsigned i = 0; i < b.npath; i++) {
		v->path[i] = strdup(b.path[i]);
		if (!v->path[i])
			return -ENOMEM;
		v->npath++;
	}
	v->found = 1;
	snprintf(v->subsystem, sizeof(v->subsystem), "%s", b.subsystem);
	snprintf(v->time, sizeof(v->time), "%s", b.time);
	if (!strcmp(v->time, "blocked"))
		descent_waker_of(stop, v->waker, sizeof(v->waker), v->waker_class,
				 sizeof(v->waker_class));
	v->leaf = strdup(v->npath ? v->path[v->npath - 1] : stop->name);
	if (!v->leaf)
		return -ENOMEM;
	v->rate_ref = stop->stat.rate[COND_REF];
	v->rate_load = stop->stat.rate[COND_LOAD];
	v->delta = stop->stat.delta;
	v->rise = st->mass;
	/* the test that established it: the stop's own, or the entry frame's
	 * whose rise it carries a part of (entry_end) */
	v->ratio = st->ev->stat.ratio;
	v->q = st->ev->stat.q;
	v->pairs = st->ev->stat.pairs;
	v->pairs_agree = st->ev->stat.pairs_agree;
	v->share_of_root = d->total > 0 ? v->rise / d->total : 0;
	agree = v->pairs ? (double)v->pairs_agree / v->pairs : 1.0;
	/* the skid left unattributed on the path is nobody's share */
	share = d->total - st->skid > 0 ? (d->nstops > 1 ? carried : v->rise) / (d->total - st->skid) : 0;
	share = fmin(1.0, fmax(0.0, share));
	v->confidence = fmin(1.0, fmax(0.0, (1.0 - v->q) * agree * share));
	if (d->nstops > 1) {
		size_t off = 0;

		for (unsigned i = 0; i < d->nstops; i++) {
			const struct tree_node *n = d->stops[i].n;
			char *bn[VERDICT_MAX_PATH];
			struct verdict_branch x;
			int w;

			descent_branch_of(n, &x, bn, VERDICT_MAX_PATH);
			x.mass = d->stops[i].mass;
			x.share = d->total > 0 ? x.mass / d->total : 0;
			err = verdict_branch_add(&v->branches, &v->nbranches, &x);
			if (err)
				return err;
			descent_short_path(&x, n->name, via, sizeof(via));
			w = snprintf(sp + off, sizeof(sp) - off, "%s%s %.0f%%", i ? "; " : "", via,
				     x.share * 100);
			if (w < 0 || (size_t)w >= sizeof(sp) - off)
				break;
			off += (size_t)w;
		}
		if (asprintf(&v->summary,
			     "the increase spreads over %u branches: %s; largest %+.1f/s (ref %.1f/s, "
			     "load %.1f/s), q=%s, %u/%u pairs agree; together %.0f%% of the increase; "
			     "confidence %.2f", d->nstops, sp, v->rise, v->rate_ref, v->rate_load,
			     numfmt_p(qs, sizeof(qs), NULL, v->q, NUMFMT_P_WORDS), v->pairs_agree, v->pairs,
			     d->total > 0 ? carried / d->total * 100 : 0.0, v->confidence) < 0) {
			v->summary = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	if (v->npath >= 2)
		snprintf(via, sizeof(via), "%s%s > ", v->npath > 2 ? "... > " : "",
			 v->path[v->npath - 2]);
	if (asprintf(&v->summary,
		     "%s%s%s: %s%s: %+.1f/s (ref %.1f/s, load %.1f/s), q=%s, %u/%u pairs agree, "
		     "%.0f%% of the increase; confidence %.2f%s%s",
		     strcmp(v->time, "on-cpu") ? v->time : "", strcmp(v->time, "on-cpu") ? ", " : "",
		     v->subsystem, via, v->npath ? v->leaf : "(no single path below it)", v->rise,
		     v->rate_ref, v->rate_load, numfmt_p(qs, sizeof(qs), NULL, v->q, NUMFMT_P_WORDS),
		     v->pairs_agree, v->pairs,
		     v->share_of_root * 100, v->confidence, v->waker[0] ? "; woken by " : "",
		     v->waker) < 0) {
		v->summary = NULL;
		err = -ENOMEM;
	}
	return err;
}

/* The fall at n (its path in b) split by who fell: processes that are not
 * the diagnosed work and lost significantly there go to v->displaced, the
 * rest (when it is more than a tenth of the fall) to v->falls. */
static int split_fall(const struct descent *d, const struct tree_node *n,
		      struct verdict_branch *b, struct verdict *v)
{
	const struct tree_node *proc = n;
	double left = b->mass;
	char pname[64];
	int err = 0;

	while (proc && proc->kind != TREE_PROCESS)
		proc = proc->parent;
	if (proc) {
		/* a tree by process: its process level says who */
		if (tree_is_diagnosed(d->t, proc->tgid))
			return v->nfalls < VERDICT_MAX_FALLS ?
			       verdict_branch_add(&v->falls, &v->nfalls, b) : 0;
		b->process = (char *)proc->name;
		err = v->ndisplaced < VERDICT_MAX_FALLS ?
		      verdict_branch_add(&v->displaced, &v->ndisplaced, b) : 0;
		b->process = NULL;
		return err;
	}
	for (const struct tree_proc *e = n->procs; e && !err; e = e->next) {
		double pd = e->total[COND_LOAD] / d->secs[COND_LOAD] -
			    e->total[COND_REF] / d->secs[COND_REF];
		struct verdict_branch x = *b;

		if (tree_is_diagnosed(d->t, e->tgid) || !(pd < 0) ||
		    stats_poisson_p(e->total[COND_REF], d->secs[COND_REF], e->total[COND_LOAD],
				    d->secs[COND_LOAD]) > 0.05)
			continue;
		snprintf(pname, sizeof(pname), "%s [%u]", e->comm && e->comm[0] ? e->comm : "?",
			 (unsigned)e->tgid);
		x.process = pname;
		x.delta = pd;
		x.mass = -pd;
		x.share = b->mass > 0 ? b->share * (-pd / b->mass) : 0;
		left -= -pd;
		if (v->ndisplaced < VERDICT_MAX_FALLS)
			err = verdict_branch_add(&v->displaced, &v->ndisplaced, &x);
	}
	if (!err && left > 0.1 * b->mass && v->nfalls < VERDICT_MAX_FALLS) {
		b->mass = left;
		err = verdict_branch_add(&v->falls, &v->nfalls, b);
	}
	return err;
}

/* The falls below start, walked by the fall mass: v->falls for the
 * diagnosed work, v->displaced for other processes'. */
static int find_falls(struct descent *rise, const struct tree_node *start)
{
	struct descent d = *rise;
	int err;

	d.sign = -1;
	d.r = NULL;
	d.nstops = 0;
	d.total = d.t->root->stat.fall;
	d.start_mass = start->stat.fall;
	if (!(d.start_mass > 0))
		return 0;
	/* idle's fall is not the diagnosed work's: the mass without it */
	for (unsigned i = 0; i < start->nchild; i++)
		if (skipped(&d, start->child[i]))
			d.start_mass -= start->child[i]->stat.fall;
	if (!(d.start_mass > 0))
		return 0;
	err = walk(&d, (struct tree_node *)start, 0, VERDICT_MAX_FALLS);
	for (unsigned i = 0; i < d.nstops && !err; i++) {
		const struct tree_node *n = d.stops[i].n;
		char *names[VERDICT_MAX_PATH];
		struct verdict_branch b;

		descent_branch_of(n, &b, names, VERDICT_MAX_PATH);
		b.mass = d.stops[i].mass;
		b.share = d.start_mass > 0 ? b.mass / d.start_mass : 0;
		err = split_fall(&d, n, &b, rise->v);
	}
	return err;
}

static int verdict_not_found(struct descent *d, const struct tree_node *start)
{
	const struct tree_node *s = start;
	char qs[24], fall[400] = "";
	int err;

	d->v->found = 0;
	d->v->rate_ref = s->stat.rate[COND_REF];
	d->v->rate_load = s->stat.rate[COND_LOAD];
	d->v->delta = s->stat.delta;
	d->v->ratio = s->stat.ratio;
	d->v->q = s->stat.q;
	d->v->pairs = s->stat.pairs;
	d->v->pairs_agree = s->stat.pairs_agree;
	err = find_falls(d, start);
	if (err)
		return err;
	if (d->v->nfalls) {
		char via[256];

		descent_short_path(&d->v->falls[0], "?", via, sizeof(via));
		snprintf(fall, sizeof(fall), "; what fell most: %s %+.1f/s (the fall is the finding: "
			 "something vanished or now waits)", via, -d->v->falls[0].mass);
	}
	if (asprintf(&d->v->summary,
		     "no bottleneck found%s%s: %s %+.1f/s (ref %.1f/s, load %.1f/s), q=%s, "
		     "%u/%u pairs; no %s has a significant increase%s",
		     s->parent ? " under " : "", s->parent ? s->name : "",
		     s->parent ? "its delta" : "the root's delta", s->stat.delta,
		     s->stat.rate[COND_REF], s->stat.rate[COND_LOAD],
		     numfmt_p(qs, sizeof(qs), NULL, s->stat.q, NUMFMT_P_WORDS), s->stat.pairs_agree,
		     s->stat.pairs, s->parent ? "child" : "subsystem", fall) < 0) {
		d->v->summary = NULL;
		return -ENOMEM;
	}
	err = descent_line(d->r, "%s", d->v->summary);
	if (!err)
		err = descent_note_moves(d->v, (struct tree_node *)start, +1);
	if (!err)
		err = descent_note_moves(d->v, (struct tree_node *)start, -1);
	return err;
}

/* ---- wait chains (issue 23, item 2) ----------------------------------------- */

enum chain_role {
	CHAIN_NEUTRAL,
	CHAIN_LINK,   /* a wait another task of the work ends */
	CHAIN_SHIFT,  /* runnable time that falls as a whole: only who ran
	               * instead changed, the wait for a CPU did not grow */
	CHAIN_SHIFT_OUT, /* a shift to a task outside the work: it took CPU
	               * time the work wanted, while the work's own waits
	               * for a CPU (behind itself) fell */
	CHAIN_ROOT,
};

static const struct tree_node *time_above(const struct tree_node *n)
{
	while (n && n->kind != TREE_TIME)
		n = n->parent;
	return n;
}

/* The process that ran instead under a runnable stop: its "[tgid N]" leaf
 * ("[ran instead: COMM (tgid N)]" in older sessions), or the largest one
 * below it (a stop at "[ran instead: cgroup /x]"); 0 when there is none. */
static uint32_t ran_instead_tgid(const struct tree_node *n)
{
	for (unsigned depth = 0; n && depth < 4; depth++) {
		const char *tg = strstr(n->name, "(tgid ");
		const struct tree_node *big = NULL;

		if (!strncmp(n->name, "[tgid ", 6))
			return (uint32_t)strtoul(n->name + 6, NULL, 10);
		if (!strncmp(n->name, "[ran instead: ", 14) && tg)
			return (uint32_t)strtoul(tg + 6, NULL, 10);
		for (unsigned i = 0; i < n->nchild; i++)
			if (!big || n->child[i]->stat.rise > big->stat.rise)
				big = n->child[i];
		n = big;
	}
	return 0;
}

/* Is a stop a link of a wait chain or its root?  A link: blocked time that
 * another task ends — a task of the diagnosed work ("[woken by task sqlite3
 * (tgid N)]"), a network softirq (a peer's send: on one host, the client
 * process that is itself waiting), or a wait not ended yet ("[still blocked
 * at a read]": whoever ends it is not known).  A root: time that waits on
 * no other task of the work — a CPU taken by someone else (runnable, "ran
 * instead"), a device (softirq BLOCK, a hardirq other than the timer), a
 * task outside the work (a lock holder running) — but runnable time only
 * while the work's runnable time grows as a whole (else a rise under it is
 * a change of who ran instead: a shift).  Anything else (on-CPU work,
 * timers, no wakeup seen) is neither. */
static enum chain_role chain_role(const struct descent *d, const struct tree_node *n)
{
	const struct tree_node *tn = time_above(n);
	char who[160], cls[32];
	const char *tg;

	if (!tn || !strcmp(tn->name, tree_time_name[TREE_TIME_ONCPU]))
		return CHAIN_NEUTRAL;
	if (!strcmp(tn->name, tree_time_name[TREE_TIME_RUNNABLE])) {
		uint32_t other;

		if (tn->stat.delta > 0)
			return CHAIN_ROOT;
		other = ran_instead_tgid(n);
		return other && !tree_is_work_task(d->t, other) ? CHAIN_SHIFT_OUT : CHAIN_SHIFT;
	}
	if (strcmp(tn->name, tree_time_name[TREE_TIME_BLOCKED]))
		return CHAIN_NEUTRAL;
	if (!strncmp(n->name, "[still blocked", 14))
		return CHAIN_LINK;
	descent_waker_of(n, who, sizeof(who), cls, sizeof(cls));
	if (!strcmp(cls, "softirq"))
		return strstr(who, "NET_") ? CHAIN_LINK : strstr(who, "BLOCK") ? CHAIN_ROOT
								       : CHAIN_NEUTRAL;
	if (!strcmp(cls, "hardirq"))
		return strstr(who, "timer") ? CHAIN_NEUTRAL : CHAIN_ROOT;
	if (!strcmp(cls, "task")) {
		tg = strstr(who, "(tgid ");
		if (!tg)
			return CHAIN_NEUTRAL;
		return tree_is_work_task(d->t, (uint32_t)strtoul(tg + 6, NULL, 10)) ? CHAIN_LINK
										     : CHAIN_ROOT;
	}
	return CHAIN_NEUTRAL;
}

/* When the walk's path (stops[0]) ends in a link of a wait chain (or a
 * shift) and another branch is a root, the root is the answer: a wait on a
 * task that is itself waiting is not a cause (wPerf's cascaded
 * redistribution, Trace Compass's critical path).  The largest root moves
 * to the front; the others keep their order.  With no root, a link gives
 * way to the largest shift to an outside task: a ping-pong victim beside a
 * spinner on its CPU waits for its peer (a link) because the peer waits
 * behind the spinner, while its waits behind its own threads fall (so its
 * runnable time as a whole does too).  Returns the stop moved behind it,
 * or NULL; *role says what that stop was, *chosen what moved in front. */
static const struct tree_node *chain_root_first(struct descent *d, enum chain_role *role,
						enum chain_role *chosen)
{
	unsigned best = 0;
	const struct tree_node *link;
	struct stop s;

	if (d->nstops < 2 || d->sign < 0)
		return NULL;
	*role = chain_role(d, d->stops[0].n);
	if (*role != CHAIN_LINK && *role != CHAIN_SHIFT && *role != CHAIN_SHIFT_OUT)
		return NULL;
	*chosen = CHAIN_ROOT;
	for (unsigned i = 1; i < d->nstops; i++)
		if (chain_role(d, d->stops[i].n) == CHAIN_ROOT &&
		    (!best || d->stops[i].mass > d->stops[best].mass))
			best = i;
	for (unsigned i = 1; i < d->nstops && !best && *role == CHAIN_LINK; i++)
		if (chain_role(d, d->stops[i].n) == CHAIN_SHIFT_OUT &&
		    (*chosen != CHAIN_SHIFT_OUT || d->stops[i].mass > d->stops[best].mass)) {
			best = i;
			*chosen = CHAIN_SHIFT_OUT;
		}
	if (!best)
		return NULL;
	link = d->stops[0].n;
	s = d->stops[best];
	memmove(&d->stops[1], &d->stops[0], best * sizeof(d->stops[0]));
	d->stops[0] = s;
	return link;
}

/* ---- branches too small to name ---------------------------------------------- */

/* A branch is entered for its share of the rise where the walk split, but
 * what it ends at can carry far less: most of a syscall branch's rise may
 * be entry and exit time, set aside on the way (stress-ng futex: a
 * "syscall" branch of 30% ended at __get_user_8 with 1%), or the walk
 * followed a child holding just over `explain` of its parent down a chain
 * that thins (fork: copy_page_range 4.7% > __pte_alloc 53% of it > ... >
 * clear_page_erms 2.5%).  Such a stop names no part of the increase worth
 * a person's look.  It ends instead at its deepest caller on the path that
 * carries enough and is a code path (copy_page_range), or, with none below
 * the entry (__get_user_8), it is dropped; the decisions and a note say
 * which, while a larger stop remains. */
static struct tree_node *enough_caller(const struct descent *d, const struct stop *s, double least)
{
	struct tree_node *p = s->n->parent;

	if (s->ev != s->n)  /* a part of an entry frame's rise: no caller of its own */
		return NULL;
	while (p && !descent_not_a_path(p) && mass(d, p) < least)
		p = p->parent;
	if (!p || descent_not_a_path(p))
		return NULL;
	for (unsigned i = 0; i < d->nstops; i++)
		for (const struct tree_node *q = d->stops[i].n; q && &d->stops[i] != s; q = q->parent)
			if (q == p)  /* it holds another stop already */
				return NULL;
	return p;
}

static int drop_small_stops(struct descent *d)
{
	double least = DESCEND_STOP_MIN * d->start_mass;
	unsigned keep = 0, large = 0;
	int err = 0;

	for (unsigned i = 0; i < d->nstops; i++)
		large += d->stops[i].mass >= least;
	if (!large)
		return 0;
	for (unsigned i = 0; i < d->nstops; i++) {
		struct stop *s = &d->stops[i];
		struct tree_node *caller;

		if (s->mass >= least || err) {
			d->stops[keep++] = *s;
			continue;
		}
		caller = enough_caller(d, s, least);
		if (caller) {
			err = descent_line(d->r, "branch %s: carries %+.1f/s, under %.1f%% of the "
					       "increase where the walk began: it ends at its caller "
					       "%s (%+.1f/s)", s->n->name, d->sign * s->mass,
					       DESCEND_STOP_MIN * 100, caller->name,
					       d->sign * mass(d, caller));
			*s = (struct stop){ caller, s->skid, mass(d, caller), caller };
			d->stops[keep++] = *s;
			continue;
		}
		err = descent_line(d->r, "branch %s: carries %+.1f/s, under %.1f%% of the "
				       "increase where the walk began: not a branch",
				       s->n->name, d->sign * s->mass, DESCEND_STOP_MIN * 100);
		if (!err && d->sign > 0)
			err = verdict_add_note(d->v, "%s (%+.1f/s, %.1f%% of the increase) "
					       "is too small to be a branch of the verdict",
					       s->n->name, s->mass,
					       d->total > 0 ? s->mass / d->total * 100 : 0.0);
	}
	d->nstops = keep;
	return err;
}

/* ---- a load not yet steady (issue 23, item 4) -------------------------------- */

#define STEADY_MIN_WINDOWS 3      /* loaded windows, to see a change */
#define STEADY_MIN_SAMPLES 50     /* the verdict's, over them */
#define STEADY_FACTOR 2.0         /* the two phases' shares, one against the other */
#define STEADY_MIN_Z 4.0          /* ... and apart by this many standard errors:
                                   * not the noise of thin windows */
#define STEADY_SUBSYS_MIN 0.05    /* a subsystem's share on one side, to count */

/* The change point of node n's share of start over the k loaded windows
 * wi[0..k): the split j (earlier [0, j), later [j, k)) where the two
 * pooled shares differ by the most standard errors; 0 when n is too thin
 * to judge.  *z, *pb, *pa: that many, the shares before and after. */
static unsigned change_point(const struct tree_node *n, const struct tree_node *start,
			     const unsigned *wi, unsigned k, double *z, double *pb, double *pa)
{
	double X = 0, NT = 0, bx = 0, bN = 0;
	unsigned split = 0;

	*z = 0;
	if (!n->win_total)
		return 0;
	for (unsigned i = 0; i < k; i++) {
		X += (double)n->win_total[wi[i]];
		NT += (double)start->win_total[wi[i]];
	}
	if (X < STEADY_MIN_SAMPLES || !(NT > X))
		return 0;
	for (unsigned j = 1; j < k; j++) {
		double p1, p2, pp = X / NT, se, zj;

		bx += (double)n->win_total[wi[j - 1]];
		bN += (double)start->win_total[wi[j - 1]];
		if (!(bN > 0) || !(NT - bN > 0))
			continue;
		p1 = bx / bN;
		p2 = (X - bx) / (NT - bN);
		se = sqrt(pp * (1 - pp) * (1 / bN + 1 / (NT - bN)));
		zj = se > 0 ? fabs(p1 - p2) / se : 0;
		if (zj > *z) {
			*z = zj;
			split = j;
			*pb = p1;
			*pa = p2;
		}
	}
	return split;
}

/* One candidate of steady_note: n's change point, kept in *best when it is
 * a change (STEADY_FACTOR, STEADY_MIN_Z, a part of the work of at least
 * `least` on one side) larger than the one there. */
struct change {
	const struct tree_node *n;
	unsigned split;
	double z, before, after;
};

static void change_consider(const struct tree_node *n, const struct tree_node *start,
			    const unsigned *wi, unsigned k, double least, struct change *best)
{
	double z, b = 0, a = 0;
	unsigned j = change_point(n, start, wi, k, &z, &b, &a);

	if (j && z >= STEADY_MIN_Z && (b > STEADY_FACTOR * a || a > STEADY_FACTOR * b) &&
	    fmax(a, b) >= least && z > best->z)
		*best = (struct change){ n, j, z, b, a };
}

/* the subsystem levels at or below n (the start), at most depth levels down */
static void change_subsystems(const struct tree_node *n, const struct tree_node *start,
			      const unsigned *wi, unsigned k, unsigned depth, struct change *best)
{
	for (unsigned i = 0; i < n->nchild; i++) {
		const struct tree_node *c = n->child[i];

		if (c->kind == TREE_SUBSYS)
			change_consider(c, start, wi, k, STEADY_SUBSYS_MIN, best);
		else if (depth > 1 && c->kind != TREE_FRAME)
			change_subsystems(c, start, wi, k, depth - 1, best);
	}
}

/* Does the load change character between the loaded windows (a
 * filesystem walk whose first pass is cold: block I/O under getdents64 and
 * slab growth, then the dentry cache's lookups)?  Judged on the verdict's
 * stops (a spread verdict's branch may change while the whole does not)
 * and on the subsystems' shares (the warm walk's path was there in the
 * cold pass too, at a smaller share): each one's share of the start, per
 * loaded window in time order, split where the two sides differ most
 * (change_point); when they differ by STEADY_FACTOR and STEADY_MIN_Z
 * standard errors, a note says so, for the one that changed most.  With at
 * least two loaded windows after the change, v->phase_from_win is where
 * the first one's pair begins: the analysis judges each phase alone
 * (core/analysis/analysis.c); with one, the change is v->phase_pending
 * (measuring goes on: core/analysis/seqstop.c). */
static int steady_note(struct descent *d)
{
	const struct tree *t = d->t;
	struct change best = { 0 };
	unsigned wi[64], k = 0;

	if (!d->nstops || !d->start->win_total)
		return 0;
	for (unsigned w = 0; w < t->nwin && k < 64; w++)
		if (t->wins[w].cond == COND_LOAD && t->wins[w].secs > 0)
			wi[k++] = w;
	if (k < STEADY_MIN_WINDOWS)
		return 0;
	for (unsigned i = 0; i < d->nstops; i++)
		change_consider(d->stops[i].n, d->start, wi, k, 0, &best);
	change_subsystems(d->start, d->start, wi, k, 3, &best);
	if (!best.n)
		return 0;
	if (k - best.split < 2) {
		d->v->phase_pending = 1;
		return verdict_add_note(d->v, "not steady: %s's share of the work was %.0f%% in loaded "
					"windows 1-%u and %.0f%% in the last (the load changes character: "
					"a cold start ending, a phase)", best.n->name, best.before * 100,
					best.split, best.after * 100);
	}
	/* the later phase from the pair of its first loaded window: the
	 * reference window just before it */
	d->v->phase_from_win = wi[best.split];
	if (wi[best.split] > 0 && t->wins[wi[best.split] - 1].cond == COND_REF)
		d->v->phase_from_win = wi[best.split] - 1;
	d->v->phase_windows = t->nwin;
	return verdict_add_note(d->v, "not steady: %s's share of the work was %.0f%% in loaded "
				"windows 1-%u and %.0f%% in %u-%u (the load changed character while "
				"measured: a cold start, a phase); steady from loaded window %u of %u",
				best.n->name, best.before * 100, best.split, best.after * 100,
				best.split + 1, k, best.split + 1, k);
}

/* Is a part of the verdict on-CPU time filling a cache (descent_is_cache_fill
 * on a stop's path: block reads under a lookup, slab growth)?  What a
 * cold start spends its first seconds on; the stop rule measures on while
 * the deadline allows, to see whether it fades (core/analysis/seqstop.c). */
static void cache_fill_mark(struct descent *d)
{
	for (unsigned i = 0; i < d->nstops && !d->v->cache_fill; i++) {
		const struct tree_node *n = d->stops[i].n, *tl = time_above(n);

		if (tl && strcmp(tl->name, tree_time_name[TREE_TIME_ONCPU]))
			continue;  /* blocked or runnable: a victim's waits, not a start-up */
		for (; n && n != d->start && !d->v->cache_fill; n = n->parent)
			d->v->cache_fill = n->kind == TREE_FRAME && descent_is_cache_fill(n->name);
	}
}

int descent_phase_carry(const struct tree *t, struct verdict *v)
{
	if (!t->phase_earlier || v->phase_earlier)
		return 0;
	v->phase_from_win = t->phase_from_win;
	v->phase_windows = t->phase_windows;
	v->phase_earlier = strdup(t->phase_earlier);
	if (!v->phase_earlier)
		return -ENOMEM;
	return verdict_add_note(v, "the load changed character while measured: its first %u "
				"loaded window%s (%.1f s of it running) are an earlier phase, left "
				"out; the verdict is of windows %u-%u. In the earlier phase: %s",
				t->phase_loaded, t->phase_loaded == 1 ? "" : "s", t->phase_early_s,
				t->phase_from_win + 1, t->phase_windows, t->phase_earlier);
}

/* ---- the descent ------------------------------------------------------------ */

int descent_run(struct tree *t, const struct tree_node *start, double explain,
		struct verdict *v, struct descent_why *r)
{
	struct descent d = { .t = t, .v = v, .r = r, .sign = +1 };
	const struct tree_node *link;
	enum chain_role role = CHAIN_NEUTRAL, chosen = CHAIN_ROOT;
	const char *why, *what;
	int err = 0;

	if (!t || !t->root || !v)
		return -EINVAL;
	verdict_clear(v);
	d.explain = explain > 0 && explain <= 1 ? explain : DESCENT_EXPLAIN_DEFAULT;
	for (unsigned w = 0; w < t->nwin; w++)
		if (t->wins[w].secs > 0 && t->wins[w].cond < COND_N)
			d.secs[t->wins[w].cond] += t->wins[w].secs;
	if (!(d.secs[COND_REF] > 0) || !(d.secs[COND_LOAD] > 0))
		return -EINVAL;
	tree_walk(t->root, clear_verdict_flag, NULL);
	/* masses again: a step's nodes may have been calibrated since */
	calib_masses(t);
	/* the rise at the root, not its net delta: when a load runs, idle time
	 * falls as much as work rises, so the net delta of a system-wide
	 * profile says little */
	d.total = t->root->stat.rise;
	d.start = start ? start : t->root;
	d.start_mass = d.start->stat.rise;
	err = walk(&d, (struct tree_node *)d.start, 0, VERDICT_MAX_BRANCH);
	if (err)
		return err;
	if (!d.nstops)
		return verdict_not_found(&d, d.start);
	err = drop_small_stops(&d);
	if (err)
		return err;
	link = chain_root_first(&d, &role, &chosen);
	why = role == CHAIN_SHIFT || role == CHAIN_SHIFT_OUT ?
	      "the work's runnable time falls as a whole: who ran instead changed, the wait "
	      "for a CPU did not grow"
	      : "it waits on other tasks of the work (a task of it, a peer's send, or a wait not "
		"ended), which wait in turn: a link of a wait chain";
	what = chosen == CHAIN_SHIFT_OUT ?
	       "no branch is a root; the CPU time a task outside the work took from it is the verdict"
	       : "the root is the verdict";
	if (link)
		err = descent_line(r, "%s (%s time, +%.1f/s): %s, not a root -> %s: %s",
				   link->name, time_above(link) ? time_above(link)->name : "?",
				   link->stat.rise, why, what, d.stops[0].n->name);
	if (!err)
		err = verdict_found(&d);
	if (!err && link)
		err = verdict_add_note(v, "wait chain: %s (%s, +%.1f/s): %s; %s: %s",
				       link->name, time_above(link) ? time_above(link)->name : "?",
				       link->stat.rise, why, what, d.stops[0].n->name);
	/* a spread or weak answer: does the increase converge on one function
	 * under several callers? (core/analysis/descent_converge.c) */
	if (!err && (d.nstops > 1 || v->rise < d.explain * d.start_mass)) {
		err = descent_converge(t, d.start, d.explain, d.stops[0].n, d.secs, v, r);
		err = err > 0 ? 0 : err;
	}
	if (!err)
		err = steady_note(&d);
	if (!err)
		err = descent_phase_carry(t, v);
	cache_fill_mark(&d);
	if (!err)
		err = find_falls(&d, d.start);
	if (!err)
		err = descent_line(r, "verdict: %s", v->summary);
	for (unsigned i = 0; i < v->ndisplaced && !err; i++) {
		const struct verdict_branch *b = &v->displaced[i];

		err = descent_line(r, "displaced (reported, not diagnosed): %s lost %.1f/s at %s",
				       b->process ? b->process : "?", b->mass,
				       b->npath ? b->path[b->npath - 1] : b->subsystem);
	}
	return err;
}

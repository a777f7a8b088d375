/* seqstop — the stop rule over the looks, and the adaptive windows (see
 * seqstop.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "analysis/analysis.h"
#include "analysis/seqstop.h"

void seqstop_opts_default(struct seqstop_opts *o)
{
	o->min_pairs = SEQSTOP_DEFAULT_MIN_PAIRS;
	o->max_pairs = SEQSTOP_DEFAULT_MAX_PAIRS;
	o->stable = SEQSTOP_DEFAULT_STABLE;
	o->alpha = 0.05;
	o->margin = SEQSTOP_DEFAULT_MARGIN;
	o->deadline_s = 0;
}

/* ---- one look ----------------------------------------------------------------- */

static uint64_t verdict_hash(const struct verdict *v)
{
	uint64_t h = HASH_FNV_BASIS;

	if (!v->found)
		return 0;
	h = hash_str(h, v->subsystem, (size_t)-1);
	for (unsigned i = 0; i < v->npath; i++)
		h = hash_str(h, v->path[i] ? v->path[i] : "", (size_t)-1);
	return h ? h : 1;
}

/* the sum of the subsystems' rises (idle left out): what the windows must
 * hold (seqstop_windows); not the busy total, which a saturated machine
 * keeps flat while the load displaces other work */
static double look_rises(const struct tree *t)
{
	double up = 0;

	for (unsigned i = 0; t && t->root && i < t->root->nchild; i++) {
		const struct tree_node *c = t->root->child[i];

		if (c->kind == TREE_SUBSYS && c->subsys == SUBSYS_IDLE)
			continue;
		if (c->stat.delta > 0)
			up += c->stat.delta;
	}
	return up;
}

/* 1 when path b continues path a below a's end (b deeper, a its prefix) */
static int goes_deeper(const struct verdict *a, const struct verdict *b)
{
	if (!b->found || b->npath <= a->npath)
		return 0;
	if (a->found && strcmp(a->subsystem, b->subsystem))
		return 0;
	for (unsigned i = 0; i < a->npath; i++)
		if (strcmp(a->path[i] ? a->path[i] : "", b->path[i] ? b->path[i] : ""))
			return 0;
	return 1;
}

/* one analysis with the explain share and alpha changed */
static int look_run(const struct profile *p, const struct analysis_opts *ao, double explain,
		    double alpha, struct analysis *an, char **cause)
{
	struct analysis_opts o = *ao;
	struct calib_opts co;

	if (ao->calib)
		co = *ao->calib;
	else
		calib_opts_default(&co);
	co.alpha = alpha;
	o.calib = &co;
	o.explain = explain;
	o.sort = 0;
	return analysis_run(p, NULL, 0, &o, an, cause);
}

int seqstop_look_build(const struct profile *p, const struct analysis_opts *ao, double margin,
		       unsigned pair, struct seqstop_look *look, char **cause)
{
	struct analysis lo = { 0 }, hi = { 0 }, rx = { 0 }, an = { 0 };
	struct calib_opts def;
	const struct calib_opts *co = ao->calib;
	const struct verdict *v = &an.verdict;
	const struct tree_node *n;
	double explain = ao->explain > 0 && ao->explain <= 1 ? ao->explain : 0.5, alpha, relax;
	uint64_t hlo, hhi;
	int err, deeper = 0;

	memset(look, 0, sizeof(*look));
	look->pair = pair;
	look->max_q = 1;
	if (!co) {
		calib_opts_default(&def);
		co = &def;
	}
	alpha = co->alpha;
	relax = fmin(0.5, alpha * SEQSTOP_RELAX_ALPHA);
	err = look_run(p, ao, explain, alpha, &an, cause);
	if (!err && an.calibrated)
		err = look_run(p, ao, fmax(0.01, explain - margin), alpha, &lo, cause);
	if (!err && an.calibrated)
		err = look_run(p, ao, fmin(1.0, explain + margin), alpha, &hi, cause);
	if (!err && an.calibrated)
		err = look_run(p, ao, explain, relax, &rx, cause);
	if (err || !an.calibrated || !an.descended)
		goto cleanup; /* nothing to compare yet: a look without a verdict */
	deeper = goes_deeper(v, &rx.verdict);
	look->rises = look_rises(an.t);
	look->found = v->found;
	look->changing = v->phase_pending;
	look->filling = v->cache_fill;
	look->path_hash = verdict_hash(v);
	look->depth = v->npath;
	look->max_q = v->found ? 0 : 1;
	look->all_significant = v->found;
	if (v->leaf)
		snprintf(look->leaf, sizeof(look->leaf), "%s", v->leaf);
	/* the nodes entered: marked children from the root down.  A node whose
	 * own total did not move (its time shifted from one child to another:
	 * a victim's writes that now spin on a lock's owner instead of
	 * copying) is entered for a child that rose: the decision there is
	 * the child's, and its significance is what counts.  So the path's
	 * decisions are those from the last node that is not significant
	 * down: each must be, and there must be one.  (Requiring every node
	 * made such a verdict wait for the deadline, q = 1 at the parent
	 * forever: lock_victim 6-7 pairs, 8 s.) */
	for (n = an.t->root; v->found && n;) {
		const struct tree_node *next = NULL;

		for (unsigned i = 0; i < n->nchild && !next; i++)
			if (n->child[i]->flags & TREE_F_VERDICT)
				next = n->child[i];
		if (!next)
			break;
		if (!next->stat.significant) {
			look->max_q = 0;           /* the decisions below decide */
			look->all_significant = 0; /* ... and there must be one */
		} else {
			if (!(next->stat.q <= look->max_q))
				look->max_q = next->stat.q;
			look->all_significant = 1;
		}
		n = next;
	}
	hlo = verdict_hash(&lo.verdict);
	hhi = verdict_hash(&hi.verdict);
	look->robust = hlo == look->path_hash && hhi == look->path_hash && !deeper;
	if (deeper)
		snprintf(look->near, sizeof(look->near), "at q <= %.2g the verdict goes on to %s",
			 relax, rx.verdict.leaf ? rx.verdict.leaf : "?");
	else if (hlo != look->path_hash)
		snprintf(look->near, sizeof(look->near), "with a %.0f%% share the verdict is %s",
			 fmax(0.01, explain - margin) * 100,
			 lo.verdict.found && lo.verdict.leaf ? lo.verdict.leaf : "not found");
	else if (hhi != look->path_hash)
		snprintf(look->near, sizeof(look->near), "with a %.0f%% share the verdict is %s",
			 fmin(1.0, explain + margin) * 100,
			 hi.verdict.found && hi.verdict.leaf ? hi.verdict.leaf : "not found");
cleanup:
	analysis_clear(&lo);
	analysis_clear(&hi);
	analysis_clear(&rx);
	analysis_clear(&an);
	return err;
}

/* ---- the rule ----------------------------------------------------------------- */

static int same_path(const struct seqstop_look *a, const struct seqstop_look *b)
{
	return a->found == b->found && a->path_hash == b->path_hash;
}

void seqstop_decide(const struct seqstop_look *looks, unsigned n, const struct seqstop_opts *o,
		    struct seqstop_decision *d)
{
	struct seqstop_opts def;
	const struct seqstop_look *last;
	unsigned run = 1, changed_at = 0, stable, first;
	double qmax = 0;
	int sig = 1, robust = 1;
	const char *near = NULL, *unsettled;
	char why[160];

	memset(d, 0, sizeof(*d));
	if (!o) {
		seqstop_opts_default(&def);
		o = &def;
	}
	if (!n) {
		snprintf(d->reason, sizeof(d->reason), "no pair measured yet");
		return;
	}
	last = &looks[n - 1];
	d->pairs = last->pair;
	stable = o->stable ? o->stable : 1;
	for (unsigned i = 1; i < n; i++)
		if (!same_path(&looks[i], &looks[i - 1]))
			changed_at = looks[i].pair;
	while (run < n && same_path(&looks[n - 1 - run], last))
		run++;
	first = n >= stable ? n - stable : 0;
	for (unsigned i = first; i < n; i++) {
		const struct seqstop_look *l = &looks[i];

		if (!l->all_significant || !(l->max_q <= o->alpha))
			sig = 0;
		if (l->max_q > qmax)
			qmax = l->max_q;
		if (!l->robust) {
			robust = 0;
			if (l->near[0])
				near = l->near;
		}
	}
	/* for a status bar: why it has not settled, in a few words */
	unsettled = !last->found ? "no bottleneck found" :
		    run < stable ? "the verdict still moved" :
		    last->changing ? "the load changing" :
		    last->filling ? "a cache being filled" :
		    !sig ? "a decision not significant" : "near a threshold";
	if (!last->found)
		snprintf(why, sizeof(why), "no bottleneck found%s",
			 changed_at ? "" : " at any look");
	else if (run < stable && changed_at)
		snprintf(why, sizeof(why), "the verdict still moved at pair %u", changed_at);
	else if (run < stable)
		snprintf(why, sizeof(why), "the path held over %u of the %u looks it needs", run,
			 stable);
	else if (last->changing)
		snprintf(why, sizeof(why), "the load changed character in the last loaded window "
			 "(a start-up phase ending?)");
	else if (last->filling)
		snprintf(why, sizeof(why), "a cache is being filled (block reads, slab growth): "
			 "measuring on while the deadline allows, in case it is a cold start");
	else if (!sig)
		snprintf(why, sizeof(why), "a decision on the path is not significant under the "
			 "sequential test (q=%.2g)", qmax);
	else if (!robust && run < 2 * stable)
		snprintf(why, sizeof(why), "near a threshold (%s)",
			 near ? near : "the path moves with the explain share");
	else if (last->pair < o->min_pairs)
		snprintf(why, sizeof(why), "the minimum is %u pairs", o->min_pairs);
	else {
		char qs[32];

		d->stop = d->settled = 1;
		if (qmax <= 0)
			snprintf(qs, sizeof(qs), "0");
		else if (qmax >= 1e-3)
			snprintf(qs, sizeof(qs), "%.2g", qmax); /* "0.03", not "1e-01" */
		else
			/* the next power of ten above the largest q */
			snprintf(qs, sizeof(qs), "1e%+03d", (int)ceil(log10(qmax) - 1e-9));
		snprintf(d->reason, sizeof(d->reason),
			 "settled after %u pair%s: path stable over %u pair%s%s, q <= %s at every step",
			 last->pair, last->pair == 1 ? "" : "s", run, run == 1 ? "" : "s",
			 robust ? "" : " (near a threshold)",
			 qmax >= 1e-300 ? qs : "1e-300");
		snprintf(d->brief, sizeof(d->brief), "settled after %u pair%s, q <= %s", last->pair,
			 last->pair == 1 ? "" : "s", qmax >= 1e-300 ? qs : "1e-300");
		return;
	}
	if (last->pair < o->max_pairs && o->deadline_s > 0 && last->elapsed_s > 0 &&
	    last->pair >= o->min_pairs && last->pair >= SEQSTOP_DEADLINE_MIN_PAIRS &&
	    last->elapsed_s + last->elapsed_s / last->pair > o->deadline_s) {
		/* the next pair, as long as the average one, would end past it */
		d->stop = 1;
		snprintf(d->reason, sizeof(d->reason), "deadline of %.1f s of measuring reached "
			 "after %u pairs (%.1f s); %.100s", o->deadline_s, last->pair, last->elapsed_s, why);
		snprintf(d->brief, sizeof(d->brief), "deadline after %u pairs: %s", last->pair,
			 unsettled);
		return;
	}
	if (last->pair >= o->max_pairs) {
		d->stop = 1;
		snprintf(d->reason, sizeof(d->reason), "maximum of %u pairs reached; %s",
			 o->max_pairs, why);
		snprintf(d->brief, sizeof(d->brief), "maximum of %u pairs: %s", o->max_pairs,
			 unsettled);
	} else {
		snprintf(d->reason, sizeof(d->reason), "measuring: %s", why);
	}
}

/* ---- adaptive windows ---------------------------------------------------------- */

#define SEQSTOP_SETTLE_REACHED 0.8 /* of the steady rate */

void seqstop_window_bounds_default(struct seqstop_window_bounds *b)
{
	b->window_min_s = 0.25;
	b->window_max_s = 1.0; /* 12 pairs of thin data: ~25 s at most */
	b->settle_min_s = 0.03;
	b->settle_max_s = 0.5;
}

static double clampd(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

void seqstop_windows(const struct seqstop_window_in *in, const struct seqstop_window_bounds *b,
		     struct seqstop_window_out *out)
{
	struct seqstop_window_bounds def;
	double inc = in->load_rate - in->ref_rate, steady = 0, settle = in->settle_s;
	char sw[96], ss[96];
	unsigned half;

	if (!b) {
		seqstop_window_bounds_default(&def);
		b = &def;
	}
	/* window: about SEQSTOP_TARGET_SAMPLES of the increase per loaded window,
	 * so each pair's sign (and the test) has something to go on */
	if (inc > 0 && isfinite(inc)) {
		out->window_s = clampd(SEQSTOP_TARGET_SAMPLES / inc, b->window_min_s, b->window_max_s);
		snprintf(sw, sizeof(sw), "window %.2f s (the subsystems rise %+.0f samples/s when "
			 "loaded, ~%.0f a window)", out->window_s, inc, inc * out->window_s);
	} else {
		out->window_s = b->window_max_s;
		snprintf(sw, sizeof(sw), "window %.2f s (no increase in the first pair: thin data)",
			 out->window_s);
	}
	/* settle: when the busy rate after the resume reaches its level */
	if (in->slice && in->nslice >= 4 && in->slice_s > 0) {
		half = in->nslice / 2;
		for (unsigned i = half; i < in->nslice; i++)
			steady += in->slice[i];
		steady /= in->nslice - half;
	}
	if (steady > 0) {
		unsigned k;

		for (k = 0; k + 1 < in->nslice; k++)
			if ((in->slice[k] + in->slice[k + 1]) / 2 >= SEQSTOP_SETTLE_REACHED * steady)
				break;
		settle = (k + 1) * in->slice_s; /* one slice of margin */
		out->settle_s = clampd(settle, b->settle_min_s, b->settle_max_s);
		snprintf(ss, sizeof(ss), "settle %.2f s (the load at %.0f%% of its rate %.2f s after "
			 "the resume)", out->settle_s, SEQSTOP_SETTLE_REACHED * 100, k * in->slice_s);
	} else {
		out->settle_s = clampd(settle, b->settle_min_s, b->settle_max_s);
		snprintf(ss, sizeof(ss), "settle %.2f s (kept: no rate seen after the resume)",
			 out->settle_s);
	}
	snprintf(out->why, sizeof(out->why), "%s, %s", sw, ss);
}

/* analysis — profile and steps to the calibrated tree and verdict (see
 * analysis.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/descent.h"
#include "analysis/analysis.h"
#include "analysis/step_merge.h"
#include "data/subsys.h"
#include "base/util.h"

void analysis_clear(struct analysis *a)
{
	if (!a)
		return;
	tree_free(a->t);
	verdict_clear(&a->verdict);
	for (unsigned i = 0; i < a->nlines; i++)
		free(a->lines[i]);
	free(a->lines);
	for (unsigned i = 0; i < a->nnaive; i++)
		free(a->naive_path[i]);
	for (unsigned i = 0; i < a->nnaive_diff; i++)
		free(a->naive_diff_path[i]);
	memset(a, 0, sizeof(*a));
}

void analysis_take_verdict(struct analysis *a, struct verdict *v, char ***lines,
			   unsigned *nlines)
{
	*v = a->verdict;
	memset(&a->verdict, 0, sizeof(a->verdict));
	*lines = a->lines;
	*nlines = a->nlines;
	a->lines = NULL;
	a->nlines = 0;
}

char *analysis_calib_reason(const struct analysis *a, char *buf, size_t len)
{
	snprintf(buf, len, "%s", a->calib_err == -EINVAL || !a->calib_err ?
		 "no reference or no loaded window was measured" : strerror(-a->calib_err));
	return buf;
}

/* The sum below n (n included) of the positive part of each node's self
 * rate delta: its exact stacks' increases.  Steps' nodes count another
 * unit and are left out. */
static double analysis_pos_sum(const struct tree_node *n, const double *secs)
{
	double sum;

	if (n->flags & TREE_F_STEP)
		return 0;
	sum = fmax(0, n->self[COND_LOAD] / secs[COND_LOAD] - n->self[COND_REF] / secs[COND_REF]);
	for (unsigned i = 0; i < n->nchild; i++)
		sum += analysis_pos_sum(n->child[i], secs);
	return sum;
}

/* The simple per-stack differ (struct analysis, naive_diff). */
static int analysis_naive_diff(const struct tree *t, struct analysis *a)
{
	const struct tree_node *n = t->root;
	double secs[COND_N] = { 0 };

	for (unsigned w = 0; w < t->nwin; w++)
		if (t->wins[w].secs > 0 && t->wins[w].cond < COND_N)
			secs[t->wins[w].cond] += t->wins[w].secs;
	if (!(secs[COND_REF] > 0) || !(secs[COND_LOAD] > 0))
		return 0;
	while (n && n->nchild) {
		const struct tree_node *best = NULL;
		double bp = 0, self;

		for (unsigned i = 0; i < n->nchild; i++) {
			const struct tree_node *c = n->child[i];
			double cp;

			if (c->kind == TREE_SUBSYS && c->subsys == SUBSYS_IDLE)
				continue;
			cp = analysis_pos_sum(c, secs);
			if (cp > bp) {
				best = c;
				bp = cp;
			}
		}
		self = fmax(0, n->self[COND_LOAD] / secs[COND_LOAD] - n->self[COND_REF] / secs[COND_REF]);
		if (!best || (n->kind == TREE_FRAME && self >= bp))
			break;
		n = best;
		if (n->kind == TREE_SUBSYS) {
			snprintf(a->naive_diff_subsystem, sizeof(a->naive_diff_subsystem), "%s",
				 subsys_name(n->subsys));
			continue;
		}
		if (n->kind != TREE_FRAME && n->kind != TREE_EVENT)
			continue;
		if (a->nnaive_diff == VERDICT_MAX_PATH)
			break;
		a->naive_diff_path[a->nnaive_diff] = strdup(n->name);
		if (!a->naive_diff_path[a->nnaive_diff])
			return -ENOMEM;
		a->nnaive_diff++;
	}
	return 0;
}

/* The reference-less answer: hottest child by loaded total, down to a leaf;
 * the per-stack differ beside it. */
static int analysis_naive(const struct tree *t, struct analysis *a)
{
	const struct tree_node *n = t->root;
	int err = analysis_naive_diff(t, a);

	if (err)
		return err;

	while (n && n->nchild) {
		const struct tree_node *best = NULL;

		for (unsigned i = 0; i < n->nchild; i++) {
			const struct tree_node *c = n->child[i];

			if (c->kind == TREE_SUBSYS && c->subsys == SUBSYS_IDLE)
				continue;
			if (!best || c->total[COND_LOAD] > best->total[COND_LOAD])
				best = c;
		}
		if (!best || !best->total[COND_LOAD])
			break;
		n = best;
		if (n->kind == TREE_SUBSYS) {
			snprintf(a->naive_subsystem, sizeof(a->naive_subsystem), "%s",
				 subsys_name(n->subsys));
			continue;
		}
		if (n->kind != TREE_FRAME && n->kind != TREE_EVENT)
			continue;
		if (a->nnaive == VERDICT_MAX_PATH)
			break;
		a->naive_path[a->nnaive] = strdup(n->name);
		if (!a->naive_path[a->nnaive])
			return -ENOMEM;
		a->nnaive++;
	}
	return 0;
}

char *analysis_displaced_text(const struct analysis_displaced *d, unsigned n, int utf8,
			      char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		int w = snprintf(buf + off, len - off, "%s%s %s%.0f/s", i ? ", " : "displaced: ",
				 d[i].process, utf8 ? "\xe2\x88\x92" : "-", d[i].fall);

		if (w < 0 || (size_t)w >= len - off) {
			buf[off] = '\0'; /* whole entries only */
			break;
		}
		off += (size_t)w;
	}
	return buf;
}

/* The header's fields from the calibrated tree and the verdict, and their
 * joined text.  The header also says which other processes the load
 * displaced (reported, not diagnosed: verdict.displaced); a comm comes
 * from the kernel: its control bytes are shown as '?'. */
static void analysis_header(struct analysis *a, int utf8)
{
	const char *sep;
	size_t off;

	_Static_assert(sizeof(a->summary) == sizeof(a->subsystems), "summary starts as subsystems");
	calib_summary(a->t, utf8, a->subsystems, sizeof(a->subsystems));
	for (unsigned i = 0; i < a->verdict.ndisplaced && i < VERDICT_MAX_FALLS; i++) {
		const struct verdict_branch *b = &a->verdict.displaced[i];
		struct analysis_displaced *x = &a->displaced[a->ndisplaced++];

		snprintf(x->process, sizeof(x->process), "%s", b->process ? b->process : "?");
		for (char *c = x->process; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		x->fall = b->mass;
	}
	/* the separator, then as many whole entries as fit after it */
	memcpy(a->summary, a->subsystems, sizeof(a->summary));
	off = strlen(a->summary);
	sep = !a->ndisplaced || !off ? "" : utf8 ? " \xc2\xb7 " : " | ";
	if (off + strlen(sep) >= sizeof(a->summary))
		return;
	memcpy(a->summary + off, sep, strlen(sep) + 1);
	analysis_displaced_text(a->displaced, a->ndisplaced, utf8, a->summary + off + strlen(sep),
				sizeof(a->summary) - off - strlen(sep));
	if (!a->summary[off + strlen(sep)])
		a->summary[off] = '\0';
}

/* Phase [from, to) of p analysed alone, whole (no phase of its own).
 * A phase that cannot be judged (one condition missing) is not an error:
 * its calibrated or descended is 0.  0 or -errno with *cause. */
static int analysis_phase(const struct profile *p, unsigned from, unsigned to,
			  struct analysis_step *steps, unsigned nsteps,
			  const struct analysis_opts *o, struct analysis *ph, char **cause)
{
	struct analysis_opts whole = *o;
	struct profile *q = profile_windows(p, from, to);
	int err;

	memset(ph, 0, sizeof(*ph));
	if (!q)
		return errno == ENOMEM ? -ENOMEM : 0;
	whole.whole = 1;
	err = analysis_run(q, steps, nsteps, &whole, ph, cause);
	profile_free(q);
	return err;
}

/* The later phase of out's profile p (out->verdict.phase_from_win > 0):
 * analysed alone, it replaces *out, its verdict carrying the earlier
 * phase's own verdict (the windows before it, analysed alone).  A later
 * phase that cannot be judged leaves *out as it is.  0 or -errno with
 * *cause. */
static int analysis_later_phase(const struct profile *p, struct analysis_step *steps,
				unsigned nsteps, const struct analysis_opts *o,
				struct analysis *out, char **cause)
{
	struct analysis later = { 0 }, earlier = { 0 };
	unsigned from = out->verdict.phase_from_win, nload = 0;
	double early_s = 0;
	const char *said;
	int err;

	err = analysis_phase(p, from, p->nwin, steps, nsteps, o, &later, cause);
	if (!err && later.calibrated && later.descended)
		err = analysis_phase(p, 0, from, steps, nsteps, o, &earlier, cause);
	if (err || !later.calibrated || !later.descended)
		goto out;
	for (unsigned w = 0; w < from; w++)
		if (p->wins[w].cond == COND_LOAD) {
			early_s += p->wins[w].secs;
			nload++;
		}
	said = earlier.descended && earlier.verdict.summary ? earlier.verdict.summary
	       : "too few windows to judge it alone";
	later.t->phase_from_win = from;
	later.t->phase_windows = p->nwin;
	later.t->phase_loaded = nload;
	later.t->phase_early_s = early_s;
	later.t->phase_earlier = strdup(said);
	if (!later.t->phase_earlier || descent_phase_carry(later.t, &later.verdict)) {
		util_cause(cause, "cannot analyse: out of memory");
		err = -ENOMEM;
		goto out;
	}
	analysis_clear(out);
	*out = later;
	memset(&later, 0, sizeof(later));
out:
	analysis_clear(&later);
	analysis_clear(&earlier);
	return err;
}

int analysis_run(const struct profile *p, struct analysis_step *steps, unsigned nsteps,
		 const struct analysis_opts *o, struct analysis *out, char **cause)
{
	static const struct analysis_opts defaults = { .group = TREE_BY_SUBSYS };
	struct tree_opts topts = { 0 };
	struct descent_why why = { 0 };
	struct calib_opts co;
	int err;

	memset(out, 0, sizeof(*out));
	if (!o)
		o = &defaults;
	if (!p) {
		err = -EINVAL;
		util_cause(cause, "nothing measured yet: no profile to analyse");
		goto fail;
	}
	topts.group = o->group;
	topts.exclude_tgid = o->exclude_tgid;
	out->t = tree_build(p, &topts);
	if (!out->t) {
		err = errno ? -errno : -ENOMEM;
		util_cause(cause, "cannot build the tree: %s", strerror(-err));
		goto fail;
	}
	for (unsigned i = 0; i < nsteps; i++)
		steps[i].err = step_merge_into_tree(out->t, steps[i].step, steps[i].data,
						    steps[i].idx);
	if (o->calib)
		co = *o->calib;
	else
		calib_opts_default(&co);
	if (!co.freq_hz)
		co.freq_hz = o->freq_hz;
	if (profile_cond_windows(p, COND_REF) && profile_cond_windows(p, COND_LOAD))
		out->calib_err = calib_run(out->t, &co);
	else
		out->calib_err = -EINVAL;
	out->calibrated = out->calib_err == 0;
	if (out->calibrated) {
		out->descent_err = descent_run(out->t, NULL, o->explain > 0 ? o->explain : 0.5,
					       &out->verdict, &why);
		out->descended = out->descent_err == 0;
		out->lines = why.lines; /* the analysis owns the descent's lines now */
		out->nlines = why.nlines;
		analysis_header(out, o->utf8);
		err = analysis_naive(out->t, out);
		if (err) {
			util_cause(cause, "cannot analyse: out of memory");
			goto fail;
		}
		if (out->descended && out->verdict.phase_from_win && !o->whole) {
			err = analysis_later_phase(p, steps, nsteps, o, out, cause);
			if (err)
				goto fail;
		}
	}
	if (o->sort)
		tree_sort(out->t, out->calibrated ? TREE_SORT_DELTA : TREE_SORT_TOTAL);
	return 0;
fail:
	analysis_clear(out);
	return err;
}

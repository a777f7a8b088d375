/* analysis — profile and steps to the calibrated tree and verdict (see
 * analysis.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "analysis.h"
#include "step_merge.h"
#include "subsys.h"

__attribute__((format(printf, 2, 3)))
static void analysis_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (!cause)
		return;
	free(*cause);
	*cause = NULL;
	va_start(ap, fmt);
	if (vasprintf(cause, fmt, ap) < 0)
		*cause = NULL;
	va_end(ap);
}

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

/* The reference-less answer: hottest child by loaded total, down to a leaf. */
static int analysis_naive(const struct tree *t, struct analysis *a)
{
	const struct tree_node *n = t->root;

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

int analysis_run(const struct profile *p, struct analysis_step *steps, unsigned nsteps,
		 const struct analysis_opts *o, struct analysis *out, char **cause)
{
	static const struct analysis_opts defaults = { .group = TREE_BY_SUBSYS };
	struct tree_opts topts = { 0 };
	struct agent_reply reply = { 0 };
	struct calib_opts co;
	int err;

	memset(out, 0, sizeof(*out));
	if (!o)
		o = &defaults;
	if (!p) {
		err = -EINVAL;
		analysis_cause(cause, "nothing measured yet: no profile to analyse");
		goto fail;
	}
	topts.group = o->group;
	topts.exclude_tgid = o->exclude_tgid;
	out->t = tree_build(p, &topts);
	if (!out->t) {
		err = errno ? -errno : -ENOMEM;
		analysis_cause(cause, "cannot build the tree: %s", strerror(-err));
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
		out->descent_err = agent_descend(out->t, NULL, o->explain > 0 ? o->explain : 0.5,
						 &out->verdict, &reply);
		out->descended = out->descent_err == 0;
		out->lines = reply.lines;
		out->nlines = reply.nlines;
		reply.lines = NULL;
		reply.nlines = 0;
		agent_reply_clear(&reply);
		calib_summary(out->t, o->utf8, out->summary, sizeof(out->summary));
		err = analysis_naive(out->t, out);
		if (err) {
			analysis_cause(cause, "cannot analyse: out of memory");
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

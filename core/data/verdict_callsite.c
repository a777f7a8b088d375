/* verdict_callsite — the user-space call sites of a verdict path (issue
 * 27), from the user frames the profile keeps beside each kernel stack. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "data/profile.h"
#include "data/step_data.h"
#include "data/verdict.h"

/* One group: the stacks with the same user frames (interned: the same
 * pointers). */
struct vcs_group {
	const char *const *frames;
	unsigned n;
	double rise;
};

/* Whether stack st lies under the verdict's path.  A step's stack (its
 * profile: data/step_data.h) carries a marker frame ("[tp] ...",
 * "[offcpu] ...") after its kernel frames, and the tree hangs that marker
 * where the frames stop matching the tree (core/analysis/step_merge.c): the
 * path has it somewhere in the stack's frames, or not at all (the TUI's
 * path keeps TREE_FRAME nodes only).  So the stack's first marker and the
 * path's one equal to it are left out, and what remains of the path must
 * start the stack's frames.  A stack without a marker: plain prefix. */
static int vcs_on_path(const struct verdict *v, const struct profile_stack *st)
{
	const char *marker = NULL;
	unsigned k = 0, skipped = 0;

	for (unsigned i = 0; i < st->nframes && !marker; i++)
		if (step_data_frame_is_marker(st->frames[i]))
			marker = st->frames[i];
	for (unsigned i = 0; i < v->npath; i++) {
		if (marker && !skipped && !strcmp(v->path[i], marker)) {
			skipped = 1;
			continue;
		}
		if (k < st->nframes && st->frames[k] == marker)
			k++;
		if (k >= st->nframes || strcmp(st->frames[k], v->path[i]))
			return 0;
		k++;
	}
	return 1;
}

static int vcs_same(const struct vcs_group *g, const struct profile_stack *st)
{
	return g->n == st->nuframes &&
	       (!g->n || !memcmp(g->frames, st->uframes, g->n * sizeof(*g->frames)));
}

static int vcs_cmp(const void *a, const void *b)
{
	double x = ((const struct vcs_group *)a)->rise, y = ((const struct vcs_group *)b)->rise;

	return (x < y) - (x > y);
}

int verdict_callsite_add(struct verdict *v, const char *const *frames, unsigned n,
			 double rise, double share)
{
	struct verdict_callsite *c;

	if (vec_resize(&v->callsites, (size_t)v->ncallsites + 1, sizeof(*v->callsites)))
		return -ENOMEM;
	c = &v->callsites[v->ncallsites];
	memset(c, 0, sizeof(*c));
	c->rise = rise;
	c->share = share;
	if (n && !(c->frames = calloc(n, sizeof(*c->frames))))
		return -ENOMEM;
	v->ncallsites++; /* counted now: verdict_clear frees what was copied */
	for (unsigned k = 0; k < n; k++) {
		c->frames[k] = strdup(frames[k] ? frames[k] : "");
		if (!c->frames[k])
			return -ENOMEM;
		c->nframes++;
	}
	return 0;
}

int verdict_callsites_fill(struct verdict *v, const struct profile *p, uint32_t exclude_tgid)
{
	double secs[COND_N] = { profile_cond_secs(p, COND_REF), profile_cond_secs(p, COND_LOAD) };
	struct vcs_group *g = NULL;
	size_t ng = 0, cap = 0;
	double total = 0;
	int any_user = 0, err = 0;

	if (!v->found || !v->npath || secs[COND_LOAD] <= 0)
		return 0;
	for (size_t i = 0; i < p->nstacks && !any_user; i++)
		any_user = p->stacks[i].nuframes > 0;
	if (!any_user)
		return 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *st = &p->stacks[i];
		double n[COND_N] = { 0, 0 };
		size_t j;

		if ((exclude_tgid && st->tgid == exclude_tgid) || !vcs_on_path(v, st))
			continue;
		for (unsigned w = 0; w < p->nwin; w++)
			n[p->wins[w].cond] += (double)st->win[w];
		for (j = 0; j < ng && !vcs_same(&g[j], st); j++)
			;
		if (j == ng) {
			err = vec_grow(&g, &cap, ng + 1, sizeof(*g));
			if (err)
				goto out;
			g[ng].frames = st->uframes;
			g[ng].n = st->nuframes;
			g[ng].rise = 0;
			ng++;
		}
		g[j].rise += n[COND_LOAD] / secs[COND_LOAD] -
			     (secs[COND_REF] > 0 ? n[COND_REF] / secs[COND_REF] : 0);
	}
	for (size_t j = 0; j < ng; j++)
		if (g[j].rise > 0)
			total += g[j].rise;
	if (total <= 0)
		goto out;
	qsort(g, ng, sizeof(*g), vcs_cmp);
	for (size_t j = 0; j < ng && j < VERDICT_MAX_CALLSITES && g[j].rise > 0 && !err; j++)
		err = verdict_callsite_add(v, g[j].frames, g[j].n, g[j].rise, g[j].rise / total);
out:
	free(g);
	return err;
}

int verdict_callsites_fill_steps(struct verdict *v, const struct profile *p,
				 const struct profile *const *steps, unsigned nsteps,
				 uint32_t exclude_tgid)
{
	int err = p ? verdict_callsites_fill(v, p, exclude_tgid) : 0;

	for (unsigned i = 0; i < nsteps && !err && !v->ncallsites; i++)
		if (steps[i])
			err = verdict_callsites_fill(v, steps[i], exclude_tgid);
	return err;
}

void verdict_callsite_format(const struct verdict_callsite *c, unsigned max, char *buf,
			     size_t len)
{
	verdict_callsite_format_sep(c, max, " \u2190 ", buf, len);
}

void verdict_callsite_format_sep(const struct verdict_callsite *c, unsigned max,
				 const char *sep, char *buf, size_t len)
{
	size_t at = 0;
	unsigned shown = 0;

	if (!len)
		return;
	buf[0] = 0;
	if (!c->nframes) {
		snprintf(buf, len, "(no user stack)");
		return;
	}
	for (unsigned k = c->nframes; k-- > 0 && at < len;) {
		int r;

		if (shown == max) {
			snprintf(buf + at, len - at, "%s...", sep);
			return;
		}
		r = snprintf(buf + at, len - at, "%s%s", shown ? sep : "", c->frames[k]);
		if (r < 0)
			return;
		at += (size_t)r;
		shown++;
	}
}

/* app_tree — the tree shown by the interactive tree: built again by the
 * analysis (core/analysis/analysis.h) from the source's profile and the
 * steps' results (the agent pane's, a replay's), sorted (s), and laid out as
 * an icicle (i).  Split from app.c, app_keys.c and app_replay.c so that
 * they all call down into it (a key that re-sorts, a replay that moves, the
 * loop's refresh) and it calls none of them (doc/ARCHITECTURE.md, "The
 * rule", 3). */
#include <string.h>


#include "app_priv.h"
#include "output/session_step.h"
#include "measure/source_replay.h"

const struct app_sort app_sorts[5] = {
	{ "delta", TREE_SORT_DELTA }, { "load", TREE_SORT_LOAD }, { "total", TREE_SORT_TOTAL },
	{ "self", TREE_SORT_SELF }, { "name", TREE_SORT_NAME },
};

void app_sort_tree(struct app *a)
{
	enum tree_sort_key k = app_sorts[a->sort_idx].key;

	/* index 0 is what analysis_run did already (delta needs calibration) */
	if (a->sort_idx == 0)
		return;
	tree_sort(a->t, k);
}

/* In a replay, the steps whose results were recorded up to the current
 * event go into the tree as they did live (their event nodes and
 * annotations), so the tree is the one of that moment.  Fills out[0..max)
 * with steps and data the caller frees (own_s, own_d); returns the count. */
static unsigned app_replay_steps(struct app *a, struct analysis_step *out, struct step **own_s,
				struct step_data **own_d, unsigned max)
{
	const struct session_log *l = source_replay_log(a->src);
	size_t pos = source_replay_pos(a->src);
	unsigned n = 0;

	for (unsigned s = 1; l && s < l->nstep_profile && n < max; s++) {
		if (session_log_step_data(l, pos, s, &own_s[n], &own_d[n]) < 0)
			continue;
		out[n] = (struct analysis_step){ .step = own_s[n], .data = own_d[n], .idx = s };
		n++;
	}
	return n;
}

int app_rebuild(struct app *a, char **cause)
{
	const struct profile *p = a->src->ops->profile(a->src);
	struct analysis_opts ao = {
		.group = a->group, .exclude_tgid = a->o.exclude_tgid, .freq_hz = a->st.freq_hz,
		.explain = a->o.explain, .utf8 = a->utf8, .sort = 1,
	};
	struct analysis_step steps[APP_MAX_STEPS];
	struct step *rs[APP_MAX_STEPS];
	struct step_data *rd[APP_MAX_STEPS];
	struct analysis next;
	struct calib_opts co;
	unsigned npane = 0, nrep = 0;
	int err;

	if (!p)
		return 0;
	calib_opts_default(&co);
	co.sequential = a->o.sequential; /* the measure source stops when settled */
	ao.calib = &co;
	if (a->pane)
		npane = pane_steps(a->pane, steps, APP_MAX_STEPS);   /* accepted steps' results, again */
	if (a->replay)
		nrep = app_replay_steps(a, steps + npane, rs, rd, APP_MAX_STEPS - npane);
	err = analysis_run(p, steps, npane + nrep, &ao, &next, cause);
	for (unsigned i = 0; i < nrep; i++) {
		step_data_free(rd[i]);
		step_free(rs[i]);
	}
	if (err)
		return err;
	if (a->pane) {
		pane_merged(a->pane, steps, npane);
		pane_after_rebuild(a->pane, next.t);
	}
	analysis_clear(&a->an);
	a->an = next;
	a->t = a->an.t;
	a->calibrated = a->an.calibrated;
	/* live sampling only: a measurement's and a replay's windows are the
	 * record its verdict rests on */
	if (a->o.decay_s > 0 && !a->calibrated && a->st.phase == SOURCE_LIVE) {
		err = view_decay_apply(&a->decay, a->t, util_mono_s());
		if (err) {
			util_cause(cause, "cannot decay the counts: %s", strerror(-err));
			return err;
		}
	}
	app_sort_tree(a);
	err = view_tree_set(a->v, a->t, a->calibrated);
	if (err)
		util_cause(cause, "cannot lay out the tree: %s", strerror(-err));
	return err;
}

int app_icicle_layout(struct app *a)
{
	int h = a->scr.tree.h;

	return icicle_layout(&a->ic, a->t, a->calibrated, a->scr.tree.w,
			     (unsigned)(h > 3 ? h - 3 : 1));
}

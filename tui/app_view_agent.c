/* app_view_agent — the agent pane's view in the side area: the
 * transcript and the card (tui/view_agent.c draws them), with the verdict
 * line kept in view, and its keys: accept, edit (a field, or the whole
 * step as JSON in $EDITOR), veto with a reason, another, undo, talk, focus
 * and zoom.  A replayed pane only shows: focus, zoom and scrolling. */
#include <stdlib.h>
#include <string.h>

#include "app_priv.h"
#include "edit_spec.h"
#include "measure/source_replay.h"
#include "view_agent.h"

static void pane_edit_field(struct app *a)
{
	struct pane *p = a->pane;
	const char *f = fmt_agent_fields[p->cursor];
	char val[1024], pr[64], *line;
	int names = !strcmp(f, "target") || !strcmp(f, "begin") || !strcmp(f, "end");

	fmt_agent_field_value(pane_shown_step(p), f, val, sizeof(val));
	snprintf(pr, sizeof(pr), "%s> ", f);
	line = app_prompt(a, a->field, pr, val, names ? EDIT_COMPLETE_NAMES : EDIT_COMPLETE_NONE);
	if (!line)
		return;                   /* abandoned: unchanged */
	pane_edit_set(p, f, line);
	free(line);
}

static void pane_edit_whole(struct app *a)
{
	struct pane *p = a->pane;
	char *json, *out = NULL, *cause = NULL;
	int rc;

	if (p->mode == FMT_AGENT_MODE_PROPOSAL && pane_edit_begin(p) < 0)
		return;
	if (p->mode != FMT_AGENT_MODE_EDIT) {
		app_msg(a, "nothing to edit: no proposal is waiting");
		return;
	}
	json = step_to_json(pane_shown_step(p));
	if (!json) {
		app_msg(a, "cannot write the step as JSON: out of memory");
		return;
	}
	rc = edit_spec_run(json, &out, &cause);
	screen_invalidate(&a->scr);
	if (rc < 0)
		app_msg(a, "%s", cause ? cause : "the editor failed");
	else if (rc == 1)
		app_msg(a, "unchanged");
	else if (out)
		pane_edit_json(p, out);
	free(json);
	free(out);
	free(cause);
}

static int key_pane_scrolls(enum key_action act)
{
	return act == KEY_ACT_UP || act == KEY_ACT_DOWN || act == KEY_ACT_PGUP ||
	       act == KEY_ACT_PGDN || act == KEY_ACT_HOME || act == KEY_ACT_END;
}

/* Keys for the agent pane; returns 1 when the key was taken. */
static int key_pane(struct app *a, int code)
{
	struct pane *p = a->pane;
	enum key_action act = key_lookup(code);
	char *line;

	/* a replayed pane only shows: focus, zoom and (focused) scrolling */
	if (a->replay && act != KEY_ACT_PANE_FOCUS && act != KEY_ACT_ZOOM &&
	    !(a->focus_agent && key_pane_scrolls(act)))
		return 0;
	if (p->mode == FMT_AGENT_MODE_EDIT) {
		switch (act) {
		case KEY_ACT_UP:
			if (p->cursor > 0)
				p->cursor--;
			p->version++;
			return 1;
		case KEY_ACT_DOWN:
			if (fmt_agent_fields[p->cursor + 1])
				p->cursor++;
			p->version++;
			return 1;
		case KEY_ACT_TOGGLE:
		case KEY_ACT_EDIT:
			pane_edit_field(a);
			return 1;
		case KEY_ACT_CANCEL:
			pane_edit_abandon(p);
			return 1;
		default:
			break;
		}
	}
	switch (act) {
	case KEY_ACT_PANE_FOCUS:
		a->focus_agent = !a->focus_agent;
		if (a->scr.zoom != SCREEN_ZOOM_NONE) {
			a->scr.zoom = a->focus_agent ? SCREEN_ZOOM_AGENT : SCREEN_ZOOM_TREE;
			app_relayout(a);
		}
		app_msg(a, "focus: %s", a->focus_agent ? "agent pane" : "tree");
		return 1;
	case KEY_ACT_ZOOM:
		a->scr.zoom = a->scr.zoom != SCREEN_ZOOM_NONE ? SCREEN_ZOOM_NONE :
			      a->focus_agent ? SCREEN_ZOOM_AGENT : SCREEN_ZOOM_TREE;
		app_relayout(a);
		return 1;
	case KEY_ACT_ACCEPT:
		pane_accept(p, a->t);
		return 1;
	case KEY_ACT_EDIT:
		pane_edit_begin(p);
		return 1;
	case KEY_ACT_EDIT_JSON:
		pane_edit_whole(a);
		return 1;
	case KEY_ACT_VETO:
		if (p->mode != FMT_AGENT_MODE_PROPOSAL && p->mode != FMT_AGENT_MODE_EDIT) {
			pane_veto(p, a->t, NULL);  /* says there is nothing to veto */
			return 1;
		}
		line = app_prompt(a, a->field, "veto reason (Enter: none; Ctrl-C: keep it)> ", NULL,
			      EDIT_COMPLETE_NONE);
		if (line)
			pane_veto(p, a->t, line);
		else
			app_msg(a, "not vetoed: the proposal is still waiting");
		free(line);
		return 1;
	case KEY_ACT_ANOTHER:
		pane_another(p, a->t);
		return 1;
	case KEY_ACT_UNDO:
		pane_undo(p);
		return 1;
	case KEY_ACT_TALK:
		line = app_prompt(a, a->talk, "talk to the agent> ", NULL, EDIT_COMPLETE_NAMES);
		if (line && *line)
			pane_talk(p, a->t, line);
		free(line);
		return 1;
	case KEY_ACT_FOCUS_NODE:
		if (view_tree_selected(a->v))
			pane_focus(p, a->t, view_tree_selected(a->v));
		return 1;
	case KEY_ACT_CANCEL:
		pane_cancel(p);
		return 1;
	default:
		break;
	}
	if (a->focus_agent) {
		int page = a->scr.agent.h > 4 ? a->scr.agent.h - 4 : 1;

		switch (act) {
		case KEY_ACT_UP:
			view_agent_scroll(p, 1);
			return 1;
		case KEY_ACT_DOWN:
			view_agent_scroll(p, -1);
			return 1;
		case KEY_ACT_PGUP:
			view_agent_scroll(p, page);
			return 1;
		case KEY_ACT_PGDN:
			view_agent_scroll(p, -page);
			return 1;
		case KEY_ACT_HOME:
			view_agent_scroll(p, 1 << 20);
			return 1;
		case KEY_ACT_END:
			view_agent_scroll(p, -(1 << 20));
			return 1;
		default:
			break;
		}
	}
	return 0;
}

static int agent_view_key(struct app *a, const struct app_key *k, char **cause)
{
	(void)cause;
	return a->pane && key_pane(a, k->code) ? APP_DRAW_PANES : APP_KEY_PASS;
}

/* 1 while the verdict shown may still change with more windows: they are
 * being measured, or the last ones are not in the tree yet; in a replay,
 * until the recorded diagnosis. */
static int app_provisional(struct app *a)
{
	if (a->replay)
		return source_replay_verdict(a->src) == NULL;
	return fmt_run_measuring(&a->st) || (a->st.phase == SOURCE_DONE && a->pending_change);
}

/* The ◆ path of the tree shown, one line (the agent pane keeps it in view
 * while a proposal waits for a decision). */
static void app_verdict_line(struct app *a, struct fmt_line *l, int width)
{
	const struct verdict *v = &a->an.verdict;
	struct fmt_verdict fv = {
		.found = a->an.descended && v->found,
		.provisional = app_provisional(a),
		.subsystem = v->subsystem,
		.path = v->path,
		.npath = v->npath,
		.nbranches = v->nbranches,
		.waker = v->waker,
	};

	fmt_verdict_line(l, width, &fv, a->gl);
}

static void agent_view_draw(struct app *a, const struct app_frame *f)
{
	struct fmt_line vl;

	(void)f;
	if (!a->pane)
		return;
	app_verdict_line(a, &vl, a->scr.agent.w);
	view_agent_draw(&a->scr, a->pane, a->pane->agent ? a->pane->agent->ops->name :
			a->replay ? "replay" : "none", a->focus_agent,
			a->calibrated ? &vl : NULL, a->gl);
}

/* the pane stops a running step before the loads end: app.c frees the
 * views before it stops the source */
static void agent_view_free(struct app *a)
{
	pane_free(a->pane);
	a->pane = NULL;
}

const struct app_view_ops app_view_agent = {
	.name = "agent",
	.area = APP_AREA_SIDE,
	.draw = agent_view_draw,
	.key = agent_view_key,
	.free = agent_view_free,
};

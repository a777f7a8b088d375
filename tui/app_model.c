/* app_model — the model view in the interactive tree (m), a view of the
 * side area (app_view_model): where it goes on screen and its keys.  What
 * it shows is tui/view_model.c's. */
#include "app_priv.h"

/* the side pane beside the tree on wide terminals; the whole middle on
 * narrow ones (stacked below the tree it would have a dozen rows) */
static int app_model_zoom(const struct app *a)
{
	return a->scr.cols < 120 ? SCREEN_ZOOM_AGENT : SCREEN_ZOOM_NONE;
}

static int app_model_open(const struct app *a)
{
	return a->model && a->model->open;
}

void app_model_toggle(struct app *a)
{
	struct view_model *vm = a->model;

	if (!vm && !(vm = a->model = view_model_new())) {
		app_msg(a, "no model view: out of memory");
		return;
	}
	if (!vm->open) {
		vm->open = 1;
		vm->top = 0;
		vm->saved_want_agent = a->scr.want_agent;
		vm->saved_zoom = a->scr.zoom;
		a->scr.want_agent = 1;
		a->scr.zoom = app_model_zoom(a);
		view_model_update(vm, a->src, a->replay, a->utf8);
		app_view_open(a, &app_view_model);
	} else {
		vm->open = 0;
		a->scr.want_agent = vm->saved_want_agent;
		a->scr.zoom = vm->saved_zoom;
		app_view_close(a, &app_view_model);
	}
	app_relayout(a);
}

/* Before drawing: a resize across 120 columns moves the view; a growing
 * wait graph. */
static void model_view_fit(struct app *a)
{
	if (!app_model_open(a))
		return;
	if (a->scr.zoom != app_model_zoom(a)) {
		a->scr.zoom = app_model_zoom(a);
		app_relayout(a);
	}
	view_model_update(a->model, a->src, a->replay, a->utf8);
}

/* Its keys while open (1: taken). */
static int app_model_key(struct app *a, int code)
{
	enum key_action act = a->replay ? key_lookup_replay(code) : key_lookup(code);
	int takeover = !screen_tree_shown(&a->scr);
	int page = a->scr.agent.h > 4 ? a->scr.agent.h - 3 : 1;

	if (!app_model_open(a))
		return 0;
	if (act == KEY_ACT_MODEL || code == 27) {
		app_model_toggle(a);
		return 1;
	}
	switch (act) {
	case KEY_ACT_UP:
	case KEY_ACT_DOWN:
	case KEY_ACT_PGUP:
	case KEY_ACT_PGDN:
	case KEY_ACT_HOME:
	case KEY_ACT_END:
		if (!takeover)
			return 0;       /* the tree's, beside the view */
		view_model_scroll(a->model, act == KEY_ACT_UP ? -1 : act == KEY_ACT_DOWN ? 1 :
				  act == KEY_ACT_PGUP ? -page : act == KEY_ACT_PGDN ? page :
				  act == KEY_ACT_HOME ? -(1 << 20) : 1 << 20);
		return 1;
	case KEY_ACT_PANE_FOCUS:
	case KEY_ACT_ZOOM:
	case KEY_ACT_ACCEPT:
	case KEY_ACT_EDIT:
	case KEY_ACT_EDIT_JSON:
	case KEY_ACT_VETO:
	case KEY_ACT_ANOTHER:
	case KEY_ACT_UNDO:
	case KEY_ACT_TALK:
	case KEY_ACT_FOCUS_NODE:
	case KEY_ACT_CANCEL:
		/* nothing is decided on a proposal the person cannot see */
		app_msg(a, "the model view covers the agent pane: m goes back to it");
		return 1;
	case KEY_ACT_QUIT:
	case KEY_ACT_HELP:
	case KEY_ACT_THEME:
	case KEY_ACT_REDRAW:
	case KEY_ACT_REPLAY_NEXT:
	case KEY_ACT_REPLAY_PREV:
	case KEY_ACT_REPLAY_START:
	case KEY_ACT_REPLAY_END:
		return 0;
	default:
		if (!takeover)
			return 0;
		app_msg(a, "the model view covers the tree: m goes back to it");
		return 1;
	}
}

static int model_view_key(struct app *a, const struct app_key *k, char **cause)
{
	(void)cause;
	return app_model_key(a, k->code) ? APP_DRAW_PANES : APP_KEY_PASS;
}

/* it owns the side pane while open; the whole middle when the tree is
 * hidden */
static void model_view_draw(struct app *a, const struct app_frame *f)
{
	(void)f;
	view_model_draw(&a->scr, a->model, !screen_tree_shown(&a->scr), a->gl);
}

static void model_view_free(struct app *a)
{
	view_model_free(a->model);
	a->model = NULL;
}

const struct app_view_ops app_view_model = {
	.name = "model",
	.area = APP_AREA_SIDE,
	.fit = model_view_fit,
	.draw = model_view_draw,
	.key = model_view_key,
	.free = model_view_free,
};

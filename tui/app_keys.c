/* app_keys — the interactive tree's keys: search, overlays, the agent
 * pane and the action table of the tree (tui/view_keys.c binds the keys
 * and carries their help). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "app_priv.h"
#include "edit_line.h"
#include "edit_spec.h"
#include "view_agent.h"

/* ---- keys ------------------------------------------------------------------------- */

static void search_run(struct app *a)
{
	a->v->sel_id = a->search_origin;
	view_tree_flatten(a->v);
	a->search_found = a->qlen ? view_tree_find(a->v, 1, 1, view_tree_match_name, a->query) : 1;
}

static void key_search(struct app *a, int fn, wint_t ch)
{
	if (!fn && (ch == '\n' || ch == '\r')) {
		snprintf(a->last_query, sizeof(a->last_query), "%s", a->query);
		a->mode = MODE_TREE;
		if (a->qlen && !a->search_found)
			app_msg(a, "no match for '%s'", a->query);
		return;
	}
	if (!fn && ch == 27) { /* Esc: back where the search started */
		a->v->sel_id = a->search_origin;
		view_tree_flatten(a->v);
		a->mode = MODE_TREE;
		return;
	}
	if ((fn && ch == KEY_BACKSPACE) || (!fn && (ch == 127 || ch == 8))) {
		while (a->qlen && ((unsigned char)a->query[a->qlen - 1] & 0xc0) == 0x80)
			a->qlen--;
		if (a->qlen)
			a->qlen--;
		a->query[a->qlen] = '\0';
		search_run(a);
		return;
	}
	if (!fn && ch == KEY_CTRL('u')) {
		a->qlen = 0;
		a->query[0] = '\0';
		search_run(a);
		return;
	}
	if (!fn && ch >= 32) {
		char mb[MB_LEN_MAX];
		mbstate_t ps;
		size_t n;

		memset(&ps, 0, sizeof(ps));
		n = wcrtomb(mb, (wchar_t)ch, &ps);
		if (n == (size_t)-1 || a->qlen + n >= sizeof(a->query))
			return;
		memcpy(a->query + a->qlen, mb, n);
		a->qlen += n;
		a->query[a->qlen] = '\0';
		search_run(a);
	}
}

static void key_overlay(struct app *a, int code)
{
	int page = a->scr.rows > 6 ? a->scr.rows - 6 : 1;

	switch (key_lookup(code)) {
	case KEY_ACT_UP:
		a->ov_top--;
		return;
	case KEY_ACT_DOWN:
		a->ov_top++;
		return;
	case KEY_ACT_PGUP:
		a->ov_top -= page;
		return;
	case KEY_ACT_PGDN:
		a->ov_top += page;
		return;
	case KEY_ACT_QUIT:
		if (code == 'q' || code == 'Q') {
			app_overlay_close(a);
			return;
		}
		break;
	default:
		break;
	}
	app_overlay_close(a);
}

static char *prompt(struct app *a, struct edit_line *e, const char *text, const char *initial,
		    enum edit_complete what)
{
	char *line;

	if (!e) {
		app_msg(a, "no line editor: out of memory");
		return NULL;
	}
	line = edit_line_read(e, text, initial, a->scr.rows - 1, what);
	screen_invalidate(&a->scr);
	return line;
}

static void pane_edit_field(struct app *a)
{
	struct pane *p = a->pane;
	const char *f = fmt_agent_fields[p->cursor];
	char val[1024], pr[64], *line;
	int names = !strcmp(f, "target") || !strcmp(f, "begin") || !strcmp(f, "end");

	fmt_agent_field_value(pane_shown_step(p), f, val, sizeof(val));
	snprintf(pr, sizeof(pr), "%s> ", f);
	line = prompt(a, a->field, pr, val, names ? EDIT_COMPLETE_NAMES : EDIT_COMPLETE_NONE);
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

	if (!p)
		return 0;
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
			screen_relayout(&a->scr);
			screen_set_theme(&a->scr, &a->theme, app_term_depth());
		}
		app_msg(a, "focus: %s", a->focus_agent ? "agent pane" : "tree");
		return 1;
	case KEY_ACT_ZOOM:
		a->scr.zoom = a->scr.zoom != SCREEN_ZOOM_NONE ? SCREEN_ZOOM_NONE :
			      a->focus_agent ? SCREEN_ZOOM_AGENT : SCREEN_ZOOM_TREE;
		screen_relayout(&a->scr);
		screen_set_theme(&a->scr, &a->theme, app_term_depth());
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
		line = prompt(a, a->field, "veto reason (Enter: none; Ctrl-C: keep it)> ", NULL,
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
		line = prompt(a, a->talk, "talk to the agent> ", NULL, EDIT_COMPLETE_NAMES);
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

/* ---- the tree's key actions -------------------------------------------------------
 *
 * One handler per action of the key table (tui/view_keys.c, which carries
 * each key's help); each returns what must be redrawn (enum app_draw) or
 * -errno with *cause.  The view is drawn after every batch of keys anyway;
 * APP_DRAW_ALL also repaints every cell (the terminal may be garbled). */

static int act_layout(struct app *a, enum key_action act, char **cause)
{
	struct view_tree *v = a->v;
	int err = 0;

	switch (act) {
	case KEY_ACT_TOGGLE:
		err = view_tree_toggle(v);
		break;
	case KEY_ACT_EXPAND:
		err = view_tree_expand(v);
		break;
	case KEY_ACT_COLLAPSE:
		err = view_tree_collapse(v);
		break;
	case KEY_ACT_EXPAND_ALL:
		err = view_tree_expand_all(v);
		break;
	default:
		err = view_tree_collapse_all(v);
		break;
	}
	if (err) {
		util_cause(cause, "out of memory laying out the tree");
		return err;
	}
	return APP_DRAW_TREE;
}

static int act_move(struct app *a, enum key_action act, char **cause)
{
	struct view_tree *v = a->v;
	long page = v->height > 1 ? (long)v->height - 1 : 1;

	(void)cause;
	switch (act) {
	case KEY_ACT_UP:
		view_tree_move(v, -1);
		break;
	case KEY_ACT_DOWN:
		view_tree_move(v, 1);
		break;
	case KEY_ACT_PGUP:
		view_tree_move(v, -page);
		break;
	case KEY_ACT_PGDN:
		view_tree_move(v, page);
		break;
	case KEY_ACT_HOME:
		view_tree_move_to(v, 0);
		break;
	default:
		view_tree_move_to(v, v->nrows ? v->nrows - 1 : 0);
		break;
	}
	return APP_DRAW_TREE;
}

static int act_search(struct app *a, enum key_action act, char **cause)
{
	(void)act;
	(void)cause;
	a->mode = MODE_SEARCH;
	a->qlen = 0;
	a->query[0] = '\0';
	a->search_found = 1;
	a->search_origin = a->v->sel_id;
	return APP_DRAW_TREE;
}

static int act_search_again(struct app *a, enum key_action act, char **cause)
{
	(void)cause;
	if (!a->last_query[0]) {
		app_msg(a, "no search yet: press / and type a name");
		return APP_DRAW_TREE;
	}
	if (view_tree_find(a->v, act == KEY_ACT_SEARCH_NEXT ? 1 : -1, 0, view_tree_match_name,
			   a->last_query) <= 0)
		app_msg(a, "no match for '%s'", a->last_query);
	return APP_DRAW_TREE;
}

static int act_significant(struct app *a, enum key_action act, char **cause)
{
	(void)cause;
	if (!a->calibrated) {
		app_msg(a, "nothing is marked: significance needs reference and loaded windows");
		return APP_DRAW_TREE;
	}
	if (view_tree_find(a->v, act == KEY_ACT_SIG_NEXT ? 1 : -1, 0, view_tree_match_significant,
			   NULL) <= 0)
		app_msg(a, "no significant node");
	return APP_DRAW_TREE;
}

static int act_overlay(struct app *a, enum key_action act, char **cause)
{
	(void)cause;
	if (act == KEY_ACT_WHY)
		app_open_why(a);
	else if (act == KEY_ACT_CALLERS)
		app_open_callers(a);
	else if (act == KEY_ACT_HELP)
		app_open_help(a);
	else if (act == KEY_ACT_LOAD_OUTPUT)
		app_open_load_output(a);
	else
		app_open_explain(a);
	return APP_DRAW_OVERLAY;
}

static int act_group(struct app *a, enum key_action act, char **cause)
{
	int err;

	(void)act;
	a->group = a->group == TREE_BY_PROCESS ? TREE_BY_SUBSYS : TREE_BY_PROCESS;
	view_decay_regroup(&a->decay); /* every node id changes */
	err = app_rebuild(a, cause);
	if (err)
		return err;
	app_msg(a, "grouped by %s", a->group == TREE_BY_PROCESS ? "process" : "subsystem");
	return APP_DRAW_TREE;
}

static int act_theme(struct app *a, enum key_action act, char **cause)
{
	(void)act;
	(void)cause;
	app_cycle_theme(a);
	return APP_DRAW_PANES;
}

static int act_redraw(struct app *a, enum key_action act, char **cause)
{
	(void)a;
	(void)act;
	(void)cause;
	return APP_DRAW_ALL;
}

static int act_quit(struct app *a, enum key_action act, char **cause)
{
	(void)act;
	(void)cause;
	a->quit = 1;
	return APP_DRAW_NONE;
}

/* the pane's keys when there is no pane (key_pane took them otherwise) */
static int act_no_pane(struct app *a, enum key_action act, char **cause)
{
	(void)act;
	(void)cause;
	if (!a->pane)
		app_msg(a, "no agent pane: it comes with a calibrated run (--load CMD)");
	return APP_DRAW_TREE;
}

static int act_export(struct app *a, enum key_action act, char **cause)
{
	(void)act;
	(void)cause;
	app_write_export(a);
	return APP_DRAW_TREE;
}

static int act_model(struct app *a, enum key_action act, char **cause)
{
	(void)act;
	(void)cause;
	app_model_toggle(a);
	return APP_DRAW_PANES;
}

/* 0: live sampling counts afresh (perf top's reset).  Only there: a
 * measurement's reference and loaded windows are what its verdict rests
 * on, and a replay's are the record. */
static int act_reset(struct app *a, enum key_action act, char **cause)
{
	char *why = NULL;
	int err;

	(void)act;
	(void)cause;
	err = a->src->ops->reset ? a->src->ops->reset(a->src, util_mono_s(), &why) : -ENOTSUP;
	if (err == -ENOTSUP)
		app_msg(a, "0: only in live sampling; these windows stay as measured");
	else if (err < 0)
		app_msg(a, "cannot reset the counts: %s", why ? why : strerror(-err));
	else {
		app_msg(a, "counts reset: sampling again from zero (the session keeps the rest)");
		view_decay_reset(&a->decay);
		/* the emptied tree at the tick that follows, not a refresh later */
		a->pending_change = 1;
		a->last_rebuild = 0;
	}
	free(why);
	return APP_DRAW_PANES;
}

static int act_replay(struct app *a, enum key_action act, char **cause)
{
	int err = app_replay_move(a, act, cause);

	return err < 0 ? err : APP_DRAW_PANES;
}

static int act_sort(struct app *a, enum key_action act, char **cause)
{
	int err;

	(void)act;
	a->sort_idx = (a->sort_idx + 1) % 5;
	if (a->sort_idx == 0 && !a->calibrated)
		a->sort_idx = 1;         /* no delta without calibration */
	if (a->sort_idx == 0)
		tree_sort(a->t, TREE_SORT_DELTA);
	else
		app_sort_tree(a);
	err = view_tree_set(a->v, a->t, a->calibrated);
	if (err) {
		util_cause(cause, "out of memory laying out the tree");
		return err;
	}
	app_msg(a, "sorted by %s", app_sorts[a->sort_idx].name);
	return APP_DRAW_TREE;
}

static int act_filter(struct app *a, enum key_action act, char **cause)
{
	char *line;
	int err;

	(void)act;
	line = prompt(a, a->field, "filter (Enter on empty: all)> ", a->v->filter,
		      EDIT_COMPLETE_NAMES);
	if (!line)
		return APP_DRAW_ALL;      /* abandoned: unchanged */
	err = view_tree_refilter(a->v, line, -1);
	free(line);
	if (err) {
		util_cause(cause, "out of memory filtering the tree");
		return err;
	}
	if (!a->v->filter[0])
		app_msg(a, "filter cleared: every node shown");
	return APP_DRAW_ALL;
}

static int act_threshold(struct app *a, enum key_action act, char **cause)
{
	static const double steps[] = { 0.001, 0.01, 0.05, 0 };
	double cur = a->v->threshold, next = steps[0];
	int err;

	(void)act;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] == cur) {
			next = steps[(i + 1) % (sizeof(steps) / sizeof(steps[0]))];
			break;
		}
	err = view_tree_refilter(a->v, a->v->filter, next);
	if (err) {
		util_cause(cause, "out of memory laying out the tree");
		return err;
	}
	if (next > 0)
		app_msg(a, "hiding nodes below %g%% of the total", next * 100);
	else
		app_msg(a, "every node shown (no threshold)");
	return APP_DRAW_TREE;
}

static int act_verdict_path(struct app *a, enum key_action act, char **cause)
{
	int err = view_tree_verdict_only(a->v);

	(void)act;
	if (err == -ENOENT) {
		app_msg(a, "no verdict path yet: it comes with the diagnosis");
		return APP_DRAW_TREE;
	}
	if (err) {
		util_cause(cause, "out of memory laying out the tree");
		return err;
	}
	return APP_DRAW_TREE;
}

static size_t base64(const unsigned char *in, size_t n, char *out)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);

		out[o++] = al[v >> 18 & 63];
		out[o++] = al[v >> 12 & 63];
		out[o++] = i + 1 < n ? al[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? al[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

/* OSC 52 sets the clipboard of the terminal the bytes reach, so it works
 * over SSH; tmux passes it on (and keeps a paste buffer) with set-clipboard. */
static int act_copy_path(struct app *a, enum key_action act, char **cause)
{
	char path[4096], b64[4096 / 3 * 4 + 8], seq[sizeof(b64) + 16];
	size_t n = view_tree_path(a->v, path, sizeof(path));
	int len;

	(void)act;
	(void)cause;
	if (!n) {
		app_msg(a, "nothing to copy: select a node below the root");
		return APP_DRAW_TREE;
	}
	base64((const unsigned char *)path, n, b64);
	len = snprintf(seq, sizeof(seq), "\033]52;c;%s\a", b64);
	fflush(stdout);
	if (len > 0 && write(STDOUT_FILENO, seq, (size_t)len) != len)
		app_msg(a, "could not write the copy sequence to the terminal");
	else if (getenv("TMUX"))
		/* tmux's default (set-clipboard external) drops what an
		 * application sends: "copied" would not be true */
		app_msg(a, "sent (OSC 52; tmux copies it with set-clipboard on): %s", path);
	else
		app_msg(a, "copied (OSC 52): %s", path);
	return APP_DRAW_TREE;
}

/* i: the icicle of the selected subtree, in the tree pane */
static int act_icicle(struct app *a, enum key_action act, char **cause)
{
	(void)act;
	(void)cause;
	if (!a->t || !view_tree_selected(a->v)) {
		app_msg(a, "nothing to show: the tree is empty");
		return APP_DRAW_TREE;
	}
	icicle_open(&a->ic, view_tree_selected(a->v));
	a->mode = MODE_ICICLE;
	return APP_DRAW_TREE;
}

/* Keys of the icicle view: arrows move, Enter zooms, Backspace zooms out,
 * Esc / q / i go back to the tree with its selection on the icicle's. */
static void key_icicle(struct app *a, int fn, wint_t ch, int code)
{
	struct icicle *ic = &a->ic;

	/* the tree may have been rebuilt since the last draw: nodes again */
	if (app_icicle_layout(a) < 0) {
		app_msg(a, "out of memory laying out the icicle");
		a->mode = MODE_TREE;
		return;
	}
	if ((fn && ch == KEY_BACKSPACE) || (!fn && (ch == 127 || ch == 8))) {
		if (!icicle_unzoom(ic))
			app_msg(a, "at the root already");
		return;
	}
	switch (key_lookup(code)) {
	case KEY_ACT_UP:
		icicle_move(ic, ICICLE_UP);
		return;
	case KEY_ACT_DOWN:
		icicle_move(ic, ICICLE_DOWN);
		return;
	case KEY_ACT_COLLAPSE:
		icicle_move(ic, ICICLE_LEFT);
		return;
	case KEY_ACT_EXPAND:
		icicle_move(ic, ICICLE_RIGHT);
		return;
	case KEY_ACT_TOGGLE:
		if (!icicle_zoom(ic))
			app_msg(a, "the view starts there already");
		return;
	case KEY_ACT_CANCEL:
	case KEY_ACT_QUIT:
	case KEY_ACT_ICICLE:
		if (ic->sel) /* the tree follows where the icicle went */
			view_tree_select_node(a->v, (struct tree_node *)ic->sel);
		a->mode = MODE_TREE;
		return;
	case KEY_ACT_REDRAW:
		screen_invalidate(&a->scr);
		return;
	default:
		app_msg(a, "icicle: arrows move, Enter zooms, Backspace zooms out, Esc back");
		return;
	}
}

typedef int (*app_key_fn)(struct app *a, enum key_action act, char **cause);

static const app_key_fn key_actions[] = {
	[KEY_ACT_TOGGLE] = act_layout,
	[KEY_ACT_EXPAND] = act_layout,
	[KEY_ACT_COLLAPSE] = act_layout,
	[KEY_ACT_EXPAND_ALL] = act_layout,
	[KEY_ACT_COLLAPSE_ALL] = act_layout,
	[KEY_ACT_UP] = act_move,
	[KEY_ACT_DOWN] = act_move,
	[KEY_ACT_PGUP] = act_move,
	[KEY_ACT_PGDN] = act_move,
	[KEY_ACT_HOME] = act_move,
	[KEY_ACT_END] = act_move,
	[KEY_ACT_SEARCH] = act_search,
	[KEY_ACT_SEARCH_NEXT] = act_search_again,
	[KEY_ACT_SEARCH_PREV] = act_search_again,
	[KEY_ACT_SIG_NEXT] = act_significant,
	[KEY_ACT_SIG_PREV] = act_significant,
	[KEY_ACT_WHY] = act_overlay,
	[KEY_ACT_CALLERS] = act_overlay,
	[KEY_ACT_GROUP] = act_group,
	[KEY_ACT_THEME] = act_theme,
	[KEY_ACT_REDRAW] = act_redraw,
	[KEY_ACT_HELP] = act_overlay,
	[KEY_ACT_QUIT] = act_quit,
	[KEY_ACT_PANE_FOCUS] = act_no_pane,
	[KEY_ACT_ZOOM] = act_no_pane,
	[KEY_ACT_ACCEPT] = act_no_pane,
	[KEY_ACT_EDIT] = act_no_pane,
	[KEY_ACT_EDIT_JSON] = act_no_pane,
	[KEY_ACT_VETO] = act_no_pane,
	[KEY_ACT_ANOTHER] = act_no_pane,
	[KEY_ACT_UNDO] = act_no_pane,
	[KEY_ACT_TALK] = act_no_pane,
	[KEY_ACT_FOCUS_NODE] = act_no_pane,
	[KEY_ACT_CANCEL] = act_no_pane,
	[KEY_ACT_EXPLAIN] = act_overlay,
	[KEY_ACT_LOAD_OUTPUT] = act_overlay,
	[KEY_ACT_EXPORT] = act_export,
	[KEY_ACT_REPLAY_NEXT] = act_replay,
	[KEY_ACT_REPLAY_PREV] = act_replay,
	[KEY_ACT_REPLAY_START] = act_replay,
	[KEY_ACT_REPLAY_END] = act_replay,
	[KEY_ACT_SORT] = act_sort,
	[KEY_ACT_FILTER] = act_filter,
	[KEY_ACT_THRESHOLD] = act_threshold,
	[KEY_ACT_VERDICT_PATH] = act_verdict_path,
	[KEY_ACT_COPY_PATH] = act_copy_path,
	[KEY_ACT_ICICLE] = act_icicle,
	[KEY_ACT_MODEL] = act_model,
	[KEY_ACT_RESET] = act_reset,
};

/* The tree's action for code: what to redraw, or -errno with *cause. */
static int key_tree(struct app *a, int code, char **cause)
{
	enum key_action act = a->replay ? key_lookup_replay(code) : key_lookup(code);

	if ((size_t)act >= sizeof(key_actions) / sizeof(key_actions[0]) || !key_actions[act]) {
		const struct key_binding *b = key_binding_of(code);

		if (a->replay && b && (b->flags & KEY_F_NO_REPLAY))
			app_msg(a, "%s: not in a replay (the pane shows what was recorded)", b->label);
		else if (a->replay && b && (b->flags & KEY_F_LIVE_ONLY))
			app_msg(a, "%s: only in live sampling (a replay shows what was recorded)",
				b->label);
		else
			app_msg(a, "unbound: ? lists keys");
		return APP_DRAW_TREE;
	}
	return key_actions[act](a, act, cause);
}

int app_read_keys(struct app *a, char **cause)
{
	wint_t ch;
	int rc, draw = APP_DRAW_NONE;

	while ((rc = wget_wch(a->win_in, &ch)) != ERR) {
		int fn = rc == KEY_CODE_YES;
		int code = fn ? KEY_FN((int)ch) : (int)ch;
		int r;

		if (fn && ch == KEY_RESIZE)
			continue;
		if (a->mode == MODE_SEARCH) {
			key_search(a, fn, ch);
			continue;
		}
		a->msg[0] = '\0';
		if (a->mode == MODE_OVERLAY) {
			key_overlay(a, code);
			continue;
		}
		if (a->mode == MODE_ICICLE) {
			key_icicle(a, fn, ch, code);
			continue;
		}
		if (app_model_key(a, code) || key_pane(a, code))
			continue;
		r = key_tree(a, code, cause);
		if (r < 0)
			return r;
		draw |= r;
		if (a->quit)
			break;
	}
	if (draw & APP_DRAW_ALL)
		screen_invalidate(&a->scr);   /* every cell again at the next render */
	return 0;
}

/* app_keys — the tree view (app_view_tree), at the bottom of the view
 * stack: its action table (tui/view_keys.c binds the keys and carries
 * their help), its drawing, and the search line (app_view_search) over it.
 * Its actions open the other views (the overlays, the icicle, the model
 * view); the agent pane's keys come before its own (app_view_agent.c). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "app_priv.h"

/* ---- keys ------------------------------------------------------------------------- */

static void search_run(struct app *a)
{
	a->v->sel_id = a->search_origin;
	view_tree_flatten(a->v);
	a->search_found = a->qlen ? view_tree_find(a->v, 1, 1, view_tree_match_name, a->query) : 1;
}

/* The search line: typed text finds as it grows; Enter keeps the match
 * (n / N go on from it), Esc goes back where the search started.  Every
 * key is its. */
static int search_view_key(struct app *a, const struct app_key *k, char **cause)
{
	int fn = k->fn;
	wint_t ch = k->ch;

	(void)cause;
	if (!fn && (ch == '\n' || ch == '\r')) {
		snprintf(a->last_query, sizeof(a->last_query), "%s", a->query);
		app_view_close(a, &app_view_search);
		if (a->qlen && !a->search_found)
			app_msg(a, "no match for '%s'", a->query);
		return APP_DRAW_TREE;
	}
	if (!fn && ch == 27) { /* Esc: back where the search started */
		a->v->sel_id = a->search_origin;
		view_tree_flatten(a->v);
		app_view_close(a, &app_view_search);
		return APP_DRAW_TREE;
	}
	if ((fn && ch == KEY_BACKSPACE) || (!fn && (ch == 127 || ch == 8))) {
		while (a->qlen && ((unsigned char)a->query[a->qlen - 1] & 0xc0) == 0x80)
			a->qlen--;
		if (a->qlen)
			a->qlen--;
		a->query[a->qlen] = '\0';
		search_run(a);
		return APP_DRAW_TREE;
	}
	if (!fn && ch == KEY_CTRL('u')) {
		a->qlen = 0;
		a->query[0] = '\0';
		search_run(a);
		return APP_DRAW_TREE;
	}
	if (!fn && ch >= 32) {
		char mb[MB_LEN_MAX];
		mbstate_t ps;
		size_t n;

		memset(&ps, 0, sizeof(ps));
		n = wcrtomb(mb, (wchar_t)ch, &ps);
		if (n == (size_t)-1 || a->qlen + n >= sizeof(a->query))
			return APP_DRAW_TREE;
		memcpy(a->query + a->qlen, mb, n);
		a->qlen += n;
		a->query[a->qlen] = '\0';
		search_run(a);
	}
	return APP_DRAW_TREE;
}

/* the cursor at the end of the typed text, on the tree pane's footer */
static void search_view_draw(struct app *a, const struct app_frame *f)
{
	(void)f;
	wmove(a->scr.wtree, a->scr.tree.h - 1, 1 + fmt_width(a->query));
	wnoutrefresh(a->scr.wtree);
}

const struct app_view_ops app_view_search = {
	.name = "search",
	.area = APP_AREA_OVER,
	.flags = APP_VIEW_F_TYPING,
	.draw = search_view_draw,
	.key = search_view_key,
};

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
	app_view_open(a, &app_view_search);
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
	line = app_prompt(a, a->field, "filter (Enter on empty: all)> ", a->v->filter,
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
	app_icicle_open(a);
	return APP_DRAW_TREE;
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

static int tree_view_key(struct app *a, const struct app_key *k, char **cause)
{
	return key_tree(a, k->code, cause);
}

static void tree_view_fit(struct app *a)
{
	view_tree_set_height(a->v, (unsigned)screen_tree_rows(&a->scr));
}

/* What ref/s and load/s count: samples of the sampler, or with time
 * accounting (--time wall: TREE_TIME levels) thread time, blocked and
 * runnable nanoseconds turned into sample-equivalents. */
static const char *app_rate_unit(const struct tree *t)
{
	const struct tree_node *r = t ? t->root : NULL;

	if (!r)
		return NULL;
	/* the level is below the root, or below a process (trees by process):
	 * two levels looked at, not the whole tree at every frame */
	for (unsigned i = 0; i < r->nchild; i++) {
		const struct tree_node *c = r->child[i];

		if (c->kind == TREE_TIME)
			return "thread time, samples/s";
		for (unsigned k = 0; k < c->nchild; k++)
			if (c->child[k]->kind == TREE_TIME)
				return "thread time, samples/s";
	}
	return "samples/s";
}

static void tree_view_draw(struct app *a, const struct app_frame *f)
{
	struct fmt_cols cols;
	struct fmt_row_ctx ctx;

	if (!screen_tree_shown(&a->scr))
		return;
	ctx.unit = app_rate_unit(a->t);
	/* %CPU only of sampled CPU time at a known frequency: with --time
	 * wall the rates are thread time (on-CPU, blocked and runnable
	 * together), whose share of a CPU would read as more than it ran */
	fmt_cols_layout(&cols, a->scr.tree.w, a->calibrated,
			a->st.freq_hz && ctx.unit && !strcmp(ctx.unit, "samples/s"));
	ctx.gl = a->gl;
	ctx.cols = &cols;
	ctx.root_total = a->t && a->t->root ? tree_node_sum(a->t->root) : 0;
	ctx.match = app_view_is_open(a, &app_view_search) ? a->query : a->last_query;
	screen_draw_tree(&a->scr, a->v, &ctx, f->footer, f->frole, a->v->threshold);
}

static void tree_view_free(struct app *a)
{
	view_tree_free(a->v);
	a->v = NULL;
}

const struct app_view_ops app_view_tree = {
	.name = "tree",
	.area = APP_AREA_TREE,
	.fit = tree_view_fit,
	.draw = tree_view_draw,
	.key = tree_view_key,
	.free = tree_view_free,
};

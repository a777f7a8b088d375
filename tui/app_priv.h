/* app_priv — the interactive tree's state, shared by its files (no one
 * else includes this).
 *
 * The screen is made of views (as tmux's window modes and htop's panels):
 * each is one struct app_view_ops (fit, draw, key, free) and shows in one
 * area.  The open views form a stack, the tree at its bottom: a key goes
 * down the stack from the top until a view takes it, and each area shows
 * the topmost open view that draws there.
 *
 * Calls go down this list, never up (no call circle, tests/docs/circles.py):
 *   app.c             the poll loop, the stack's keys and drawing, signals,
 *                     terminal set-up/teardown
 *   app_keys.c        the tree view: its action table (each action says
 *                     what to redraw), its drawing, and the search line
 *   app_view_agent.c  the agent pane's view: its keys, prompts and drawing
 *   app_view_icicle.c the icicle view (i) in the tree area
 *   app_model.c       the model view (m; tui/view_model.h) in the side area
 *   app_overlay.c     the help, why and explain overlays (a view over all)
 *   app_replay.c      replay (n/b through a session) and the markdown export (w)
 *   app_tree.c        the tree shown: rebuilt (core/analysis/analysis.h), with a
 *                     replay's steps, sorted, laid out as an icicle
 *   app_state.c       the status message, the theme, the view stack and the
 *                     line prompt, which every file above uses
 *   The tree view opens the others (their ops are data it names); none of
 *   them calls the tree view, and the tree and the state call none above. */
#ifndef ARGUS_APP_PRIV_H
#define ARGUS_APP_PRIV_H

#include <signal.h>
#include <stdio.h>
#include <wchar.h>

#include <curses.h>

#include "analysis/analysis.h"
#include "app.h"
#include "edit_line.h"
#include "pane.h"
#include "theme.h"
#include "base/util.h"
#include "view_keys.h"
#include "view_log.h"
#include "view_decay.h"
#include "view_model.h"
#include "view_screen.h"
#include "view_icicle.h"
#include "view_tree.h"


#define APP_MAX_SRC_FDS 16
#define APP_MAX_AGENT_FDS 8
#define APP_LOG_LINES 500
#define APP_MAX_STEPS 128      /* steps merged into one tree (pane and replay) */
#define APP_MAX_VIEWS 8        /* open at once: tree, agent, model, icicle, search, overlay */

struct app;

/* Where a view draws. */
enum app_area {
	APP_AREA_TREE,            /* the tree pane: the tree, the icicle */
	APP_AREA_SIDE,            /* the side pane: the agent pane, the model view */
	APP_AREA_OVER,            /* over both: an overlay, the search line's cursor */
	APP_AREA_N,
};

/* What render() works out once for the views it draws. */
struct app_frame {
	const char *footer;       /* the tree pane's footer line (a message, a
	                           * filter, a replay's position); NULL: none */
	enum theme_role frole;
};

/* A key as read: fn (a function key; ch is then KEY_*), ch, and code
 * (KEY_FN(ch) for function keys: what the key table binds). */
struct app_key {
	int fn;
	wint_t ch;
	int code;
};

/* A view's key handler returns this when the key is not its: the view
 * under it in the stack is asked next. */
#define APP_KEY_PASS 0x100

enum app_view_flags {
	APP_VIEW_F_TYPING = 1,    /* its keys are typed text: the status message
	                           * stays and the cursor shows (its draw puts it) */
};

struct app_view_ops {
	const char *name;
	enum app_area area;
	unsigned flags;           /* enum app_view_flags */
	/* before drawing, every open view: follow a resize, a rebuilt tree
	 * (NULL: nothing to follow) */
	void (*fit)(struct app *a);
	/* draws the view in its area, when it is the area's topmost */
	void (*draw)(struct app *a, const struct app_frame *f);
	/* a key: APP_KEY_PASS, or what to redraw (enum app_draw), or -errno
	 * with *cause (the loop ends) */
	int (*key)(struct app *a, const struct app_key *k, char **cause);
	/* at the end, whether or not it was ever opened: what it owns
	 * (NULL: nothing) */
	void (*free)(struct app *a);
};

/* The views (each defined in its file above). */
extern const struct app_view_ops app_view_tree, app_view_search, app_view_agent,
	app_view_icicle, app_view_model, app_view_overlay;

struct app {
	struct source *src;
	struct tui_opts o;
	struct tree *t;           /* an.t: the tree shown */
	struct view_tree *v;
	struct view_decay decay;  /* --decay (o.decay_s > 0): the live tree's view */
	struct screen scr;
	SCREEN *term;
	WINDOW *win_in;           /* keys are read here, never drawn on */
	struct theme theme;
	int theme_idx;
	const struct glyphs *gl;
	int utf8;
	struct log_ring *log;
	FILE *logf;
	int sigfd, errpipe, saved_err;
	sigset_t sigmask, oldmask;
	int calibrated;           /* an.calibrated */
	enum tree_group group;
	const struct app_view_ops *views[APP_MAX_VIEWS]; /* the open views, bottom first */
	int nviews;
	char query[128];
	size_t qlen;
	char last_query[128];
	uint64_t search_origin;
	int search_found;
	char **ov_lines;
	int ov_n, ov_top;
	char ov_title[128];
	char msg[256];
	int quit;
	double last_rebuild;
	int pending_change;
	struct source_status st;
	/* the agent pane (NULL without one) */
	struct pane *pane;
	int focus_agent;          /* Tab: keys go to the agent pane */
	struct edit_line *talk;   /* ':' prompt, history in $XDG_STATE_HOME */
	struct edit_line *field;  /* field edits and veto reasons, in memory */
	int replay;               /* src is a session replay: n/b step through it */
	struct analysis an;       /* the tree shown (an.t), its verdict, lines, summary */
	int sort_idx;             /* s: index in app_sorts; 0: by delta (calibrated)
	                           * or total, as analysis_run sorts */
	struct icicle ic;         /* i: the icicle view (app_view_icicle) */
	struct view_model *model; /* m: the model of the load (view_model.h) */
};

/* What a key action changed, to be drawn (bits). */
enum app_draw {
	APP_DRAW_NONE = 0,
	APP_DRAW_TREE = 1,        /* the tree pane and its footer */
	APP_DRAW_OVERLAY = 2,     /* an overlay opened */
	APP_DRAW_PANES = 4,       /* every pane and bar (layout, theme, replay moved) */
	APP_DRAW_ALL = 8,         /* every cell again (Ctrl-L) */
};

/* app_state.c: the status bar's message; the terminal's colour depth; t:
 * the next of app_themes (the message says which, or why not). */
void app_msg(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
enum theme_depth app_term_depth(void);
extern const char *const app_themes[4];
void app_cycle_theme(struct app *a);
/* The panes laid out again (zoom, focus, the model view), themed; out of
 * memory is said in the status message. */
void app_relayout(struct app *a);
/* The view stack: v opened on top (once: an open view moves to the top);
 * v closed (the others stay); whether v is open; the topmost open
 * view of an area (NULL: none), or of all (area APP_AREA_N). */
void app_view_open(struct app *a, const struct app_view_ops *v);
void app_view_close(struct app *a, const struct app_view_ops *v);
int app_view_is_open(const struct app *a, const struct app_view_ops *v);
const struct app_view_ops *app_view_top(const struct app *a, enum app_area area);
/* A line read at the bottom row (e: its history); NULL when abandoned or
 * out of memory (then said).  The caller frees it. */
char *app_prompt(struct app *a, struct edit_line *e, const char *text, const char *initial,
		 enum edit_complete what);

/* app_tree.c: the tree again from the source's profile and the steps'
 * results (the pane's, a replay's): core/analysis/analysis.h.  0 or -errno
 * with *cause. */
int app_rebuild(struct app *a, char **cause);
/* The sort orders s cycles through. */
struct app_sort {
	const char *name;
	enum tree_sort_key key;
};
extern const struct app_sort app_sorts[5];
/* Re-sorts a->t by a->sort_idx (after a rebuild, after s). */
void app_sort_tree(struct app *a);
/* The icicle view in the tree pane (mode MODE_ICICLE) laid out
 * over the tree shown now (after a rebuild its nodes are new). */
int app_icicle_layout(struct app *a);

/* app_overlay.c */
void app_overlay_free(struct app *a);
void app_overlay_add(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void app_overlay_open(struct app *a, const char *title);
void app_open_help(struct app *a);
void app_open_why(struct app *a);
void app_open_callers(struct app *a);
void app_open_explain(struct app *a);
/* The load's output lines (measure's "load: " lines in the log ring). */
void app_open_load_output(struct app *a);

/* app_model.c: m opens / closes the model view (it then owns the side
 * pane). */
void app_model_toggle(struct app *a);

/* app_view_icicle.c: i opens the icicle of the selected node. */
void app_icicle_open(struct app *a);

/* app_replay.c */
int app_replay_talks(struct source *src);
int app_replay_move(struct app *a, enum key_action act, char **cause);
void app_replay_footer(struct app *a, char *buf, size_t len);
void app_write_export(struct app *a);

#endif

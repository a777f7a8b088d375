/* app_priv — the interactive tree's state, shared by its files (no one
 * else includes this).  Calls go down this list, never up (no call circle,
 * tests/docs/circles.py):
 *   app.c          the poll loop, drawing, signals, terminal set-up/teardown
 *   app_keys.c     keys: the action table (each action says what to redraw),
 *                  search, the agent pane's keys and prompts
 *   app_overlay.c  the help, why and explain overlays
 *   app_replay.c   replay (n/b through a session) and the markdown export (w)
 *   app_model.c    the model view's layout and keys (m; tui/view_model.h)
 *   app_tree.c     the tree shown: rebuilt (core/analysis/analysis.h), with a
 *                  replay's steps, sorted, laid out as an icicle
 *   app_state.c    the status message and the theme, which every file above
 *                  changes
 *   app.c calls the keys, the overlays, the model view and replay; the keys
 *   call the overlays, the model view and replay; the tree and the state are
 *   called by the files above them and call none of them. */
#ifndef ARGUS_APP_PRIV_H
#define ARGUS_APP_PRIV_H

#include <signal.h>
#include <stdio.h>

#include <curses.h>

#include "analysis/analysis.h"
#include "app.h"
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

enum app_mode {
	MODE_TREE,
	MODE_SEARCH,
	MODE_OVERLAY,
	MODE_ICICLE,              /* i: the icicle view in the tree pane */
};

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
	enum app_mode mode;
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
	struct icicle ic;         /* i: the icicle view (mode MODE_ICICLE) */
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

/* app.c: the icicle view drawn. */
void app_draw_icicle(struct app *a);

/* app_keys.c: every key waiting on the terminal; 0 or -errno with *cause. */
int app_read_keys(struct app *a, char **cause);

/* app_overlay.c */
void app_overlay_free(struct app *a);
void app_overlay_add(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void app_overlay_open(struct app *a, const char *title);
void app_overlay_close(struct app *a);
void app_open_help(struct app *a);
void app_open_why(struct app *a);
void app_open_callers(struct app *a);
void app_open_explain(struct app *a);
/* The load's output lines (measure's "load: " lines in the log ring). */
void app_open_load_output(struct app *a);

/* app_model.c: m opens / closes the model view; its keys while open
 * (returns 1 when the key was taken). */
void app_model_toggle(struct app *a);
int app_model_key(struct app *a, int code);
/* 1 when the model view is open (it then owns the side pane). */
int app_model_open(const struct app *a);
/* Before drawing: the view follows a resize and a growing wait graph. */
void app_model_fit(struct app *a);

/* app_replay.c */
int app_replay_talks(struct source *src);
int app_replay_move(struct app *a, enum key_action act, char **cause);
void app_replay_footer(struct app *a, char *buf, size_t len);
void app_write_export(struct app *a);

#endif

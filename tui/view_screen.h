/* view_screen — the curses side: windows laid out in one place, styled
 * lines drawn only when they changed, overlays, the too-small screen.
 *
 * Layout (one place, screen_layout): a header line, the tree pane (column
 * heading, rows, a footer line for the hidden-node count, prompts and
 * messages) and the status bar.  The agent pane (a later issue) gets the
 * rect `agent`: beside the tree on wide terminals, below it on narrow ones;
 * it is empty until a caller asks for it with screen_set_agent_pane.
 */
#ifndef ARGUS_VIEW_SCREEN_H
#define ARGUS_VIEW_SCREEN_H

#include <curses.h>

#include "fmt.h"
#include "theme.h"

struct view_tree;

enum {
	SCREEN_ZOOM_NONE,
	SCREEN_ZOOM_TREE,         /* the tree alone (the agent pane hidden) */
	SCREEN_ZOOM_AGENT,        /* the agent pane alone */
};

#define SCREEN_MIN_COLS 40
#define SCREEN_MIN_ROWS 10

struct rect {
	int y, x, h, w;
};

struct line_cache {
	struct fmt_line *line;    /* what each row shows now */
	unsigned char *valid;
	int n;
};

struct screen {
	int rows, cols;
	int too_small;
	int want_agent;           /* reserve the agent pane */
	int zoom;                 /* SCREEN_ZOOM_*: one pane takes the whole middle */
	struct rect header, tree, agent, status;
	WINDOW *whead, *wtree, *wstatus, *wagent; /* wagent NULL without the pane */
	attr_t attr[THEME_ROLE_N];
	enum theme_depth depth;
	struct line_cache chead, ctree, cstatus, cagent;
	struct fmt_line scratch;
	WINDOW *overlay;
	/* statistics for the benchmark: rows drawn / skipped since reset */
	unsigned long drawn, skipped;
};

/* After initscr: creates the windows for the terminal's size.  Returns 0
 * or -ENOMEM. */
int screen_init(struct screen *s);
void screen_fini(struct screen *s);
/* The terminal is now rows x cols (resizeterm done); lays out again. */
int screen_resize(struct screen *s, int rows, int cols);
/* Applies theme t at depth d (start_color done when d is not mono). */
void screen_set_theme(struct screen *s, const struct theme *t, enum theme_depth d);
/* Forgets what is on the screen so the next draw repaints everything. */
void screen_invalidate(struct screen *s);

/* Lays out again after want_agent or zoom changed; 0 or -ENOMEM. */
int screen_relayout(struct screen *s);
/* 1 when the tree pane / the agent pane is on screen now. */
int screen_tree_shown(const struct screen *s);
int screen_agent_shown(const struct screen *s);

/* Rows available for tree rows (pane height minus heading and footer). */
int screen_tree_rows(const struct screen *s);

/* The header line: title, " · " state, summary (fmt_header). */
void screen_draw_header(struct screen *s, const char *title, const char *state,
			const struct fmt_header_sum *summary, const struct glyphs *gl);
/* Heading, visible rows of v, footer (footer_text overrides the hidden
 * count line when not NULL: prompts and messages). */
void screen_draw_tree(struct screen *s, struct view_tree *v, const struct fmt_row_ctx *ctx,
		      const char *footer_text, enum theme_role footer_role, double threshold);
void screen_draw_status(struct screen *s, const struct source_status *st,
			const struct glyphs *gl);
/* A centred box with a title and lines, scrolled by *top (clamped). */
void screen_draw_overlay(struct screen *s, const char *title, const char *const *lines,
			 int nlines, int *top);
void screen_close_overlay(struct screen *s);
/* The "terminal too small" screen. */
void screen_draw_too_small(struct screen *s);
/* Sends everything to the terminal (doupdate). */
void screen_flush(struct screen *s);

/* Draws l at row y of w unless the cache says it is already there. */
void screen_put_line(struct screen *s, WINDOW *w, struct line_cache *c, int y,
		     const struct fmt_line *l);

#endif

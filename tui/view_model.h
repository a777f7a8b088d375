/* view_model — the model of the load on screen (m): its tasks with their
 * threads, CPU demand and utilisation, the calls between them with calls
 * per request, the hidden queues (locks), the disk, and the wait chain of
 * the diagnosed load on one line (wrapped to the pane).
 *
 * Where the model comes from: a live calibrated run with time accounting
 * (--time wall, the default with --victim) keeps the wait graph of each
 * loaded window, and --steady / --mark choose which of them the model is
 * built from (core/measure/measure.h: measure_model_windows); the view builds the
 * model from them (core/model/model.h), again when more loaded windows arrived,
 * and says first which windows those are and why.  While the windows are
 * not there (no mark seen yet, too few windows for a steady state) or
 * when measuring ended without them, it says so.  A replay shows the model saved in the session
 * (core/measure/session.h: session_log_model).  Otherwise the view says why there
 * is none and how to get one.  Rows and the chain come from core
 * (core/model/model_view.h); this file only lays them out.
 *
 * Where it goes: the side pane's rect (where the agent pane is; the model
 * replaces the agent pane while open), and on terminals narrower than 120
 * columns the whole middle of the screen; m (or Esc) goes back.
 */
#ifndef ARGUS_VIEW_MODEL_H
#define ARGUS_VIEW_MODEL_H

#include "fmt.h"
#include "model/model.h"
#include "model/model_view.h"

struct screen;
struct source;

struct view_model {
	int open;
	int have;                 /* m holds a model */
	struct model m;
	struct model_row *rows;   /* from model_rows, owned */
	int nrows;
	char chain[640];          /* the wait chain, "" when none */
	char rest[240];           /* the rest of the reference's response */
	char origin[160];         /* where the model comes from */
	char windows[240];        /* the loaded windows it is built from, and why
	                           * ("steady state: windows 3-9 of 12 ...") */
	char why[800];            /* no model: why, and how to get one */
	double built_secs;        /* wait graph length it was built from; -1 never */
	int top;                  /* first line shown */
	int nlines;               /* lines at the last draw (for the scroll) */
	/* the layout before the view opened, restored when it closes */
	int saved_want_agent, saved_zoom;
};

/* A closed view; NULL when out of memory.  view_model_free is NULL-safe. */
struct view_model *view_model_new(void);
void view_model_free(struct view_model *vm);

/* (Re)builds the model from src: a replay's session, or a live measure
 * source's wait graph (again only when it grew).  utf8: the chain's
 * arrow. */
void view_model_update(struct view_model *vm, struct source *src, int replay, int utf8);

/* Scrolls by delta lines (clamped at the next draw). */
void view_model_scroll(struct view_model *vm, int delta);

/* Draws the view into the side pane's window of s. */
void view_model_draw(struct screen *s, struct view_model *vm, int takeover,
		     const struct glyphs *gl);

#endif

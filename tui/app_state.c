/* app_state — the screen state every part of the interactive tree changes:
 * the status message, the theme (the terminal's colour depth, the themes t
 * cycles through), the stack of open views, and the line prompt.  Split
 * from app.c so that the loop (app.c), the views (app_keys.c,
 * app_view_*.c, app_model.c, app_overlay.c) and replay (app_replay.c) all
 * call down into it, and it calls none of them: a part never calls back
 * into the file above it (doc/ARCHITECTURE.md, "The rule", 3). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "app_priv.h"

const char *const app_themes[4] = { "default", "light", "high-contrast", "mono" };

void app_msg(struct app *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
}

/* ---- theme ------------------------------------------------------------------------ */

enum theme_depth app_term_depth(void)
{
	const char *nc = getenv("NO_COLOR");

	if ((nc && *nc) || !has_colors())
		return THEME_DEPTH_MONO;
	return theme_depth_for(COLORS, nc);
}

void app_cycle_theme(struct app *a)
{
	struct theme t;
	char *cause = NULL;
	int n = (int)(sizeof(app_themes) / sizeof(app_themes[0]));

	a->theme_idx = (a->theme_idx + 1) % n;
	if (theme_load(&t, app_themes[a->theme_idx], &cause) < 0) {
		app_msg(a, "%s", cause ? cause : "cannot load theme");
		free(cause);
		return;
	}
	a->theme = t;
	screen_set_theme(&a->scr, &a->theme, app_term_depth());
	app_msg(a, "theme %s", a->theme.name);
}

/* The panes again after a change of layout (zoom, focus, the model view),
 * in the theme's colours; out of memory is said. */
void app_relayout(struct app *a)
{
	if (screen_relayout(&a->scr) < 0)
		app_msg(a, "cannot lay out the screen: out of memory");
	screen_set_theme(&a->scr, &a->theme, app_term_depth());
}

/* ---- the view stack ---------------------------------------------------------------- */

static int app_view_index(const struct app *a, const struct app_view_ops *v)
{
	for (int i = 0; i < a->nviews; i++)
		if (a->views[i] == v)
			return i;
	return -1;
}

static void app_view_remove(struct app *a, int i)
{
	memmove(&a->views[i], &a->views[i + 1], (size_t)(a->nviews - i - 1) * sizeof(a->views[0]));
	a->nviews--;
}

int app_view_is_open(const struct app *a, const struct app_view_ops *v)
{
	return app_view_index(a, v) >= 0;
}

void app_view_open(struct app *a, const struct app_view_ops *v)
{
	int i = app_view_index(a, v);

	if (i >= 0)              /* open already: to the top */
		app_view_remove(a, i);
	if (a->nviews < APP_MAX_VIEWS)   /* six views exist: never full */
		a->views[a->nviews++] = v;
}

void app_view_close(struct app *a, const struct app_view_ops *v)
{
	int i = app_view_index(a, v);

	if (i >= 0)
		app_view_remove(a, i);
}

const struct app_view_ops *app_view_top(const struct app *a, enum app_area area)
{
	for (int i = a->nviews; i-- > 0;)
		if (area == APP_AREA_N || a->views[i]->area == area)
			return a->views[i];
	return NULL;
}

/* ---- the line prompt --------------------------------------------------------------- */

char *app_prompt(struct app *a, struct edit_line *e, const char *text, const char *initial,
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

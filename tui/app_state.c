/* app_state — the screen state every part of the interactive tree changes:
 * the status message and the theme (the terminal's colour depth, the
 * themes t cycles through).  Split from app.c so that the loop (app.c),
 * the keys (app_keys.c), the model view (app_model.c) and replay
 * (app_replay.c) all call down into it, and it calls none of them: a part
 * never calls back into the file above it (doc/ARCHITECTURE.md, "The
 * rule", 3). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>


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

/* view_agent — draws the agent pane (struct pane, tui/pane.h) into the
 * screen's agent window: a title line, the verdict line, the transcript
 * scrolled to its end
 * (or back by pane.scroll lines), the current proposal card below it, and
 * the key hints on the last line.  Lines come from tui/fmt_agent.c and go
 * through screen_put_line, so only changed rows are redrawn. */
#ifndef ARGUS_VIEW_AGENT_H
#define ARGUS_VIEW_AGENT_H

#include "fmt.h"
#include "view_screen.h"

struct pane;

/* Draws p into s->wagent (nothing when the pane is not shown).  verdict
 * (NULL: none): the ◆ path as one line (fmt_verdict_line), kept under the
 * title whatever the pane shows, so it stays in view at decision time. */
void view_agent_draw(struct screen *s, struct pane *p, const char *agent_name, int focused,
		     const struct fmt_line *verdict, const struct glyphs *gl);

/* Scrolls the transcript back (delta > 0) or forward; clamped when drawn. */
void view_agent_scroll(struct pane *p, int delta);

#endif

/* fmt_stream — the text the agent pane shows for an LLM turn in flight
 * (tui/pane_stream.h holds it): the end of the streamed reply and a
 * "thinking" line with the elapsed seconds.  No curses here. */
#ifndef ARGUS_FMT_STREAM_H
#define ARGUS_FMT_STREAM_H

#include <stddef.h>

#include "pane_stream.h"

/* The end of the streamed text (at most max_lines lines, about 1 KiB) to
 * show; "" when none.  Points into ps. */
const char *fmt_stream_tail(const struct pane_stream *ps, unsigned max_lines);
/* The end of the model's own thinking, "model thinking: ...", into buf
 * (about 300 bytes, whole characters); "" when it sent none.  Returns buf. */
char *fmt_stream_think(const struct pane_stream *ps, char *buf, size_t len);
/* "thinking… 3 s (Esc cancels)" and, while a step is being proposed, a
 * second line "proposing a step… 120 bytes", into buf; returns buf.  The seconds are
 * those of the last pane_stream_changed. */
char *fmt_stream_status(const struct pane_stream *ps, int utf8, char *buf, size_t len);

#endif

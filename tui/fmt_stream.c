/* fmt_stream — an LLM turn in flight as agent-pane text (see fmt_stream.h). */
#include <stdio.h>
#include <string.h>

#include "fmt_stream.h"

#define FMT_STREAM_TAIL 1024      /* bytes of the streamed text shown at most */

const char *fmt_stream_tail(const struct pane_stream *ps, unsigned max_lines)
{
	const char *t, *end;
	unsigned nl = 0;

	if (!ps || !ps->len)
		return "";
	end = ps->text + ps->len;
	while (end > ps->text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	t = end;
	while (t > ps->text && end - t < FMT_STREAM_TAIL) {
		if (t[-1] == '\n' && ++nl >= max_lines)
			break;
		t--;
	}
	while (((unsigned char)*t & 0xc0) == 0x80) /* not in the middle of a character */
		t++;
	while (*t == '\n' || *t == ' ')
		t++;
	return t;
}

char *fmt_stream_think(const struct pane_stream *ps, char *buf, size_t len)
{
	const char *t;

	if (!len)
		return buf;
	buf[0] = 0;
	if (!ps || !ps->think_len)
		return buf;
	t = ps->think + (ps->think_len > 300 ? ps->think_len - 300 : 0);
	while (((unsigned char)*t & 0xc0) == 0x80) /* not in the middle of a character */
		t++;
	snprintf(buf, len, "model thinking (%zu bytes): %s%s", ps->think_bytes,
		 ps->think_bytes > (size_t)(ps->think + ps->think_len - t) ? "..." : "", t);
	/* one line, and no control character from the server reaches the
	 * terminal */
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return buf;
}

char *fmt_stream_status(const struct pane_stream *ps, int utf8, char *buf, size_t len)
{
	const char *ell = utf8 ? "\u2026" : "...";
	long s = ps ? ps->shown_s : 0;
	int off;

	off = snprintf(buf, len, "thinking%s %ld s (Esc cancels)", ell, s < 0 ? 0 : s);
	if (ps && ps->tool_bytes && off >= 0 && (size_t)off < len)
		snprintf(buf + off, len - (size_t)off, "\nproposing a step%s %zu bytes", ell,
			 ps->tool_bytes);
	return buf;
}

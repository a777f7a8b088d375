/* fmt_line — a line of text with role spans, built off-screen. */
#include <string.h>

#include "fmt.h"
#include "base/sanitize.h"

void fmt_line_reset(struct fmt_line *l)
{
	l->len = 0;
	l->width = 0;
	l->nspan = 0;
	l->selected = 0;
	l->text[0] = '\0';
}

static void add_bytes(struct fmt_line *l, enum theme_role r, const char *s, size_t n, int w)
{
	struct fmt_span *last = l->nspan ? &l->span[l->nspan - 1] : NULL;

	if (n > (size_t)(FMT_LINE_MAX - 1 - l->len))
		return; /* the line is full: never cut a character in half */
	if (!n)
		return;
	memcpy(l->text + l->len, s, n);
	if (last && last->role == r && last->start + last->len == l->len) {
		last->len += (uint16_t)n;
	} else if (l->nspan < FMT_SPAN_MAX) {
		l->span[l->nspan].start = l->len;
		l->span[l->nspan].len = (uint16_t)n;
		l->span[l->nspan].role = (uint8_t)r;
		l->nspan++;
	} else if (last) {
		last->len = (uint16_t)(l->len + n - last->start);
	}
	l->len += (uint16_t)n;
	l->text[l->len] = '\0';
	l->width += (uint16_t)w;
}

/* Every piece of a screen line passes here: names, notes, LLM text are
 * escaped at their readers already, and whatever slipped past (a string
 * from a path nobody thought of) is escaped now, before curses sees it.
 * Returns s, or buf holding the escaped form of its n bytes. */
static const char *fmt_safe(const char *s, size_t *n, char *buf, size_t bufsz)
{
	char raw[FMT_LINE_MAX];
	size_t i, k;

	for (i = 0; i < *n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			break;
	if (i == *n)
		return s;
	k = *n < sizeof(raw) - 1 ? *n : sizeof(raw) - 1;
	memcpy(raw, s, k);
	raw[k] = '\0';
	if (sanitize_is_clean(raw, 0) && k == *n)
		return s;
	sanitize_into(buf, bufsz, raw, 0);
	*n = strlen(buf);
	return buf;
}

int fmt_line_add(struct fmt_line *l, enum theme_role r, const char *s, int maxw)
{
	char safe[FMT_LINE_MAX];
	int w;
	size_t n = strlen(s);

	s = fmt_safe(s, &n, safe, sizeof(safe));
	if (maxw < 0)
		maxw = 1 << 20;
	n = fmt_fit(s, maxw, &w);
	add_bytes(l, r, s, n, w);
	return w;
}

void fmt_line_addn(struct fmt_line *l, enum theme_role r, const char *s, size_t n)
{
	char safe[FMT_LINE_MAX];

	s = fmt_safe(s, &n, safe, sizeof(safe));
	add_bytes(l, r, s, n, fmt_widthn(s, n));
}

int fmt_line_add_trunc(struct fmt_line *l, enum theme_role r, const char *s, int maxw,
		       const struct glyphs *gl)
{
	char safe[FMT_LINE_MAX];
	int w, ew;
	size_t n = strlen(s);

	if (maxw <= 0)
		return 0;
	s = fmt_safe(s, &n, safe, sizeof(safe));
	if (fmt_width(s) <= maxw)
		return fmt_line_add(l, r, s, maxw);
	ew = fmt_width(gl->g[GLYPH_ELLIPSIS]);
	n = fmt_fit(s, maxw - ew, &w);
	add_bytes(l, r, s, n, w);
	add_bytes(l, r, gl->g[GLYPH_ELLIPSIS], strlen(gl->g[GLYPH_ELLIPSIS]), ew);
	return w + ew;
}

int fmt_line_add_mid(struct fmt_line *l, enum theme_role r, const char *s, int maxw,
		     const struct glyphs *gl)
{
	char safe[FMT_LINE_MAX];
	size_t n = strlen(s), head, tail;
	int before = l->width;

	if (maxw <= 0)
		return 0;
	s = fmt_safe(s, &n, safe, sizeof(safe));
	head = fmt_mid_cut(s, maxw, fmt_width(gl->g[GLYPH_ELLIPSIS]), &tail);
	if (head == strlen(s))
		return fmt_line_add(l, r, s, maxw);
	add_bytes(l, r, s, head, fmt_widthn(s, head));
	fmt_line_add(l, r, gl->g[GLYPH_ELLIPSIS], -1);
	if (tail < strlen(s))
		fmt_line_add(l, r, s + tail, -1);
	return l->width - before;
}

void fmt_line_pad(struct fmt_line *l, enum theme_role r, int width)
{
	static const char spaces[] = "                                ";

	while (l->width < width) {
		int n = width - l->width;
		uint16_t before = l->len;

		if (n > 32)
			n = 32;
		add_bytes(l, r, spaces, (size_t)n, n);
		if (l->len == before)
			break;
	}
}

int fmt_line_eq(const struct fmt_line *a, const struct fmt_line *b)
{
	if (a->len != b->len || a->nspan != b->nspan || a->selected != b->selected ||
	    a->width != b->width)
		return 0;
	if (memcmp(a->text, b->text, a->len))
		return 0;
	for (unsigned i = 0; i < a->nspan; i++)
		if (a->span[i].start != b->span[i].start || a->span[i].len != b->span[i].len ||
		    a->span[i].role != b->span[i].role)
			return 0;
	return 1;
}

enum theme_role fmt_line_role_at(const struct fmt_line *l, size_t off)
{
	for (unsigned i = 0; i < l->nspan; i++)
		if (off >= l->span[i].start && off < (size_t)l->span[i].start + l->span[i].len)
			return (enum theme_role)l->span[i].role;
	return THEME_NORMAL;
}

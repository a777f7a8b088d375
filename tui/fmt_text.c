/* fmt_text — display widths of UTF-8 text (wcwidth, never strlen). */
#include <string.h>
#include <wchar.h>

#include "fmt.h"

/* Width and length of the character at s (len bytes left); invalid or
 * unprintable bytes count as one column, one byte. */
static int char_width(const char *s, size_t left, size_t *bytes)
{
	mbstate_t st;
	wchar_t wc;
	size_t n;
	int w;

	if ((unsigned char)*s < 0x80) {
		*bytes = 1;
		return 1;
	}
	memset(&st, 0, sizeof(st));
	n = mbrtowc(&wc, s, left, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*bytes = 1;
		return 1;
	}
	*bytes = n;
	w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

int fmt_width(const char *s)
{
	return fmt_widthn(s, strlen(s));
}

int fmt_widthn(const char *s, size_t left)
{
	size_t b;
	int w = 0;

	while (left) {
		w += char_width(s, left, &b);
		s += b;
		left -= b;
	}
	return w;
}

size_t fmt_fit(const char *s, int maxw, int *w)
{
	size_t left = strlen(s), used = 0, b;
	int cw, total = 0;

	while (left) {
		cw = char_width(s + used, left, &b);
		if (total + cw > maxw)
			break;
		total += cw;
		used += b;
		left -= b;
	}
	if (w)
		*w = total;
	return used;
}

size_t fmt_mid_cut(const char *s, int maxw, int ew, size_t *tail)
{
	size_t len = strlen(s), n;
	int headw, tailw;

	*tail = len;
	if (fmt_width(s) <= maxw)
		return len;
	if (maxw - ew < 4)                /* too narrow for both ends */
		return fmt_fit(s, maxw - ew > 0 ? maxw - ew : 0, NULL);
	headw = (maxw - ew + 1) / 2;
	tailw = maxw - ew - headw;
	n = fmt_fit(s, headw, NULL);
	/* the shortest suffix starting on a character that fits tailw */
	for (size_t t = n; t < len; t++)
		if (((unsigned char)s[t] & 0xc0) != 0x80 && fmt_width(s + t) <= tailw) {
			*tail = t;
			break;
		}
	return n;
}
